#include "cli/commands.h"

#include "cli/snapshot_files.h"
#include "placement/cluster_index.h"
#include "policy/effective_policy.h"
#include "policy/loader.h"
#include "policy/volcano_policy.h"
#include "report/feasibility_report.h"

namespace loadshift::cli {

std::string_view version() {
  return LOADSHIFT_VERSION;
}

int run_feasible(const std::vector<std::string>& snapshot_files, std::ostream& out,
                 std::ostream& err) {
  model::Snapshot snapshot;
  model::DecodeSummary summary = read_snapshot_files(snapshot_files, &snapshot);
  if (!summary.ok()) {
    for (const auto& e : summary.errors) err << "error: " << e.to_string() << "\n";
    if (summary.errors_dropped > 0) {
      err << "error: " << summary.errors_dropped << " more errors not shown\n";
    }
    return 2;
  }
  placement::ClusterIndex index(snapshot);
  report::write_feasibility_report(index, out);
  return 0;
}

int run_validate(const std::string& file, std::ostream& out, std::ostream& err,
                 bool print_effective, const std::string& effective_for) {
  if (!effective_for.empty() && effective_for != "loadshift" && effective_for != "volcano") {
    err << "error: --for: expected loadshift or volcano, found \"" << effective_for << "\"\n";
    return 2;
  }
  if (!effective_for.empty() && !print_effective) {
    err << "error: --for " << effective_for << ": needs --effective (it chooses the form of the "
        << "effective policy)\n";
    return 2;
  }
  policy::LoadResult result = policy::load_policy_file(file);
  if (!result.ok()) {
    for (const policy::Diagnostic& e : result.errors) err << "error: " << e.to_string() << "\n";
    for (const policy::Diagnostic& w : result.warnings) err << "warning: " << w.to_string() << "\n";
    err << file << ": " << result.errors.size()
        << (result.errors.size() == 1 ? " error" : " errors") << "\n";
    return 2;
  }
  for (const policy::Diagnostic& w : result.warnings) err << "warning: " << w.to_string() << "\n";
  if (print_effective && effective_for == "volcano") {
    policy::VolcanoPolicy volcano = policy::write_volcano_policy_yaml(*result.policy);
    for (const std::string& line : volcano.not_carried) {
      err << "warning: --for volcano: not carried over: " << line << "\n";
    }
    out << volcano.yaml;
  } else if (print_effective) {
    out << policy::write_policy_yaml(*result.policy);
  } else {
    out << file << ": valid\n" << policy::summarize_policy(*result.policy);
  }
  return 0;
}

}  // namespace loadshift::cli

#include "controller/commands.h"

#include "controller/feasibility_report.h"
#include "controller/snapshot_files.h"
#include "placement/cluster_index.h"

namespace loadshift::controller {

std::string_view version() { return LOADSHIFT_VERSION; }

int run_feasible(const std::vector<std::string>& snapshot_files, std::ostream& out,
                 std::ostream& err) {
  placement::Snapshot snapshot;
  placement::DecodeSummary summary = read_snapshot_files(snapshot_files, &snapshot);
  if (!summary.ok()) {
    for (const auto& e : summary.errors) err << "error: " << e.to_string() << "\n";
    if (summary.errors_dropped > 0) {
      err << "error: " << summary.errors_dropped << " more errors not shown\n";
    }
    return 2;
  }
  placement::ClusterIndex index(snapshot);
  write_feasibility_report(index, out);
  return 0;
}

}  // namespace loadshift::controller

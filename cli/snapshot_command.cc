// `loadshift snapshot`: the live cluster (and its usage) saved for `report --snapshot --usage`.
#include <chrono>
#include <fstream>

#include "cli/commands.h"
#include "cli/live_cluster.h"
#include "cli/snapshot_writer.h"
#include "model/rfc3339.h"
#include "policy/loader.h"
#include "usage/usage_sources.h"

namespace loadshift::cli {
namespace {

bool check_flags(const SnapshotOptions& options, std::ostream& err,
                 std::optional<std::chrono::system_clock::time_point>* at) {
  bool ok = check_kube_flags(options.kube, err);
  if (options.output.empty()) {
    err << "error: --output: required: the file to write the cluster to (a v1 List)\n";
    ok = false;
  }
  if (!options.usage_output.empty() && options.policy_file.empty()) {
    err << "error: --usage-output: needs --policy FILE (the policy says where usage comes from)\n";
    ok = false;
  }
  if (!usage::check_prometheus_flag(options.prometheus_url, err)) ok = false;
  if (!options.at.empty()) {
    *at = model::parse_rfc3339(options.at);
    if (!*at) {
      err << "error: --at: expected an RFC 3339 time such as 2026-11-22T04:00:00Z, found \""
          << options.at << "\"\n";
      ok = false;
    }
  }
  return ok;
}

}  // namespace

int run_snapshot(const SnapshotOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<std::chrono::system_clock::time_point> at;
  if (!check_flags(options, err, &at)) return 2;
  std::optional<policy::Policy> policy;
  if (!options.policy_file.empty()) {
    policy::LoadResult result = policy::load_policy_file(options.policy_file);
    for (const auto& e : result.errors) err << "error: " << e.to_string() << "\n";
    if (!result.ok()) return 2;
    policy = std::move(result.policy);
  }

  // The evaluation time: the usage is asked for at this instant, and the report that replays the
  // files needs it as --at (pod ages).
  const auto when = at.value_or(std::chrono::system_clock::now());
  const std::string partial = options.output + ".partial";
  model::Snapshot snapshot;
  size_t objects = 0;
  {
    std::ofstream file(partial, std::ios::binary | std::ios::trunc);
    if (!file) {
      err << "error: --output " << options.output << ": cannot be written\n";
      return 2;
    }
    ListFileWriter writer(file);
    if (!read_live_cluster(options.kube, &snapshot, err, &writer)) {
      file.close();
      std::remove(partial.c_str());
      return 2;
    }
    try {
      objects = writer.finish();
    } catch (const std::exception& e) {
      err << "error: --output " << options.output << ": " << e.what() << "\n";
      std::remove(partial.c_str());
      return 2;
    }
    file.flush();
    if (!file) {
      err << "error: --output " << options.output << ": writing failed\n";
      std::remove(partial.c_str());
      return 2;
    }
  }
  if (std::rename(partial.c_str(), options.output.c_str()) != 0) {
    err << "error: --output " << options.output << ": cannot be written\n";
    std::remove(partial.c_str());
    return 2;
  }
  out << "wrote " << objects << " objects to " << options.output << "\n";

  std::string report = "loadshift report --snapshot " + options.output;
  if (!options.usage_output.empty()) {
    usage::UsageFlags flags{"", options.prometheus_url, when, std::nullopt};
    std::string why_none;
    std::unique_ptr<metrics::NodeUsageSource> source =
        usage::make_usage_source(flags, *policy, &why_none);
    if (!source) {
      err << "error: --usage-output: " << why_none << "\n";
      return 2;
    }
    metrics::UsageMap usage;
    try {
      usage = source->fetch(usage::node_identities(snapshot), usage::usage_request(*policy));
    } catch (const std::exception& e) {
      err << "error: --usage-output: " << e.what() << "\n";
      return 2;
    }
    std::ofstream file(options.usage_output, std::ios::binary | std::ios::trunc);
    file << usage_file_json(usage);
    if (!file) {
      err << "error: --usage-output " << options.usage_output << ": cannot be written\n";
      return 2;
    }
    out << "wrote the usage of " << usage.nodes.size() << " nodes (" << usage.unknown.size()
        << " without data) to " << options.usage_output << "\n";
    report += " --usage " + options.usage_output;
  }
  if (policy) report += " --policy " + options.policy_file;
  out << "replay: " << report << " --at " << model::format_rfc3339(when) << "\n";
  return 0;
}

}  // namespace loadshift::cli

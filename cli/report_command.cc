// `loadshift report`: flags -> policy, snapshot, usage -> make_plan -> the report.
#include <chrono>
#include <exception>
#include <memory>
#include <optional>

#include "cli/command_inputs.h"
#include "cli/commands.h"
#include "cli/live_cluster.h"
#include "cli/snapshot_files.h"
#include "model/rfc3339.h"
#include "placement/cluster_index.h"
#include "policy/loader.h"
#include "report/report.h"
#include "strategies/plan.h"
#include "usage/usage_sources.h"

namespace loadshift::cli {
namespace {

// Checks the flags themselves (nothing read yet). Writes every problem to `err`; returns false
// when there was one.
bool check_flags(const ReportOptions& options, std::ostream& err,
                 std::optional<std::chrono::system_clock::time_point>* at,
                 strategies::PlanOverrides* overrides) {
  bool ok = parse_plan_flags(options.plan, overrides, err);
  if (options.policy_file.empty()) {
    err << "error: --policy: required: the DeschedulerPolicy file (bare or in a ConfigMap)\n";
    ok = false;
  }
  if (options.snapshot_files.empty() && !check_kube_flags(options.kube, err)) ok = false;
  if (!options.usage_file.empty() && !options.prometheus_url.empty()) {
    err << "error: --usage and --prometheus exclude each other: give a usage file or a "
           "Prometheus URL, not both\n";
    ok = false;
  }
  if (!usage::check_prometheus_flag(options.prometheus_url, err)) ok = false;
  if (!options.at.empty()) {
    *at = model::parse_rfc3339(options.at);
    if (!*at) {
      err << "error: --at: expected an RFC 3339 time such as 2026-11-22T04:00:00Z or "
             "2026-11-22T06:00:00+02:00, found \""
          << options.at << "\"\n";
      ok = false;
    }
  }
  if (!report::parse_report_format(options.output)) {
    err << "error: --output: expected table, json, markdown or html, found \"" << options.output
        << "\"\n";
    ok = false;
  }
  return ok;
}

}  // namespace

bool plan_cluster(const ReportOptions& options, PlannedCluster* cluster, std::ostream& err) {
  std::optional<std::chrono::system_clock::time_point> at;
  strategies::PlanOverrides overrides;
  if (!check_flags(options, err, &at, &overrides)) return false;
  std::optional<policy::Policy> policy = load_policy(options.policy_file, err);
  if (!policy) return false;
  cluster->policy = std::move(*policy);
  cluster->settings = strategies::effective_settings(cluster->policy.loadshift, overrides);
  cluster->options =
      strategies::plan_options(cluster->settings, at.value_or(std::chrono::system_clock::now()));
  if (options.snapshot_files.empty()) {
    // Live, the cool-down remembers what the controller would: its Events of the window.
    LiveMoves moves{cluster->options.now, cluster->options.cooldown, {}};
    const bool cooling = cluster->options.cooldown.count() > 0;
    if (!read_live_cluster(options.kube, &cluster->snapshot, err, nullptr,
                           cooling ? &moves : nullptr)) {
      return false;
    }
    cluster->moves = std::move(moves.moves);
    if (cooling) cluster->options.last_moved = &cluster->moves;
  } else if (!read_snapshot(options.snapshot_files, &cluster->snapshot, err)) {
    return false;
  }
  cluster->index = std::make_unique<placement::ClusterIndex>(
      cluster->snapshot, strategies::placement_options(cluster->policy));
  usage::UsageFlags flags{options.usage_file, options.prometheus_url, at, std::nullopt};
  std::optional<metrics::UsageMap> usage =
      fetch_usage(flags, cluster->policy, cluster->snapshot, err);
  if (!usage) return false;
  cluster->usage = std::move(*usage);
  cluster->plan =
      strategies::make_plan(*cluster->index, cluster->usage, cluster->policy, cluster->options);
  return true;
}

int run_report(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  PlannedCluster cluster;
  if (!plan_cluster(options, &cluster, err)) return 2;
  report::ReportStyle style{options.colour, model::format_rfc3339(cluster.options.now),
                            "loadshift " + std::string(version())};
  report::write_report(*cluster.index, cluster.plan, cluster.usage,
                       *report::parse_report_format(options.output), style, out);
  return 0;
}

}  // namespace loadshift::cli

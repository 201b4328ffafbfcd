// `loadshift report`: flags -> policy, snapshot, usage -> make_plan -> the report.
#include <chrono>
#include <exception>
#include <optional>

#include "controller/commands.h"
#include "controller/live_cluster.h"
#include "controller/report.h"
#include "controller/snapshot_files.h"
#include "controller/usage_sources.h"
#include "placement/cluster_index.h"
#include "placement/rfc3339.h"
#include "policy/loader.h"
#include "strategies/plan.h"

namespace loadshift::controller {
namespace {

// Checks the flags themselves (nothing read yet). Writes every problem to `err`; returns false
// when there was one.
bool check_flags(const ReportOptions& options, std::ostream& err,
                 std::optional<std::chrono::system_clock::time_point>* at) {
  bool ok = true;
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
  if (!check_prometheus_flag(options.prometheus_url, err)) ok = false;
  if (!options.at.empty()) {
    *at = placement::parse_rfc3339(options.at);
    if (!*at) {
      err << "error: --at: expected an RFC 3339 time such as 2026-11-22T04:00:00Z or "
             "2026-11-22T06:00:00+02:00, found \""
          << options.at << "\"\n";
      ok = false;
    }
  }
  if (!parse_report_format(options.output)) {
    err << "error: --output: expected table, json or markdown, found \"" << options.output
        << "\"\n";
    ok = false;
  }
  return ok;
}

std::optional<policy::Policy> load_policy(const std::string& file, std::ostream& err) {
  policy::LoadResult result = policy::load_policy_file(file);
  for (const policy::Diagnostic& e : result.errors) err << "error: " << e.to_string() << "\n";
  for (const policy::Diagnostic& w : result.warnings) err << "warning: " << w.to_string() << "\n";
  if (!result.ok()) {
    err << file << ": " << result.errors.size()
        << (result.errors.size() == 1 ? " error" : " errors") << "\n";
    return std::nullopt;
  }
  return std::move(result.policy);
}

bool read_snapshot(const std::vector<std::string>& files, placement::Snapshot* snapshot,
                   std::ostream& err) {
  placement::DecodeSummary summary = read_snapshot_files(files, snapshot);
  if (summary.ok()) return true;
  for (const auto& e : summary.errors) err << "error: " << e.to_string() << "\n";
  if (summary.errors_dropped > 0) {
    err << "error: " << summary.errors_dropped << " more errors not shown\n";
  }
  return false;
}

std::optional<metrics::UsageMap> fetch_usage(const UsageFlags& flags, const policy::Policy& policy,
                                             const placement::Snapshot& snapshot,
                                             std::ostream& err) {
  std::vector<metrics::NodeIdentity> nodes = node_identities(snapshot);
  std::string why_none;
  std::unique_ptr<metrics::NodeUsageSource> source = make_usage_source(flags, policy, &why_none);
  if (!source) return usage_without_source(why_none);
  // The source's message names the file or the server; the prefix names the flag.
  std::string flag = !flags.usage_file.empty()       ? "--usage"
                     : !flags.prometheus_url.empty() ? "--prometheus"
                     : first_load_aware(policy) != nullptr
                         ? "usage from the policy's LoadAware metrics"
                         : "usage from the policy's metricsProviders prometheus";
  try {
    metrics::UsageMap usage = source->fetch(nodes, usage_request(policy));
    for (std::string& warning : usage_source_warnings(flags, policy)) {
      usage.warnings.push_back(std::move(warning));
    }
    return usage;
  } catch (const metrics::UsageError& e) {
    err << "error: " << flag << ": " << e.what() << "\n";
  } catch (const std::exception& e) {
    // A source must only throw UsageError; anything else is still bad input to this report.
    err << "error: " << flag << ": " << e.what() << "\n";
  }
  return std::nullopt;
}

}  // namespace

int run_report(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<std::chrono::system_clock::time_point> at;
  if (!check_flags(options, err, &at)) return 2;
  ReportFormat format = *parse_report_format(options.output);

  std::optional<policy::Policy> policy = load_policy(options.policy_file, err);
  if (!policy) return 2;

  placement::Snapshot snapshot;
  if (options.snapshot_files.empty()) {
    if (!read_live_cluster(options.kube, &snapshot, err)) return 2;
  } else if (!read_snapshot(options.snapshot_files, &snapshot, err)) {
    return 2;
  }
  placement::ClusterIndex index(snapshot, strategies::placement_options(*policy));

  UsageFlags flags{options.usage_file, options.prometheus_url, at, std::nullopt};
  std::optional<metrics::UsageMap> usage = fetch_usage(flags, *policy, snapshot, err);
  if (!usage) return 2;

  strategies::PlanOptions plan_options;
  plan_options.now = at.value_or(std::chrono::system_clock::now());
  strategies::Plan plan = strategies::make_plan(index, *usage, *policy, plan_options);

  ReportStyle style{options.colour, placement::format_rfc3339(plan_options.now)};
  write_report(index, plan, *usage, format, style, out);
  return 0;
}

}  // namespace loadshift::controller

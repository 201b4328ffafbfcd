#include "cli/command_inputs.h"

#include <exception>
#include <memory>

#include "cli/snapshot_files.h"
#include "policy/field_reader.h"
#include "policy/loader.h"
#include "strategies/plan.h"

namespace loadshift::cli {

bool parse_flag_duration(const std::string& flag, const std::string& text,
                         std::chrono::milliseconds* out, std::ostream& err) {
  if (text == "0") {
    *out = std::chrono::milliseconds(0);
    return true;
  }
  std::optional<policy::Duration> d = policy::parse_duration(text);
  if (!d || d->milliseconds < 0) {
    err << "error: " << flag << ": expected a duration such as 30s, 10m or 1h30m, found \"" << text
        << "\"\n";
    return false;
  }
  *out = std::chrono::milliseconds(d->milliseconds);
  return true;
}

bool parse_plan_flags(const PlanFlags& flags, strategies::PlanOverrides* out, std::ostream& err) {
  bool ok = true;
  if (flags.workload_cooldown) {
    std::chrono::milliseconds cooldown{0};
    if (!parse_flag_duration("--workload-cooldown", *flags.workload_cooldown, &cooldown, err)) {
      ok = false;
    } else if (cooldown.count() % 1000 != 0) {
      err << "error: --workload-cooldown: expected whole seconds (30s, 10m, 1h30m; 0: off), "
             "found \""
          << *flags.workload_cooldown << "\"\n";
      ok = false;
    } else {
      out->workload_cooldown = std::chrono::duration_cast<std::chrono::seconds>(cooldown);
    }
  }
  if (flags.max_in_flight_per_workload) {
    if (*flags.max_in_flight_per_workload < 0) {
      err << "error: --max-in-flight-per-workload: expected 0 (no limit) or more, found "
          << *flags.max_in_flight_per_workload << "\n";
      ok = false;
    } else {
      out->max_in_flight_per_workload = *flags.max_in_flight_per_workload;
    }
  }
  out->soft_taint_hot_nodes = flags.soft_taint_hot_nodes;
  if (flags.no_landing_prediction) out->landing_prediction = false;
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

bool read_snapshot(const std::vector<std::string>& files, model::Snapshot* snapshot,
                   std::ostream& err) {
  model::DecodeSummary summary = read_snapshot_files(files, snapshot);
  if (summary.ok()) return true;
  for (const auto& e : summary.errors) err << "error: " << e.to_string() << "\n";
  if (summary.errors_dropped > 0) {
    err << "error: " << summary.errors_dropped << " more errors not shown\n";
  }
  return false;
}

std::optional<metrics::UsageMap> fetch_usage(const usage::UsageFlags& flags,
                                             const policy::Policy& policy,
                                             const model::Snapshot& snapshot, std::ostream& err) {
  std::vector<metrics::NodeIdentity> nodes = usage::node_identities(snapshot);
  std::string why_none;
  std::unique_ptr<metrics::NodeUsageSource> source =
      usage::make_usage_source(flags, policy, &why_none);
  if (!source) return usage::usage_without_source(why_none);
  // The source's message names the file or the server; the prefix names the flag.
  std::string flag = !flags.usage_file.empty()       ? "--usage"
                     : !flags.prometheus_url.empty() ? "--prometheus"
                     : usage::first_load_aware(policy) != nullptr
                         ? "usage from the policy's LoadAware metrics"
                         : "usage from the policy's metricsProviders prometheus";
  try {
    metrics::UsageMap usage = source->fetch(nodes, usage::usage_request(policy));
    for (std::string& warning : usage::usage_source_warnings(flags, policy)) {
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

}  // namespace loadshift::cli

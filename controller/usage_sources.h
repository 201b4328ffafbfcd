// Where the report (and the controller) gets node usage: a usage file, or Prometheus as the
// policy's first LoadAware `metrics:` block configures it (its address replaceable by
// `--prometheus URL`). Turns the policy's settings into the metrics module's, and the snapshot's
// nodes into the identities the sources match series against.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metrics/node_usage_source.h"
#include "metrics/prometheus_source.h"
#include "placement/model.h"
#include "policy/policy.h"
#include "strategies/plan.h"

namespace loadshift::controller {

// What the command line asked for.
struct UsageFlags {
  std::string usage_file;      // --usage FILE; empty: not given
  std::string prometheus_url;  // --prometheus URL; empty: not given
  // --at: Prometheus evaluates its queries at this moment; empty: now.
  std::optional<std::chrono::system_clock::time_point> at;
};

// The LoadAware whose metrics block names the usage source: strategies::first_load_aware (the
// first one enabled under balance), so the report fetches with the settings the plan runs with.
using strategies::first_load_aware;

// The policy's LoadAware metrics block as PrometheusSettings (address, window, step, timeout,
// queries, node label and matching, token, CA, TLS verification, headers), with `at` as the
// evaluation time.
metrics::PrometheusSettings prometheus_settings(
    const policy::LoadAwareMetrics& metrics,
    std::optional<std::chrono::system_clock::time_point> at);

// What to fetch: per-pod usage always (it makes a pod's estimated usage real), and the sustain
// window of `load_aware` when it sets sustainedFor. `load_aware` may be null.
metrics::UsageRequest usage_request(const policy::LoadAwareArgs* load_aware);

// Every node of the snapshot, by name and InternalIP, in snapshot order.
std::vector<metrics::NodeIdentity> node_identities(const placement::Snapshot& snapshot);

// The source the flags and the policy choose:
//  - --usage FILE: a FileSource;
//  - else Prometheus with the first LoadAware's metrics settings, its address replaced by
//    --prometheus URL when given;
//  - else, with --prometheus URL and no LoadAware, Prometheus with the default settings;
//  - else nullptr, and `*why_none` says why (the policy has no LoadAware and no flag was given).
// The flags must already be checked (not both, a valid URL).
std::unique_ptr<metrics::NodeUsageSource> make_usage_source(const UsageFlags& flags,
                                                            const policy::Policy& policy,
                                                            std::string* why_none);

// A UsageMap for when there is no source at all: no node has data and none is "unknown" (nothing
// was asked), `why` is its one warning. Plugins that need usage do nothing; placement-only plugins
// (node affinity, taints) still run.
metrics::UsageMap usage_without_source(const std::string& why);

}  // namespace loadshift::controller

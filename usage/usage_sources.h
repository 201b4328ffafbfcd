// Where the report (and the controller) gets node usage: a usage file, or Prometheus as the
// policy's first LoadAware `metrics:` block configures it, else at the policy's metricsProviders
// prometheus url (either address replaceable by `--prometheus URL`). Turns the policy's settings
// into the metrics module's, and the snapshot's nodes into the identities the sources match series
// against.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "metrics/node_usage_source.h"
#include "metrics/prometheus_source.h"
#include "metrics/self_metrics.h"
#include "model/model.h"
#include "policy/policy.h"
#include "strategies/plan.h"

namespace loadshift::usage {

// What the command line asked for.
struct UsageFlags {
  std::string usage_file;      // --usage FILE; empty: not given
  std::string prometheus_url;  // --prometheus URL; empty: not given
  // --at: Prometheus evaluates its queries at this moment; empty: now.
  std::optional<std::chrono::system_clock::time_point> at;
  // The token of the policy's metricsProviders prometheus authToken secretReference, when the
  // caller read that Secret (the controller does); sent to the metricsProviders url.
  std::optional<std::string> providers_token;
  // Where a Prometheus source counts its queries (loadshift_usage_query_duration_seconds,
  // loadshift_usage_query_errors_total); null: not counted. Must outlive the source.
  metrics::SelfMetrics* self_metrics = nullptr;
};

// Checks --prometheus URL (empty: not given, fine); writes the problem to `err` and returns
// false. The same check for every command that takes the flag.
bool check_prometheus_flag(const std::string& url, std::ostream& err);

// The LoadAware whose metrics block names the usage source: strategies::first_load_aware (the
// first one enabled under balance), so the report fetches with the settings the plan runs with.
using strategies::first_load_aware;

// The policy's LoadAware metrics block as PrometheusSettings (address, window, step, timeout,
// queries, node label and matching, token, CA, TLS verification, headers), with `at` as the
// evaluation time.
metrics::PrometheusSettings prometheus_settings(
    const policy::LoadAwareMetrics& metrics,
    std::optional<std::chrono::system_clock::time_point> at);

// The args of the first LowNodeUtilization enabled under balance, in profile order, whose
// metricsUtilization source is Prometheus, or nullptr: its prometheus.query gives every node's
// MetricResource (one query per fetch, so one value per node for every such plugin).
const policy::NodeUtilizationArgs* first_prometheus_low_node_utilization(
    const policy::Policy& policy);

// What to fetch: per-pod usage always (it makes a pod's estimated usage real), the sustain
// window of `load_aware` when it sets sustainedFor, and the MetricResource query of
// `low_node_utilization` (metricsUtilization.prometheus.query) when its source is Prometheus.
// Either may be null.
metrics::UsageRequest usage_request(
    const policy::LoadAwareArgs* load_aware,
    const policy::NodeUtilizationArgs* low_node_utilization = nullptr);

// usage_request() for `policy`: as above with its first LoadAware and first LowNodeUtilization
// with source Prometheus; and when nothing of the policy reads node cpu or memory usage (no
// LoadAware, no LowNodeUtilization with source KubernetesMetrics, no deschedule plugin, which
// use usage to keep targets off hot nodes) but it asks for MetricResource, only that query:
// node_usage false (no node_exporter or cAdvisor queries the policy would not use).
metrics::UsageRequest usage_request(const policy::Policy& policy);

// Every node of the snapshot, by name and InternalIP, in snapshot order.
std::vector<metrics::NodeIdentity> node_identities(const model::Snapshot& snapshot);
// One node's: its name and InternalIP.
metrics::NodeIdentity node_identity(const model::Node& node);

// The source the flags and the policy choose:
//  - --usage FILE: a FileSource;
//  - else Prometheus with the first LoadAware's metrics settings, its address replaced by
//    --prometheus URL when given;
//  - else, with no LoadAware, Prometheus with the default settings at --prometheus URL, else at
//    the policy's metricsProviders prometheus url (the server upstream sends LowNodeUtilization's
//    MetricResource query to); `at` is the evaluation time either way;
//  - else nullptr, and `*why_none` says why (no LoadAware, no metricsProviders prometheus url and
//    no flag was given).
// The flags must already be checked (not both, a valid URL).
std::unique_ptr<metrics::NodeUsageSource> make_usage_source(const UsageFlags& flags,
                                                            const policy::Policy& policy,
                                                            std::string* why_none);

// What the fetch's UsageMap must also say about where its data came from, for a source
// make_usage_source() built from `policy` and `flags` (none with --usage):
//  - a LowNodeUtilization with source Prometheus whose MetricResource query goes to another server
//    than the metricsProviders prometheus url (the LoadAware's address, or --prometheus): the
//    server it went to;
//  - a metricsProviders authToken secretReference whose Secret the caller did not read
//    (flags.providers_token empty; the report does not, the controller does): the queries carry
//    no such token;
//  - several LowNodeUtilization with source Prometheus and different queries: only the first's
//    is sent, every one of them classifies on its values.
std::vector<std::string> usage_source_warnings(const UsageFlags& flags,
                                               const policy::Policy& policy);

// A UsageMap for when there is no source at all: no node has data and none is "unknown" (nothing
// was asked), `why` is its one warning. Plugins that need usage do nothing; placement-only plugins
// (node affinity, taints) still run.
metrics::UsageMap usage_without_source(const std::string& why);

}  // namespace loadshift::usage

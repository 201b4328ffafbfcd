// Node usage from the Prometheus HTTP API: one instant query per resource for all nodes.
//
// The Volcano descheduler asks once per node with a hardcoded window; loadshift renders the
// policy's PromQL templates ({{window}}, {{step}}) once and matches the answer's series to nodes
// by a label (default `instance`), by node name or by InternalIP with the port stripped.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/node_usage_source.h"
#include "metrics/self_metrics.h"

namespace loadshift::metrics {

// How a series' node label value names a node. kName: the value, or its host with any ":port"
// removed, is the node name. kInternalIp: the host with any ":port" removed ("10.0.0.1:9100",
// "[fd00::1]:9100") is the node's InternalIP (IPv6 compared in canonical form). kAuto: by name
// first, then by InternalIP. Two series naming one node make that node unknown ("duplicate
// series"); an InternalIP shared by several nodes matches none of them.
enum class NodeMatchMode { kAuto, kName, kInternalIp };

// Everything a PrometheusSource needs; the controller fills it from the policy's LoadAware
// `metrics:` block.
struct PrometheusSettings {
  std::string address;  // base URL, e.g. http://prometheus.monitoring:9090 (path prefix allowed)
  int64_t window_ms = 300000;
  int64_t step_ms = 30000;
  int64_t timeout_ms = 10000;  // bounds one whole fetch, retries included
  // PromQL templates; empty: the built-in default (node_exporter / cAdvisor, see default_query).
  std::string cpu_query, memory_query, pod_cpu_query, pod_memory_query;
  std::string node_label = "instance";
  NodeMatchMode node_match = NodeMatchMode::kAuto;
  std::string bearer_token_file;  // read at each fetch (tokens rotate)
  std::string bearer_token;       // used when no bearer_token_file (a token read from a Secret)
  std::string ca_file;
  bool insecure_skip_verify = false;
  std::map<std::string, std::string> headers;  // e.g. X-Scope-OrgID
  // Evaluate at this moment (the report's --at); empty: now.
  std::optional<std::chrono::system_clock::time_point> evaluation_time;
  // Freshness: the default queries use range functions over the window, so a node whose series
  // stopped more than one window before the evaluation time has no result and is unknown.
};

enum class Query { kCpu, kMemory, kPodCpu, kPodMemory };

// The built-in PromQL template for `query` (with {{window}} / {{step}} placeholders). The cpu
// template groups by `instance`.
std::string_view default_query(Query query);
// The built-in template as PrometheusSource uses it for a given node label: when node_label is not
// `instance`, the cpu template groups `by (<node_label>)` instead (the memory template keeps every
// label, so it needs no change; the pod templates do not name nodes). Throws
// std::invalid_argument when node_label is not a Prometheus label name.
std::string default_query(Query query, std::string_view node_label);

// Replaces {{window}} and {{step}} with Prometheus durations ("5m", "30s"). Throws
// std::invalid_argument naming any other {{...}} placeholder.
std::string render_query(std::string_view tmpl, int64_t window_ms, int64_t step_ms);

// Wraps `expr` into a subquery over the sustain period, kept only for nodes whose expression has a
// value at every step of the period (a node with 150 s of history is not "hot for 10 minutes"):
//   "<fn>_over_time((expr)[10m:30s]) and (count_over_time((expr)[10m:30s]) >= 20)"
// fn = "min" or "max"; the count required is the period over the step, rounded down (at least 1).
std::string sustained_query(std::string_view expr, std::string_view fn, int64_t sustained_for_ms,
                            int64_t step_ms);

// One fetch sends, in parallel and all evaluated at the same time (settings.evaluation_time, else
// the fetch's start): with request.node_usage false, only metric_resource (nodes are then known by
// it alone, see assemble_metric_only, and its failure fails the fetch); otherwise cpu and memory; with request.sustained_for_ms, cpu_min, cpu_max, memory_min
// and memory_max (sustained_query over the windowed expressions); with request.pods, pod_cpu and
// pod_memory; with request.metric_resource_query, metric_resource (sent as given, not rendered).
// Each is a form POST to <address>/api/v1/query with `query`, `time` and `timeout`
// (nine tenths of the time left, so Prometheus' own timeout answer comes first). Transient
// failures (connection refused or reset, timeout, HTTP 5xx and 429) are retried with exponential
// backoff (100 ms doubling, at most 2 s) while timeout_ms allows; other HTTP 4xx, TLS failures and
// Prometheus' bad_data are not. A cpu or memory query that fails for good, or answers
// a scalar or a matrix, fails the fetch (UsageError naming the URL, the query and the reason);
// sustained, pod and metric_resource query failures only add warnings. A node is known only
// with exactly one cpu and one memory series (matched by node_label / node_match), each finite and
// within 0..100 (values less than 0.5 outside, counter jitter, are clamped); otherwise it is
// unknown with the query and the problem as reason. Series that match no node become one warning
// per query. metric_resource is matched the same way, for known nodes only; its value must be
// within 0..1 (stored times 100 in NodeUsage::metric_resource), else it stays unset with a
// warning naming the node and the problem.
// Safe to call from several threads.
class PrometheusSource : public NodeUsageSource {
 public:
  // `self_metrics` may be null (no self-monitoring); it must outlive the source. Throws
  // std::invalid_argument for settings that can never work: an address that is not http(s), a
  // window, step or timeout <= 0, a node_label that is not a label name, a header name or value
  // that cannot be sent, a template with a placeholder other than {{window}} and {{step}}.
  explicit PrometheusSource(PrometheusSettings settings, SelfMetrics* self_metrics = nullptr);
  ~PrometheusSource() override;
  UsageMap fetch(std::span<const NodeIdentity> nodes, const UsageRequest& request) override;

  // Number of HTTP requests sent so far (the benchmark and tests check "one per resource").
  size_t requests_sent() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::metrics

// loadshift's own metrics (prometheus-cpp). The registry lives here; the controller exposes it over
// HTTP. Names follow Prometheus conventions and are listed in docs/usage-data.md.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "metrics/usage.h"

namespace loadshift::metrics {

class SelfMetrics {
 public:
  explicit SelfMetrics(std::shared_ptr<prometheus::Registry> registry);

  // loadshift_usage_query_duration_seconds{query="cpu|memory|..."}
  void observe_query(std::string_view query, double seconds);
  // loadshift_usage_query_errors_total{query, reason}; reason is a short token:
  // connect, timeout, http_4xx, http_5xx, prometheus_error, bad_response, bad_value, duplicate,
  // unmatched. PrometheusSource counts every failed HTTP attempt (so retries show) and each kind
  // of series problem once per query per fetch.
  void count_query_error(std::string_view query, std::string_view reason);
  // loadshift_usage_nodes{state="covered|unknown"} and
  // loadshift_node_utilization_ratio{node, resource="cpu|memory"} (0..1), replaced per fetch.
  void record_usage(const UsageMap& usage);

  prometheus::Registry& registry() { return *registry_; }
  const std::shared_ptr<prometheus::Registry>& shared_registry() const { return registry_; }

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Histogram>& query_duration_;
  prometheus::Family<prometheus::Counter>& query_errors_;
  prometheus::Family<prometheus::Gauge>& nodes_;
  prometheus::Family<prometheus::Gauge>& node_ratio_;
  std::mutex ratio_mutex_;
  std::set<std::string, std::less<>> ratio_nodes_;  // nodes with gauges in node_ratio_
};

}  // namespace loadshift::metrics

// loadshift's own usage metrics on a prometheus-cpp registry.
#include "metrics/self_metrics.h"

namespace loadshift::metrics {

namespace {

const prometheus::Histogram::BucketBoundaries& duration_buckets() {
  static const prometheus::Histogram::BucketBoundaries buckets = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  return buckets;
}

}  // namespace

SelfMetrics::SelfMetrics(std::shared_ptr<prometheus::Registry> registry)
    : registry_(std::move(registry)),
      query_duration_(prometheus::BuildHistogram()
                          .Name("loadshift_usage_query_duration_seconds")
                          .Help("Time to answer one usage query, retries included")
                          .Register(*registry_)),
      query_errors_(prometheus::BuildCounter()
                        .Name("loadshift_usage_query_errors_total")
                        .Help("Failed usage query attempts and series problems, by query and "
                              "reason")
                        .Register(*registry_)),
      nodes_(prometheus::BuildGauge()
                 .Name("loadshift_usage_nodes")
                 .Help("Nodes with usable usage data (covered) and without (unknown) at the "
                       "last fetch")
                 .Register(*registry_)),
      node_ratio_(prometheus::BuildGauge()
                      .Name("loadshift_node_utilization_ratio")
                      .Help("Node utilisation (0..1) by resource at the last fetch")
                      .Register(*registry_)) {}

void SelfMetrics::observe_query(std::string_view query, double seconds) {
  query_duration_.Add({{"query", std::string(query)}}, duration_buckets()).Observe(seconds);
}

void SelfMetrics::count_query_error(std::string_view query, std::string_view reason) {
  query_errors_.Add({{"query", std::string(query)}, {"reason", std::string(reason)}}).Increment();
}

void SelfMetrics::record_usage(const UsageMap& usage) {
  std::lock_guard<std::mutex> lock(ratio_mutex_);
  nodes_.Add({{"state", "covered"}}).Set(static_cast<double>(usage.nodes.size()));
  nodes_.Add({{"state", "unknown"}}).Set(static_cast<double>(usage.unknown.size()));
  for (auto it = ratio_nodes_.begin(); it != ratio_nodes_.end();) {
    auto known = usage.nodes.find(*it);
    if (known != usage.nodes.end() && known->second.cpu_memory_measured) {
      ++it;
      continue;
    }
    for (const char* resource : {"cpu", "memory"}) {
      prometheus::Labels labels{{"node", *it}, {"resource", resource}};
      if (node_ratio_.Has(labels)) node_ratio_.Remove(&node_ratio_.Add(labels));
    }
    it = ratio_nodes_.erase(it);
  }
  for (const auto& [node, values] : usage.nodes) {
    if (!values.cpu_memory_measured) continue;  // a MetricResource-only fetch measured neither
    node_ratio_.Add({{"node", node}, {"resource", "cpu"}}).Set(values.cpu.percent / 100.0);
    node_ratio_.Add({{"node", node}, {"resource", "memory"}}).Set(values.memory.percent / 100.0);
    ratio_nodes_.insert(node);
  }
}

}  // namespace loadshift::metrics

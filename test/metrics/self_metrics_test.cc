// SelfMetrics: the families it registers and the values it records.
#include <catch2/catch.hpp>

#include "metrics/self_metrics.h"
#include "test/metrics/metric_lookup.h"

using namespace loadshift::metrics;
using loadshift::testing::counter_value;
using loadshift::testing::gauge_value;
using loadshift::testing::histogram_count;

namespace {

UsageMap usage_of(std::vector<std::pair<std::string, double>> known,
                  std::vector<std::string> unknown) {
  UsageMap usage;
  for (const auto& [name, cpu] : known) {
    NodeUsage node;
    node.cpu.percent = cpu;
    node.memory.percent = 50;
    usage.nodes[name] = node;
  }
  for (const auto& name : unknown) usage.unknown[name] = "no data";
  return usage;
}

size_t ratio_series(prometheus::Registry& registry) {
  for (const auto& family : registry.Collect()) {
    if (family.name == "loadshift_node_utilization_ratio") return family.metric.size();
  }
  return 0;
}

}  // namespace

TEST_CASE("the four families are registered with their types", "[self_metrics]") {
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  self.observe_query("cpu", 0.02);
  self.count_query_error("cpu", "timeout");
  self.record_usage(usage_of({{"a", 10}}, {}));
  std::map<std::string, prometheus::MetricType> types;
  for (const auto& family : registry->Collect()) types[family.name] = family.type;
  CHECK(types.at("loadshift_usage_query_duration_seconds") == prometheus::MetricType::Histogram);
  CHECK(types.at("loadshift_usage_query_errors_total") == prometheus::MetricType::Counter);
  CHECK(types.at("loadshift_usage_nodes") == prometheus::MetricType::Gauge);
  CHECK(types.at("loadshift_node_utilization_ratio") == prometheus::MetricType::Gauge);
  CHECK(&self.registry() == registry.get());
}

TEST_CASE("query durations and errors are recorded by label", "[self_metrics]") {
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  self.observe_query("cpu", 0.02);
  self.observe_query("cpu", 0.3);
  self.observe_query("memory", 1.5);
  self.count_query_error("cpu", "timeout");
  self.count_query_error("cpu", "timeout");
  self.count_query_error("memory", "http_5xx");
  CHECK(histogram_count(*registry, "loadshift_usage_query_duration_seconds", {{"query", "cpu"}}) ==
        2);
  CHECK(histogram_count(*registry, "loadshift_usage_query_duration_seconds",
                        {{"query", "memory"}}) == 1);
  CHECK(counter_value(*registry, "loadshift_usage_query_errors_total",
                      {{"query", "cpu"}, {"reason", "timeout"}}) == 2);
  CHECK(counter_value(*registry, "loadshift_usage_query_errors_total",
                      {{"query", "memory"}, {"reason", "http_5xx"}}) == 1);
  CHECK(counter_value(*registry, "loadshift_usage_query_errors_total",
                      {{"query", "memory"}, {"reason", "timeout"}}) == -1);
}

TEST_CASE("record_usage replaces the node gauges", "[self_metrics]") {
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  self.record_usage(usage_of({{"a", 35.5}, {"b", 80}}, {"c"}));
  CHECK(gauge_value(*registry, "loadshift_usage_nodes", {{"state", "covered"}}) == 2);
  CHECK(gauge_value(*registry, "loadshift_usage_nodes", {{"state", "unknown"}}) == 1);
  CHECK(gauge_value(*registry, "loadshift_node_utilization_ratio",
                    {{"node", "a"}, {"resource", "cpu"}}) == Approx(0.355));
  CHECK(gauge_value(*registry, "loadshift_node_utilization_ratio",
                    {{"node", "b"}, {"resource", "memory"}}) == Approx(0.5));
  CHECK(ratio_series(*registry) == 4);

  // b is gone and a became unknown: their gauges go; c appears.
  self.record_usage(usage_of({{"c", 20}}, {"a"}));
  CHECK(gauge_value(*registry, "loadshift_usage_nodes", {{"state", "covered"}}) == 1);
  CHECK(gauge_value(*registry, "loadshift_usage_nodes", {{"state", "unknown"}}) == 1);
  CHECK(gauge_value(*registry, "loadshift_node_utilization_ratio",
                    {{"node", "a"}, {"resource", "cpu"}}) == -1);
  CHECK(gauge_value(*registry, "loadshift_node_utilization_ratio",
                    {{"node", "b"}, {"resource", "cpu"}}) == -1);
  CHECK(gauge_value(*registry, "loadshift_node_utilization_ratio",
                    {{"node", "c"}, {"resource", "cpu"}}) == Approx(0.2));
  CHECK(ratio_series(*registry) == 2);

  self.record_usage(UsageMap{});
  CHECK(ratio_series(*registry) == 0);
  CHECK(gauge_value(*registry, "loadshift_usage_nodes", {{"state", "covered"}}) == 0);
}

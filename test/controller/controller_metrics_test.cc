// The controller's per-plan series (controller/controller_metrics.h): a plan's nodes and
// LoadAware coverage become series, and the next plan replaces them, removing those of nodes and
// profiles it no longer has; the last successful cycle and the interval.
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>

#include "controller/controller_metrics.h"
#include "placement/cluster_index.h"
#include "test/model/builders.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

std::string scrape(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

strategies::NodeState state(placement::NodeId node, strategies::NodeClass cls, std::string pool,
                            std::optional<double> cpu_after) {
  strategies::NodeState s;
  s.node = node;
  s.node_class = cls;
  s.pool = std::move(pool);
  s.cpu = 90;
  s.cpu_after = cpu_after;
  return s;
}

// Metrics on a registry of their own, and a cluster of two nodes, a and b.
struct TwoNodes {
  prometheus::Registry registry;
  controller::ControllerMetrics metrics{registry, "test"};
  model::Snapshot snapshot = two_nodes();
  placement::ClusterIndex index{snapshot};
  static model::Snapshot two_nodes() {
    model::Snapshot s;
    s.nodes = {make_node("a"), make_node("b")};
    return s;
  }
};

}  // namespace

TEST_CASE("a plan's nodes and coverage become series; the next plan replaces them",
          "[controller][metrics]") {
  TwoNodes world;
  auto& [registry, metrics, snapshot, index] = world;

  strategies::Plan first;
  first.nodes = {state(0, strategies::NodeClass::kOverutilized, "training", 85.5),
                 state(1, strategies::NodeClass::kUnderutilized, "", std::nullopt)};
  first.coverage = {{"gpu", 9, 10, 90}, {"cpu", 4, 4, 75}};
  metrics.record_nodes(index, first);
  std::string text = scrape(registry);
  CHECK_THAT(
      text,
      Contains("loadshift_node_class{class=\"overutilized\",node=\"a\",pool=\"training\"} 1"));
  CHECK_THAT(text,
             Contains("loadshift_node_class{class=\"underutilized\",node=\"b\",pool=\"\"} 1"));
  CHECK_THAT(
      text,
      Contains("loadshift_node_planned_utilization_ratio{node=\"a\",resource=\"cpu\"} 0.855"));
  CHECK_FALSE(text.find("loadshift_node_planned_utilization_ratio{node=\"b\"") !=
              std::string::npos);
  CHECK_THAT(text, Contains("loadshift_load_aware_coverage_ratio{profile=\"gpu\"} 0.9"));
  CHECK_THAT(text, Contains("loadshift_load_aware_coverage_required_ratio{profile=\"gpu\"} 0.9"));
  CHECK_THAT(text, Contains("loadshift_load_aware_coverage_ratio{profile=\"cpu\"} 1"));
  CHECK_THAT(text, Contains("loadshift_nodes{class=\"overutilized\"} 1"));

  // a cooled (appropriate, nothing planned), b gone from the plan, profile gpu gone.
  strategies::Plan second;
  second.nodes = {state(0, strategies::NodeClass::kAppropriate, "training", std::nullopt)};
  second.coverage = {{"cpu", 3, 4, 75}};
  metrics.record_nodes(index, second);
  text = scrape(registry);
  CHECK_THAT(
      text, Contains("loadshift_node_class{class=\"appropriate\",node=\"a\",pool=\"training\"} 1"));
  CHECK(text.find("class=\"overutilized\",node=\"a\"") == std::string::npos);
  CHECK(text.find("node=\"b\"") == std::string::npos);
  CHECK(text.find("loadshift_node_planned_utilization_ratio{") == std::string::npos);
  CHECK(text.find("profile=\"gpu\"") == std::string::npos);
  CHECK_THAT(text, Contains("loadshift_load_aware_coverage_ratio{profile=\"cpu\"} 0.75"));
  CHECK_THAT(text, Contains("loadshift_nodes{class=\"overutilized\"} 0"));
}

TEST_CASE("requests are not utilisation; forget_plan removes the plan's series",
          "[controller][metrics]") {
  TwoNodes world;
  auto& [registry, metrics, snapshot, index] = world;
  strategies::Plan plan;
  plan.nodes = {state(0, strategies::NodeClass::kOverutilized, "", 80),
                state(1, strategies::NodeClass::kUnderutilized, "", 30)};
  plan.nodes[1].figures = strategies::Figures::kRequests;  // LowNodeUtilization on requests
  plan.coverage = {{"p", 2, 2, 50}};
  metrics.record_nodes(index, plan);
  std::string text = scrape(registry);
  CHECK_THAT(text, Contains("loadshift_node_planned_utilization_ratio{node=\"a\""));
  CHECK(text.find("loadshift_node_planned_utilization_ratio{node=\"b\"") == std::string::npos);

  metrics.forget_plan();
  text = scrape(registry);
  CHECK(text.find("loadshift_node_class{") == std::string::npos);
  CHECK(text.find("loadshift_node_planned_utilization_ratio{") == std::string::npos);
  CHECK(text.find("loadshift_load_aware_coverage") == std::string::npos);
  CHECK_THAT(text, Contains("loadshift_nodes{class=\"overutilized\"} 0"));
  // A plan after that is exported again.
  metrics.record_nodes(index, plan);
  CHECK_THAT(scrape(registry), Contains("loadshift_node_class{class=\"overutilized\",node=\"a\""));
}

TEST_CASE("eviction attempts: both results from the start at 0; dry run", "[controller][metrics]") {
  prometheus::Registry registry;
  controller::ControllerMetrics metrics(registry, "test");
  metrics.set_dry_run(true);
  std::string text = scrape(registry);
  CHECK_THAT(text, Contains("loadshift_eviction_attempts_total{result=\"success\"} 0"));
  CHECK_THAT(text, Contains("loadshift_eviction_attempts_total{result=\"error\"} 0"));
  CHECK_THAT(text, Contains("loadshift_dry_run 1"));
  metrics.count_eviction("error", "LoadAware", "p", "ns", "n1", "ReplicaSet", "web");
  metrics.count_eviction("maximum number of pods evicted per node reached", "LoadAware", "", "ns",
                         "n1", "ReplicaSet", "web");  // a plan limit: no attempt
  text = scrape(registry);
  CHECK_THAT(text, Contains("loadshift_eviction_attempts_total{result=\"error\"} 1"));
  CHECK_THAT(text, Contains("loadshift_eviction_attempts_total{result=\"success\"} 0"));
}

TEST_CASE("the last successful cycle: the start time, then every cycle not skipped",
          "[controller][metrics]") {
  prometheus::Registry registry;
  controller::ControllerMetrics metrics(registry, "test");
  metrics.set_interval(600);
  auto gauge = [&](const std::string& name) {
    std::string text = scrape(registry);
    size_t at = text.find("\n" + name + " ");
    REQUIRE(at != std::string::npos);
    return std::stod(text.substr(at + name.size() + 2));
  };
  const double start = gauge("loadshift_last_successful_cycle_timestamp_seconds");
  CHECK(start > 1.7e9);  // a Unix time, not 0: the alert counts from the start
  CHECK(gauge("loadshift_descheduling_interval_seconds") == 600);
  metrics.count_cycle("skipped", "usage_fetch_failed");
  CHECK(gauge("loadshift_last_successful_cycle_timestamp_seconds") == start);
  CHECK(gauge("loadshift_last_cycle_timestamp_seconds") >= start);
  metrics.count_cycle("standby");
  CHECK(gauge("loadshift_last_successful_cycle_timestamp_seconds") >= start);
  CHECK(gauge("loadshift_last_successful_cycle_timestamp_seconds") ==
        gauge("loadshift_last_cycle_timestamp_seconds"));
}

// LowNodeUtilization and HighNodeUtilization on small clusters: requests-based and with usage
// data, with the placement core as nodeFit. Nodes are 32 cores: a 3.2-core pod is 10% cpu.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/strategies/balance_harness.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using strategies::NodeClass;
using Moves = std::vector<std::string>;

policy::NodeUtilizationArgs low_args(double low, double high) {
  policy::NodeUtilizationArgs args;
  args.thresholds = {{"cpu", low}};
  args.target_thresholds = {{"cpu", high}};
  return args;
}

policy::NodeUtilizationArgs high_args(double low) {
  policy::NodeUtilizationArgs args;
  args.thresholds = {{"cpu", low}};
  return args;
}

// `count` pods of `cpu_milli` on `node`, named prefix0, prefix1, ...
void add_pods(Snapshot& s, const std::string& prefix, const std::string& node, int count,
              int64_t cpu_milli) {
  for (int i = 0; i < count; ++i) {
    std::string name = prefix + std::to_string(i);
    s.pods.push_back(owned_pod(name, node, cpu_milli, "rs-" + name));
  }
}

}  // namespace

TEST_CASE("LowNodeUtilization moves requests from an overutilized node to an underutilized one") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  add_pods(r.f.snapshot, "p", "n1", 9, 3200);  // 90% requested
  add_pods(r.f.snapshot, "q", "n3", 5, 3200);  // 50%
  CHECK(r.run(&strategies::run_low_node_utilization, low_args(20, 70)) ==
        Moves{"p0->n2", "p1->n2"});
  CHECK(r.node_class("n1") == NodeClass::kOverutilized);
  CHECK(r.node("n1").why == "requested cpu 90.0% > 70%");
  CHECK(r.node("n1").classified_by == "LowNodeUtilization");
  CHECK(r.node_class("n2") == NodeClass::kUnderutilized);
  CHECK(r.node_class("n3") == NodeClass::kAppropriate);
  CHECK(r.reason(0) == "n1 requested cpu 90.0% > 70%: evict apps/p0 -> n2 (requested cpu 0.0% -> "
                       "10.0%)");
  CHECK(r.reason(1) == "n1 requested cpu 80.0% > 70%: evict apps/p1 -> n2 (requested cpu 10.0% "
                       "-> 20.0%)");
  CHECK(r.skip("p2") ==
        "node relieved: n1 is within its targetThresholds after the evictions planned");
  CHECK(r.f.plan.evictions[0].strategy == "LowNodeUtilization");
}

TEST_CASE("LowNodeUtilization keeps a target within its targetThresholds and needs nodeFit") {
  BalanceRun r;
  Node tainted = make_node("n3");
  tainted.taints.push_back({"dedicated", "db", TaintEffect::kNoSchedule});
  r.f.snapshot.nodes = {make_node("n1"), make_node("n2"), tainted};
  r.f.snapshot.pods = {owned_pod("big", "n1", 19200), owned_pod("small", "n1", 9600),
                       owned_pod("base", "n2", 3200)};
  // n1 90%; n2 10% (+60% would be 70% > 65%); n3 0% but tainted.
  CHECK(r.run(&strategies::run_low_node_utilization, low_args(20, 65)) == Moves{"small->n2"});
  CHECK(r.skip("big") == "no target: cpu would exceed targetThresholds on n2; taint "
                         "dedicated=db:NoSchedule not tolerated on n3");
}

TEST_CASE("LowNodeUtilization with metricsUtilization KubernetesMetrics uses real usage") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  r.f.snapshot.pods = {owned_pod("p0", "n1", 4000), owned_pod("p1", "n1", 4000)};
  r.f.usage = usage_of({{"n1", {85, 30}}, {"n2", {10, 10}}}, {{"n3", "no cpu series"}});
  policy::NodeUtilizationArgs args = low_args(20, 70);
  args.metrics_utilization.source = "KubernetesMetrics";
  CHECK(r.run(&strategies::run_low_node_utilization, args) == Moves{"p0->n2", "p1->n2"});
  CHECK(r.reason(0) == "n1 cpu 85.0% > 70%: evict apps/p0 -> n2 (cpu 10.0% -> 22.5%)");
  CHECK(r.node_class("n3") == NodeClass::kUnknown);  // empty, but never a target
  CHECK(*r.node("n2").cpu_after == Approx(35));
  CHECK(*r.node("n1").cpu_after == Approx(60));
}

TEST_CASE("LowNodeUtilization: Prometheus source, numberOfNodes, and pods that relieve nothing") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("n1"), make_node("n2")};
  Pod best_effort = make_pod("be", 0, 0, "n1");
  best_effort.meta.namespace_ = "apps";
  best_effort.owners.edit().push_back({"apps/v1", "ReplicaSet", "rs-be", "uid-rs-be", true});
  r.f.snapshot.pods = {best_effort};
  add_pods(r.f.snapshot, "p", "n1", 9, 3200);

  SECTION("Prometheus: the first pod in upstream's order leaves, even one that frees nothing") {
    policy::NodeUtilizationArgs args;
    args.thresholds = {{"MetricResource", 20}};
    args.target_thresholds = {{"MetricResource", 70}};
    args.metrics_utilization = {"Prometheus", "instance:node_cpu:ratio"};
    r.f.usage = usage_of({{"n1", {50, 50}}, {"n2", {50, 50}}});
    r.f.usage.nodes["n1"].metric_resource = 90;
    r.f.usage.nodes["n2"].metric_resource = 5;
    CHECK(r.run(&strategies::run_low_node_utilization, args) == Moves{"be->n2"});
    CHECK(r.skip("p0") ==
          "at most 1 pod per overutilized node per run: MetricResource has no per-pod usage "
          "(upstream's rule)");
  }
  SECTION("numberOfNodes 1 with one underutilized node: nothing") {
    policy::NodeUtilizationArgs args = low_args(20, 70);
    args.number_of_nodes = 1;
    CHECK(r.run(&strategies::run_low_node_utilization, args).empty());
    CHECK(r.f.plan.notes == std::vector<std::string>{
                                "LowNodeUtilization: 1 node overutilized but only 1 node "
                                "underutilized; numberOfNodes is 1 (it acts only when more are): "
                                "nothing evicted"});
  }
  SECTION("a BestEffort pod goes first upstream, but frees no requests: it stays") {
    CHECK(r.run(&strategies::run_low_node_utilization, low_args(20, 70)) ==
          Moves{"p0->n2", "p1->n2"});
    CHECK(r.skip("be") == "no relief: requests 0 cpu, nothing of what n1 is over on");
  }
  SECTION("evictionLimits.node") {
    policy::NodeUtilizationArgs args = low_args(20, 70);
    args.eviction_limit_node = 1;
    CHECK(r.run(&strategies::run_low_node_utilization, args) == Moves{"p0->n2"});
    CHECK(r.skip("p1") == "node eviction limit reached: 1 of 1 from n1 (evictionLimits.node)");
  }
}

TEST_CASE("LowNodeUtilization with source Prometheus classifies on MetricResource") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3"), make_node("n4")};
  add_pods(r.f.snapshot, "p", "n1", 3, 3200);
  add_pods(r.f.snapshot, "q", "n2", 3, 3200);
  add_pods(r.f.snapshot, "z", "n4", 3, 3200);
  // n4: cpu and memory known, but no usable MetricResource sample (missing or NaN upstream).
  r.f.usage = usage_of({{"n1", {20, 20}}, {"n2", {20, 20}}, {"n3", {5, 5}}, {"n4", {1, 1}}});
  r.f.usage.nodes["n1"].metric_resource = 90;
  r.f.usage.nodes["n2"].metric_resource = 85;
  r.f.usage.nodes["n3"].metric_resource = 10;
  policy::NodeUtilizationArgs args;
  args.thresholds = {{"MetricResource", 20}};
  args.target_thresholds = {{"MetricResource", 70}};
  args.metrics_utilization = {"Prometheus", "instance:node_load:ratio"};

  SECTION("one pod per overutilized node; the unknown node is never a source nor a target") {
    CHECK(r.run(&strategies::run_low_node_utilization, args) == Moves{"p0->n3", "q0->n3"});
    CHECK(r.node_class("n1") == NodeClass::kOverutilized);
    CHECK(r.node("n1").why == "MetricResource 90.0% > 70%");
    CHECK(r.node_class("n3") == NodeClass::kUnderutilized);
    CHECK(r.node_class("n4") == NodeClass::kUnknown);
    CHECK(r.node("n4").why == "unknown: no MetricResource sample");
    CHECK(r.reason(0) == "n1 MetricResource 90.0% > 70%: evict apps/p0 -> n3 (MetricResource "
                         "10.0%; pods have no MetricResource usage)");
    CHECK(r.skip("p1") ==
          "at most 1 pod per overutilized node per run: MetricResource has no per-pod usage "
          "(upstream's rule)");
    CHECK(r.noted("LowNodeUtilization: 1 node without a usable MetricResource sample"));
  }
  SECTION("evictionLimits.node 2: up to two pods per overutilized node") {
    args.eviction_limit_node = 2;
    CHECK(r.run(&strategies::run_low_node_utilization, args) ==
          Moves{"p0->n3", "p1->n3", "q0->n3", "q1->n3"});
    CHECK(r.skip("p2") ==
          "at most 2 pods per overutilized node per run: MetricResource has no per-pod usage "
          "(evictionLimits.node)");
  }
  SECTION("the only underutilized node without a sample: no target, nothing evicted") {
    r.f.usage.nodes["n3"].metric_resource.reset();
    r.f.usage.nodes["n4"].metric_resource = 50;
    CHECK(r.run(&strategies::run_low_node_utilization, args).empty());
    CHECK(r.node_class("n3") == NodeClass::kUnknown);
    CHECK(r.noted("none is underutilized: nothing evicted"));
  }
}

TEST_CASE("HighNodeUtilization packs underutilized nodes onto the fullest that fit") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("a"), make_node("b"), make_node("c"), make_node("d")};
  r.f.snapshot.nodes[0].unschedulable = true;  // a cordoned node may still be emptied
  r.f.snapshot.nodes[3].unschedulable = true;  // a cordoned node is no destination
  add_pods(r.f.snapshot, "a", "a", 1, 3200);   // 10%
  add_pods(r.f.snapshot, "b", "b", 5, 3200);   // 50%
  add_pods(r.f.snapshot, "c", "c", 6, 3200);   // 60%
  add_pods(r.f.snapshot, "d", "d", 7, 3200);   // 70%
  Pod memory_only = make_pod("m", 0, int64_t{1} << 30, "a");
  memory_only.meta.namespace_ = "apps";
  memory_only.owners.edit().push_back({"apps/v1", "ReplicaSet", "rs-m", "uid-rs-m", true});
  r.f.snapshot.pods.push_back(memory_only);
  policy::NodeUtilizationArgs args = high_args(20);

  SECTION("every evictable pod of the underutilized node leaves") {
    CHECK(r.run(&strategies::run_high_node_utilization, args) == Moves{"a0->c", "m->c"});
    CHECK(r.node_class("a") == NodeClass::kUnderutilized);
    CHECK(r.node("a").classified_by == "HighNodeUtilization");
    CHECK(r.node_class("d") == NodeClass::kAppropriate);
    CHECK(r.reason(0) == "a underutilized (requested cpu 10.0% <= 20%): evict apps/a0 to pack it "
                         "-> c (requested cpu 60.0% -> 70.0%)");
  }
  SECTION("evictionModes OnlyThresholdingResources keeps pods that request none of them") {
    args.eviction_modes = {"OnlyThresholdingResources"};
    CHECK(r.run(&strategies::run_high_node_utilization, args) == Moves{"a0->c"});
    CHECK(r.skip("m") == "requests none of the thresholds' resources: evictionModes "
                         "OnlyThresholdingResources");
  }
  SECTION("numberOfNodes") {
    args.number_of_nodes = 1;
    CHECK(r.run(&strategies::run_high_node_utilization, args).empty());
    CHECK(r.noted("HighNodeUtilization: 1 node underutilized; numberOfNodes is 1"));
  }
}

TEST_CASE("HighNodeUtilization leaves a pod that fits on no fuller node") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("a"), make_node("b")};
  add_pods(r.f.snapshot, "a", "a", 1, 6000);   // 18.75%: under 20%
  add_pods(r.f.snapshot, "b", "b", 9, 3200);   // 90%: 3.2 cores free
  CHECK(r.run(&strategies::run_high_node_utilization, high_args(20)).empty());
  CHECK(r.skip("a0") == "no target: insufficient cpu on b");
}

// LoadAware with landing prediction: a pod is evicted only when the scheduler model puts its
// replacement somewhere that does not undo the move (never back on the source, never on a hot
// node or one of unknown usage); and the per-workload cool-down. Nodes are 32 cores / 128 GiB:
// a 500m pod is 1.5625% cpu.
#include <catch2/catch.hpp>

#include "model/rfc3339.h"

#include <chrono>
#include <string>
#include <vector>

#include "test/strategies/balance_harness.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using Moves = std::vector<std::string>;

// `hot` runs hot on real usage but is the least requested node; `cold` idles with most of its
// cpu requested by a pod that is not a candidate (it does not run on a hot node).
void ping_pong_cluster(BalanceRun& r) {
  r.f.snapshot.nodes = {make_node("hot"), make_node("cold")};
  r.f.snapshot.pods = {owned_pod("busy", "hot", 500, "busy-rs"),
                       owned_pod("reserved", "cold", 24000, "reserved-rs")};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"cold", {10, 10}}});
}

// A bare pod (not evictable) that takes `cpu_milli` of requests on `node`.
Pod anchor(const std::string& name, const std::string& node, int64_t cpu_milli) {
  Pod pod = make_pod(name, cpu_milli, int64_t{1} << 30, node);
  pod.meta.namespace_ = "apps";
  return pod;
}

}  // namespace

TEST_CASE("landing prediction: no eviction whose replacement the scheduler puts back") {
  BalanceRun r;
  ping_pong_cluster(r);
  SECTION("with prediction, the pod stays and the reason shows the scores") {
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    // hot: cpu 1000 of 32000 -> 96, memory 2 of 128 GiB -> 98: fit 97; balanced 1 - |0.031 -
    // 0.016| / 2 -> 99; taints 3 x 100; spread 2 x 100 (system default, no other pod of busy's
    // ReplicaSet): 696. cold: cpu 24500 -> 23, memory 98: fit 60; balanced 1 - |0.766 - 0.016| /
    // 2 -> 62: 622 (LeastAllocated, BalancedAllocation, default weights).
    CHECK(r.skip("busy") ==
          "replacement would land back on hot: scheduler score hot 696 (fit 97, balanced 99, "
          "taints 100, affinity 0, inter-pod 0, spread 100) vs cold 622 (fit 60, balanced 62, "
          "taints 100, affinity 0, inter-pod 0, spread 100)");
  }
  SECTION("without prediction (the comparison), it is evicted toward cold") {
    r.f.options.predict_landing = false;
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->cold"});
    CHECK(r.f.plan.evictions[0].landing == placement::kNoNode);
  }
  SECTION("with the soft taint on the hot node, the replacement goes to cold") {
    r.f.options.soft_taint_hot_nodes = true;
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->cold"});
    CHECK(r.f.plan.evictions[0].landing == r.f.node("cold"));
    CHECK(r.reason(0).find("the scheduler is predicted") == std::string::npos);
  }
}

TEST_CASE("landing prediction: a landing elsewhere than the cold target is the eviction's target") {
  BalanceRun r;
  // t1 is the only underutilized node (the core's target); t2 is appropriate (memory 50% is not
  // under 30%) but the least requested, so the scheduler prefers it.
  r.f.snapshot.nodes = {make_node("hot"), make_node("t1"), make_node("t2")};
  r.f.snapshot.pods = {anchor("anchor", "hot", 19000), owned_pod("busy", "hot", 500, "busy-rs"),
                       anchor("t1-load", "t1", 16000)};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"t1", {10, 10}}, {"t2", {40, 50}}});
  // t1 proves the pod may move; the scheduler puts it on t2, and the plan says t2.
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->t2"});
  CHECK(r.f.plan.evictions[0].landing == r.f.node("t2"));
  CHECK(r.reason(0).find("-> t2 (cpu 40.0% -> ") != std::string::npos);
  // The plan counts the pod where it lands: t2's predicted cpu goes up, t1's does not.
  REQUIRE(r.node("t2").cpu_after.has_value());
  CHECK(*r.node("t2").cpu_after == Approx(40 + 1.5625));
  CHECK_FALSE(r.node("t1").cpu_after.has_value());
  CHECK(r.f.ctx().ledger().planned_node(r.f.pod("busy")) == r.f.node("t2"));
}

TEST_CASE("landing prediction: never onto another hot node, nor one of unknown usage") {
  BalanceRun r;
  r.f.snapshot.pods = {anchor("anchor", "h1", 20000), owned_pod("busy", "h1", 500, "busy-rs"),
                       anchor("t1-load", "t1", 16000)};
  SECTION("another overutilized node") {
    r.f.snapshot.nodes = {make_node("h1"), make_node("h2"), make_node("t1")};
    r.f.usage = usage_of({{"h1", {95, 40}}, {"h2", {90, 40}}, {"t1", {10, 10}}});
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy").rfind("replacement would land on hot h2 (overutilized): scheduler score "
                               "h2 ",
                               0) == 0);
  }
  SECTION("a node without usage data") {
    r.f.snapshot.nodes = {make_node("h1"), make_node("dark"), make_node("t1")};
    r.f.usage = usage_of({{"h1", {95, 40}}, {"t1", {10, 10}}}, {{"dark", "no cpu series"}});
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy").rfind("replacement would land on dark, whose usage is unknown: ", 0) == 0);
  }
  SECTION("a measured node LoadAware did not classify, whatever another plugin said of it") {
    // `far` is outside the policy's nodeSelector: LoadAware neither classifies nor caps it,
    // though its usage is measured and an earlier plugin may have left it underutilized.
    r.f.snapshot.nodes = {make_node("h1"), make_node("far"), make_node("t1")};
    for (const char* node : {"h1", "t1"}) {
      r.f.snapshot.nodes[r.f.node(node)].meta.labels.set("scope", "in");
    }
    r.f.policy.node_selector = "scope=in";
    r.f.usage = usage_of({{"h1", {95, 40}}, {"far", {90, 90}}, {"t1", {10, 10}}});
    r.f.build();
    r.f.ctx().node_state(r.f.node("far")).node_class = strategies::NodeClass::kUnderutilized;
    strategies::EvictionFilter filter = r.f.filter(r.evictor);
    strategies::ProfileScope scope{"balance", &filter, true, ""};
    strategies::run_load_aware(seed_load_aware_args(), scope, r.f.ctx());
    CHECK(r.moves().empty());
    CHECK(r.skip("busy").rfind("replacement would land on far, which LoadAware did not classify (",
                               0) == 0);
  }
  SECTION("an appropriate node the pod would push over its targetThresholds") {
    r.f.snapshot.nodes = {make_node("h1"), make_node("warm"), make_node("t1")};
    r.f.usage = usage_of({{"h1", {95, 40}}, {"warm", {79, 50}}, {"t1", {10, 10}}});
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy").rfind(
              "replacement would land on warm and push its cpu over targetThresholds: ", 0) == 0);
  }
}

TEST_CASE("per-workload cool-down: a move is not undone within the window") {
  BalanceRun r;
  ping_pong_cluster(r);
  r.f.options.predict_landing = false;
  r.f.snapshot.nodes.push_back(make_node("far"));
  r.f.usage = usage_of({{"hot", {92, 40}}, {"cold", {10, 10}}, {"far", {60, 50}}});
  const auto five_ago = r.f.options.now - std::chrono::minutes(5);
  strategies::WorkloadMoves moved;
  r.f.options.last_moved = &moved;
  r.f.options.cooldown = std::chrono::minutes(10);
  SECTION("a node that received a pod of the workload keeps its pods") {
    moved["apps/ReplicaSet/busy-rs"] = {{"cold", "hot", five_ago}};
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy") ==
          "workload cooling down: a pod of apps/ReplicaSet/busy-rs moved cold -> hot 5m ago; "
          "moving one off hot would undo it, cool-down 10m");
  }
  SECTION("after the window it may leave") {
    moved["apps/ReplicaSet/busy-rs"] = {{"cold", "hot", five_ago}};
    r.f.options.cooldown = std::chrono::minutes(5);
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->cold"});
  }
  SECTION("another pod of the workload leaving the same hot node is relief, not undoing") {
    moved["apps/ReplicaSet/busy-rs"] = {{"hot", "far", five_ago}};
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->cold"});
  }
  SECTION("a pod of the workload that started on the node since the move stays") {
    // The replacement of a move off far landed on hot (not where the plan counted it).
    moved["apps/ReplicaSet/busy-rs"] = {{"far", "cold", five_ago}};
    r.f.snapshot.pods[0].meta.creation_timestamp =
        model::format_rfc3339(r.f.options.now - std::chrono::minutes(4));
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy") ==
          "workload cooling down: a pod of apps/ReplicaSet/busy-rs moved off far 5m ago and a "
          "pod of it started on hot since; moving one off hot would undo it, cool-down 10m");
  }
  SECTION("a replacement that came back to the node its move left stays there") {
    moved["apps/ReplicaSet/busy-rs"] = {{"hot", "cold", five_ago}};
    r.f.snapshot.pods[0].meta.creation_timestamp =
        model::format_rfc3339(r.f.options.now - std::chrono::minutes(4));
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy") ==
          "workload cooling down: a pod of apps/ReplicaSet/busy-rs moved off hot 5m ago and this "
          "one started there since; moving it off hot again would undo it, cool-down 10m");
  }
  SECTION("no replacement goes back to a node the workload left") {
    moved["apps/ReplicaSet/busy-rs"] = {{"cold", "far", five_ago}};
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy").find("workload cooling down on cold") != std::string::npos);
  }
  SECTION("a time in the future counts as just now") {
    moved["apps/ReplicaSet/busy-rs"] = {{"cold", "hot", r.f.options.now + std::chrono::minutes(1)}};
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy") ==
          "workload cooling down: a pod of apps/ReplicaSet/busy-rs moved cold -> hot just now; "
          "moving one off hot would undo it, cool-down 10m");
  }
  SECTION("off: zero cool-down") {
    moved["apps/ReplicaSet/busy-rs"] = {{"cold", "hot", five_ago}};
    r.f.options.cooldown = std::chrono::seconds(0);
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"busy->cold"});
  }
}

TEST_CASE("landing prediction: among tied landings, one of the plugin's own targets is counted") {
  BalanceRun r;
  // a and b tie for the scheduler; only b matches LoadAware's nodeSelector, so b is the target
  // (a, the earlier node, would be the placement core's pick on a tie).
  r.f.snapshot.nodes = {make_node("hot"), make_node("a"), make_node("b")};
  r.f.snapshot.nodes[2].meta.labels.set("pool", "b");
  r.f.snapshot.pods = {anchor("anchor", "hot", 20000), owned_pod("busy", "hot", 500, "busy-rs")};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"a", {10, 10}}, {"b", {10, 10}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.node_selector = "pool=b";
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"busy->b"});
  CHECK(r.f.plan.evictions[0].landing == r.f.node("b"));
  CHECK(r.reason(0).find("lands on a or b (2 of 2 top nodes)") != std::string::npos);
}

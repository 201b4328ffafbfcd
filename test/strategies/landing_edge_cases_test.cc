// LoadAware's landing check and the cool-down in the cases a review found: DaemonSet pods, the
// cool-down and the in-flight limit within one plan, a soft taint the controller removes this
// cycle.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "test/strategies/balance_harness.h"

namespace {
using namespace loadshift;
using namespace loadshift::testing;
using Moves = std::vector<std::string>;
}  // namespace

// With DaemonSetPods not protected, a DaemonSet pod on the hot node is a candidate. Its
// replacement is created by the DaemonSet controller on the SAME node: the move is undone at
// once (ping-pong every cycle), so the landing check must refuse it.
TEST_CASE("a DaemonSet pod's replacement lands back on its node") {
  BalanceRun r;
  r.evictor.protections.daemon_set = false;
  r.f.snapshot.nodes = {make_node("hot"), make_node("cold")};
  Pod ds = make_pod("agent", 500, int64_t{1} << 30, "hot");
  ds.meta.namespace_ = "apps";
  ds.meta.uid = "uid-agent";
  ds.owners.edit().push_back({"apps/v1", "DaemonSet", "agent", "uid-ds-agent", true});
  r.f.snapshot.pods = {ds, owned_pod("reserved", "cold", 24000, "reserved-rs")};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"cold", {10, 10}}});
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
  CHECK(r.skip("agent") ==
        "replacement would land back on hot: a DaemonSet recreates its pod on the same node");
}

// docs/convergence.md: several pods of one workload may leave the same hot node; the in-flight
// limit paces them, the cool-down does not stop them. Two pods of one ReplicaSet on the hot node.
TEST_CASE("two pods of one workload leave one hot node in one plan unless the in-flight limit says") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("cold")};
  r.f.snapshot.pods = {owned_pod("busy-1", "hot", 4000, "busy-rs"),
                       owned_pod("busy-2", "hot", 4000, "busy-rs")};
  r.f.usage = usage_of({{"hot", {99, 40}}, {"cold", {10, 10}}});
  r.f.options.predict_landing = false;
  strategies::WorkloadMoves moved;
  r.f.options.last_moved = &moved;
  r.f.options.cooldown = std::chrono::minutes(30);
  SECTION("no in-flight limit: both go") {
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).size() == 2);
  }
  SECTION("limit 1: the second waits for the first") {
    r.f.options.max_in_flight_per_workload = 1;
    Moves moves = r.run(&strategies::run_load_aware, seed_load_aware_args());
    REQUIRE(moves.size() == 1);
    std::string second = r.skip(moves[0].rfind("busy-1", 0) == 0 ? "busy-2" : "busy-1");
    CHECK(second ==
          "workload in flight: ReplicaSet apps/busy-rs has 1 pod(s) in flight (evicted, "
          "terminating or not Ready), limit 1 (maxInFlightPerWorkload)");
  }
  SECTION("limit 1 with a pod of the workload already not Ready: none goes") {
    r.f.options.max_in_flight_per_workload = 1;
    Pod starting = owned_pod("busy-3", "cold", 100, "busy-rs");
    starting.ready = false;
    r.f.snapshot.pods.push_back(starting);
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("busy-1").rfind("workload in flight: ReplicaSet apps/busy-rs has 1 pod(s)", 0) == 0);
  }
}

// Within one plan: once a pod of a workload is planned onto a node, no pod of that workload leaves
// that node in the same plan (the plan would undo its own move).
TEST_CASE("the cool-down holds within one plan: a node that receives keeps the workload's pods") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("cold")};
  r.f.snapshot.pods = {owned_pod("busy-1", "hot", 4000, "busy-rs")};
  r.f.usage = usage_of({{"hot", {99, 40}}, {"cold", {10, 10}}});
  strategies::WorkloadMoves moved;
  r.f.options.last_moved = &moved;
  r.f.options.cooldown = std::chrono::minutes(30);
  r.f.snapshot.pods.push_back(owned_pod("busy-2", "cold", 4000, "busy-rs"));
  r.f.build();
  r.f.ctx().evict(r.f.pod("busy-1"), r.f.node("cold"), "p", "LoadAware", "hot", nullptr);
  CHECK(r.f.ctx().cooldown_reason(r.f.pod("busy-2")) ==
        "workload cooling down: a pod of apps/ReplicaSet/busy-rs is planned hot -> cold this "
        "cycle; moving one off cold would undo it, cool-down 30m");
  CHECK(r.f.ctx().cooldown_return_reason(r.f.pod("busy-2"), r.f.node("hot")) ==
        "workload cooling down: a pod of apps/ReplicaSet/busy-rs is planned off hot this cycle; "
        "sending one back would undo it, cool-down 30m");
}

TEST_CASE("the cool-down leaves the deschedule plugins and finished pods alone") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("cold")};
  Pod done = owned_pod("done", "hot", 4000, "busy-rs");
  done.phase = model::PodPhase::kSucceeded;
  r.f.snapshot.pods = {done, owned_pod("busy-1", "hot", 4000, "busy-rs")};
  r.f.usage = usage_of({{"hot", {99, 40}}, {"cold", {10, 10}}});
  strategies::WorkloadMoves moved;
  r.f.options.last_moved = &moved;
  r.f.options.cooldown = std::chrono::minutes(30);
  r.f.build();
  // A deschedule plugin removes the finished pod: no cool-down for it, and none started by it.
  CHECK_FALSE(r.f.ctx().cooldown_reason(r.f.pod("done")).has_value());
  r.f.ctx().evict(r.f.pod("done"), placement::kNoNode, "p", "RemoveFailedPods", "finished",
                  nullptr);
  CHECK_FALSE(r.f.ctx().cooldown_reason(r.f.pod("busy-1")).has_value());
}

// --soft-taint-hot-nodes: cool1 still carries last cycle's loadshift.io/overutilized but is now
// underutilized, so the controller REMOVES the taint (plan_soft_taints, "cooled") before it
// evicts. kube-scheduler then sees cool1 untainted and, being the least requested, picks it. The
// model counts the snapshot's taint on cool1 and predicts cool2: the plan reserves the pod, and
// counts its load, on the wrong node.
TEST_CASE("a taint the controller removes this cycle is not counted in the prediction") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("cool1"), make_node("cool2")};
  r.f.snapshot.nodes[1].taints.push_back(
      {"loadshift.io/overutilized", "", model::TaintEffect::kPreferNoSchedule});
  r.f.snapshot.pods = {owned_pod("busy", "hot", 500, "busy-rs"),
                       owned_pod("reserved", "cool2", 8000, "reserved-rs")};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"cool1", {10, 10}}, {"cool2", {10, 10}}});
  r.f.options.soft_taint_hot_nodes = true;
  Moves moves = r.run(&strategies::run_load_aware, seed_load_aware_args());
  REQUIRE(moves.size() == 1);
  INFO(r.reason(0));
  CHECK(r.f.plan.evictions[0].placed() == r.f.node("cool1"));
  CHECK(r.f.plan.evictions[0].landing == r.f.node("cool1"));
}

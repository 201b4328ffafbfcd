// The plan's one usage account (PlanContext::predicted) and the one target search
// (target_search.h) every plugin uses: evictions move load out of the source and into where the
// pod is placed, for every plugin alike; columns added late see the whole plan; the search's
// options (own node, rule, unknown usage, enough, the two reason texts).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "strategies/deschedule_targets.h"
#include "strategies/plugins.h"
#include "strategies/target_search.h"
#include "test/strategies/deschedule_fixture.h"
#include "test/strategies/plan_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using strategies::PredictedUsage;
using strategies::UsageBasis;

TEST_CASE("the usage account moves every eviction: load out of the source, in where placed",
          "[usage_account]") {
  PlanFixture f;
  f.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  f.snapshot.pods = {owned_pod("a", "n1", 3200), owned_pod("b", "n1", 1600),
                     owned_pod("done", "n1", 6400)};
  f.snapshot.pods[2].phase = PodPhase::kSucceeded;
  f.usage = usage_of({{"n1", {80, 50}}, {"n2", {10, 10}}});  // n3: no usage data
  f.build();
  strategies::PlanContext& ctx = f.ctx();
  const PredictedUsage& measured = ctx.predicted(UsageBasis::kMeasured, {"cpu", "memory"});
  const PredictedUsage& requested = ctx.predicted(UsageBasis::kRequested, {"cpu", "memory"});
  CHECK(measured.known(f.node("n1")));
  CHECK_FALSE(measured.known(f.node("n3")));  // measured: only nodes with usage data
  CHECK(requested.known(f.node("n3")));       // requested: every node
  CHECK(measured.of(f.node("n1")).at("cpu") == Approx(80));
  CHECK(requested.of(f.node("n1")).at("cpu") == Approx(15));  // 4800m of 32000m; done: none

  ctx.evict(f.pod("a"), f.node("n2"), "p", "LoadAware", "why", nullptr);
  // 3200m of 32000m is 10%: out of n1, into n2, on both bases.
  CHECK(measured.of(f.node("n1")).at("cpu") == Approx(70));
  CHECK(measured.of(f.node("n2")).at("cpu") == Approx(20));
  CHECK(requested.of(f.node("n1")).at("cpu") == Approx(5));
  CHECK(requested.of(f.node("n2")).at("cpu") == Approx(10));
  // The report's after-columns follow at once, in the node's own figures.
  REQUIRE(f.plan.nodes[f.node("n1")].cpu_after.has_value());
  CHECK(*f.plan.nodes[f.node("n1")].cpu_after == Approx(70));
  CHECK(*f.plan.nodes[f.node("n2")].cpu_after == Approx(20));

  // A finished pod changes nothing: it was never counted on n1, and its controller replaced it
  // (or will not) whether or not it is evicted.
  ctx.evict(f.pod("done"), f.node("n2"), "p", "PodLifeTime", "why", nullptr);
  CHECK(measured.of(f.node("n1")).at("cpu") == Approx(70));
  CHECK(measured.of(f.node("n2")).at("cpu") == Approx(20));

  // A pod evicted without a target only leaves.
  ctx.evict(f.pod("b"), placement::kNoNode, "p", "PodLifeTime", "why", nullptr);
  CHECK(measured.of(f.node("n1")).at("cpu") == Approx(65));
  // Neither a nor b has measured usage: what left n1 on the measured account is uncertain (a
  // target's caps count it as still there); on the requested account it is exact.
  CHECK(measured.uncertain(f.node("n1"), 0) == Approx(15));
  CHECK(requested.uncertain(f.node("n1"), 0) == 0);

  // A column asked for late is the same account, grown in place: the old column keeps its
  // index, and the new one has seen the whole plan.
  const PredictedUsage& grown = ctx.predicted(UsageBasis::kMeasured, {"pods", "cpu"});
  CHECK(&grown == &measured);
  REQUIRE(grown.resources() == std::vector<std::string>{"cpu", "memory", "pods"});
  CHECK(grown.tracked(f.node("n1"), 0) == Approx(65));
  CHECK(grown.uncertain(f.node("n1"), 0) == Approx(15));  // kept through the rebuild
  // n1 held a and b (done is finished, never counted): 2 of 110 pods, and both left.
  CHECK(grown.of(f.node("n1")).at("pods") == Approx(0));
  CHECK(grown.of(f.node("n2")).at("pods") == Approx(100.0 / 110));
}

TEST_CASE("what surely left a node: measured load's share of capacity, nothing of an estimate",
          "[usage_account]") {
  model::Snapshot snapshot;
  snapshot.nodes = {make_node("n1", 32000), make_node("n2", 32000)};
  snapshot.nodes[0].capacity.cpu_milli = 40000;  // 8 cores reserved: allocatable 32 of 40
  PredictedUsage usage(snapshot, {"cpu", "pods"});
  usage.track_uncertain_departures();
  usage.set(0, {{"cpu", 50}, {"pods", 10}});
  usage.set(1, {{"cpu", 10}, {"pods", 10}});
  model::ResourceList requests;
  requests.pods = 1;
  strategies::PodAmounts measured{.cpu_milli = 3200, .measured = true, .requests = &requests};
  strategies::PodAmounts estimated{.cpu_milli = 1600, .measured = false, .requests = &requests};
  usage.move(0, 1, measured);
  // 3200m is 10% of allocatable; of capacity, 8%: 2 points may not really be gone.
  CHECK(usage.of(0).at("cpu") == Approx(40));
  CHECK(usage.uncertain(0, 0) == Approx(2));
  usage.move(0, 1, estimated);  // 5% of allocatable, all of it uncertain
  CHECK(usage.of(0).at("cpu") == Approx(35));
  CHECK(usage.uncertain(0, 0) == Approx(7));
  // The pod count is figured from requests on both sides: exact.
  CHECK(usage.of(0).at("pods") == Approx(10 - 200.0 / 110));
  CHECK(usage.uncertain(0, 1) == 0);
  // Nothing is uncertain on a node that only gained.
  CHECK(usage.uncertain(1, 0) == 0);
}

TEST_CASE("a deschedule plugin's target is freed by load planned away from it",
          "[usage_account]") {
  // te3 runs at 99% cpu: the intruder (500m, 1.6% of te3) fits under its 100% watermark only
  // once the 4-core pod planned away from it is counted as gone. te4 is hot for good.
  DescheduleSetup setup;
  Node te2 = make_node("te2");
  te2.taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  setup.snapshot.nodes = {te2, make_node("te3"), make_node("te4")};
  setup.snapshot.pods = {workload_pod("intruder", 500, "te2"), workload_pod("leaver", 4000, "te3")};
  set_usage(setup.usage, "te2", 10, 10);
  set_usage(setup.usage, "te3", 99, 10);
  set_usage(setup.usage, "te4", 99, 10);
  setup.evictor.node_fit = true;
  auto taints = [](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
    strategies::run_node_taints(policy::NodeTaintsArgs{}, scope, ctx);
  };

  DescheduleOutcome alone = run_deschedule(setup, taints);
  CHECK(alone.moves.empty());
  CHECK(alone.skips["intruder"] ==
        "no node fits: te2 taint dedicated=gpu:NoSchedule not tolerated; refused te3 (too hot: "
        "cpu 99.0% + 1.6% > 100%), te4 (too hot: cpu 99.0% + 1.6% > 100%)");

  setup.prepare = [](strategies::PlanContext& ctx) {
    ctx.evict(1, placement::kNoNode, "test", "PodLifeTime", "old", nullptr);  // leaver
  };
  // The leaver has no measured usage: its 4 cores are an estimate from requests, which may not
  // really leave. te3 keeps counting them for a target.
  DescheduleOutcome estimated = run_deschedule(setup, taints);
  CHECK(estimated.moves == Moves{"leaver->-"});
  CHECK(estimated.skips["intruder"] ==
        "no node fits: te2 taint dedicated=gpu:NoSchedule not tolerated; refused te3 (too hot: "
        "cpu 86.5% (+12.5% planned away, not surely gone) + 1.6% > 100%), te4 (too hot: cpu "
        "99.0% + 1.6% > 100%)");

  // Measured, it surely leaves (te3's capacity is its allocatable here).
  setup.usage.pods["apps/leaver"] = {4000, double(int64_t{1} << 30)};
  DescheduleOutcome freed = run_deschedule(setup, taints);
  CHECK(freed.moves == Moves{"leaver->-", "intruder->te3"});
  // 99% - 12.5% (4 of 32 cores) = 86.5%, then + 1.6%; memory 10% - 0.8% (1 of 128 GiB) + 0.8%.
  CHECK(freed.reasons["intruder"] ==
        "te2 taint dedicated=gpu:NoSchedule not tolerated -> te3 (cpu 86.5% -> 88.1%, memory "
        "9.2% -> 10.0%)");
}

namespace {

// n0 (the pod's node), n1..n5 plain, a 8-core pod on n4; usage per node given; caps 80% cpu
// everywhere.
struct SearchSetup {
  PlanFixture f;
  std::vector<policy::Percentages> caps;
  strategies::TargetCaps table;
  strategies::PodAmounts load;

  explicit SearchSetup(const std::vector<std::pair<std::string, std::pair<double, double>>>& usage) {
    for (int i = 0; i <= 5; ++i) f.snapshot.nodes.push_back(make_node("n" + std::to_string(i)));
    f.snapshot.pods = {owned_pod("p", "n0", 3200), owned_pod("busy", "n4", 8000, "other")};
    f.usage = usage_of(usage);
    f.build();
    caps.assign(f.snapshot.nodes.size(), {{"cpu", 80}});
  }
  strategies::TargetSearch search(strategies::TargetQuery query) {
    const PredictedUsage& account = f.ctx().predicted(UsageBasis::kMeasured, {"cpu", "memory"});
    table = strategies::TargetCaps(f.snapshot, caps, account);
    load = strategies::estimated_load(f.ctx(), f.pod("p"));
    query.usage = &account;
    query.caps = &table;
    query.load = &load;
    return strategies::find_target(f.ctx(), f.pod("p"), query);
  }
};

}  // namespace

TEST_CASE("the target search: own node, rule, caps, unknown usage, enough, reason texts",
          "[usage_account]") {
  SearchSetup s({{"n0", {10, 10}},
                 {"n1", {75, 10}},
                 {"n2", {20, 10}},
                 {"n3", {30, 10}},
                 {"n4", {40, 10}}});  // n5: unknown
  std::vector<NodeId> all = {0, 1, 2, 3, 4, 5};
  strategies::TargetQuery query;
  query.candidates = all;

  SECTION("the own node is never a target; the caps refuse n1 (75% + 10% > 80%)") {
    strategies::TargetSearch found = s.search(query);
    REQUIRE(found.target.has_value());
    CHECK(*found.target != 0);
    CHECK(found.refused == 2);  // n1 over its cap, n5 unknown
  }
  SECTION("a rule refuses first; the reasons in both texts") {
    strategies::NodeRule rule{[](NodeId node) { return node >= 2 && node <= 4; },
                              [](NodeId node) { return "rule says no: n" + std::to_string(node); }};
    query.rule = &rule;
    strategies::TargetSearch grouped = s.search(query);
    CHECK_FALSE(grouped.target.has_value());
    CHECK(grouped.refused == 5);
    CHECK(grouped.why_not ==
          "no target: rule says no on n2, n3, n4; cpu would exceed targetThresholds on n1; usage "
          "unknown on n5");
    query.text = strategies::RefusalText::kFirstNodes;
    strategies::TargetSearch first = s.search(query);
    CHECK(first.why_not ==
          "refused n1 (too hot: cpu 75.0% + 10.0% > 80%), n2 (rule says no: n2), n3 (rule says "
          "no: n3), and 2 more");
  }
  SECTION("without usage data to check against, an unknown node is taken as it is") {
    query.candidates = std::span<const NodeId>(all).subspan(5);  // n5 alone
    CHECK_FALSE(s.search(query).target.has_value());
    query.refuse_unknown = false;
    strategies::TargetSearch found = s.search(query);
    REQUIRE(found.target.has_value());
    CHECK(*found.target == 5);
  }
  SECTION("enough: the best of the first candidates that pass") {
    // All of n4, n3, n2 pass; the placement core prefers the least requested: n4 holds a pod,
    // n3 and n2 tie (the earlier candidate wins).
    std::vector<NodeId> order = {4, 3, 2};
    query.candidates = order;
    CHECK(s.search(query).target == std::optional<NodeId>(3));
    query.enough = 1;
    CHECK(s.search(query).target == std::optional<NodeId>(4));
    query.order = strategies::TargetOrder::kFirstFeasible;
    query.enough = 0;
    CHECK(s.search(query).target == std::optional<NodeId>(4));
  }
  SECTION("only the pod's own node") {
    query.candidates = std::span<const NodeId>(all).first(1);  // n0
    CHECK(s.search(query).why_not == "no target: no candidate but the pod's own node");
    query.text = strategies::RefusalText::kFirstNodes;
    CHECK(s.search(query).why_not == "no candidate node but the pod's own");
  }
  SECTION("no candidates") {
    query.candidates = {};
    query.no_candidates = "no underutilized node";
    CHECK(s.search(query).why_not == "no target: no underutilized node");
    query.text = strategies::RefusalText::kFirstNodes;
    query.no_candidates = "no candidate node";
    CHECK(s.search(query).why_not == "no candidate node");
  }
}

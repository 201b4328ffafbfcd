// RemovePodsViolatingNodeAffinity: exact plans on small clusters, required and preferred
// ("return home" from a hybrid node).
#include <catch2/catch.hpp>

#include "policy/loader.h"
#include "strategies/plan.h"
#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
const std::string kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";

policy::NodeAffinityArgs affinity_args(std::vector<std::string> types) {
  policy::NodeAffinityArgs args;
  args.node_affinity_type = std::move(types);
  return args;
}

DescheduleOutcome run(const DescheduleSetup& setup, const policy::NodeAffinityArgs& args) {
  return run_deschedule(setup,
                        [&](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
                          strategies::run_node_affinity(args, scope, ctx);
                        });
}

Node zone_node(const std::string& name, const std::string& zone) {
  Node node = make_node(name);
  node.meta.labels.set("zone", zone);
  return node;
}

// Required affinity zone In [zone].
void require_zone(Pod& pod, const std::string& zone) {
  NodeSelectorTerm term;
  term.match_expressions.push_back(req("zone", SelectorOperator::kIn, {zone}));
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{term};
}

Pod pool_pod(const std::string& name, const std::string& pool, const std::string& node,
             int64_t cpu_milli = 1600) {
  Pod pod = workload_pod(name, cpu_milli, node);
  seed_pool_rules(pod, pool);
  return pod;
}

// te1 training, te5 and te6 inference, te7 hybrid: 32 cores and 128 GiB each.
DescheduleSetup pools_cluster() {
  DescheduleSetup setup;
  setup.snapshot.nodes = {pool_node("te1", "training"), pool_node("te5", "inference"),
                          pool_node("te6", "inference"), pool_node("te7", "hybrid")};
  set_usage(setup.usage, "te1", 20, 20);
  set_usage(setup.usage, "te5", 30, 40);
  set_usage(setup.usage, "te6", 50, 40);
  set_usage(setup.usage, "te7", 60, 50);
  return setup;
}

strategies::NodeState& state_of(strategies::PlanContext& ctx, const std::string& node) {
  return ctx.node_state(ctx.index().node_id(node));
}

}  // namespace

TEST_CASE("required: a pod whose node no longer matches goes to a node that does",
          "[node_affinity][required]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zone_node("a", "x"), zone_node("b", "y"), zone_node("c", "y")};
  Pod violating = workload_pod("violating", 500, "a");
  require_zone(violating, "y");
  Pod satisfied = workload_pod("satisfied", 500, "b");
  require_zone(satisfied, "y");
  Pod free = workload_pod("free", 500, "a");  // no affinity at all
  setup.snapshot.pods = {violating, satisfied, free};

  DescheduleOutcome out = run(setup, affinity_args({kRequired}));
  // b and c both match; c has more room left (b runs `satisfied`).
  CHECK(out.moves == Moves{"violating->c"});
  CHECK(out.reasons["violating"] ==
        "a required node affinity not matched: zone In [y] (node has zone=x) -> c");
  CHECK(out.skips.empty());  // pods that violate nothing are not recorded
  CHECK(out.plan.evictions[0].strategy == "RemovePodsViolatingNodeAffinity");
  CHECK(out.plan.evictions[0].profile == "test");
}

TEST_CASE("required: the nodeSelector counts only for pods with required affinity (as upstream)",
          "[node_affinity][required]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zone_node("a", "x"), zone_node("b", "y")};
  Pod selector_only = workload_pod("selector-only", 500, "a");
  selector_only.node_selector.set("zone", "y");
  Pod both = workload_pod("both", 500, "a");
  both.node_selector.set("zone", "y");
  NodeSelectorTerm any_zone;
  any_zone.match_expressions.push_back(req("zone", SelectorOperator::kExists));
  both.node_affinity.edit().required = std::vector<NodeSelectorTerm>{any_zone};
  setup.snapshot.pods = {selector_only, both};

  DescheduleOutcome out = run(setup, affinity_args({kRequired}));
  CHECK(out.moves == Moves{"both->b"});
  CHECK_THAT(out.reasons["both"], StartsWith("a nodeSelector zone=y not matched"));
  CHECK(out.skips.empty());
}

TEST_CASE("required: without a node that fits the pod stays, whatever nodeFit says",
          "[node_affinity][required]") {
  for (bool node_fit : {true, false}) {
    DescheduleSetup setup;
    setup.evictor.node_fit = node_fit;
    setup.snapshot.nodes = {zone_node("a", "x"), zone_node("b", "y"), zone_node("c", "z")};
    setup.snapshot.nodes[1].allocatable.cpu_milli = 1000;  // b: too small
    Pod violating = workload_pod("violating", 2000, "a");
    require_zone(violating, "y");
    setup.snapshot.pods = {violating};

    DescheduleOutcome out = run(setup, affinity_args({kRequired}));
    INFO("nodeFit " << node_fit);
    CHECK(out.moves.empty());
    CHECK(out.skips["violating"] ==
          "no node fits: a required node affinity not matched: zone In [y] (node has zone=x); "
          "refused b (insufficient cpu: pod requests 2, node has 1 free of 1 allocatable), c "
          "(required node affinity not matched: zone In [y] (node has zone=z))");
  }
}

TEST_CASE("required: DefaultEvictor nodeSelector bounds the targets", "[node_affinity][required]") {
  DescheduleSetup setup;
  setup.evictor.node_fit = true;
  setup.evictor.node_selector = "tier=gold";
  setup.snapshot.nodes = {zone_node("a", "x"), zone_node("b", "y"), zone_node("c", "y")};
  setup.snapshot.nodes[2].meta.labels.set("tier", "gold");
  Pod violating = workload_pod("violating", 500, "a");
  require_zone(violating, "y");
  setup.snapshot.pods = {violating};

  CHECK(run(setup, affinity_args({kRequired})).moves == Moves{"violating->c"});
}

TEST_CASE("preferred: pods pushed onto a hybrid node return to their own pool",
          "[node_affinity][preferred]") {
  DescheduleSetup setup = pools_cluster();
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te7"),
                         pool_pod("train-0", "training", "te7"),
                         pool_pod("inf-home", "inference", "te6")};

  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  // te5 and te6 score 100 alike; te5 has more room left, te1 is the only training node.
  CHECK(out.moves == Moves{"inf-0->te5", "train-0->te1"});
  CHECK(out.reasons["inf-0"] ==
        "on te7 (hybrid) but prefers pool inference (weight 100): -> te5 (score 100 > 0; cpu "
        "30.0% -> 35.0%, memory 40.0% -> 40.8%)");
  CHECK(out.reasons["train-0"] ==
        "on te7 (hybrid) but prefers pool training (weight 100): -> te1 (score 100 > 0; cpu "
        "20.0% -> 25.0%, memory 20.0% -> 20.8%)");
  CHECK(out.skips.empty());  // inf-home is on a best-scored node: not even looked at
  // The Ledger holds the reservations for the plugins that run next.
  CHECK(out.plan.evictions[0].node == 3);
  CHECK(out.plan.evictions[0].target == 1);
}

TEST_CASE("preferred: a pod on its best-scored node never moves (no loop)",
          "[node_affinity][preferred]") {
  DescheduleSetup setup = pools_cluster();
  // te6 is busier than te5, the hybrid node idle: nothing scores more than 100 for inf-0.
  set_usage(setup.usage, "te6", 75, 70);
  set_usage(setup.usage, "te7", 1, 1);
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te6")};
  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  CHECK(out.plan.evictions.empty());
  CHECK(out.plan.skipped.empty());

  // And once moved home, a second run with the pod on te5 leaves it there.
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te5")};
  out = run(setup, affinity_args({kPreferred}));
  CHECK(out.plan.evictions.empty());
  CHECK(out.plan.skipped.empty());
}

TEST_CASE("preferred: no return when home is overutilized", "[node_affinity][preferred]") {
  DescheduleSetup setup = pools_cluster();
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te7")};

  SECTION("classed overutilized") {
    setup.prepare = [](strategies::PlanContext& ctx) {
      for (const char* name : {"te5", "te6"}) {
        state_of(ctx, name).node_class = strategies::NodeClass::kOverutilized;
        state_of(ctx, name).why = "cpu 92.0% > 80%";
      }
    };
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves.empty());
    CHECK(out.skips["inf-0"] ==
          "no better node fits: on te7 (hybrid) but prefers pool inference (weight 100); refused "
          "te5 (overutilized: cpu 92.0% > 80%), te6 (overutilized: cpu 92.0% > 80%)");
  }
  SECTION("the pod's load would take home over its target threshold") {
    set_usage(setup.usage, "te5", 78, 40);
    set_usage(setup.usage, "te6", 50, 84.5);
    setup.prepare = [](strategies::PlanContext& ctx) {
      for (const char* name : {"te5", "te6"}) {
        state_of(ctx, name).target_thresholds = {{"cpu", 80}, {"memory", 85}};
      }
    };
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves.empty());
    CHECK(out.skips["inf-0"] ==
          "no better node fits: on te7 (hybrid) but prefers pool inference (weight 100); refused "
          "te5 (too hot: cpu 78.0% + 5.0% > 80%), te6 (too hot: memory 84.5% + 0.8% > 85%)");
  }
  SECTION("home's usage is unknown") {
    setup.usage.nodes.erase("te5");
    setup.usage.nodes.erase("te6");
    setup.usage.unknown["te5"] = "no cpu series";
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves.empty());
    CHECK(out.skips["inf-0"] ==
          "no better node fits: on te7 (hybrid) but prefers pool inference (weight 100); refused "
          "te5 (usage unknown: no cpu series), te6 (usage unknown: no usage data)");
  }
  SECTION("without any usage data only the placement core decides") {
    setup.usage = {};
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves == Moves{"inf-0->te5"});
    CHECK(out.reasons["inf-0"] ==
          "on te7 (hybrid) but prefers pool inference (weight 100): -> te5 (score 100 > 0)");
  }
}

TEST_CASE("preferred: pods already planned onto home count toward its watermark and room",
          "[node_affinity][preferred]") {
  DescheduleSetup setup = pools_cluster();
  setup.snapshot.nodes.erase(setup.snapshot.nodes.begin() + 2);  // no te6
  set_usage(setup.usage, "te5", 70, 40);
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te7"),
                         pool_pod("inf-1", "inference", "te7"),
                         pool_pod("inf-2", "inference", "te7")};
  setup.prepare = [](strategies::PlanContext& ctx) {
    state_of(ctx, "te5").target_thresholds = {{"cpu", 80}, {"memory", 85}};
  };
  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  // 70% + 5% + 5% reaches 80% (not over it); a third would make 85%.
  CHECK(out.moves == Moves{"inf-0->te5", "inf-1->te5"});
  CHECK(out.skips["inf-2"] ==
        "no better node fits: on te7 (hybrid) but prefers pool inference (weight 100); refused "
        "te5 (too hot: cpu 80.0% + 5.0% > 80%)");

  // Without usage, the requests reserved in the Ledger fill te5 instead.
  setup.usage = {};
  setup.prepare = nullptr;
  setup.snapshot.nodes[1].allocatable.cpu_milli = 4000;
  out = run(setup, affinity_args({kPreferred}));
  CHECK(out.moves == Moves{"inf-0->te5", "inf-1->te5"});
  CHECK_THAT(out.skips["inf-2"],
             Contains("te5 (insufficient cpu: pod requests 1600m, node has 800m free of 4 "
                      "allocatable (3200m reserved by this plan))"));
}

TEST_CASE("preferred: the highest score that has a fitting node wins, never the current one",
          "[node_affinity][preferred]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zone_node("gold", "gold"), zone_node("silver", "silver"),
                          zone_node("bronze", "bronze"), zone_node("plain", "none")};
  setup.snapshot.nodes[0].allocatable.cpu_milli = 100;  // gold is full
  Pod pod = workload_pod("p", 1000, "bronze");
  const std::vector<std::pair<std::string, int32_t>> preferences{
      {"gold", 50}, {"silver", 20}, {"bronze", 10}};
  for (const auto& preference : preferences) {
    PreferredSchedulingTerm term;
    term.weight = preference.second;
    term.preference.match_expressions.push_back(
        req("zone", SelectorOperator::kIn, {preference.first}));
    pod.node_affinity.edit().preferred.push_back(term);
  }
  setup.snapshot.pods = {pod};
  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  CHECK(out.moves == Moves{"p->silver"});
  CHECK(out.reasons["p"] == "on bronze (preferred-affinity score 10): -> silver (score 20 > 10)");

  // On silver it would only go up to gold, which is full: it stays, with the reason.
  setup.snapshot.pods[0].node_name = "silver";
  out = run(setup, affinity_args({kPreferred}));
  CHECK(out.moves.empty());
  CHECK_THAT(out.skips["p"], StartsWith("no better node fits: on silver (preferred-affinity "
                                        "score 20); refused gold (insufficient cpu"));
}

TEST_CASE("namespaces and labelSelector choose the pods looked at", "[node_affinity][filters]") {
  DescheduleSetup setup = pools_cluster();
  Pod in_apps = pool_pod("in-apps", "inference", "te7");
  Pod in_batch = pool_pod("in-batch", "inference", "te7");
  in_batch.meta.namespace_ = "batch";
  Pod labelled = pool_pod("labelled", "inference", "te7");
  labelled.meta.labels.set("move", "yes");
  setup.snapshot.pods = {in_apps, in_batch, labelled};

  policy::NodeAffinityArgs args = affinity_args({kPreferred});
  SECTION("include") {
    args.namespaces.include = {"batch"};
    DescheduleOutcome out = run(setup, args);
    CHECK(out.moves == Moves{"in-batch->te5"});
    CHECK(out.skips.empty());
  }
  SECTION("exclude") {
    args.namespaces.exclude = {"apps"};
    CHECK(run(setup, args).moves == Moves{"in-batch->te5"});
  }
  SECTION("labelSelector") {
    LabelSelector selector;
    selector.match_labels.set("move", "yes");
    args.label_selector = selector;
    DescheduleOutcome out = run(setup, args);
    CHECK(out.moves == Moves{"labelled->te5"});
    CHECK(out.skips.empty());
  }
}

TEST_CASE("violating pods DefaultEvictor protects are skipped with its reason, others not listed",
          "[node_affinity][filters]") {
  DescheduleSetup setup = pools_cluster();
  Pod critical = pool_pod("critical", "inference", "te7");
  critical.priority = 2000001000;
  Pod critical_home = pool_pod("critical-home", "inference", "te5");
  critical_home.priority = 2000001000;
  setup.snapshot.pods = {critical, critical_home};
  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  CHECK(out.moves.empty());
  REQUIRE(out.plan.skipped.size() == 1);
  CHECK(out.plan.skipped[0].strategy == "RemovePodsViolatingNodeAffinity");
  CHECK_THAT(out.skips["critical"], Contains("2000001000"));
}

TEST_CASE("the policy's limits hold", "[node_affinity][limits]") {
  DescheduleSetup setup = pools_cluster();
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te7"),
                         pool_pod("inf-1", "inference", "te7"),
                         pool_pod("train-0", "training", "te7")};
  SECTION("per node") {
    setup.policy.max_pods_to_evict_per_node = 2;
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves == Moves{"inf-0->te5", "inf-1->te6"});
    CHECK_THAT(out.skips["train-0"], StartsWith("node eviction limit reached: 2 of 2 from te7"));
  }
  SECTION("total") {
    setup.policy.max_pods_to_evict_total = 1;
    DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
    CHECK(out.moves == Moves{"inf-0->te5"});
    CHECK_THAT(out.skips["inf-1"], StartsWith("total eviction limit reached: 1 of 1"));
    CHECK_THAT(out.skips["train-0"], StartsWith("total eviction limit reached: 1 of 1"));
  }
}

TEST_CASE("both types in one run: a pod is evicted once", "[node_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zone_node("a", "x"), zone_node("b", "y"), zone_node("c", "y")};
  setup.snapshot.nodes[2].meta.labels.set("disk", "ssd");
  Pod pod = workload_pod("p", 500, "a");
  require_zone(pod, "y");
  PreferredSchedulingTerm ssd;
  ssd.weight = 30;
  ssd.preference.match_expressions.push_back(req("disk", SelectorOperator::kIn, {"ssd"}));
  pod.node_affinity.edit().preferred.push_back(ssd);
  setup.snapshot.pods = {pod};
  DescheduleOutcome out = run(setup, affinity_args({kRequired, kPreferred}));
  // The placement core's order puts the preferred score first: c, not b.
  CHECK(out.moves == Moves{"p->c"});
  CHECK_THAT(out.reasons["p"], StartsWith("a required node affinity not matched"));
}

TEST_CASE("nodes out of the policy's scope are neither sources nor targets", "[node_affinity]") {
  DescheduleSetup setup = pools_cluster();
  setup.policy.node_selector = "maip.mxsf.io/node.usage notin (inference)";
  setup.snapshot.pods = {pool_pod("inf-0", "inference", "te7"),
                         pool_pod("train-on-te5", "training", "te5")};
  DescheduleOutcome out = run(setup, affinity_args({kPreferred}));
  CHECK(out.moves.empty());
  // te5 and te6 are out of scope: inf-0 on te7 already has the best in-scope score.
  CHECK(out.plan.skipped.empty());
}

TEST_CASE("make_plan: home is judged by LoadAware's own watermarks", "[node_affinity][plan]") {
  policy::LoadResult loaded = policy::load_policy(R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: seed
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true, priorityThreshold: {value: 10000}}
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  - name: RemovePodsViolatingNodeAffinity
    args:
      nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeAffinity]}
    balance: {enabled: [LoadAware]}
)",
                                                  "seed.yaml");
  REQUIRE(loaded.ok());
  Snapshot snapshot;
  snapshot.nodes = {pool_node("te1", "training"), pool_node("te5", "inference"),
                    pool_node("te7", "hybrid")};
  snapshot.pods = {pool_pod("inf-0", "inference", "te7")};
  metrics::UsageMap usage;
  set_usage(usage, "te1", 50, 50);
  set_usage(usage, "te7", 50, 50);
  placement::ClusterIndex index(snapshot, strategies::placement_options(*loaded.policy));
  auto affinity_decision = [&](const strategies::Plan& plan) -> std::string {
    for (const auto& e : plan.evictions) {
      if (e.strategy == "RemovePodsViolatingNodeAffinity") {
        return "evict -> " + snapshot.nodes[e.target].meta.name + ": " + e.reason;
      }
    }
    for (const auto& s : plan.skipped) {
      if (s.strategy == "RemovePodsViolatingNodeAffinity") return "skip: " + s.reason;
    }
    return "";
  };

  set_usage(usage, "te5", 40, 40);
  CHECK(affinity_decision(strategies::make_plan(index, usage, *loaded.policy)) ==
        "evict -> te5: on te7 (hybrid) but prefers pool inference (weight 100): -> te5 (score "
        "100 > 0; cpu 40.0% -> 45.0%, memory 40.0% -> 40.8%)");

  set_usage(usage, "te5", 79, 40);  // appropriate, but the pod would take it over 80%
  CHECK(affinity_decision(strategies::make_plan(index, usage, *loaded.policy)) ==
        "skip: no better node fits: on te7 (hybrid) but prefers pool inference (weight 100); "
        "refused te5 (too hot: cpu 79.0% + 5.0% > 80%)");

  set_usage(usage, "te5", 90, 40);  // LoadAware calls it overutilized
  CHECK_THAT(affinity_decision(strategies::make_plan(index, usage, *loaded.policy)),
             StartsWith("skip: no better node fits: on te7 (hybrid) but prefers pool inference "
                        "(weight 100); refused te5 (overutilized: "));
}

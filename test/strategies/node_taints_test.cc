// RemovePodsViolatingNodeTaints: exact plans on small clusters.
#include <catch2/catch.hpp>

#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::StartsWith;

namespace {

DescheduleOutcome run(const DescheduleSetup& setup, const policy::NodeTaintsArgs& args) {
  return run_deschedule(setup,
                        [&](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
                          strategies::run_node_taints(args, scope, ctx);
                        });
}

Node tainted(const std::string& name, const std::string& key, const std::string& value,
             TaintEffect effect) {
  Node node = make_node(name);
  node.taints.push_back({key, value, effect});
  return node;
}

// te2 tainted dedicated=gpu:NoSchedule, te3 and te4 plain.
DescheduleSetup dedicated_cluster() {
  DescheduleSetup setup;
  setup.snapshot.nodes = {tainted("te2", "dedicated", "gpu", TaintEffect::kNoSchedule),
                          make_node("te3"), make_node("te4")};
  return setup;
}

}  // namespace

TEST_CASE("a pod that does not tolerate its node's NoSchedule taint moves to a node that fits",
          "[node_taints]") {
  DescheduleSetup setup = dedicated_cluster();
  Pod tolerating = workload_pod("tolerating", 500, "te2");
  tolerating.tolerations.edit().push_back(tolerate("dedicated", "gpu"));
  setup.snapshot.pods = {workload_pod("intruder", 500, "te2"), tolerating,
                         workload_pod("busy", 500, "te3")};

  DescheduleOutcome out = run(setup, {});
  CHECK(out.moves == Moves{"intruder->te4"});  // te4 has more room than te3
  CHECK(out.reasons["intruder"] == "te2 taint dedicated=gpu:NoSchedule not tolerated -> te4");
  CHECK(out.plan.evictions[0].strategy == "RemovePodsViolatingNodeTaints");
  CHECK(out.skips.empty());
}

TEST_CASE("every untolerated taint is named, and the usage after the move too", "[node_taints]") {
  DescheduleSetup setup = dedicated_cluster();
  setup.snapshot.nodes[0].taints.push_back({"maintenance", "", TaintEffect::kNoSchedule});
  set_usage(setup.usage, "te2", 50, 50);
  set_usage(setup.usage, "te3", 10, 20);
  set_usage(setup.usage, "te4", 10, 20);
  setup.snapshot.pods = {workload_pod("intruder", 3200, "te2")};
  DescheduleOutcome out = run(setup, {});
  CHECK(out.moves == Moves{"intruder->te3"});
  CHECK(out.reasons["intruder"] ==
        "te2 taints dedicated=gpu:NoSchedule, maintenance:NoSchedule not tolerated -> te3 (cpu "
        "10.0% -> 20.0%, memory 20.0% -> 20.8%)");
}

TEST_CASE("NoExecute and (by default) PreferNoSchedule taints are not this plugin's",
          "[node_taints]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {tainted("soft", "spot", "true", TaintEffect::kPreferNoSchedule),
                          tainted("hard", "gone", "", TaintEffect::kNoExecute), make_node("plain"),
                          tainted("soft-too", "spot", "true", TaintEffect::kPreferNoSchedule)};
  setup.snapshot.pods = {workload_pod("on-soft", 500, "soft"),
                         workload_pod("on-hard", 500, "hard")};
  policy::NodeTaintsArgs args;
  DescheduleOutcome out = run(setup, args);
  CHECK(out.plan.evictions.empty());
  CHECK(out.plan.skipped.empty());

  args.include_prefer_no_schedule = true;
  out = run(setup, args);
  // soft-too has the same soft taint: not a target.
  CHECK(out.moves == Moves{"on-soft->plain"});
  CHECK(out.reasons["on-soft"] == "soft taint spot=true:PreferNoSchedule not tolerated -> plain");

  // Only soft-too left as a destination: no target; with nodeFit the pod stays.
  setup.snapshot.nodes[2].unschedulable = true;
  setup.evictor.node_fit = true;
  out = run(setup, args);
  CHECK(out.moves.empty());
  CHECK(out.skips["on-soft"] ==
        "no node fits: soft taint spot=true:PreferNoSchedule not tolerated; refused hard (taint "
        "gone:NoExecute not tolerated), plain (node is cordoned (unschedulable)), soft-too (taint "
        "spot=true:PreferNoSchedule not tolerated)");
}

TEST_CASE("excludedTaints and includedTaints, by key or key=value", "[node_taints]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {tainted("a", "dedicated", "gpu", TaintEffect::kNoSchedule),
                          tainted("b", "dedicated", "db", TaintEffect::kNoSchedule),
                          tainted("c", "team", "x", TaintEffect::kNoSchedule), make_node("free")};
  setup.snapshot.pods = {workload_pod("on-a", 500, "a"), workload_pod("on-b", 500, "b"),
                         workload_pod("on-c", 500, "c")};
  policy::NodeTaintsArgs args;
  SECTION("all taints count by default") {
    CHECK(run(setup, args).moves == Moves{"on-a->free", "on-b->free", "on-c->free"});
  }
  SECTION("excluded by key") {
    args.excluded_taints = {"dedicated"};
    CHECK(run(setup, args).moves == Moves{"on-c->free"});
  }
  SECTION("excluded by key=value") {
    args.excluded_taints = {"dedicated=gpu"};
    CHECK(run(setup, args).moves == Moves{"on-b->free", "on-c->free"});
  }
  SECTION("included by key") {
    args.included_taints = {"team"};
    CHECK(run(setup, args).moves == Moves{"on-c->free"});
  }
  SECTION("included by key=value") {
    args.included_taints = {"dedicated=db", "team=y"};
    CHECK(run(setup, args).moves == Moves{"on-b->free"});
  }
  SECTION("key=value never names a taint without a value") {
    setup.snapshot.nodes[2].taints[0].value = "";
    args.included_taints = {"team="};
    CHECK(run(setup, args).moves.empty());
  }
}

TEST_CASE("without a target the pod stays, with or without nodeFit (upstream evicts without)",
          "[node_taints]") {
  DescheduleSetup setup = dedicated_cluster();
  setup.snapshot.nodes.resize(1);  // te2 alone
  setup.snapshot.pods = {workload_pod("intruder", 500, "te2")};

  setup.evictor.node_fit = true;
  DescheduleOutcome out = run(setup, {});
  CHECK(out.moves.empty());
  CHECK(out.skips["intruder"] ==
        "no node fits: te2 taint dedicated=gpu:NoSchedule not tolerated; no candidate node but "
        "the pod's own");

  setup.evictor.node_fit = false;
  out = run(setup, {});
  CHECK(out.moves.empty());
  CHECK(out.skips["intruder"] ==
        "no node fits: te2 taint dedicated=gpu:NoSchedule not tolerated; no candidate node but "
        "the pod's own");
}

TEST_CASE("hot and unknown nodes are not targets", "[node_taints]") {
  DescheduleSetup setup = dedicated_cluster();
  set_usage(setup.usage, "te2", 10, 10);
  set_usage(setup.usage, "te3", 99, 10);
  setup.usage.unknown["te4"] = "sample 12m old";
  setup.snapshot.pods = {workload_pod("intruder", 500, "te2")};
  setup.evictor.node_fit = true;
  DescheduleOutcome out = run(setup, {});
  CHECK(out.moves.empty());
  CHECK(out.skips["intruder"] ==
        "no node fits: te2 taint dedicated=gpu:NoSchedule not tolerated; refused te3 (too hot: "
        "cpu 99.0% + 1.6% > 100%), te4 (usage unknown: sample 12m old)");
}

TEST_CASE("namespaces, labelSelector, DefaultEvictor and limits", "[node_taints]") {
  DescheduleSetup setup = dedicated_cluster();
  Pod other_ns = workload_pod("other-ns", 500, "te2", "batch");
  Pod labelled = workload_pod("labelled", 500, "te2");
  labelled.meta.labels.set("evict", "ok");
  Pod daemon = workload_pod("daemon", 500, "te2");
  daemon.owners.edit()[0].kind = "DaemonSet";
  setup.snapshot.pods = {other_ns, labelled, daemon, workload_pod("plain", 500, "te2")};
  policy::NodeTaintsArgs args;
  SECTION("namespace include") {
    args.namespaces.include = {"batch"};
    DescheduleOutcome out = run(setup, args);
    CHECK(out.moves == Moves{"other-ns->te3"});
    CHECK(out.skips.empty());
  }
  SECTION("labelSelector") {
    LabelSelector selector;
    selector.match_labels.set("evict", "ok");
    args.label_selector = selector;
    CHECK(run(setup, args).moves == Moves{"labelled->te3"});
  }
  SECTION("DefaultEvictor protects the DaemonSet pod; the per-namespace limit stops the rest") {
    setup.policy.max_pods_to_evict_per_namespace = 1;
    DescheduleOutcome out = run(setup, args);
    CHECK(out.moves == Moves{"other-ns->te3", "labelled->te4"});
    CHECK_THAT(out.skips["daemon"], StartsWith("DaemonSet"));
    CHECK_THAT(out.skips["plain"], StartsWith("namespace eviction limit reached: 1 of 1 in apps"));
  }
}

// RemovePodsViolatingTopologySpreadConstraint: upstream's test cases
// (topologyspreadconstraint_test.go) with their eviction counts and, where upstream names them,
// the pods; and loadshift's targets: each eviction goes to a node the placement core accepts, in
// a domain below the ideal average (topologyBalanceNodeFit).
#include <catch2/catch.hpp>

#include <algorithm>

#include "policy/loader.h"
#include "strategies/plan.h"
#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

using Action = model::UnsatisfiableAction;

DescheduleOutcome spread(const DescheduleSetup& setup,
                         const policy::TopologySpreadArgs& args = {}) {
  return run_deschedule(setup,
                        [&](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
                          strategies::run_topology_spread(args, scope, ctx);
                        });
}

TopologySpreadConstraint constraint(int32_t max_skew, const std::string& key = "zone",
                                    Action action = Action::kDoNotSchedule) {
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.when_unsatisfiable = action;
  LabelSelector selector;
  selector.match_labels.set("foo", "bar");
  c.label_selector = selector;
  return c;
}

// Upstream's createTestPods: pods pod-<n> numbered across the lists, namespace ns1, labels
// foo=bar, owned by a ReplicaSet.
struct PodList {
  PodList(int count, std::string node, std::vector<TopologySpreadConstraint> constraints = {},
          std::vector<std::pair<std::string, std::string>> node_selector = {}, bool owned = true)
      : count(count),
        node(std::move(node)),
        constraints(std::move(constraints)),
        node_selector(std::move(node_selector)),
        owned(owned) {}
  int count;
  std::string node;
  std::vector<TopologySpreadConstraint> constraints;
  std::vector<std::pair<std::string, std::string>> node_selector;
  bool owned;
};

ObjectList<Pod> test_pods(const std::vector<PodList>& lists) {
  ObjectList<Pod> pods;
  int n = 0;
  for (const PodList& list : lists) {
    for (int i = 0; i < list.count; ++i, ++n) {
      Pod pod = workload_pod("pod-" + std::to_string(n), 100, list.node, "ns1");
      pod.meta.labels.set("foo", "bar");
      pod.topology_spread = list.constraints;
      if (!list.node_selector.empty()) pod.node_selector = StringMap(list.node_selector);
      if (!list.owned) pod.owners.edit().clear();
      pods.push_back(pod);
    }
  }
  return pods;
}

Node labelled(const std::string& name, std::vector<std::pair<std::string, std::string>> labels) {
  Node node = make_node(name);
  for (auto& [key, value] : labels) node.meta.labels.set(key, value);
  return node;
}

Node zone_node(const std::string& name, const std::string& zone) {
  return labelled(name, {{"zone", zone}});
}

// Two zones: n1 in zoneA, n2 in zoneB.
DescheduleSetup two_zones() {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zone_node("n1", "zoneA"), zone_node("n2", "zoneB")};
  return setup;
}

void check_targets_named(const DescheduleOutcome& out) {
  for (const strategies::EvictionDecision& e : out.plan.evictions) {
    CHECK(e.target != placement::kNoNode);
    CHECK(e.target != e.node);
  }
}

}  // namespace

TEST_CASE("TopologySpread: [2,1] with maxSkew 1 is balanced (upstream case 1)",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {1, "n1", {}}, {1, "n2", {}}});
  DescheduleOutcome out = spread(setup);
  CHECK(out.moves.empty());
  CHECK(out.skips.empty());
}

TEST_CASE("TopologySpread: [3,1] moves one pod to [2,2] (upstream case 2)", "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {2, "n1", {}}, {1, "n2", {}}});
  DescheduleOutcome out = spread(setup);
  CHECK(out.moves == Moves{"pod-2->n2"});  // the last of the domain's pods by name
  CHECK_THAT(out.reasons["pod-2"],
             StartsWith("n1: topology spread constraint of ns1/pod-0 (topologyKey zone, maxSkew "
                        "1, selector foo=bar): zone=zoneA holds 3, zone=zoneB 1 (ideal average 2 "
                        "over 2 domains) -> n2"));
  REQUIRE(out.plan.evictions.size() == 1);
  CHECK(out.plan.evictions[0].strategy == "RemovePodsViolatingTopologySpreadConstraint");
  check_targets_named(out);

  // A ScheduleAnyway constraint counts only when `constraints` names it.
  setup.snapshot.pods = test_pods(
      {{1, "n1", {constraint(1, "zone", Action::kScheduleAnyway)}}, {2, "n1", {}}, {1, "n2", {}}});
  CHECK(spread(setup).moves.empty());
  policy::TopologySpreadArgs both;
  both.constraints = {Action::kDoNotSchedule, Action::kScheduleAnyway};
  CHECK(spread(setup, both).moves == Moves{"pod-2->n2"});
}

TEST_CASE(
    "TopologySpread: pods the evictability filter refuses are not counted (upstream "
    "case 3)",
    "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.pods = test_pods(
      {{1, "n1", {constraint(1)}, {}, false}, {2, "n1", {}, {}, false}, {1, "n2", {}, {}, false}});
  DescheduleOutcome out = spread(setup);
  CHECK(out.moves.empty());
  CHECK(out.skips.empty());
}

TEST_CASE("TopologySpread: the move is the least of the three bounds (upstream cases 4, 5)",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  // [5,2]: idealAvg 3.5, min(ceil(1.5), ceil(1.5), ceil((3 - 1) / 2)) = 1, to [4,3].
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {4, "n1", {}}, {2, "n2", {}}});
  CHECK(spread(setup).moves == Moves{"pod-4->n2"});
  // [4,0]: min(2, 2, 2) = 2.
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {3, "n1", {}}});
  CHECK(spread(setup).moves == Moves{"pod-2->n2", "pod-3->n2"});
  // [2,6] with maxSkew 2: to [3,5].
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(2)}}, {1, "n1", {}}, {6, "n2", {}}});
  CHECK(spread(setup).moves.size() == 1);
  // [0,1,100] over three zones: 66 move, to [34,33,34].
  setup.snapshot.nodes.push_back(zone_node("n3", "zoneC"));
  setup.snapshot.pods = test_pods({{1, "n2", {constraint(1)}}, {100, "n3", {}}});
  DescheduleOutcome many = spread(setup);
  CHECK(many.moves.size() == 66);
  check_targets_named(many);
}

TEST_CASE(
    "TopologySpread: pods with a nodeSelector or node affinity are taken last (upstream "
    "case 6)",
    "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.evictor.node_fit = true;
  setup.snapshot.pods = test_pods({{2, "n1", {constraint(1)}, {{"zone", "zoneA"}}},
                                   {1, "n1", {constraint(1)}},
                                   {1, "n1", {constraint(1)}}});
  // pod-2 has a required node affinity no node matches.
  NodeSelectorTerm term;
  term.match_expressions.push_back(req("foo", SelectorOperator::kIn, {"bar"}));
  setup.snapshot.pods[2].node_affinity.edit().required = std::vector<NodeSelectorTerm>{term};
  DescheduleOutcome out = spread(setup);
  // [4,0] chooses two: pod-3 (no node constraints) and pod-2, which fits no node of zoneB.
  CHECK(out.moves == Moves{"pod-3->n2"});
  CHECK_THAT(out.skips["pod-2"], StartsWith("no node fits: n1: topology spread constraint of "
                                            "ns1/pod-3"));
}

TEST_CASE(
    "TopologySpread: nodeAffinityPolicy Honor leaves out the nodes the pods may not use "
    "(upstream case 7)",
    "[topology_spread]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {labelled("n1", {{"node", "linNodeA"}, {"os", "linux"}}),
                          labelled("n2", {{"node", "linNodeB"}, {"os", "linux"}}),
                          labelled("n3", {{"node", "linNodeC"}, {"os", "linux"}}),
                          labelled("n4", {{"node", "winNodeA"}, {"os", "windows"}}),
                          labelled("n5", {{"node", "winNodeB"}, {"os", "windows"}}),
                          labelled("n6", {{"node", "winNodeC"}, {"os", "windows"}})};
  const std::vector<std::pair<std::string, std::string>> windows = {{"os", "windows"}};
  setup.snapshot.pods = test_pods({{3, "n4", {constraint(1, "node")}, windows},
                                   {3, "n5", {constraint(1, "node")}, windows},
                                   {2, "n6", {constraint(1, "node")}, windows}});
  DescheduleOutcome balanced = spread(setup);
  CHECK(balanced.moves.empty());  // [3,3,2] over the windows nodes
  CHECK(balanced.skips.empty());

  // With Ignore the linux nodes are domains too: [0,0,0,3,3,2] chooses four pods, and the
  // placement core sends none of them to a linux node.
  DescheduleSetup ignore = setup;
  for (Pod& pod : ignore.snapshot.pods) {
    pod.topology_spread[0].node_affinity_policy = InclusionPolicy::kIgnore;
  }
  DescheduleOutcome stuck = spread(ignore);
  CHECK(stuck.moves.empty());
  CHECK(stuck.skips.size() == 4);

  // A fourth, empty windows node: [3,3,2,0] moves two, to it.
  setup.snapshot.nodes.push_back(labelled("n7", {{"node", "winNodeD"}, {"os", "windows"}}));
  DescheduleOutcome out = spread(setup);
  CHECK(out.moves == Moves{"pod-5->n7", "pod-2->n7"});
  check_targets_named(out);
}

TEST_CASE("TopologySpread: [0,0,0,4,3,1] moves one, unless the pods are pinned (upstream case 8)",
          "[topology_spread]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {labelled("n1", {{"node", "linNodeA"}, {"os", "linux"}}),
                          labelled("n2", {{"node", "linNodeB"}, {"os", "linux"}}),
                          labelled("n3", {{"node", "linNodeC"}, {"os", "linux"}}),
                          labelled("n4", {{"node", "winNodeA"}, {"os", "windows"}}),
                          labelled("n5", {{"node", "winNodeB"}, {"os", "windows"}}),
                          labelled("n6", {{"node", "winNodeC"}, {"os", "windows"}})};
  const std::vector<std::pair<std::string, std::string>> windows = {{"os", "windows"}};
  setup.snapshot.pods = test_pods({{4, "n4", {constraint(1, "node")}, windows},
                                   {3, "n5", {constraint(1, "node")}, windows},
                                   {1, "n6", {constraint(1, "node")}, windows}});
  CHECK(spread(setup).moves == Moves{"pod-3->n6"});

  setup.evictor.node_fit = true;
  setup.snapshot.pods = test_pods({{4, "n4", {constraint(1, "node")}, {{"node", "winNodeA"}}},
                                   {3, "n5", {constraint(1, "node")}, windows},
                                   {1, "n6", {constraint(1, "node")}, windows}});
  DescheduleOutcome pinned = spread(setup);
  CHECK(pinned.moves.empty());
  CHECK_THAT(pinned.skips["pod-3"], StartsWith("no node fits: n4: topology spread constraint"));
}

TEST_CASE(
    "TopologySpread: [8,7,0] moves five to [5,5,5] (upstream case 9); [5,5,5] none "
    "(case 10)",
    "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.nodes.push_back(zone_node("n3", "zoneC"));
  setup.snapshot.pods = test_pods({{8, "n1", {constraint(1)}}, {7, "n2", {constraint(1)}}});
  DescheduleOutcome out = spread(setup);
  // Upstream's pods: the last three of zoneA by name, then the last two of zoneB by name.
  CHECK(out.moves == Moves{"pod-5->n3", "pod-6->n3", "pod-7->n3", "pod-8->n3", "pod-9->n3"});
  check_targets_named(out);

  setup.snapshot.pods = test_pods(
      {{5, "n1", {constraint(1)}}, {5, "n2", {constraint(1)}}, {5, "n3", {constraint(1)}}});
  CHECK(spread(setup).moves.empty());
}

TEST_CASE(
    "TopologySpread: a pod that tolerates the tainted node of the small domain moves "
    "there, one that does not stays",
    "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.nodes[1].taints.push_back({"taint-test", "test", TaintEffect::kNoSchedule});
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {1, "n1", {}, {{"zone", "zoneA"}}}});
  DescheduleOutcome refused = spread(setup);
  CHECK(refused.moves.empty());
  CHECK_THAT(refused.skips["pod-0"], Contains("refused n2 (taint taint-test=test:NoSchedule"));

  setup.snapshot.pods[0].tolerations.edit().push_back(tolerate("taint-test", "test"));
  CHECK(spread(setup).moves == Moves{"pod-0->n2"});
}

TEST_CASE("TopologySpread: nodeTaintsPolicy Honor leaves out nodes with untolerated taints",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.nodes.push_back(zone_node("n3", "zoneC"));
  setup.snapshot.nodes[2].taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {1, "n1", {}}, {2, "n2", {}}});
  // Ignore (the default): zoneC is a domain, [2,2,0] chooses one pod, which fits no node there.
  DescheduleOutcome ignore = spread(setup);
  CHECK(ignore.moves.empty());
  REQUIRE(ignore.skips.size() == 1);
  CHECK_THAT(ignore.skips.begin()->second,
             Contains("refused n1 (zone=zoneA holds 2, not below the ideal average 1.33)"));

  setup.snapshot.pods[0].topology_spread[0].node_taints_policy = InclusionPolicy::kHonor;
  DescheduleOutcome honor = spread(setup);  // [2,2]: balanced
  CHECK(honor.moves.empty());
  CHECK(honor.skips.empty());
}

TEST_CASE(
    "TopologySpread: topologyBalanceNodeFit false takes any node outside the domain the "
    "pod leaves",
    "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.nodes.push_back(zone_node("n3", "zoneC"));
  setup.snapshot.nodes[2].taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  setup.snapshot.nodes.push_back(zone_node("n4", "zoneA"));
  // [4 (n1), 2 (n2), 0 (n3, tainted)], ScheduleAnyway: idealAvg 2, two pods choose zoneC.
  const auto soft = constraint(1, "zone", Action::kScheduleAnyway);
  setup.snapshot.pods = test_pods({{1, "n1", {soft}}, {3, "n1", {}}, {2, "n2", {}}});
  policy::TopologySpreadArgs args;
  args.constraints = {Action::kScheduleAnyway};
  DescheduleOutcome fit = spread(setup, args);
  CHECK(fit.moves.empty());  // the only node below the average does not take them
  CHECK(fit.skips.size() == 2);
  CHECK_THAT(fit.skips["pod-3"], Contains("refused n2 (zone=zoneB holds 2, not below"));

  args.topology_balance_node_fit = false;
  DescheduleOutcome any = spread(setup, args);
  // Not n4: it is in zoneA, the domain the pods leave.
  CHECK(any.moves == Moves{"pod-2->n2", "pod-3->n2"});
  check_targets_named(any);
}

TEST_CASE("TopologySpread: matchLabelKeys splits the count by the owning pod's labels",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  TopologySpreadConstraint by_hash = constraint(1);
  by_hash.match_label_keys = {"pod-template-hash"};
  setup.snapshot.pods = test_pods({{3, "n1", {by_hash}}, {3, "n2", {by_hash}}});
  for (size_t i = 0; i < setup.snapshot.pods.size(); ++i) {
    setup.snapshot.pods[i].meta.labels.set("pod-template-hash", i < 3 ? "a" : "b");
  }
  // [3,3] of all foo=bar pods, but [3,0] of hash a and [0,3] of hash b: one of each moves.
  DescheduleOutcome out = spread(setup);
  CHECK(out.moves == Moves{"pod-2->n2", "pod-5->n1"});

  // Without matchLabelKeys: balanced.
  setup.snapshot.pods = test_pods({{3, "n1", {constraint(1)}}, {3, "n2", {constraint(1)}}});
  CHECK(spread(setup).moves.empty());
}

TEST_CASE("TopologySpread: a null selector selects nothing; minDomains is not read",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  TopologySpreadConstraint null_selector = constraint(1);
  null_selector.label_selector.reset();
  null_selector.match_label_keys = {"foo"};  // stays null: upstream's merge keeps Nothing
  setup.snapshot.pods = test_pods({{1, "n1", {null_selector}}, {3, "n1", {}}});
  CHECK(spread(setup).moves.empty());

  // [2,1] with minDomains 3: the scheduler would take the minimum as 0; upstream's descheduler
  // does not support minDomains, and neither does this plugin.
  TopologySpreadConstraint min_domains = constraint(1);
  min_domains.min_domains = 3;
  setup.snapshot.pods = test_pods({{1, "n1", {min_domains}}, {1, "n1", {}}, {1, "n2", {}}});
  CHECK(spread(setup).moves.empty());
}

TEST_CASE("TopologySpread: namespaces and labelSelector choose the pods counted",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {2, "n1", {}}, {1, "n2", {}}});
  policy::TopologySpreadArgs other;
  other.namespaces.include = {"other"};
  CHECK(spread(setup, other).moves.empty());
  policy::TopologySpreadArgs excluded;
  excluded.namespaces.exclude = {"kube-system"};
  CHECK(spread(setup, excluded).moves.size() == 1);
  // A labelSelector that leaves out two pods of zoneA: [1,1] is balanced.
  setup.snapshot.pods[1].meta.labels.set("tier", "cache");
  setup.snapshot.pods[2].meta.labels.set("tier", "cache");
  policy::TopologySpreadArgs selected;
  LabelSelector no_cache;
  no_cache.match_expressions.push_back({"tier", "DoesNotExist", {}});
  selected.label_selector = no_cache;
  CHECK(spread(setup, selected).moves.empty());
}

TEST_CASE("TopologySpread: limits hold and the plugin stops at the total limit",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.nodes.push_back(zone_node("n3", "zoneC"));
  setup.snapshot.pods = test_pods({{8, "n1", {constraint(1)}}, {7, "n2", {constraint(1)}}});
  setup.policy.max_pods_to_evict_per_node = 2;
  DescheduleOutcome per_node = spread(setup);
  CHECK(per_node.moves == Moves{"pod-5->n3", "pod-6->n3", "pod-8->n3", "pod-9->n3"});
  CHECK_THAT(per_node.skips["pod-7"], StartsWith("node eviction limit reached"));

  setup.policy.max_pods_to_evict_per_node.reset();
  setup.policy.max_pods_to_evict_total = 2;
  DescheduleOutcome total = spread(setup);
  CHECK(total.moves == Moves{"pod-5->n3", "pod-6->n3"});
  CHECK(total.skips.count("pod-7") == 1);
  CHECK(total.skips.count("pod-8") == 0);
  CHECK(std::count(total.plan.notes.begin(), total.plan.notes.end(),
                   "profile test: RemovePodsViolatingTopologySpreadConstraint: 2 more pod(s) "
                   "selected, not evicted: maxNoOfPodsToEvictTotal reached") == 1);
}

TEST_CASE("TopologySpread: lower priority goes first; the plan does not depend on pod order",
          "[topology_spread]") {
  DescheduleSetup setup = two_zones();
  setup.snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {3, "n1", {}}, {1, "n2", {}}});
  setup.snapshot.pods[3].priority = 1000;
  // [4,1]: idealAvg 2.5, one moves; pod-3 would be first by name, but it has the higher priority.
  DescheduleOutcome first = spread(setup);
  CHECK(first.moves == Moves{"pod-2->n2"});

  ObjectList<Pod> reversed;
  for (size_t i = setup.snapshot.pods.size(); i-- > 0;) reversed.push_back(setup.snapshot.pods[i]);
  setup.snapshot.pods = reversed;
  DescheduleOutcome again = spread(setup);
  CHECK(again.moves == first.moves);
  CHECK(again.skips == first.skips);
}

TEST_CASE("make_plan runs both inter-pod plugins of a policy: deschedule, then balance",
          "[topology_spread][inter_pod_anti_affinity][plan]") {
  policy::LoadResult loaded = policy::load_policy(R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: default
  pluginConfig:
  - name: RemovePodsViolatingInterPodAntiAffinity
  - name: RemovePodsViolatingTopologySpreadConstraint
  plugins:
    deschedule: {enabled: [RemovePodsViolatingInterPodAntiAffinity]}
    balance: {enabled: [RemovePodsViolatingTopologySpreadConstraint]}
)",
                                                  "policy.yaml");
  REQUIRE(loaded.ok());
  Snapshot snapshot;
  snapshot.nodes = {zone_node("n1", "zoneA"), zone_node("n2", "zoneB")};
  snapshot.pods = test_pods({{1, "n1", {constraint(1)}}, {2, "n1", {}}, {1, "n2", {}}});
  // A guard on n1 that repels the app=x pod there.
  Pod guard = workload_pod("guard", 100, "n1", "ns1");
  PodAffinityTerm term;
  term.topology_key = "kubernetes.io/hostname";
  term.label_selector = LabelSelector{};
  term.label_selector->match_labels.set("app", "x");
  guard.pod_anti_affinity.required.push_back(term);
  snapshot.pods.push_back(guard);
  Pod x = workload_pod("x", 100, "n1", "ns1");
  x.meta.labels.set("app", "x");
  snapshot.pods.push_back(x);
  placement::ClusterIndex index(snapshot, strategies::placement_options(*loaded.policy));
  metrics::UsageMap usage;
  strategies::Plan plan = strategies::make_plan(index, usage, *loaded.policy);
  std::vector<std::string> moves;
  for (const strategies::EvictionDecision& e : plan.evictions) {
    moves.push_back(e.strategy + ": " + snapshot.pods[e.pod].meta.name + "->" +
                    snapshot.nodes[e.target].meta.name);
  }
  CHECK(moves ==
        std::vector<std::string>{"RemovePodsViolatingInterPodAntiAffinity: guard->n2",
                                 "RemovePodsViolatingTopologySpreadConstraint: pod-2->n2"});
  CHECK(plan.skipped.empty());
}

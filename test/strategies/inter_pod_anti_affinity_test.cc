// RemovePodsViolatingInterPodAntiAffinity: upstream's cases (pod_antiaffinity.go: the pod that
// HAS the term goes, lowest priority first, same node or same domain), and loadshift's targets:
// each eviction goes where the placement core accepts the pod, anti-affinity included.
#include <catch2/catch.hpp>

#include <algorithm>

#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

DescheduleOutcome repel(const DescheduleSetup& setup,
                        const policy::InterPodAntiAffinityArgs& args = {}) {
  return run_deschedule(setup,
                        [&](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
                          strategies::run_inter_pod_anti_affinity(args, scope, ctx);
                        });
}

LabelSelector select_labels(std::vector<std::pair<std::string, std::string>> labels) {
  LabelSelector selector;
  selector.match_labels = StringMap(std::move(labels));
  return selector;
}

PodAffinityTerm anti_term(const std::string& key, std::optional<LabelSelector> selector,
                          std::vector<std::string> namespaces = {}) {
  PodAffinityTerm term;
  term.topology_key = key;
  term.label_selector = std::move(selector);
  term.namespaces = std::move(namespaces);
  return term;
}

// A pod of namespace `ns` labelled app=`app`.
Pod app_pod(const std::string& name, const std::string& node, const std::string& app,
            const std::string& ns = "apps") {
  Pod pod = workload_pod(name, 100, node, ns);
  pod.meta.labels.set("app", app);
  return pod;
}

// A pod labelled app=`app` that repels pods labelled app=`repels` (per `key`).
Pod repelling(const std::string& name, const std::string& node, const std::string& app,
              const std::string& repels, const std::string& key = "kubernetes.io/hostname") {
  Pod pod = app_pod(name, node, app);
  pod.pod_anti_affinity.required.push_back(anti_term(key, select_labels({{"app", repels}})));
  return pod;
}

Node zoned(const std::string& name, const std::string& zone) {
  Node node = make_node(name);
  if (!zone.empty()) node.meta.labels.set("zone", zone);
  return node;
}

std::map<std::string, std::string> own_reasons(const std::map<std::string, std::string>& skips) {
  std::map<std::string, std::string> out;
  for (const auto& [pod, reason] : skips) out[pod] = reason.substr(0, reason.find("; refused"));
  return out;
}

void check_targets_named(const DescheduleOutcome& out) {
  for (const strategies::EvictionDecision& e : out.plan.evictions) {
    CHECK(e.target != placement::kNoNode);
    CHECK(e.target != e.node);
  }
}

}  // namespace

TEST_CASE("InterPodAntiAffinity: the pod with the term goes, its peer stays (upstream case 1)",
          "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x"), app_pod("p2", "n1", "x")};
  DescheduleOutcome out = repel(setup);
  CHECK(out.moves == Moves{"p1->n2"});
  CHECK_THAT(out.reasons["p1"],
             StartsWith("n1: required anti-affinity term 0 (topologyKey kubernetes.io/hostname, "
                        "selector app=x) selects apps/p2 on the same node -> n2"));
  REQUIRE(out.plan.evictions.size() == 1);
  CHECK(out.plan.evictions[0].strategy == "RemovePodsViolatingInterPodAntiAffinity");
  CHECK(out.skips.empty());
  check_targets_named(out);
}

TEST_CASE(
    "InterPodAntiAffinity: of two pods that repel each other only the lower priority goes "
    "(upstream case 2)",
    "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  Pod high = repelling("a-high", "n1", "x", "x");
  high.priority = 1000;
  Pod low = repelling("z-low", "n1", "x", "x");
  low.priority = 10;
  setup.snapshot.pods = {high, low};
  DescheduleOutcome out = repel(setup);
  // z-low goes first although it sorts after a-high by name; then a-high has no peer left.
  CHECK(out.moves == Moves{"z-low->n2"});
  CHECK(out.skips.empty());

  // Equal priority: the QoS class, then the name decides.
  setup.snapshot.pods[0].priority = 10;
  CHECK(repel(setup).moves == Moves{"a-high->n2"});
}

TEST_CASE(
    "InterPodAntiAffinity: a zone key counts pods of other nodes of the zone (upstream "
    "case 3)",
    "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zoned("n1", "A"), zoned("n2", "A"), zoned("n3", "B")};
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x", "zone"), app_pod("p2", "n2", "x")};
  DescheduleOutcome out = repel(setup);
  // The placement core takes only a node outside zone A (n2 would repel p1 again).
  CHECK(out.moves == Moves{"p1->n3"});
  CHECK_THAT(out.reasons["p1"], Contains("selects apps/p2 on n2 (zone=A) -> n3"));
  check_targets_named(out);

  // n2 without the zone label is in no domain of p1's: no conflict.
  setup.snapshot.nodes[1] = zoned("n2", "");
  CHECK(repel(setup).moves.empty());
  // p1's own node without the label: only its own node is its domain.
  setup.snapshot.nodes[1] = zoned("n2", "A");
  setup.snapshot.nodes[0] = zoned("n1", "");
  CHECK(repel(setup).moves.empty());
}

TEST_CASE(
    "InterPodAntiAffinity: the plugin's labelSelector and namespaces hide peers too "
    "(upstream case 4)",
    "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x"), app_pod("p2", "n1", "x")};
  policy::InterPodAntiAffinityArgs args;
  args.label_selector = select_labels({{"app", "guard"}});
  DescheduleOutcome out = repel(setup, args);
  CHECK(out.moves.empty());
  CHECK(out.skips.empty());

  // p2 in another namespace, and that namespace excluded: p2 is no peer.
  setup.snapshot.pods[1].meta.namespace_ = "other";
  setup.snapshot.pods[0].pod_anti_affinity.required[0].namespaces = {"other"};
  CHECK(repel(setup).moves == Moves{"p1->n2"});
  policy::InterPodAntiAffinityArgs excluded;
  excluded.namespaces.exclude = {"other"};
  CHECK(repel(setup, excluded).moves.empty());
}

TEST_CASE("InterPodAntiAffinity: the term's namespaces, null and empty selectors",
          "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x"), app_pod("p2", "n1", "x", "other")};
  // No namespaces in the term: the pod's own namespace only.
  CHECK(repel(setup).moves.empty());
  // A namespaceSelector is ignored, as upstream ignores it.
  setup.snapshot.pods[0].pod_anti_affinity.required[0].namespace_selector = LabelSelector{};
  CHECK(repel(setup).moves.empty());
  setup.snapshot.pods[0].pod_anti_affinity.required[0].namespaces = {"other", "third"};
  CHECK(repel(setup).moves == Moves{"p1->n2"});

  // A null labelSelector selects nothing; an empty one every pod.
  setup.snapshot.pods[1].meta.namespace_ = "apps";
  setup.snapshot.pods[0].pod_anti_affinity.required = {
      anti_term("kubernetes.io/hostname", std::nullopt)};
  CHECK(repel(setup).moves.empty());
  setup.snapshot.pods[0].pod_anti_affinity.required = {
      anti_term("kubernetes.io/hostname", LabelSelector{})};
  CHECK(repel(setup).moves == Moves{"p1->n2"});
  // The pod does not repel itself: alone on its node, it stays.
  setup.snapshot.pods.pop_back();
  CHECK(repel(setup).moves.empty());
}

TEST_CASE(
    "InterPodAntiAffinity: the target satisfies the anti-affinity (the placement core "
    "checks it)",
    "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2", 64000), make_node("n3")};
  // n2 has the most room but runs another app=x pod.
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x"), app_pod("p2", "n1", "x"),
                         app_pod("p3", "n2", "x")};
  DescheduleOutcome out = repel(setup);
  CHECK(out.moves == Moves{"p1->n3"});
  check_targets_named(out);

  // No node without an app=x pod: p1 stays, and says why it was chosen and why nothing fits.
  setup.snapshot.pods.push_back(app_pod("p4", "n3", "x"));
  DescheduleOutcome stuck = repel(setup);
  CHECK(stuck.moves.empty());
  CHECK_THAT(stuck.skips["p1"],
             StartsWith("no node fits: n1: required anti-affinity term 0 (topologyKey "
                        "kubernetes.io/hostname, selector app=x) selects apps/p2 on the same "
                        "node; refused n2 ("));
  CHECK_THAT(stuck.skips["p1"], Contains("n3 ("));
}

TEST_CASE("InterPodAntiAffinity: a pod the plan already moved is gone from its node",
          "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  setup.snapshot.pods = {repelling("p1", "n1", "guard", "x"), app_pod("p2", "n1", "x")};
  setup.prepare = [](strategies::PlanContext& ctx) {
    ctx.evict(1, 1, "test", "Other", "moved before", nullptr);  // p2 -> n2
  };
  DescheduleOutcome out = repel(setup);
  CHECK(out.moves == Moves{"p2->n2"});  // only the earlier plugin's move
  CHECK(out.skips.empty());
}

TEST_CASE(
    "InterPodAntiAffinity: a pod the evictability filter refuses stays with its reason "
    "and still counts as a peer",
    "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  Pod bare = repelling("p1", "n1", "x", "x");
  bare.owners.edit().clear();  // DefaultEvictor protects bare pods
  Pod other = repelling("p2", "n1", "x", "x");
  other.priority = 100;
  setup.snapshot.pods = {bare, other};
  DescheduleOutcome out = repel(setup);
  // p1 goes first (lower priority) but may not be evicted; so p2, whose peer p1 stays, goes.
  CHECK(out.moves == Moves{"p2->n2"});
  REQUIRE(out.skips.count("p1") == 1);
  CHECK_THAT(out.skips["p1"], !StartsWith("no node fits"));
}

TEST_CASE("InterPodAntiAffinity: limits hold and the plugin stops at the total limit",
          "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3"), make_node("n4")};
  // Three guards on n1, each repelling the app=x pod there; one on n2.
  setup.snapshot.pods = {repelling("g1", "n1", "guard", "x"), repelling("g2", "n1", "guard", "x"),
                         repelling("g3", "n1", "guard", "x"), app_pod("x1", "n1", "x"),
                         repelling("g4", "n2", "guard", "x"), app_pod("x2", "n2", "x")};
  setup.policy.max_pods_to_evict_per_node = 2;
  DescheduleOutcome per_node = repel(setup);
  CHECK(per_node.moves.size() == 3);  // two from n1, one from n2
  CHECK_THAT(per_node.skips["g3"], StartsWith("node eviction limit reached"));
  check_targets_named(per_node);

  setup.policy.max_pods_to_evict_per_node.reset();
  setup.policy.max_pods_to_evict_total = 1;
  DescheduleOutcome total = repel(setup);
  REQUIRE(total.moves.size() == 1);
  CHECK(total.moves[0].rfind("g1->", 0) == 0);
  CHECK(total.skips.count("g2") == 1);  // the pod it stops at carries the limit
  CHECK(total.skips.count("g3") == 0);  // the rest are one note
  CHECK(std::count(total.plan.notes.begin(), total.plan.notes.end(),
                   "profile test: RemovePodsViolatingInterPodAntiAffinity: 2 more pod(s) "
                   "selected, not evicted: maxNoOfPodsToEvictTotal reached") == 1);
}

TEST_CASE("InterPodAntiAffinity: the plan does not depend on the order of the snapshot's pods",
          "[inter_pod_anti_affinity]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {zoned("n1", "A"), zoned("n2", "A"), zoned("n3", "B"), zoned("n4", "B"),
                          zoned("n5", "C")};
  std::vector<Pod> pods = {repelling("a", "n1", "web", "web", "zone"),
                           repelling("b", "n2", "web", "web", "zone"),
                           repelling("c", "n3", "web", "web", "zone"),
                           repelling("d", "n3", "web", "web", "zone"),
                           app_pod("e", "n4", "db"),
                           repelling("f", "n4", "db", "web")};
  setup.snapshot.pods = {};
  for (const Pod& p : pods) setup.snapshot.pods.push_back(p);
  DescheduleOutcome first = repel(setup);
  DescheduleOutcome again = repel(setup);
  CHECK(first.moves == again.moves);
  CHECK(first.skips == again.skips);
  setup.snapshot.pods = {};
  for (auto it = pods.rbegin(); it != pods.rend(); ++it) setup.snapshot.pods.push_back(*it);
  DescheduleOutcome reversed = repel(setup);
  CHECK(first.moves == reversed.moves);
  // The plugin's part of each reason (the placement core's refusals may name the pods that
  // refuse a node in the snapshot's order).
  CHECK(own_reasons(first.skips) == own_reasons(reversed.skips));
  CHECK_FALSE(first.moves.empty());
  check_targets_named(first);
}

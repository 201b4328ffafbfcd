// The scheduler's InterPodAffinity and PodTopologySpread filters in the placement core, and how
// the plan's moves (the Ledger) change them. Cases from the scheduler's semantics (research:
// scheduler filtering.go of both plugins), with hand-counted expectations.
#include <catch2/catch.hpp>

#include "placement/cluster_index.h"
#include "placement/placer.h"
#include "test/model/builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;

namespace {

PodAffinityTerm term_selecting(const std::string& app, const std::string& topology_key) {
  PodAffinityTerm term;
  term.label_selector = LabelSelector{};
  term.label_selector->match_labels.set("app", app);
  term.topology_key = topology_key;
  return term;
}

Node zoned(const std::string& name, const std::string& zone) {
  Node node = make_node(name);
  node.meta.labels.set("zone", zone);
  node.meta.labels.set("kubernetes.io/hostname", name);
  return node;
}

Pod app_pod(const std::string& name, const std::string& app, const std::string& node) {
  Pod pod = make_pod(name, 100, 1 << 20, node);
  pod.meta.labels.set("app", app);
  return pod;
}

TopologySpreadConstraint spread(const std::string& key, const std::string& app, int32_t max_skew) {
  TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = key;
  c.label_selector = LabelSelector{};
  c.label_selector->match_labels.set("app", app);
  return c;
}

Rule first_rule(const Verdict& verdict) {
  REQUIRE_FALSE(verdict.failures.empty());
  return verdict.failures.front().rule;
}

}  // namespace

TEST_CASE("existing pods' required anti-affinity refuses their domain; the plan moves it",
          "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("home", "c"), zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"),
                    make_node("nozone")};
  Pod guard = make_pod("guard", 100, 1 << 20, "a1");
  guard.pod_anti_affinity.required.push_back(term_selecting("web", "zone"));
  Pod finished = guard;  // a terminated pod's terms do not count
  finished.meta.name = "finished";
  finished.node_name = "b1";
  finished.phase = PodPhase::kSucceeded;
  Pod elsewhere = guard;  // a term selects the owner's namespace only
  elsewhere.meta.name = "elsewhere";
  elsewhere.meta.namespace_ = "other";
  elsewhere.node_name = "b1";
  snapshot.pods = {guard, app_pod("web", "web", "home"), app_pod("db", "db", "home"), finished,
                   elsewhere};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  const PodId kGuard = 0, kWeb = 1, kDb = 2;
  const NodeId kHome = 0, kA1 = 1, kA2 = 2, kB1 = 3, kNoZone = 4;
  CHECK_FALSE(placer.feasible(kWeb, kA1, ledger));
  CHECK_FALSE(placer.feasible(kWeb, kA2, ledger));  // same zone, other node
  CHECK(placer.feasible(kWeb, kB1, ledger));
  CHECK(placer.feasible(kWeb, kNoZone, ledger));  // in no zone domain
  CHECK(placer.feasible(kDb, kA2, ledger));       // not selected
  Verdict verdict = placer.fits(kWeb, kA2, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kExistingPodsAntiAffinity);
  CHECK_THAT(verdict.failures[0].reason,
             Catch::Contains("1 pod(s) with required anti-affinity against app=web in namespace "
                             "default") &&
                 Catch::Contains("zone=a"));

  // The guard itself may move, but not into the web pod's zone (its own term).
  CHECK(placer.feasible(kGuard, kB1, ledger));
  CHECK(first_rule(placer.fits(kGuard, kHome, ledger)) == Rule::kPodAntiAffinity);

  // Once the plan moves the guard to zone b, zone a admits the web pod and zone b refuses it.
  ledger.reserve(kGuard, kA1, kB1, index.requests(kGuard));
  CHECK(placer.feasible(kWeb, kA1, ledger));
  CHECK(placer.feasible(kWeb, kA2, ledger));
  CHECK_FALSE(placer.feasible(kWeb, kB1, ledger));
  // Re-planned to the node without a zone: it constrains nothing any more.
  ledger.reserve(kGuard, kA1, kNoZone, index.requests(kGuard));
  CHECK(placer.feasible(kWeb, kB1, ledger));
  CHECK(placer.feasible(kWeb, kA1, ledger));
}

TEST_CASE("one replica per node: a replica never counts itself, and two moves interact",
          "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("n0", "a"), zoned("n1", "a"), zoned("n2", "b"), zoned("n3", "b")};
  for (int i = 0; i < 2; ++i) {
    Pod replica = app_pod("web-" + std::to_string(i), "web", "n" + std::to_string(i));
    replica.pod_anti_affinity.required.push_back(term_selecting("web", "kubernetes.io/hostname"));
    snapshot.pods.push_back(replica);
  }
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  CHECK_FALSE(placer.feasible(0, 1, ledger));  // web-1 is there (both directions)
  CHECK(placer.feasible(0, 2, ledger));
  CHECK(placer.feasible(1, 2, ledger));
  ledger.reserve(0, 0, 2, index.requests(0));  // web-0 planned to n2
  CHECK_FALSE(placer.feasible(1, 2, ledger));  // web-0 counts where it goes
  CHECK(placer.feasible(1, 0, ledger));        // and no longer where it was
  CHECK(placer.feasible(1, 3, ledger));
  CHECK(placer.feasible(0, 3, ledger));  // web-0 may go elsewhere: its planned place is not a
                                         // conflict for itself
  Verdict verdict = placer.fits(1, 2, ledger);
  CHECK(first_rule(verdict) == Rule::kPodAntiAffinity);
  CHECK_THAT(verdict.describe(), Catch::Contains("kubernetes.io/hostname=n2"));
}

TEST_CASE("required pod affinity: keys, matching domains and the first pod of a group",
          "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("n0", "a"), zoned("n1", "a"), zoned("n2", "b"), make_node("bare"),
                    zoned("n4", "b")};
  Pod cache = app_pod("cache", "cache", "n0");
  Pod web = app_pod("web", "web", "n2");
  web.pod_affinity.required.push_back(term_selecting("cache", "zone"));
  Pod lonely = app_pod("lonely", "solo", "n2");  // affinity to its own kind, none exists
  lonely.pod_affinity.required.push_back(term_selecting("solo", "zone"));
  Pod orphan = app_pod("orphan", "other", "n2");  // affinity to pods that do not exist
  orphan.pod_affinity.required.push_back(term_selecting("ghost", "zone"));
  Pod scoped = app_pod("scoped", "x", "n2");
  PodAffinityTerm by_namespace = term_selecting("cache", "zone");
  by_namespace.namespace_selector = LabelSelector{};
  by_namespace.namespace_selector->match_labels.set("team", "a");
  scoped.pod_affinity.required.push_back(by_namespace);
  Pod unbound = app_pod("unbound", "alone", "");  // the same kind of rule, not running yet
  unbound.pod_affinity.required.push_back(term_selecting("alone", "zone"));
  snapshot.pods = {cache, web, lonely, orphan, scoped, unbound};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  CHECK(placer.feasible(1, 1, ledger));                                // zone a holds the cache
  CHECK(first_rule(placer.fits(1, 3, ledger)) == Rule::kPodAffinity);  // no zone label
  CHECK_THAT(placer.fits(1, 3, ledger).describe(), Catch::Contains("has no label zone"));
  // The first pod of a group: no pod matches anywhere (it does not count itself), and it
  // matches its own term, so any node with the key will do...
  CHECK(placer.feasible(5, 0, ledger));
  CHECK(placer.feasible(5, 2, ledger));
  CHECK_FALSE(placer.feasible(5, 3, ledger));  // but the key must exist
  // ... unless it runs somewhere: evicted, it lingers there while it terminates, the scheduler
  // counts it, and its replacement goes back to its zone (b).
  CHECK(placer.feasible(2, 4, ledger));
  CHECK_FALSE(placer.feasible(2, 0, ledger));
  CHECK_FALSE(placer.feasible(2, 3, ledger));
  CHECK_THAT(placer.fits(2, 1, ledger).describe(),
             Catch::Contains("the pod is the only one its affinity terms select: while it "
                             "terminates the scheduler counts it on its node, so its replacement "
                             "goes back to zone=b"));
  // Once the plan puts another pod of its kind (the web pod, relabelled here) in zone a, the
  // ordinary rule applies: zone a. (While the pod terminates the scheduler would accept its own
  // zone b too; loadshift asks for a domain that keeps a pod of the kind after it is gone.)
  Snapshot relabelled = snapshot;
  relabelled.pods[1].meta.labels.set("app", "solo");
  ClusterIndex index2(relabelled);
  Placer placer2(index2);
  Ledger with_peer(relabelled.nodes.size(), &index2.pod_topology());
  CHECK(placer2.feasible(2, 4, with_peer));  // the web pod is in zone b: its zone is b still
  with_peer.reserve(1, 2, 0, index2.requests(1));
  CHECK(placer2.feasible(2, 1, with_peer));
  CHECK_FALSE(placer2.feasible(2, 4, with_peer));
  // Not its own kind: no exception.
  CHECK(first_rule(placer.fits(3, 0, ledger)) == Rule::kPodAffinity);
  // A namespaceSelector cannot be evaluated: never moved.
  CHECK(first_rule(placer.fits(4, 0, ledger)) == Rule::kInterPodAffinity);
  // The plan moves the cache to zone b: web may no longer go to zone a.
  ledger.reserve(0, 0, 2, index.requests(0));
  CHECK_FALSE(placer.feasible(1, 1, ledger));
}

TEST_CASE("a namespaceSelector selects by the Namespaces' labels", "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("n0", "a"), zoned("n1", "b"), zoned("n2", "c")};
  Pod cache_a = app_pod("cache-a", "cache", "n0");
  cache_a.meta.namespace_ = "team-a";
  Pod cache_b = app_pod("cache-b", "cache", "n1");
  cache_b.meta.namespace_ = "team-b";
  PodAffinityTerm by_team = term_selecting("cache", "zone");
  by_team.namespace_selector = LabelSelector{};
  by_team.namespace_selector->match_labels.set("team", "a");
  Pod web = app_pod("web", "web", "n2");  // needs a team-a cache in its zone
  web.pod_affinity.required.push_back(by_team);
  Pod batch = app_pod("batch", "batch", "n2");  // keeps out of zones with a team-a cache
  batch.pod_anti_affinity.required.push_back(by_team);
  Pod listed = batch;  // the same, plus the namespace team-b by name
  listed.meta.name = "listed";
  listed.pod_anti_affinity.required[0].namespaces = {"team-b"};
  snapshot.pods = {cache_a, cache_b, web, batch, listed};
  const PodId kWeb = 2, kBatch = 3, kListed = 4;
  const NodeId kZoneA = 0, kZoneB = 1;
  auto with_namespaces = [](Snapshot s) {
    for (const auto& [name, team] : {std::pair{"team-a", "a"}, {"team-b", "b"}}) {
      Namespace ns;
      ns.meta.name = name;
      ns.meta.labels.set("team", team);
      s.namespaces.push_back(ns);
    }
    return s;
  };
  {
    Snapshot known = with_namespaces(snapshot);
    ClusterIndex index(known);
    Placer placer(index);
    Ledger ledger(known.nodes.size(), &index.pod_topology());
    CHECK(placer.feasible(kWeb, kZoneA, ledger));
    CHECK_FALSE(placer.feasible(kWeb, kZoneB, ledger));  // team-b's cache does not count
    CHECK_FALSE(placer.feasible(kBatch, kZoneA, ledger));
    CHECK(placer.feasible(kBatch, kZoneB, ledger));
    CHECK_FALSE(placer.feasible(kListed, kZoneB, ledger));  // listed namespaces count too
  }
  {
    // Without Namespaces the selector cannot be evaluated: affinity never moves the pod,
    // anti-affinity takes every namespace (refuses rather than breaks the rule).
    ClusterIndex index(snapshot);
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
    CHECK(first_rule(placer.fits(kWeb, kZoneA, ledger)) == Rule::kInterPodAffinity);
    CHECK_THAT(placer.fits(kWeb, kZoneA, ledger).describe(),
               Catch::Contains("the snapshot has no Namespaces to select from"));
    CHECK_FALSE(placer.feasible(kBatch, kZoneB, ledger));
  }
}

TEST_CASE("topology spread filter: the scheduler's worked cases", "[placement][inter-pod]") {
  SECTION("zones with 1, 1, 0 matching pods, maxSkew 1: only zone c") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("c", "c")};
    Pod mover = app_pod("mover", "web", "a");
    mover.topology_spread.push_back(spread("zone", "web", 1));
    snapshot.pods = {app_pod("w-a", "web", "a"), app_pod("w-b", "web", "b"), mover,
                     app_pod("w-a2", "web", "a")};
    // mover itself is on a and does not count: zone a holds w-a and w-a2 besides it.
    ClusterIndex index(snapshot);
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
    CHECK_FALSE(placer.feasible(2, 1, ledger));  // b: 1 + 1 - 0 = 2 > 1
    CHECK(placer.feasible(2, 2, ledger));        // c: 0 + 1 - 0 = 1
    Verdict verdict = placer.fits(2, 1, ledger);
    CHECK(first_rule(verdict) == Rule::kPodTopologySpread);
    CHECK_THAT(verdict.describe(), Catch::Contains("1 pod(s) matching app=web") &&
                                       Catch::Contains("zone=b") && Catch::Contains("minimum 0") &&
                                       Catch::Contains("maxSkew 1"));
    // The plan fills zone c: then zone b is at the minimum... b: 1+1-1 = 1 passes.
    ledger.reserve(3, 0, 2, index.requests(3));
    CHECK(placer.feasible(2, 1, ledger));
  }
  SECTION("a pod that does not match its own selector still sees the skew") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b")};
    Pod mover = app_pod("mover", "other", "b");
    mover.topology_spread.push_back(spread("zone", "web", 1));
    snapshot.pods = {app_pod("w1", "web", "a"), app_pod("w2", "web", "a"), mover};
    ClusterIndex index(snapshot);
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
    CHECK_FALSE(placer.feasible(2, 0, ledger));  // 2 + 0 - 0 = 2 > 1
  }
  SECTION("fewer domains than minDomains: the minimum is 0") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("home", "h")};
    snapshot.nodes[2].meta.labels = StringMap(
        std::vector<std::pair<std::string, std::string>>{{"kubernetes.io/hostname", "home"}});
    Pod mover = app_pod("mover", "web", "home");
    TopologySpreadConstraint c = spread("zone", "web", 1);
    snapshot.pods = {app_pod("w1", "web", "a"), app_pod("w2", "web", "a"),
                     app_pod("w3", "web", "b"), app_pod("w4", "web", "b"), mover};
    snapshot.pods[4].topology_spread.push_back(c);
    Snapshot with_min = snapshot;
    with_min.pods[4].topology_spread[0].min_domains = 3;
    {
      ClusterIndex index(snapshot);
      Placer placer(index);
      Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
      CHECK(placer.feasible(4, 0, ledger));  // 2 + 1 - 2 = 1
    }
    ClusterIndex index(with_min);
    Placer placer(index);
    Ledger ledger(with_min.nodes.size(), &index.pod_topology());
    CHECK_FALSE(placer.feasible(4, 0, ledger));  // 2 domains < 3: 2 + 1 - 0 = 3 > 1
    CHECK_THAT(placer.fits(4, 0, ledger).describe(), Catch::Contains("fewer than minDomains 3"));
  }
  SECTION("nodeAffinityPolicy decides which domains count") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("c", "c"), zoned("home", "h")};
    Pod mover = app_pod("mover", "web", "home");
    NodeSelectorTerm term;
    term.match_expressions.push_back(req("zone", SelectorOperator::kIn, {"a", "b", "h"}));
    mover.node_affinity.edit().required = std::vector<NodeSelectorTerm>{term};
    mover.topology_spread.push_back(spread("zone", "web", 1));
    snapshot.pods = {app_pod("w1", "web", "a"), app_pod("w2", "web", "a"),
                     app_pod("w3", "web", "b"), app_pod("w4", "web", "home"), mover};
    Snapshot ignoring = snapshot;
    ignoring.pods[4].topology_spread[0].node_affinity_policy = InclusionPolicy::kIgnore;
    {
      ClusterIndex index(snapshot);  // Honor: domains a, b, h; min 1
      Placer placer(index);
      Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
      CHECK(placer.feasible(4, 1, ledger));        // b: 1 + 1 - 1 = 1
      CHECK_FALSE(placer.feasible(4, 0, ledger));  // a: 2 + 1 - 1 = 2
    }
    ClusterIndex index(ignoring);  // Ignore: zone c counts with 0 pods
    Placer placer(index);
    Ledger ledger(ignoring.nodes.size(), &index.pod_topology());
    CHECK_FALSE(placer.feasible(4, 1, ledger));  // b: 1 + 1 - 0 = 2
  }
  SECTION("nodeTaintsPolicy Honor leaves out the domains of untolerated tainted nodes") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("c", "c")};
    snapshot.nodes[2].taints.push_back({"dedicated", "x", TaintEffect::kNoSchedule});
    Pod mover = app_pod("mover", "web", "a");
    mover.topology_spread.push_back(spread("zone", "web", 1));
    snapshot.pods = {app_pod("w1", "web", "a"), app_pod("w2", "web", "b"), mover};
    Snapshot honoring = snapshot;
    honoring.pods[2].topology_spread[0].node_taints_policy = InclusionPolicy::kHonor;
    {
      ClusterIndex index(snapshot);  // Ignore (the default): zone c counts with 0 pods
      Placer placer(index);
      Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
      CHECK_FALSE(placer.feasible(2, 1, ledger));  // b: 1 + 1 - 0 = 2
    }
    ClusterIndex index(honoring);  // Honor: zones a and b; min 1
    Placer placer(index);
    Ledger ledger(honoring.nodes.size(), &index.pod_topology());
    CHECK(placer.feasible(2, 1, ledger));  // b: 1 + 1 - 1 = 1
  }
  SECTION("matchLabelKeys: only pods with the pod's own values of those keys count") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b")};
    auto replica = [](const std::string& name, const std::string& hash, const std::string& node) {
      Pod pod = app_pod(name, "web", node);
      pod.meta.labels.set("pod-template-hash", hash);
      return pod;
    };
    Pod mover = replica("mover", "new", "b");
    mover.topology_spread.push_back(spread("zone", "web", 1));
    snapshot.pods = {replica("old1", "old", "a"), replica("old2", "old", "a"),
                     replica("new1", "new", "b"), mover};
    Snapshot by_hash = snapshot;
    by_hash.pods[3].topology_spread[0].match_label_keys = {"pod-template-hash"};
    {
      ClusterIndex index(snapshot);  // every web pod: a 2, b 1
      Placer placer(index);
      Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
      CHECK_FALSE(placer.feasible(3, 0, ledger));  // a: 2 + 1 - 1 = 2
    }
    ClusterIndex index(by_hash);  // the new ReplicaSet's pods only: a 0, b 1
    Placer placer(index);
    Ledger ledger(by_hash.nodes.size(), &index.pod_topology());
    CHECK(placer.feasible(3, 0, ledger));  // a: 0 + 1 - 0 = 1
  }
  SECTION("a node without the key fails; a terminating pod counts for affinity, not spread") {
    Snapshot snapshot;
    snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), make_node("bare")};
    Pod mover = app_pod("mover", "web", "b");
    mover.topology_spread.push_back(spread("zone", "web", 1));
    Pod guarded = app_pod("guarded", "db", "b");
    guarded.pod_anti_affinity.required.push_back(term_selecting("web", "zone"));
    Pod leaving = app_pod("leaving", "web", "a");
    leaving.meta.deleting = true;
    snapshot.pods = {leaving, mover, guarded};
    ClusterIndex index(snapshot);
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
    CHECK(placer.feasible(1, 0, ledger));  // a: 0 (leaving does not count) + 1 - 0 = 1
    CHECK(first_rule(placer.fits(1, 2, ledger)) == Rule::kPodTopologySpread);
    CHECK_THAT(placer.fits(1, 2, ledger).describe(), Catch::Contains("has no label zone"));
    CHECK(first_rule(placer.fits(2, 0, ledger)) == Rule::kPodAntiAffinity);  // leaving counts
  }
}

TEST_CASE("scores: preferred pod affinity and ScheduleAnyway spread", "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("home", "h")};
  Pod near = app_pod("near", "web", "home");
  near.pod_affinity.preferred.push_back(WeightedPodAffinityTerm{10, term_selecting("db", "zone")});
  Pod spreadable = app_pod("spreadable", "web", "home");
  TopologySpreadConstraint soft = spread("zone", "web", 1);
  soft.when_unsatisfiable = UnsatisfiableAction::kScheduleAnyway;
  spreadable.topology_spread.push_back(soft);
  snapshot.pods = {app_pod("db", "db", "b"), app_pod("w1", "web", "a"), app_pod("w2", "web", "a"),
                   near, spreadable};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  std::vector<NodeId> candidates = {0, 1};
  CHECK(placer.score(3, 1, ledger).pod_affinity == 10);
  CHECK(placer.score(3, 0, ledger).pod_affinity == 0);
  CHECK(placer.best_target(3, candidates, ledger).target == NodeId{1});
  CHECK(placer.score(4, 0, ledger).spread > placer.score(4, 1, ledger).spread);
  CHECK(placer.best_target(4, candidates, ledger).target == NodeId{1});
  // A soft constraint never refuses.
  CHECK(placer.feasible(4, 0, ledger));
}

TEST_CASE("scores: existing pods' affinity terms that select the pod, through the plan",
          "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("a", "a"), zoned("b", "b"), zoned("home", "h")};
  Pod needs_web = app_pod("needs-web", "cache", "a");  // required affinity to web: +1 (hard weight)
  needs_web.pod_affinity.required.push_back(term_selecting("web", "zone"));
  Pod likes_web = app_pod("likes-web", "db", "a");  // preferred affinity to web: +5
  likes_web.pod_affinity.preferred.push_back(
      WeightedPodAffinityTerm{5, term_selecting("web", "zone")});
  Pod avoids_web = app_pod("avoids-web", "batch", "b");  // preferred anti-affinity to web: -7
  avoids_web.pod_anti_affinity.preferred.push_back(
      WeightedPodAffinityTerm{7, term_selecting("web", "zone")});
  snapshot.pods = {needs_web, likes_web, avoids_web, app_pod("web", "web", "home")};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  const PodId kWeb = 3;
  CHECK(placer.score(kWeb, 0, ledger).pod_affinity == 1 + 5);
  CHECK(placer.score(kWeb, 1, ledger).pod_affinity == -7);
  CHECK(placer.score(kWeb, 2, ledger).pod_affinity == 0);
  // The plan moves likes-web to zone b: its weight follows it.
  ledger.reserve(1, 0, 1, index.requests(1));
  CHECK(placer.score(kWeb, 0, ledger).pod_affinity == 1);
  CHECK(placer.score(kWeb, 1, ledger).pod_affinity == 5 - 7);
}

TEST_CASE("a ledger that does not follow inter-pod counts refuses inter-pod pods after a move",
          "[placement][inter-pod]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("n0", "a"), zoned("n1", "b")};
  Pod replica = app_pod("web", "web", "n0");
  replica.pod_anti_affinity.required.push_back(term_selecting("web", "kubernetes.io/hostname"));
  replica.topology_spread.push_back(spread("zone", "web", 1));  // reads the spread minimum
  snapshot.pods = {replica, app_pod("plain", "db", "n0")};
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger blind(snapshot.nodes.size());
  CHECK(placer.feasible(0, 1, blind));
  blind.reserve(1, 0, 1, index.requests(1));
  CHECK(first_rule(placer.fits(0, 1, blind)) == Rule::kInterPodAffinity);
}

// Existing pods' required anti-affinity refuses incoming pods in their topology domain
// (issue 10, case 4).
#include <catch2/catch.hpp>

#include "builders.h"
#include "placement/cluster_index.h"
#include "placement/existing_anti_affinity.h"
#include "placement/placer.h"

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
  return node;
}

}  // namespace

TEST_CASE("which pods an anti-affinity term selects", "[predicates][anti-affinity]") {
  Pod owner = make_pod("owner");
  owner.meta.namespace_ = "team-a";
  Pod web = make_pod("web");
  web.meta.namespace_ = "team-a";
  web.meta.labels.set("app", "web");
  Pod web_elsewhere = web;
  web_elsewhere.meta.namespace_ = "team-b";

  PodAffinityTerm term = term_selecting("web", "zone");
  CHECK(anti_affinity_term_selects(term, owner, web));  // own namespace by default
  CHECK_FALSE(anti_affinity_term_selects(term, owner, web_elsewhere));
  term.namespaces = {"team-b"};
  CHECK_FALSE(anti_affinity_term_selects(term, owner, web));
  CHECK(anti_affinity_term_selects(term, owner, web_elsewhere));
  term.namespaces.clear();
  term.namespace_selector = LabelSelector{};  // {}: every namespace
  CHECK(anti_affinity_term_selects(term, owner, web_elsewhere));
  term.namespace_selector->match_labels.set("tier", "x");  // not evaluable: assumed to select
  CHECK(anti_affinity_term_selects(term, owner, web_elsewhere));

  PodAffinityTerm other_app = term_selecting("db", "zone");
  CHECK_FALSE(anti_affinity_term_selects(other_app, owner, web));
  PodAffinityTerm null_selector = term_selecting("web", "zone");
  null_selector.label_selector.reset();  // null selects nothing
  CHECK_FALSE(anti_affinity_term_selects(null_selector, owner, web));
}

TEST_CASE("a node in the domain of an existing pod's anti-affinity is refused, others are not",
          "[predicates][anti-affinity]") {
  Snapshot snapshot;
  snapshot.nodes = {zoned("home", "c"), zoned("a1", "a"), zoned("a2", "a"), zoned("b1", "b"),
                    make_node("nozone")};
  Pod guard = make_pod("guard", 100, 1 << 20, "a1");  // no web pods in zone a
  guard.pod_anti_affinity.required.push_back(term_selecting("web", "zone"));
  Pod web = make_pod("web", 100, 1 << 20, "home");
  web.meta.labels.set("app", "web");
  Pod db = make_pod("db", 100, 1 << 20, "home");
  db.meta.labels.set("app", "db");
  Pod finished = guard;  // a terminated pod's terms do not count
  finished.meta.name = "finished";
  finished.node_name = "b1";
  finished.phase = PodPhase::kSucceeded;
  snapshot.pods = {guard, web, db, finished};

  ClusterIndex index(snapshot);
  REQUIRE(index.existing_anti_affinity().terms() == 1);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  const PodId kWeb = 1, kDb = 2;
  const NodeId kA1 = 1, kA2 = 2, kB1 = 3, kNoZone = 4;
  CHECK_FALSE(placer.feasible(kWeb, kA1, ledger));
  CHECK_FALSE(placer.feasible(kWeb, kA2, ledger));  // same zone, other node
  CHECK(placer.feasible(kWeb, kB1, ledger));
  CHECK(placer.feasible(kWeb, kNoZone, ledger));  // in no zone domain
  CHECK(placer.feasible(kDb, kA2, ledger));       // not selected

  Verdict verdict = placer.fits(kWeb, kA2, ledger);
  REQUIRE(verdict.failures.size() == 1);
  CHECK(verdict.failures[0].rule == Rule::kExistingPodsAntiAffinity);
  CHECK_THAT(verdict.failures[0].reason,
             Catch::Contains("existing pod default/guard on a1") &&
                 Catch::Contains("anti-affinity term 0") && Catch::Contains("topologyKey zone") &&
                 Catch::Contains("app=web") && Catch::Contains("zone=a"));

  Reasons reasons;
  CHECK(index.existing_anti_affinity().check(kWeb, kB1, &reasons));
  CHECK(reasons.empty());
}

// RemoveDuplicates: upstream's test cases (removeduplicates_test.go) with their eviction counts,
// and loadshift's targets: each eviction goes to a node below the owner's share.
#include <catch2/catch.hpp>

#include "test/strategies/deschedule_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::StartsWith;

namespace {

DescheduleOutcome dedupe(const DescheduleSetup& setup, const policy::RemoveDuplicatesArgs& args) {
  return run_deschedule(setup,
                        [&](const strategies::ProfileScope& scope, strategies::PlanContext& ctx) {
                          strategies::run_remove_duplicates(args, scope, ctx);
                        });
}

// A pod of ReplicaSet `rs` (namespace `ns`) running image `image` on `node`.
Pod copy_of(const std::string& name, const std::string& rs, const std::string& node,
            const std::string& image = "nginx:1", const std::string& ns = "apps") {
  Pod pod = make_pod(name, 100, int64_t{256} << 20, node);
  pod.meta.namespace_ = ns;
  pod.phase = PodPhase::kRunning;
  pod.owners.edit().push_back({"apps/v1", "ReplicaSet", rs, "uid-" + ns + "-" + rs, true});
  pod.containers.edit()[0].image = image;
  return pod;
}

std::vector<Pod> copies(const std::string& rs, const std::string& node, int n,
                        const std::string& ns = "apps") {
  std::vector<Pod> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(copy_of(rs + "-" + node + "-" + std::to_string(i), rs, node, "nginx:1", ns));
  }
  return out;
}

void add(model::ObjectList<Pod>& to, const std::vector<Pod>& pods) {
  for (const Pod& pod : pods) to.push_back(pod);
}

}  // namespace

TEST_CASE("RemoveDuplicates: three copies on one of two nodes, one moves", "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  add(setup.snapshot.pods, copies("web", "n1", 3));
  DescheduleOutcome out = dedupe(setup, {});
  CHECK(out.moves == Moves{"web-n1-2->n2"});  // ceil(3 / 2) = 2 stay
  CHECK_THAT(out.reasons["web-n1-2"],
             StartsWith("n1 holds 3 copies of apps/ReplicaSet/web#nginx:1 (at most 2 per node "
                        "over 2 nodes) -> n2"));

  policy::RemoveDuplicatesArgs excluded;
  excluded.exclude_owner_kinds = {"ReplicaSet"};
  CHECK(dedupe(setup, excluded).moves.empty());
  policy::RemoveDuplicatesArgs other_namespace;
  other_namespace.namespaces.include = {"other"};
  CHECK(dedupe(setup, other_namespace).moves.empty());
}

TEST_CASE("RemoveDuplicates: owners in two namespaces are two owners", "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  add(setup.snapshot.pods, copies("web", "n1", 3, "a"));
  add(setup.snapshot.pods, copies("web", "n1", 3, "b"));
  CHECK(dedupe(setup, {}).moves.size() == 2);
}

TEST_CASE("RemoveDuplicates: different images or a lone pod are no duplicates", "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  setup.snapshot.pods = {copy_of("a", "web", "n1", "nginx:1"), copy_of("b", "web", "n1", "nginx:2"),
                         copy_of("c", "web", "n1", "nginx:3")};
  CHECK(dedupe(setup, {}).moves.empty());
  Pod bare = copy_of("bare", "web", "n1");
  bare.owners.edit().clear();
  setup.snapshot.pods = {bare, bare};
  setup.snapshot.pods[1].meta.name = "bare-2";
  CHECK(dedupe(setup, {}).moves.empty());
}

TEST_CASE("RemoveDuplicates: evicts uniformly (5, 3, 1 over three nodes)", "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  add(setup.snapshot.pods, copies("web", "n1", 5));
  add(setup.snapshot.pods, copies("web", "n2", 3));
  add(setup.snapshot.pods, copies("web", "n3", 1));
  DescheduleOutcome out = dedupe(setup, {});
  // 9 copies over 3 nodes: at most 3 each; n1 gives 2, both to n3 (n2 is at its share).
  CHECK(out.moves == Moves{"web-n1-3->n3", "web-n1-4->n3"});

  // A node the duplicates may not run on is no target and no share.
  setup.snapshot.nodes[2].taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  DescheduleOutcome two = dedupe(setup, {});
  // 9 copies over 2 nodes: at most 5 each: nothing moves.
  CHECK(two.moves.empty());
}

TEST_CASE("RemoveDuplicates: a duplicate with no node below the share stays, with a reason",
          "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2", 50)};  // n2 has no room
  add(setup.snapshot.pods, copies("web", "n1", 3));
  DescheduleOutcome out = dedupe(setup, {});
  CHECK(out.moves.empty());
  CHECK_THAT(out.skips["web-n1-2"], StartsWith("no node fits: n1 holds 3 copies"));
}

TEST_CASE("RemoveDuplicates: copies that only one node admits stay, each with its reason",
          "[duplicates]") {
  DescheduleSetup setup;
  setup.snapshot.nodes = {make_node("n1"), make_node("n2")};
  setup.snapshot.nodes[1].taints.push_back(
      model::Taint{"dedicated", "gpu", model::TaintEffect::kNoSchedule});
  add(setup.snapshot.pods, copies("web", "n1", 3));
  DescheduleOutcome out = dedupe(setup, {});
  CHECK(out.moves.empty());
  REQUIRE(out.skips.count("web-n1-1") == 1);
  REQUIRE(out.skips.count("web-n1-2") == 1);
  CHECK_THAT(out.skips["web-n1-2"], Catch::Contains("fewer than two nodes admit its copies"));
  CHECK(out.skips.count("web-n1-0") == 0);  // the node's first copy is no duplicate

  // Tolerating the taint, the copies have two nodes: one moves.
  for (Pod& pod : setup.snapshot.pods) {
    pod.tolerations.edit().push_back(
        model::Toleration{"dedicated", model::TolerationOperator::kEqual, "gpu",
                          model::TaintEffect::kNoSchedule, std::nullopt});
  }
  CHECK(dedupe(setup, {}).moves == Moves{"web-n1-2->n2"});
}

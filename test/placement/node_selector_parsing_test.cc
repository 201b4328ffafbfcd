// Requirements the scheduler cannot parse: a required term holding one matches no node; a
// preferred term holding one keeps the pod where it is (issue 10, cases 1 and 3).
#include <catch2/catch.hpp>

#include "placement/cluster_index.h"
#include "placement/node_selector_parsing.h"
#include "placement/placer.h"
#include "placement/predicates.h"
#include "test/model/builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;
using S = SelectorOperator;

TEST_CASE("label values as IsValidLabelValue decides them", "[predicates][parsing]") {
  for (const char* valid : {"", "a", "A1", "trail.ok", "a-b_c.d", "0004", "x-1"}) {
    INFO(valid);
    CHECK(is_valid_label_value(valid));
  }
  for (const char* invalid : {"trail-", "-lead", "_x", "x.", "a b", "a/b", "a:b", "é"}) {
    INFO(invalid);
    CHECK_FALSE(is_valid_label_value(invalid));
  }
  CHECK(is_valid_label_value(std::string(63, 'a')));
  CHECK_FALSE(is_valid_label_value(std::string(64, 'a')));
}

TEST_CASE("requirements the scheduler cannot parse match no node", "[predicates][parsing]") {
  StringMap labels({{"zone", "a"}, {"gpus", "8"}});
  struct Case {
    NodeSelectorRequirement requirement;
    bool parses;
    bool matches;
  };
  const Case cases[] = {
      {req("zone", S::kIn, {"a", "trail-"}), false, false},  // listed value, but one is invalid
      {req("zone", S::kNotIn, {"trail-"}), false, false},    // would match if it parsed
      {req("missing", S::kNotIn, {"b", "-x"}), false, false},
      {req("zone", S::kNotIn, {}), false, false},  // NotIn needs values
      {req("zone", S::kIn, {}), false, false},
      {req("zone", S::kExists, {"a"}), false, false},  // Exists takes none
      {req("missing", S::kDoesNotExist, {"a"}), false, false},
      {req("gpus", S::kLt, {"99999999999999999999"}), false, false},  // overflows int64
      {req("gpus", S::kGt, {"4"}), true, true},
      {req("zone", S::kIn, {"a", ""}), true, true},  // the empty value is valid
      {req("zone", S::kNotIn, {"b"}), true, true},
  };
  int i = 0;
  for (const Case& c : cases) {
    INFO("case " << i++);
    CHECK(requirement_parses(c.requirement) == c.parses);
    CHECK(requirement_parse_error(c.requirement, false).empty() == c.parses);
    CHECK(requirement_matches(c.requirement, labels) == c.matches);
  }
  CHECK(field_requirement_parses(req("metadata.name", S::kIn, {"n1"})));
  CHECK_FALSE(field_requirement_parses(req("metadata.name", S::kIn, {"n1", "n2"})));
  CHECK_FALSE(field_requirement_parses(req("metadata.name", S::kExists)));
}

TEST_CASE("a required term with an invalid In/NotIn value fails whole, and the reason says so",
          "[predicates][parsing]") {
  Node node = make_node("n1");
  node.meta.labels.set("zone", "a");
  Pod pod = make_pod("p");
  NodeSelectorTerm bad;  // zone NotIn [trail-] would hold on n1 if the value were valid
  bad.match_expressions = {req("zone", S::kNotIn, {"trail-"})};
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{bad};
  CHECK_FALSE(term_matches(bad, node));
  Reasons reasons;
  CHECK_FALSE(check_node_affinity(pod, node, &reasons));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].rule == Rule::kNodeAffinity);
  CHECK_THAT(reasons[0].reason, Catch::Contains("matches no node") &&
                                    Catch::Contains("\"trail-\"") &&
                                    Catch::Contains("not a valid label value"));

  // Another term (ORed) that parses still places the pod, and the reason of a node that matches
  // neither names the broken term.
  NodeSelectorTerm good;
  good.match_expressions = {req("zone", S::kIn, {"a"})};
  pod.node_affinity.edit().required->push_back(good);
  CHECK(check_node_affinity(pod, node, nullptr));
  Node other = make_node("n2");
  other.meta.labels.set("zone", "b");
  reasons.clear();
  CHECK_FALSE(check_node_affinity(pod, other, &reasons));
  REQUIRE(reasons.size() == 1);
  CHECK_THAT(reasons[0].reason, Catch::Contains("term 0 matches no node because"));
}

TEST_CASE("a preferred term the scheduler cannot parse keeps the pod where it is",
          "[predicates][parsing]") {
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), make_node("n1"), make_node("n2")};
  Pod bad = make_pod("bad", 100, 1 << 20, "home");
  PreferredSchedulingTerm preferred;
  preferred.weight = 10;
  preferred.preference.match_expressions = {req("gpus", S::kLt, {"99999999999999999999"})};
  bad.node_affinity.edit().preferred.push_back(preferred);
  Pod zero_weight = bad;  // a weight-0 term is skipped by the scheduler, parse error or not
  zero_weight.meta.name = "zero-weight";
  zero_weight.node_affinity.edit().preferred[0].weight = 0;
  Pod fine = make_pod("fine", 100, 1 << 20, "home");
  preferred.preference.match_expressions = {req("gpus", S::kLt, {"99"})};
  fine.node_affinity.edit().preferred.push_back(preferred);
  snapshot.pods = {bad, zero_weight, fine};

  CHECK_THAT(preferred_terms_parse_error(bad.node_affinity),
             Catch::Contains("preferred node-affinity term 0 does not parse") &&
                 Catch::Contains("99999999999999999999") && Catch::Contains("not moved"));
  CHECK(preferred_terms_parse_error(zero_weight.node_affinity).empty());
  CHECK(preferred_terms_parse_error(fine.node_affinity).empty());

  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  REQUIRE(index.unmovable_reason(0).has_value());
  for (NodeId n = 1; n < 3; ++n) {
    CHECK_FALSE(placer.feasible(0, n, ledger));
    Verdict verdict = placer.fits(0, n, ledger);
    REQUIRE(verdict.failures.size() == 1);
    CHECK(verdict.failures[0].rule == Rule::kPodMovable);
    CHECK(placer.feasible(1, n, ledger));
    CHECK(placer.feasible(2, n, ledger));
  }
}

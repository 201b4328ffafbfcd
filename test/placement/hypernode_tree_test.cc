#include "placement/hypernode_tree.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "model/model.h"

namespace loadshift::placement {
using namespace loadshift::model;
namespace {

StringMap labels(std::vector<std::pair<std::string, std::string>> pairs) {
  return StringMap(std::move(pairs));
}

Node node(std::string name, StringMap node_labels = {}) {
  Node result;
  result.meta.name = std::move(name);
  result.meta.labels = std::move(node_labels);
  return result;
}

HyperNodeMember node_member(std::string name) {
  HyperNodeMember member;
  member.type = HyperNodeMemberType::kNode;
  member.exact_name = std::move(name);
  return member;
}

HyperNodeMember hyper_node_member(std::string name) {
  HyperNodeMember member;
  member.type = HyperNodeMemberType::kHyperNode;
  member.exact_name = std::move(name);
  return member;
}

HyperNodeMember regex_member(std::string pattern) {
  HyperNodeMember member;
  member.type = HyperNodeMemberType::kNode;
  member.regex = std::move(pattern);
  return member;
}

HyperNodeMember label_member(LabelSelector selector) {
  HyperNodeMember member;
  member.type = HyperNodeMemberType::kNode;
  member.label_match = std::move(selector);
  return member;
}

HyperNode hyper_node(std::string name, int32_t tier, std::vector<HyperNodeMember> members,
                     std::string tier_name = "") {
  HyperNode result;
  result.meta.name = std::move(name);
  result.tier = tier;
  result.tier_name = std::move(tier_name);
  result.members = std::move(members);
  return result;
}

// te1..te8 and te9 (in no HyperNode): ids 0..8.
std::vector<Node> seed_nodes() {
  std::vector<Node> nodes;
  for (int i = 1; i <= 9; ++i) nodes.push_back(node("te" + std::to_string(i)));
  return nodes;
}

// As in seed-examples/04-hypernodes.yaml, with tier names added.
std::vector<HyperNode> seed_hyper_nodes() {
  return {
      hyper_node("s0-s1-rack-1", 1, {node_member("te1"), node_member("te2")}, "rack"),
      hyper_node("s0-s1-rack-2", 1, {node_member("te3"), node_member("te4")}, "rack"),
      hyper_node("s0-s2-rack-3", 1, {node_member("te5"), node_member("te6")}, "rack"),
      hyper_node("s0-s2-rack-4", 1, {node_member("te7"), node_member("te8")}, "rack"),
      hyper_node("s0-s1", 2, {hyper_node_member("s0-s1-rack-1"), hyper_node_member("s0-s1-rack-2")},
                 "spine"),
      hyper_node("s0-s2", 2, {hyper_node_member("s0-s2-rack-3"), hyper_node_member("s0-s2-rack-4")},
                 "spine"),
      hyper_node("s0", 3, {hyper_node_member("s0-s1"), hyper_node_member("s0-s2")}, "hall"),
  };
}

constexpr NodeId te(int i) {
  return static_cast<NodeId>(i - 1);
}

std::string lcd_name(const HyperNodeTree& tree, std::vector<NodeId> nodes) {
  return std::string(tree.lowest_common_domain(nodes).name);
}
int32_t lcd_tier(const HyperNodeTree& tree, std::vector<NodeId> nodes) {
  return tree.lowest_common_domain(nodes).tier;
}

TEST_CASE("seed topology: lowest common domains", "[hypernode]") {
  const HyperNodeTree tree(seed_hyper_nodes(), seed_nodes());
  CHECK(tree.warnings().empty());
  CHECK_FALSE(tree.empty());
  CHECK(tree.virtual_root_tier() == 4);

  CHECK(lcd_name(tree, {te(1), te(2)}) == "s0-s1-rack-1");
  CHECK(lcd_tier(tree, {te(1), te(2)}) == 1);
  CHECK(lcd_name(tree, {te(1), te(3)}) == "s0-s1");
  CHECK(lcd_tier(tree, {te(1), te(3)}) == 2);
  CHECK(lcd_name(tree, {te(1), te(5)}) == "s0");
  CHECK(lcd_tier(tree, {te(1), te(5)}) == 3);
  CHECK(lcd_name(tree, {te(9), te(1)}) == "<cluster-top-hypernode>");
  CHECK(lcd_tier(tree, {te(9), te(1)}) == 4);
  CHECK(lcd_tier(tree, {te(1), te(9)}) == 4);

  CHECK(lcd_name(tree, {te(1)}) == "s0-s1-rack-1");
  CHECK(lcd_name(tree, {te(4), te(4), te(3), te(4)}) == "s0-s1-rack-2");
  CHECK(lcd_name(tree, {te(6), te(7), te(8)}) == "s0-s2");
  CHECK(lcd_name(tree, {te(2), te(3), te(4), te(1), te(8)}) == "s0");
  CHECK(lcd_name(tree, {te(9)}) == "<cluster-top-hypernode>");
  CHECK(lcd_tier(tree, {te(1), 1000}) == 4);  // an id outside the node list

  const HyperNodeTree::Domain none = tree.lowest_common_domain({});
  CHECK(none.tier == 0);
  CHECK(none.name.empty());
}

TEST_CASE("seed topology: within_tier", "[hypernode]") {
  const HyperNodeTree tree(seed_hyper_nodes(), seed_nodes());
  const std::vector<NodeId> rack = {te(1), te(2)};
  const std::vector<NodeId> spine = {te(1), te(2), te(4), te(3)};
  const std::vector<NodeId> hall = {te(1), te(8)};
  const std::vector<NodeId> stray = {te(1), te(9)};
  CHECK(tree.within_tier(rack, 1));
  CHECK_FALSE(tree.within_tier(spine, 1));
  CHECK(tree.within_tier(spine, 2));
  CHECK_FALSE(tree.within_tier(hall, 2));
  CHECK(tree.within_tier(hall, 3));
  CHECK_FALSE(tree.within_tier(rack, 0));
  // The virtual root is not a real domain, whatever the bound.
  CHECK_FALSE(tree.within_tier(stray, 100));
  CHECK_FALSE(tree.within_tier(std::vector<NodeId>{te(9)}, 100));
  CHECK(tree.within_tier(std::vector<NodeId>{te(5)}, 1));
  CHECK_FALSE(tree.within_tier(std::vector<NodeId>{}, 100));
}

TEST_CASE("seed topology: domains of a node, lowest tier first", "[hypernode]") {
  const HyperNodeTree tree(seed_hyper_nodes(), seed_nodes());
  CHECK(tree.domains_of(te(1)) == std::vector<std::string_view>{"s0-s1-rack-1", "s0-s1", "s0"});
  CHECK(tree.domains_of(te(7)) == std::vector<std::string_view>{"s0-s2-rack-4", "s0-s2", "s0"});
  CHECK(tree.domains_of(te(9)).empty());
  CHECK(tree.domains_of(1000).empty());
}

TEST_CASE("tier_of_name", "[hypernode]") {
  const HyperNodeTree tree(seed_hyper_nodes(), seed_nodes());
  CHECK(tree.tier_of_name("rack") == 1);
  CHECK(tree.tier_of_name("spine") == 2);
  CHECK(tree.tier_of_name("hall") == 3);
  CHECK_FALSE(tree.tier_of_name("zone").has_value());
  CHECK_FALSE(tree.tier_of_name("").has_value());
}

TEST_CASE("a tierName used at two tiers gives the highest, with a warning", "[hypernode]") {
  std::vector<HyperNode> hyper_nodes = seed_hyper_nodes();
  hyper_nodes[6].tier_name = "spine";  // s0, tier 3
  const HyperNodeTree tree(hyper_nodes, seed_nodes());
  CHECK(tree.tier_of_name("spine") == 3);
  REQUIRE(tree.warnings().size() == 1);
  CHECK(tree.warnings()[0] ==
        "tierName spine is used with tier 2 (HyperNode s0-s1) and tier 3 (HyperNode s0); the "
        "highest tier is used");
}

TEST_CASE("an empty tree has only the virtual root, of tier 1", "[hypernode]") {
  const HyperNodeTree tree;
  CHECK(tree.empty());
  CHECK(tree.virtual_root_tier() == 1);
  CHECK(lcd_name(tree, {0, 1}) == "<cluster-top-hypernode>");
  CHECK(lcd_tier(tree, {0}) == 1);
  CHECK(tree.warnings().empty());

  const HyperNodeTree no_hyper_nodes({}, seed_nodes());
  CHECK(no_hyper_nodes.empty());
  CHECK(lcd_tier(no_hyper_nodes, {te(1), te(2)}) == 1);
}

TEST_CASE("regexMatch searches node names like Go's MatchString", "[hypernode]") {
  const std::vector<Node> nodes = {node("gpu-a1"), node("gpu-a2"), node("gpu-b1"), node("cpu-1")};
  const HyperNodeTree tree({hyper_node("rack-a", 1, {regex_member("gpu-a")}),
                            hyper_node("ones", 1, {regex_member("^gpu-.1$")}),
                            hyper_node("partial", 1, {regex_member("b1")})},
                           nodes);
  CHECK(tree.warnings().empty());
  CHECK(lcd_name(tree, {0, 1}) == "rack-a");
  CHECK(lcd_name(tree, {0, 2}) == "ones");
  CHECK(tree.domains_of(0) == std::vector<std::string_view>{"ones", "rack-a"});
  CHECK(tree.domains_of(2) == std::vector<std::string_view>{"ones", "partial"});
  CHECK(tree.domains_of(3).empty());
}

TEST_CASE("a bad regexMatch warns and matches no node", "[hypernode]") {
  const std::vector<Node> nodes = {node("gpu-a1"), node("gpu-a2")};
  const HyperNodeTree tree(
      {hyper_node("broken", 1, {regex_member("gpu-(a"), node_member("gpu-a2")})}, nodes);
  REQUIRE(tree.warnings().size() == 1);
  CHECK(
      tree.warnings()[0].starts_with("HyperNode broken: regexMatch pattern \"gpu-(a\" is not "
                                     "usable ("));
  CHECK(tree.warnings()[0].ends_with("); it matches no node"));
  CHECK(tree.domains_of(0).empty());
  CHECK(tree.domains_of(1) == std::vector<std::string_view>{"broken"});
}

TEST_CASE("labelMatch selects node labels; an empty selector matches nothing", "[hypernode]") {
  const std::vector<Node> nodes = {
      node("n1", labels({{"volcano.sh/rack", "r1"}})),
      node("n2", labels({{"volcano.sh/rack", "r1"}, {"zone", "z"}})),
      node("n3", labels({{"volcano.sh/rack", "r2"}, {"zone", "z"}})),
  };
  LabelSelector rack_r1;
  rack_r1.match_labels.set("volcano.sh/rack", "r1");
  LabelSelector in_zone;
  in_zone.match_expressions.push_back({.key = "zone", .op = "In", .values = {"z"}});

  const HyperNodeTree tree(
      {hyper_node("r1", 1, {label_member(rack_r1)}), hyper_node("zone", 2, {label_member(in_zone)}),
       hyper_node("nothing", 1, {label_member(LabelSelector{})})},
      nodes);
  CHECK(tree.domains_of(0) == std::vector<std::string_view>{"r1"});
  CHECK(tree.domains_of(1) == std::vector<std::string_view>{"r1", "zone"});
  CHECK(tree.domains_of(2) == std::vector<std::string_view>{"zone"});
  CHECK(lcd_name(tree, {0, 1}) == "r1");
  CHECK(lcd_name(tree, {1, 2}) == "zone");
  CHECK(lcd_name(tree, {0, 2}) == "<cluster-top-hypernode>");
  CHECK(tree.warnings() ==
        std::vector<std::string>{"HyperNode nothing: empty labelMatch matches no node"});
}

TEST_CASE("a Node member's selectors are united", "[hypernode]") {
  const std::vector<Node> nodes = {node("a1"), node("b1", labels({{"k", "v"}})), node("c1")};
  HyperNodeMember member = regex_member("^a");
  member.exact_name = "c1";
  member.label_match.emplace();
  member.label_match->match_labels.set("k", "v");
  const HyperNodeTree tree({hyper_node("all", 1, {member})}, nodes);
  CHECK(tree.warnings().empty());
  CHECK(lcd_name(tree, {0, 1, 2}) == "all");
}

TEST_CASE("HyperNode members resolve by exactMatch only", "[hypernode]") {
  std::vector<HyperNode> hyper_nodes = seed_hyper_nodes();
  HyperNodeMember by_regex;
  by_regex.type = HyperNodeMemberType::kHyperNode;
  by_regex.regex = "s0-s2-rack-.*";
  HyperNodeMember by_label;
  by_label.type = HyperNodeMemberType::kHyperNode;
  by_label.label_match.emplace();
  by_label.label_match->match_labels.set("a", "b");
  hyper_nodes.push_back(hyper_node("extra", 2, {by_regex, by_label}));
  const HyperNodeTree tree(hyper_nodes, seed_nodes());
  CHECK(tree.warnings() ==
        std::vector<std::string>{
            "HyperNode extra: regexMatch \"s0-s2-rack-.*\" on a HyperNode member is ignored "
            "(exactMatch only)",
            "HyperNode extra: labelMatch on a HyperNode member is ignored (exactMatch only)"});
  CHECK(tree.domains_of(te(5)) == std::vector<std::string_view>{"s0-s2-rack-3", "s0-s2", "s0"});
}

TEST_CASE("unknown members are warned about and skipped", "[hypernode]") {
  std::vector<HyperNode> hyper_nodes = seed_hyper_nodes();
  hyper_nodes[0].members.push_back(node_member("te99"));
  hyper_nodes[4].members.push_back(hyper_node_member("s0-s1-rack-9"));
  const HyperNodeTree tree(hyper_nodes, seed_nodes());
  CHECK(tree.warnings() ==
        std::vector<std::string>{"HyperNode s0-s1-rack-1: member node te99 not found",
                                 "HyperNode s0-s1: member HyperNode s0-s1-rack-9 not found"});
  CHECK(lcd_name(tree, {te(1), te(2)}) == "s0-s1-rack-1");
  CHECK(lcd_name(tree, {te(1), te(3)}) == "s0-s1");
}

TEST_CASE("membership cycles are broken and reported", "[hypernode]") {
  const std::vector<Node> nodes = {node("n1"), node("n2")};
  // top -> mid -> top closes a cycle; loop lists itself.
  const HyperNodeTree tree({hyper_node("top", 2, {hyper_node_member("mid")}),
                            hyper_node("mid", 1, {hyper_node_member("top"), node_member("n1")}),
                            hyper_node("loop", 1, {hyper_node_member("loop"), node_member("n2")})},
                           nodes);
  CHECK(tree.warnings() ==
        std::vector<std::string>{
            "HyperNode mid: membership cycle top -> mid -> top; member top ignored here",
            "HyperNode loop: membership cycle loop -> loop; member loop ignored here"});
  CHECK(tree.domains_of(0) == std::vector<std::string_view>{"mid", "top"});
  CHECK(tree.domains_of(1) == std::vector<std::string_view>{"loop"});
  CHECK(lcd_name(tree, {0}) == "mid");
  CHECK(tree.virtual_root_tier() == 3);
}

TEST_CASE("a HyperNode being deleted is skipped", "[hypernode]") {
  std::vector<HyperNode> hyper_nodes = seed_hyper_nodes();
  hyper_nodes[0].meta.deleting = true;  // s0-s1-rack-1
  const HyperNodeTree tree(hyper_nodes, seed_nodes());
  CHECK(tree.warnings() ==
        std::vector<std::string>{
            "HyperNode s0-s1: member HyperNode s0-s1-rack-1 is being deleted; skipped"});
  CHECK(tree.domains_of(te(1)).empty());
  CHECK(lcd_name(tree, {te(3), te(4)}) == "s0-s1-rack-2");
  CHECK(lcd_name(tree, {te(1), te(2)}) == "<cluster-top-hypernode>");

  hyper_nodes[0].meta.deleting = false;
  hyper_nodes[6].meta.deleting = true;  // s0, the only tier 3
  const HyperNodeTree without_root(hyper_nodes, seed_nodes());
  CHECK(without_root.warnings().empty());
  CHECK(without_root.virtual_root_tier() == 3);
  CHECK(lcd_name(without_root, {te(1), te(5)}) == "<cluster-top-hypernode>");
  CHECK_FALSE(without_root.tier_of_name("hall").has_value());
}

TEST_CASE("duplicate names and several parents are warned about", "[hypernode]") {
  std::vector<HyperNode> hyper_nodes = seed_hyper_nodes();
  hyper_nodes.push_back(hyper_node("s0-s1-rack-1", 1, {node_member("te9")}));
  hyper_nodes.push_back(hyper_node("other", 2, {hyper_node_member("s0-s1-rack-2")}));
  const HyperNodeTree tree(hyper_nodes, seed_nodes());
  CHECK(tree.warnings() ==
        std::vector<std::string>{
            "HyperNode s0-s1-rack-1: defined more than once; the first definition is used",
            "HyperNode s0-s1-rack-2: is a member of several HyperNodes (s0-s1, other); Volcano "
            "expects one parent"});
  CHECK(tree.domains_of(te(9)).empty());
  CHECK(tree.domains_of(te(3)) ==
        std::vector<std::string_view>{"s0-s1-rack-2", "other", "s0-s1", "s0"});
  // Ties within a tier go to the lower name; "other" does not hold te1.
  CHECK(lcd_name(tree, {te(3), te(4)}) == "s0-s1-rack-2");
  CHECK(lcd_name(tree, {te(3), te(1)}) == "s0-s1");
}

}  // namespace
}  // namespace loadshift::placement

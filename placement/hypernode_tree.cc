#include "placement/hypernode_tree.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>

// GCC 12's <regex> trips a false -Wmaybe-uninitialized inside libstdc++'s std::function when
// built with sanitizers; the pragma covers the library's code only, not this file's.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <regex>
#pragma GCC diagnostic pop
#else
#include <regex>
#endif

namespace loadshift::placement {
namespace {

constexpr uint32_t kDroppedEdge = UINT32_MAX;

// A HyperNode that takes part in the tree (not being deleted), while the tree is built.
struct Draft {
  const model::HyperNode* source = nullptr;
  std::vector<NodeId> nodes;       // Node members first, then every node below, sorted at the end
  std::vector<uint32_t> children;  // HyperNode members, as indexes into Build::drafts
};

// Everything the constructor works with; warnings go straight to the tree's list.
struct Build {
  const std::vector<model::Node>& cluster_nodes;
  std::vector<std::string>& warnings;
  std::unordered_map<std::string_view, NodeId> node_ids;
  std::unordered_map<std::string_view, uint32_t> draft_ids;
  std::unordered_set<std::string_view> deleting;
  std::vector<Draft> drafts;
};

void warn(Build& build, const model::HyperNode& hyper_node, const std::string& what) {
  build.warnings.push_back("HyperNode " + hyper_node.meta.name + ": " + what);
}

void index_nodes(Build& build) {
  for (NodeId id = 0; id < build.cluster_nodes.size(); ++id) {
    build.node_ids.emplace(build.cluster_nodes[id].meta.name, id);  // first of a name wins
  }
}

// Keeps the HyperNodes that are not being deleted; the first of a duplicated name wins.
void collect_drafts(Build& build, const std::vector<model::HyperNode>& hyper_nodes) {
  for (const model::HyperNode& hyper_node : hyper_nodes) {
    if (hyper_node.meta.deleting) {
      build.deleting.insert(hyper_node.meta.name);
      continue;
    }
    const auto id = static_cast<uint32_t>(build.drafts.size());
    if (!build.draft_ids.emplace(hyper_node.meta.name, id).second) {
      warn(build, hyper_node, "defined more than once; the first definition is used");
      continue;
    }
    build.drafts.push_back(Draft{.source = &hyper_node, .nodes = {}, .children = {}});
  }
}

// Volcano compiles the pattern with Go's regexp and keeps a node when MatchString(name) is true.
// MatchString is an unanchored search ("rack-1" matches "te-rack-10"), so this uses
// std::regex_search, not regex_match; anchor the pattern with ^...$ for a full match. std::regex
// (ECMAScript) and Go's RE2 agree on the usual patterns; a pattern std::regex cannot compile is
// warned about and matches no node, as Volcano does with a pattern Go cannot compile.
void add_regex_matches(Build& build, const model::HyperNode& hyper_node, const std::string& pattern,
                       Draft& draft) {
  try {  // both compiling and searching may throw std::regex_error
    const std::regex regex(pattern, std::regex::ECMAScript);
    std::vector<NodeId> matched;
    for (NodeId id = 0; id < build.cluster_nodes.size(); ++id) {
      if (std::regex_search(build.cluster_nodes[id].meta.name, regex)) matched.push_back(id);
    }
    draft.nodes.insert(draft.nodes.end(), matched.begin(), matched.end());
  } catch (const std::regex_error& error) {
    warn(build, hyper_node,
         "regexMatch pattern \"" + pattern + "\" is not usable (" + error.what() +
             "); it matches no node");
  }
}

bool selector_empty(const model::LabelSelector& selector) {
  return selector.match_labels.empty() && selector.match_expressions.empty();
}

// An empty labelMatch matches no node (Volcano's rule, unlike metav1's "everything").
void add_label_matches(Build& build, const model::HyperNode& hyper_node,
                       const model::LabelSelector& selector, Draft& draft) {
  if (selector_empty(selector)) {
    warn(build, hyper_node, "empty labelMatch matches no node");
    return;
  }
  for (NodeId id = 0; id < build.cluster_nodes.size(); ++id) {
    if (matches(selector, build.cluster_nodes[id].meta.labels)) draft.nodes.push_back(id);
  }
}

// type Node: the union of the exact, regex and label matches.
void add_node_member(Build& build, const model::HyperNodeMember& member, Draft& draft) {
  const model::HyperNode& hyper_node = *draft.source;
  if (member.exact_name.empty() && member.regex.empty() && !member.label_match) {
    warn(build, hyper_node, "a Node member has no selector; it matches no node");
    return;
  }
  if (!member.exact_name.empty()) {
    const auto found = build.node_ids.find(member.exact_name);
    if (found == build.node_ids.end()) {
      warn(build, hyper_node, "member node " + member.exact_name + " not found");
    } else {
      draft.nodes.push_back(found->second);
    }
  }
  if (!member.regex.empty()) add_regex_matches(build, hyper_node, member.regex, draft);
  if (member.label_match) add_label_matches(build, hyper_node, *member.label_match, draft);
}

// type HyperNode: exactMatch only, as Volcano resolves it.
void add_hyper_node_member(Build& build, const model::HyperNodeMember& member, Draft& draft) {
  const model::HyperNode& hyper_node = *draft.source;
  if (!member.regex.empty()) {
    warn(build, hyper_node,
         "regexMatch \"" + member.regex + "\" on a HyperNode member is ignored (exactMatch only)");
  }
  if (member.label_match) {
    warn(build, hyper_node, "labelMatch on a HyperNode member is ignored (exactMatch only)");
  }
  if (member.exact_name.empty()) {
    if (member.regex.empty() && !member.label_match) {
      warn(build, hyper_node, "a HyperNode member has no exactMatch name");
    }
    return;
  }
  const auto found = build.draft_ids.find(member.exact_name);
  if (found != build.draft_ids.end()) {
    draft.children.push_back(found->second);
  } else if (build.deleting.contains(member.exact_name)) {
    warn(build, hyper_node, "member HyperNode " + member.exact_name + " is being deleted; skipped");
  } else {
    warn(build, hyper_node, "member HyperNode " + member.exact_name + " not found");
  }
}

void resolve_members(Build& build) {
  for (Draft& draft : build.drafts) {
    for (const model::HyperNodeMember& member : draft.source->members) {
      if (member.type == model::HyperNodeMemberType::kNode) {
        add_node_member(build, member, draft);
      } else {
        add_hyper_node_member(build, member, draft);
      }
    }
    std::sort(draft.children.begin(), draft.children.end());
    draft.children.erase(std::unique(draft.children.begin(), draft.children.end()),
                         draft.children.end());
  }
}

using DfsStack = std::vector<std::pair<uint32_t, size_t>>;  // draft, position of its next child

// Warns about the cycle closed by an edge from the top of `stack` to `child`, which is on the
// stack: "a -> b -> a".
void warn_cycle(Build& build, const DfsStack& stack, uint32_t child) {
  auto at = std::find_if(stack.begin(), stack.end(),
                         [child](const auto& entry) { return entry.first == child; });
  std::string path;
  for (; at != stack.end(); ++at) path += build.drafts[at->first].source->meta.name + " -> ";
  path += build.drafts[child].source->meta.name;
  const model::HyperNode& parent = *build.drafts[stack.back().first].source;
  warn(build, parent,
       "membership cycle " + path + "; member " + build.drafts[child].source->meta.name +
           " ignored here");
}

// Depth-first over member edges from every draft. Drops each edge that closes a cycle (with a
// warning) and returns the drafts children-first, so each child is complete before its parents.
std::vector<uint32_t> children_first_order(Build& build) {
  enum : uint8_t { kUnseen, kOpen, kDone };
  std::vector<uint8_t> state(build.drafts.size(), kUnseen);
  std::vector<uint32_t> order;
  DfsStack stack;
  for (uint32_t root = 0; root < build.drafts.size(); ++root) {
    if (state[root] != kUnseen) continue;
    state[root] = kOpen;
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      const uint32_t draft = stack.back().first;
      std::vector<uint32_t>& children = build.drafts[draft].children;
      const size_t next = stack.back().second++;
      if (next == children.size()) {
        state[draft] = kDone;
        order.push_back(draft);
        stack.pop_back();
      } else if (state[children[next]] == kOpen) {
        warn_cycle(build, stack, children[next]);
        children[next] = kDroppedEdge;
      } else if (state[children[next]] == kUnseen) {
        state[children[next]] = kOpen;
        stack.emplace_back(children[next], 0);
      }
    }
  }
  for (Draft& draft : build.drafts) std::erase(draft.children, kDroppedEdge);
  return order;
}

void warn_multiple_parents(Build& build) {
  std::vector<std::vector<uint32_t>> parents(build.drafts.size());
  for (uint32_t id = 0; id < build.drafts.size(); ++id) {
    for (uint32_t child : build.drafts[id].children) parents[child].push_back(id);
  }
  for (uint32_t id = 0; id < build.drafts.size(); ++id) {
    if (parents[id].size() < 2) continue;
    std::string names;
    for (uint32_t parent : parents[id]) {
      names += (names.empty() ? "" : ", ") + build.drafts[parent].source->meta.name;
    }
    warn(build, *build.drafts[id].source,
         "is a member of several HyperNodes (" + names + "); Volcano expects one parent");
  }
}

// A parent's nodes are the union of its own Node members and its children's nodes.
void gather_nodes(Build& build, const std::vector<uint32_t>& children_first) {
  for (uint32_t id : children_first) {
    Draft& draft = build.drafts[id];
    for (uint32_t child : draft.children) {
      const std::vector<NodeId>& below = build.drafts[child].nodes;
      draft.nodes.insert(draft.nodes.end(), below.begin(), below.end());
    }
    std::sort(draft.nodes.begin(), draft.nodes.end());
    draft.nodes.erase(std::unique(draft.nodes.begin(), draft.nodes.end()), draft.nodes.end());
  }
}

void warn_tier_name_conflicts(const std::vector<Draft>& drafts,
                              std::vector<std::string>& warnings) {
  std::map<std::string_view, std::pair<int32_t, std::string_view>> first_use;  // name -> tier, HN
  std::unordered_set<std::string_view> reported;
  for (const Draft& draft : drafts) {
    const model::HyperNode& hyper_node = *draft.source;
    if (hyper_node.tier_name.empty()) continue;
    auto [it, inserted] = first_use.try_emplace(hyper_node.tier_name, hyper_node.tier,
                                                std::string_view(hyper_node.meta.name));
    if (inserted || it->second.first == hyper_node.tier) continue;
    if (!reported.insert(hyper_node.tier_name).second) continue;
    warnings.push_back("tierName " + hyper_node.tier_name + " is used with tier " +
                       std::to_string(it->second.first) + " (HyperNode " +
                       std::string(it->second.second) + ") and tier " +
                       std::to_string(hyper_node.tier) + " (HyperNode " + hyper_node.meta.name +
                       "); the highest tier is used");
  }
}

// The drafts in (tier, name) order: the order of domain ids.
std::vector<const Draft*> by_tier_and_name(const std::vector<Draft>& drafts) {
  std::vector<const Draft*> ordered;
  for (const Draft& draft : drafts) ordered.push_back(&draft);
  std::sort(ordered.begin(), ordered.end(), [](const Draft* a, const Draft* b) {
    return std::tie(a->source->tier, a->source->meta.name) <
           std::tie(b->source->tier, b->source->meta.name);
  });
  return ordered;
}

// Lays out each node's domain ids (positions in `ordered`, so lowest (tier, name) first) in one
// array: node n's ids are flat[begin[n] .. begin[n + 1]).
void flatten_node_domains(const std::vector<const Draft*>& ordered, size_t node_count,
                          std::vector<uint32_t>& begin, std::vector<uint32_t>& flat) {
  begin.assign(node_count + 1, 0);
  for (const Draft* draft : ordered) {
    for (NodeId node : draft->nodes) ++begin[node + 1];
  }
  for (size_t node = 0; node < node_count; ++node) begin[node + 1] += begin[node];
  flat.resize(begin.back());
  std::vector<uint32_t> filled(begin.begin(), begin.end() - 1);
  for (uint32_t domain = 0; domain < ordered.size(); ++domain) {
    for (NodeId node : ordered[domain]->nodes) flat[filled[node]++] = domain;
  }
}

}  // namespace

HyperNodeTree::HyperNodeTree(const std::vector<model::HyperNode>& hyper_nodes,
                             const std::vector<model::Node>& nodes) {
  Build build{.cluster_nodes = nodes,
              .warnings = warnings_,
              .node_ids = {},
              .draft_ids = {},
              .deleting = {},
              .drafts = {}};
  index_nodes(build);
  collect_drafts(build, hyper_nodes);
  resolve_members(build);
  gather_nodes(build, children_first_order(build));
  warn_multiple_parents(build);
  warn_tier_name_conflicts(build.drafts, warnings_);

  const std::vector<const Draft*> ordered = by_tier_and_name(build.drafts);
  flatten_node_domains(ordered, nodes.size(), node_domains_begin_, node_domains_);
  for (const Draft* draft : ordered) {
    const model::HyperNode& source = *draft->source;
    domains_.push_back(
        DomainInfo{.name = source.meta.name, .tier_name = source.tier_name, .tier = source.tier});
    const int32_t above = source.tier < INT32_MAX ? source.tier + 1 : INT32_MAX;  // no overflow
    virtual_root_tier_ = std::max(virtual_root_tier_, above);
  }
}

std::span<const HyperNodeTree::DomainId> HyperNodeTree::domain_ids_of(NodeId node) const {
  if (node + size_t{1} >= node_domains_begin_.size()) return {};
  return std::span<const DomainId>(node_domains_.data() + node_domains_begin_[node],
                                   node_domains_.data() + node_domains_begin_[node + 1]);
}

bool HyperNodeTree::holds(DomainId domain, NodeId node) const {
  for (DomainId held_by : domain_ids_of(node)) {
    if (held_by == domain) return true;
  }
  return false;
}

HyperNodeTree::DomainId HyperNodeTree::first_common_domain(std::span<const NodeId> nodes,
                                                           int32_t max_tier) const {
  if (nodes.empty()) return kNoDomain;
  // Candidates are the domains of the first node, lowest (tier, name) first; the first candidate
  // that holds every other node is the answer. Repeats of the previous node need no check.
  const std::span<const DomainId> candidates = domain_ids_of(nodes[0]);
  size_t candidate = 0;
  size_t next = 1;
  while (candidate < candidates.size() && tier_of(candidates[candidate]) <= max_tier) {
    if (next == nodes.size()) return candidates[candidate];
    if (nodes[next] == nodes[next - 1] || holds(candidates[candidate], nodes[next])) {
      ++next;
    } else {
      ++candidate;
      next = 1;
    }
  }
  return kNoDomain;
}

HyperNodeTree::Domain HyperNodeTree::lowest_common_domain(std::span<const NodeId> nodes) const {
  if (nodes.empty()) return Domain{};
  const DomainId found = first_common_domain(nodes, INT32_MAX);
  if (found == kNoDomain) return Domain{.tier = virtual_root_tier_, .name = kVirtualRootName};
  return Domain{.tier = tier_of(found), .name = name_of(found)};
}

bool HyperNodeTree::within_tier(std::span<const NodeId> nodes, int32_t max_tier) const {
  return first_common_domain(nodes, max_tier) != kNoDomain;
}

std::optional<int32_t> HyperNodeTree::tier_of_name(std::string_view tier_name) const {
  std::optional<int32_t> tier;
  if (tier_name.empty()) return tier;
  for (const DomainInfo& domain : domains_) {
    if (domain.tier_name == tier_name) tier = std::max(tier.value_or(domain.tier), domain.tier);
  }
  return tier;
}

std::vector<std::string_view> HyperNodeTree::domains_of(NodeId node) const {
  std::vector<std::string_view> names;
  for (DomainId domain : domain_ids_of(node)) names.push_back(name_of(domain));
  return names;
}

}  // namespace loadshift::placement

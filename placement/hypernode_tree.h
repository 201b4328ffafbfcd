// Volcano HyperNode tiers over nodes (topology.volcano.sh/v1alpha1).
//
// HyperNodes form a tree of performance domains: tier 1 closest to the nodes (a rack), higher
// tiers above (spines, data halls). Members are Nodes (exactMatch, regexMatch over node names,
// labelMatch over node labels) or HyperNodes (exactMatch only, as Volcano resolves them). A
// virtual root of tier max+1 holds every node, so a node in no HyperNode shares only the virtual
// root with the others. HyperNodes being deleted are skipped, cycles are broken and reported.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::placement {

class HyperNodeTree {
 public:
  // The name Volcano gives the virtual root.
  static constexpr std::string_view kVirtualRootName = "<cluster-top-hypernode>";

  // An empty tree: every node sits only under the virtual root of tier 1.
  HyperNodeTree() = default;
  // Resolves `hyper_nodes` against `nodes`. Problems (unknown member, bad regex, cycle,
  // labelMatch on a HyperNode member) become warnings(), never exceptions.
  HyperNodeTree(const std::vector<model::HyperNode>& hyper_nodes,
                const std::vector<model::Node>& nodes);

  bool empty() const { return domains_.empty(); }
  // Tier of the virtual root: highest real tier + 1 (1 when there are no HyperNodes).
  int32_t virtual_root_tier() const { return virtual_root_tier_; }

  // The lowest-tier domain holding every node of `nodes`: its tier and name (a view into the
  // tree). The virtual root (kVirtualRootName, virtual_root_tier()) when no real HyperNode holds
  // them all; a domain is real exactly when its tier is below virtual_root_tier(). Ties between
  // domains of one tier are broken by name. An empty `nodes` gives tier 0 and an empty name. Node
  // ids outside the node list the tree was built from sit under the virtual root only.
  // Cost: O(nodes.size() x depth), no allocation; repeated ids are cheap.
  struct Domain {
    int32_t tier = 0;
    std::string_view name;
  };
  Domain lowest_common_domain(std::span<const NodeId> nodes) const;

  // True when one real HyperNode of tier <= `max_tier` holds every node of `nodes` (false for an
  // empty `nodes`): "lowest_common_domain(nodes) is real and its tier <= max_tier", but it gives
  // up as soon as only domains above `max_tier` are left.
  bool within_tier(std::span<const NodeId> nodes, int32_t max_tier) const;

  // Real domains by number, for hot loops that walk a node's domains and test membership
  // themselves (see volcano_jobs.cc). Ids run from 0 to domain_count() - 1 in (tier, name) order.
  using DomainId = uint32_t;
  size_t domain_count() const { return domains_.size(); }
  // The real domains holding `node`, lowest (tier, name) first; empty for a node in no HyperNode
  // or outside the node list. Valid as long as the tree.
  std::span<const DomainId> domain_ids_of(NodeId node) const;
  int32_t tier_of(DomainId domain) const { return domains_[domain].tier; }
  std::string_view name_of(DomainId domain) const { return domains_[domain].name; }
  // True when `domain` holds `node`. O(depth of `node`), no allocation.
  bool holds(DomainId domain, NodeId node) const;

  // The tier of HyperNodes whose spec.tierName is `tier_name`, if any (the highest one when
  // several tiers share a name, as Volcano's "last one wins" is not stable).
  std::optional<int32_t> tier_of_name(std::string_view tier_name) const;

  // Names of the real HyperNodes that hold `node`, lowest tier first (ties by name).
  std::vector<std::string_view> domains_of(NodeId node) const;

  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  struct DomainInfo {
    std::string name;
    std::string tier_name;
    int32_t tier = 0;
  };
  static constexpr DomainId kNoDomain = UINT32_MAX;
  // The lowest (tier, name) real domain of tier <= `max_tier` holding every node of `nodes`, or
  // kNoDomain.
  DomainId first_common_domain(std::span<const NodeId> nodes, int32_t max_tier) const;

  std::vector<DomainInfo> domains_;  // by (tier, name); index = DomainId
  // The domains of node n are node_domains_[node_domains_begin_[n] .. node_domains_begin_[n+1]),
  // lowest (tier, name) first: one flat array, so a membership test touches one cache line.
  std::vector<uint32_t> node_domains_begin_;  // size: node count + 1 (empty for an empty tree)
  std::vector<DomainId> node_domains_;
  int32_t virtual_root_tier_ = 1;
  std::vector<std::string> warnings_;
};

}  // namespace loadshift::placement

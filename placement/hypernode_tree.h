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

#include "placement/model.h"
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
  HyperNodeTree(const std::vector<HyperNode>& hyper_nodes, const std::vector<Node>& nodes);

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
    std::vector<NodeId> nodes;  // sorted, unique: the real nodes under this HyperNode
  };
  // True when real domain `domain` (an index into domains_) holds `node`.
  bool holds(uint32_t domain, NodeId node) const;

  std::vector<DomainInfo> domains_;                     // sorted by (tier, name)
  std::vector<std::vector<uint32_t>> domains_of_node_;  // node -> domain indexes, by (tier, name)
  int32_t virtual_root_tier_ = 1;
  std::vector<std::string> warnings_;
};

}  // namespace loadshift::placement

// Topology domains: for each topology key an inter-pod rule names (kubernetes.io/hostname,
// topology.kubernetes.io/zone, ...), the domain of every node, as a small integer.
//
// The scheduler's InterPodAffinity and PodTopologySpread count pods per (key, value) pair; the
// placement core does the same with a DomainId per value of a key, so a check reads an array
// instead of hashing label strings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::placement {

using TopologyKeyId = uint16_t;
using DomainId = uint32_t;
inline constexpr DomainId kNoTopologyDomain = UINT32_MAX;

class TopologyDomains {
 public:
  TopologyDomains() = default;
  // `nodes` must outlive this object.
  explicit TopologyDomains(const std::vector<model::Node>& nodes) : nodes_(&nodes) {}

  // The id of `key`; the first time, reads every node's value of it.
  TopologyKeyId intern(std::string_view key);

  // The domain of `node` under `key`, or kNoTopologyDomain when the node lacks the label.
  DomainId domain(TopologyKeyId key, NodeId node) const { return keys_[key].domain_of_node[node]; }
  // Number of distinct values of `key` over all nodes.
  size_t domain_count(TopologyKeyId key) const { return keys_[key].values.size(); }
  const std::string& key_name(TopologyKeyId key) const { return keys_[key].name; }
  // "zone=a", for reasons.
  std::string describe(TopologyKeyId key, DomainId domain) const;
  size_t key_count() const { return keys_.size(); }

 private:
  struct Key {
    std::string name;
    std::vector<std::string> values;       // by DomainId
    std::vector<DomainId> domain_of_node;  // by NodeId
  };
  const std::vector<model::Node>* nodes_ = nullptr;
  std::vector<Key> keys_;
};

}  // namespace loadshift::placement

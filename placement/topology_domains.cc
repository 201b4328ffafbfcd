#include "placement/topology_domains.h"

#include <stdexcept>
#include <unordered_map>

namespace loadshift::placement {

TopologyKeyId TopologyDomains::intern(std::string_view key) {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].name == key) return static_cast<TopologyKeyId>(i);
  }
  if (keys_.size() >= UINT16_MAX) throw std::length_error("too many topology keys");
  Key& added = keys_.emplace_back();
  added.name = std::string(key);
  const size_t node_count = nodes_ == nullptr ? 0 : nodes_->size();
  added.domain_of_node.assign(node_count, kNoTopologyDomain);
  std::unordered_map<std::string_view, DomainId> id_of_value;
  for (NodeId node = 0; node < node_count; ++node) {
    const std::string* value = (*nodes_)[node].meta.labels.find(key);
    if (value == nullptr) continue;
    auto [it, inserted] = id_of_value.emplace(*value, static_cast<DomainId>(added.values.size()));
    if (inserted) added.values.push_back(*value);
    added.domain_of_node[node] = it->second;
  }
  return static_cast<TopologyKeyId>(keys_.size() - 1);
}

std::string TopologyDomains::describe(TopologyKeyId key, DomainId domain) const {
  const Key& k = keys_[key];
  if (domain == kNoTopologyDomain || domain >= k.values.size()) return k.name + " (absent)";
  return k.name + "=" + k.values[domain];
}

}  // namespace loadshift::placement

#include "placement/cluster_index.h"

#include <algorithm>
#include <set>

namespace loadshift::placement {

ClusterIndex::ClusterIndex(const Snapshot& snapshot, PlacementOptions options)
    : snapshot_(snapshot),
      options_(std::move(options)),
      tree_(snapshot.hyper_nodes, snapshot.nodes),
      gangs_(snapshot, tree_),
      gpus_(snapshot, options_.gpu) {
  const size_t node_count = snapshot.nodes.size();
  node_by_name_.reserve(node_count);
  std::set<std::string> pools;
  for (NodeId id = 0; id < node_count; ++id) {
    const Node& node = snapshot.nodes[id];
    if (!node_by_name_.emplace(node.meta.name, id).second) {
      warnings_.push_back("node " + node.meta.name + " appears twice; the first one is used");
    }
    if (const std::string* pool = node.meta.labels.find(options_.pool_label)) pools.insert(*pool);
  }
  known_pools_.assign(pools.begin(), pools.end());

  pods_on_node_.resize(node_count);
  requested_.resize(node_count);
  host_ports_.resize(node_count);
  node_of_pod_.assign(snapshot.pods.size(), kNoNode);
  requests_.reserve(snapshot.pods.size());
  unmovable_.reserve(snapshot.pods.size());
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const Pod& pod = snapshot.pods[id];
    requests_.push_back(effective_requests(pod));
    unmovable_.push_back(gpu_unmovable_reason(snapshot, gpus_, id));
    if (pod.node_name.empty()) continue;
    NodeId node = node_id(pod.node_name);
    if (node == kNoNode) {
      warnings_.push_back("pod " + pod.key() + " is bound to unknown node " + pod.node_name);
      continue;
    }
    node_of_pod_[id] = node;
    if (pod.terminated()) continue;
    pods_on_node_[node].push_back(id);
    requested_[node].add_all(requests_.back());
    auto& ports = host_ports_[node];
    ports.insert(ports.end(), pod.host_ports.begin(), pod.host_ports.end());
  }
  for (auto& ports : host_ports_) {
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  }
  for (const std::string& w : tree_.warnings()) warnings_.push_back(w);
  for (const std::string& w : gangs_.warnings()) warnings_.push_back(w);
}

NodeId ClusterIndex::node_id(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? kNoNode : it->second;
}

}  // namespace loadshift::placement

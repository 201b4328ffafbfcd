#include "placement/cluster_index.h"

#include <algorithm>
#include <future>
#include <set>
#include <unordered_map>

#include "placement/node_selector_parsing.h"

namespace loadshift::placement {
namespace {

// Counts and lengths go in as four raw bytes: no formatting, and still unambiguous.
void append_count(std::string& key, size_t count) {
  auto value = static_cast<uint32_t>(count);
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void append_field(std::string& key, std::string_view field) {
  append_count(key, field.size());
  key += field;
}

void append_requirements(std::string& key,
                         const std::vector<model::NodeSelectorRequirement>& list) {
  key += 'r';
  append_count(key, list.size());
  for (const model::NodeSelectorRequirement& r : list) {
    append_field(key, r.key);
    key += static_cast<char>('0' + static_cast<int>(r.op));
    append_count(key, r.values.size());
    for (const std::string& v : r.values) append_field(key, v);
  }
}

}  // namespace

// Length-prefixed, so two different constraint sets never share a key.
void write_constraints_key(const model::Pod& pod, std::string& key) {
  key.clear();
  key += 't';
  append_count(key, pod.tolerations.size());
  for (const model::Toleration& t : pod.tolerations) {
    append_field(key, t.key);
    append_field(key, t.value);
    key += t.op == model::TolerationOperator::kExists ? 'X' : 'E';
    key += t.effect ? static_cast<char>('0' + static_cast<int>(*t.effect)) : '*';
  }
  key += 's';
  append_count(key, pod.node_selector.size());
  for (const auto& [k, v] : pod.node_selector.items()) {
    append_field(key, k);
    append_field(key, v);
  }
  if (pod.node_affinity->required) {
    key += 'a';
    append_count(key, pod.node_affinity->required->size());
    for (const model::NodeSelectorTerm& term : *pod.node_affinity->required) {
      append_requirements(key, term.match_expressions);
      append_requirements(key, term.match_fields);
    }
  }
}

ClusterIndex::ClusterIndex(const model::Snapshot& snapshot, PlacementOptions options)
    : snapshot_(snapshot),
      options_(std::move(options)),
      tree_(snapshot.hyper_nodes, snapshot.nodes) {
  // The Volcano gangs and the constraint classes read only the (immutable) snapshot, the
  // HyperNode tree and the options, and write only their own members: they are built on a second
  // thread while this one does the rest (a cycle rebuilds the index over every pod). Run here
  // instead when no thread can be started.
  std::future<void> side = std::async(std::launch::async | std::launch::deferred, [this] {
    gangs_ = GangIndex(snapshot_, tree_);
    build_constraint_classes();
  });
  gpus_ = GpuIndex(snapshot, options_.gpu);
  const size_t node_count = snapshot.nodes.size();
  node_by_name_.reserve(node_count);
  soft_tainted_.reserve(node_count);
  std::set<std::string> pools;
  for (NodeId id = 0; id < node_count; ++id) {
    const model::Node& node = snapshot.nodes[id];
    if (!node_by_name_.emplace(node.meta.name, id).second) {
      warnings_.push_back("node " + node.meta.name + " appears twice; the first one is used");
    }
    if (const std::string* pool = node.meta.labels.find(options_.pool_label)) pools.insert(*pool);
    soft_tainted_.push_back(std::any_of(
        node.taints.begin(), node.taints.end(),
        [](const model::Taint& t) { return t.effect == model::TaintEffect::kPreferNoSchedule; }));
  }
  known_pools_.assign(pools.begin(), pools.end());

  pods_on_node_.resize(node_count);
  requested_.resize(node_count);
  host_ports_.resize(node_count);
  node_of_pod_.assign(snapshot.pods.size(), kNoNode);
  requests_.reserve(snapshot.pods.size());
  unmovable_.reserve(snapshot.pods.size());
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const model::Pod& pod = snapshot.pods[id];
    requests_.push_back(effective_requests(pod));
    unmovable_.push_back(gpu_unmovable_reason(snapshot, gpus_, id));
    if (!unmovable_.back()) {
      std::string preferred_error = preferred_terms_parse_error(pod.node_affinity);
      if (!preferred_error.empty()) unmovable_.back() = std::move(preferred_error);
    }
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
  pod_topology_ = PodTopology(snapshot, node_of_pod_);
  volumes_ = VolumeIndex(snapshot, pods_on_node_);
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    if (!unmovable_[id]) unmovable_[id] = volumes_.unmovable_reason(id);
  }
  side.get();
  for (const std::string& w : tree_.warnings()) warnings_.push_back(w);
  for (const std::string& w : gangs_.warnings()) warnings_.push_back(w);
}

NodeId ClusterIndex::node_id(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? kNoNode : it->second;
}

}  // namespace loadshift::placement

namespace loadshift::placement {

void ClusterIndex::build_constraint_classes() {
  const auto& pods = snapshot_.pods;
  std::unordered_map<std::string, uint32_t> class_of_key;
  std::vector<uint32_t>& class_of_pod = class_of_pod_;
  class_of_pod.assign(pods.size(), 0);
  std::vector<uint32_t> members;
  std::string key;  // one buffer for every pod's key: copied only for a new class
  for (PodId id = 0; id < pods.size(); ++id) {
    write_constraints_key(pods[id], key);
    auto it = class_of_key.find(key);
    if (it == class_of_key.end()) {
      it = class_of_key.emplace(key, static_cast<uint32_t>(members.size())).first;
      members.push_back(0);
    }
    class_of_pod[id] = it->second;
    ++members[it->second];
  }
  constraint_classes_ = members.size();

  // Rows go to the largest classes first, while the budget lasts.
  const size_t node_count = snapshot_.nodes.size();
  std::vector<uint32_t> order(members.size());
  for (uint32_t c = 0; c < order.size(); ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return members[a] > members[b]; });
  std::vector<uint32_t> row_of_class(members.size(), kNoMemoRow);
  const size_t max_rows = node_count == 0 ? 0 : options_.node_rules_memo_bytes / node_count;
  for (uint32_t c : order) {
    if (members[c] < 2 || memo_rows_ >= max_rows) break;
    row_of_class[c] = static_cast<uint32_t>(memo_rows_++);
  }
  memo_row_of_pod_.resize(pods.size());
  for (PodId id = 0; id < pods.size(); ++id) memo_row_of_pod_[id] = row_of_class[class_of_pod[id]];
  memo_ = std::make_unique<std::atomic<uint8_t>[]>(memo_rows_ * node_count);
}

}  // namespace loadshift::placement

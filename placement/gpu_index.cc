// GpuIndex: node views, pod demands, device usage from pod annotations, owner groups.
#include <algorithm>
#include <climits>

#include "placement/gpu.h"
#include "placement/gpu_annotations.h"
#include "placement/gpu_internal.h"

namespace loadshift::placement {
namespace {

void mark_unusable(NodeGpuView* view, std::string error) {
  if (!view->register_ok) return;
  view->register_ok = false;
  view->register_error = std::move(error);
}

GpuDevice* find_device(NodeGpuView* view, std::string_view uuid) {
  for (GpuDevice& d : view->devices) {
    if (d.uuid == uuid) return &d;
  }
  return nullptr;  // a device no longer registered: its usage no longer matters
}

// The allocation annotation a pod carries for `stack`, and the annotation naming its node.
struct AllocationKeys {
  std::string_view allocated;
  std::string_view fallback;  // read when `allocated` is absent (HAMi's work queue), may be empty
  std::string_view node;      // annotation naming the node the allocation was made on
};

std::optional<AllocationKeys> allocation_keys(GpuStack stack) {
  switch (stack) {
    case GpuStack::kHamiNvidia:
      return AllocationKeys{kHamiAllocatedAnnotation, kHamiToAllocateAnnotation,
                            kHamiNodeAnnotation};
    case GpuStack::kHamiMetaxSgpu:
      return AllocationKeys{kHamiMetaxAllocatedAnnotation, {}, kHamiNodeAnnotation};
    case GpuStack::kVolcanoVgpu:
      return AllocationKeys{kVolcanoAllocatedAnnotation, {}, kVolcanoNodeAnnotation};
    default:
      return std::nullopt;
  }
}

}  // namespace

GpuIndex::GpuIndex(const model::Snapshot& snapshot, const GpuOptions& options) : options_(options) {
  nodes_.reserve(snapshot.nodes.size());
  for (NodeId id = 0; id < snapshot.nodes.size(); ++id) {
    const model::Node& node = snapshot.nodes[id];
    nodes_.push_back(build_node_gpu_view(node, options_));
    node_by_name_.emplace(node.meta.name, id);  // the first of duplicate names wins
  }

  pods_.reserve(snapshot.pods.size());
  for (const model::Pod& pod : snapshot.pods) {
    NodeId node = pod.node_name.empty() ? kNoNode : node_id(pod.node_name);
    pods_.push_back(build_pod_gpu_demand(pod, node, node == kNoNode ? nullptr : &nodes_[node]));
  }

  // Device usage of live pods. HAMi and Volcano attribute an allocation to the node named in
  // their own annotation (set before binding), so pods still binding count too.
  static constexpr GpuStack kDeviceStacks[] = {GpuStack::kHamiNvidia, GpuStack::kHamiMetaxSgpu,
                                               GpuStack::kVolcanoVgpu};
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const model::Pod& pod = snapshot.pods[id];
    if (pod.terminated()) continue;
    const model::StringMap& annotations = pod.meta.annotations;
    for (GpuStack stack : kDeviceStacks) {
      AllocationKeys keys = *allocation_keys(stack);
      std::string_view key = keys.allocated;
      const std::string* text = annotations.find(key);
      if (text == nullptr && !keys.fallback.empty()) {
        key = keys.fallback;
        text = annotations.find(key);
      }
      if (text == nullptr) continue;
      const std::string* named = annotations.find(keys.node);
      NodeId node = node_id(named ? std::string_view(*named) : std::string_view(pod.node_name));
      if (node == kNoNode || nodes_[node].stack != stack) continue;
      NodeGpuView& view = nodes_[node];
      AllocationDecode decoded = decode_device_allocations(*text);
      if (!decoded.ok()) {
        mark_unusable(&view, "annotation " + std::string(key) + " of pod " + pod.key() + ": " +
                                 decoded.error);
        continue;
      }
      for (const DeviceAllocation& a : decoded.entries) {
        if (GpuDevice* d = find_device(&view, a.uuid)) {
          d->used_slots += 1;
          d->used_mem_mib += a.mem_mib;
          d->used_cores += a.cores;
        }
      }
    }
    // Volcano gpushare / gpu-number: the card ids are in volcano.sh/gpu-index.
    const PodGpuDemand& demand = pods_[id];
    if (demand.node != kNoNode && nodes_[demand.node].stack == GpuStack::kVolcanoGpuShare &&
        fitted_per_device(demand)) {
      const std::string* ids = annotations.find(kVolcanoGpuIndexAnnotation);
      if (ids == nullptr) continue;
      NodeGpuView& view = nodes_[demand.node];
      bool whole = demand.kind == GpuDemandKind::kWhole;
      for (const std::string& card_id : split_list(*ids)) {
        if (GpuDevice* d = find_device(&view, card_id)) {
          d->used_slots += 1;
          d->used_mem_mib += whole ? d->mem_mib : demand.slices.front().mem_mib;
          if (whole) d->used_cores += 100;
        }
      }
    }
  }

  // Owner groups: GPU pods of one controller, for clique and group-size rules.
  owner_group_of_pod_.assign(snapshot.pods.size(), UINT32_MAX);
  std::unordered_map<std::string_view, uint32_t> group_of_owner;
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    if (pods_[id].kind == GpuDemandKind::kNone) continue;
    const model::OwnerReference* owner = snapshot.pods[id].controller();
    if (owner == nullptr || owner->uid.empty()) continue;
    auto [it, added] = group_of_owner.emplace(owner->uid, owner_groups_.size());
    if (added) owner_groups_.emplace_back();
    owner_groups_[it->second].push_back(id);
    owner_group_of_pod_[id] = it->second;
  }
}

NodeId GpuIndex::node_id(std::string_view name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? kNoNode : it->second;
}

std::span<const PodId> GpuIndex::peers(PodId pod) const {
  if (pod >= owner_group_of_pod_.size() || owner_group_of_pod_[pod] == UINT32_MAX) return {};
  return owner_groups_[owner_group_of_pod_[pod]];
}

}  // namespace loadshift::placement

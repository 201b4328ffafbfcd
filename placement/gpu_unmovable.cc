// GPU pods that must never be moved (research section 6.4).
#include "placement/gpu.h"
#include "placement/gpu_annotations.h"

namespace loadshift::placement {
namespace {

std::optional<std::string> unsettled_allocation(const model::StringMap& annotations,
                                                std::string_view phase_key,
                                                std::string_view allocated_key, bool phase_required,
                                                std::string_view scheduler) {
  const std::string* phase = annotations.find(phase_key);
  if (phase == nullptr && phase_required) {
    return std::string(scheduler) + " allocation not settled: annotation " +
           std::string(phase_key) + " is missing";
  }
  if (phase != nullptr && *phase != "success") {
    return std::string(scheduler) + " allocation not settled: " + std::string(phase_key) + " is " +
           (phase->empty() ? std::string("empty") : *phase);
  }
  const std::string* allocated = annotations.find(allocated_key);
  if (allocated == nullptr || allocated->empty()) {
    return std::string(scheduler) + " allocation not recorded: annotation " +
           std::string(allocated_key) + " is missing";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> gpu_unmovable_reason(const model::Snapshot& snapshot,
                                                const GpuIndex& gpus, PodId pod_id) {
  if (pod_id >= snapshot.pods.size()) return std::nullopt;
  const model::Pod& pod = snapshot.pods[pod_id];
  if (pod.has_resource_claims) {
    return std::string(
        "uses DRA resource claims (spec.resourceClaims); DRA device allocation is not modelled");
  }
  if (pod_id >= gpus.pod_count()) return std::nullopt;
  const PodGpuDemand& demand = gpus.pod(pod_id);
  if (demand.kind == GpuDemandKind::kNone) return std::nullopt;
  const model::StringMap& annotations = pod.meta.annotations;

  for (std::string_view key :
       {"nvidia.com/use-gpuuuid", "metax-tech.com/use-gpuuuid", "volcano.sh/vgpu-use-gpuuuid"}) {
    const std::string* uuids = annotations.find(key);
    if (uuids != nullptr && !split_list(*uuids).empty()) {
      return "pinned to GPU UUIDs by annotation " + std::string(key) + "=" + *uuids +
             " (UUIDs are node-local)";
    }
  }
  if (annotations.contains(kHamiMigAllocationsAnnotation)) {
    return "dynamic MIG allocation (annotation " + std::string(kHamiMigAllocationsAnnotation) +
           ") cannot be recreated elsewhere";
  }
  std::optional<std::string> unsettled;
  switch (demand.kind) {
    case GpuDemandKind::kHamiVgpu:
      unsettled = unsettled_allocation(annotations, kHamiBindPhaseAnnotation,
                                       kHamiAllocatedAnnotation, true, "HAMi");
      break;
    case GpuDemandKind::kMetaxSgpu:
      unsettled = unsettled_allocation(annotations, kHamiBindPhaseAnnotation,
                                       kHamiMetaxAllocatedAnnotation, true, "HAMi");
      break;
    case GpuDemandKind::kVolcanoVgpu:
      unsettled = unsettled_allocation(annotations, kVolcanoBindPhaseAnnotation,
                                       kVolcanoAllocatedAnnotation, false, "Volcano vGPU");
      break;
    default:
      break;
  }
  if (unsettled) return unsettled;

  const NodeGpuView* source =
      demand.node != kNoNode && demand.node < gpus.node_count() ? &gpus.node(demand.node) : nullptr;
  if (demand.kind == GpuDemandKind::kMig && source != nullptr && !source->mig_state.empty() &&
      source->mig_state != "success") {
    return "MIG pod on a node whose MIG reconfiguration is " + source->mig_state;
  }
  if (demand.kind == GpuDemandKind::kReplica) {
    int64_t replicas = 0;
    for (const auto& [name, amount] : demand.resources) {
      if (name == "nvidia.com/gpu" || name.starts_with("nvidia.com/gpu.")) replicas += amount;
    }
    if (replicas > 1) {
      return "requests " + std::to_string(replicas) +
             " GPU replicas (time-slicing / MPS); only single-replica pods are moved";
    }
  }
  if (source != nullptr && !source->compute_domain.empty()) {
    return "member of ComputeDomain " + source->compute_domain +
           " (node label resource.nvidia.com/computeDomain)";
  }
  return std::nullopt;
}

}  // namespace loadshift::placement

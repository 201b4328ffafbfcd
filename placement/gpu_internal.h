// Pieces the gpu*.cc files share to build a GpuIndex and answer check_gpu. Not part of what the
// module promises (that is placement/gpu.h); tests may use them to look inside.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "model/model.h"
#include "placement/gpu.h"

namespace loadshift::placement {

// The node's GPU view without pod usage: stack, labels, register devices, cordons.
NodeGpuView build_node_gpu_view(const model::Node& node, const GpuOptions& options);

// What `pod` needs, given the view of the node it runs on (`source`, null when unbound or
// unknown; `node` its id or kNoNode).
PodGpuDemand build_pod_gpu_demand(const model::Pod& pod, NodeId node, const NodeGpuView* source);

// The stack whose nodes can serve `demand` (kNone when it has no GPU demand).
GpuStack stack_for_demand(const PodGpuDemand& demand);

// True when `demand` is checked device by device on nodes of its stack (HAMi, MetaX sGPU,
// Volcano vGPU, Volcano gpushare / gpu-number).
bool fitted_per_device(const PodGpuDemand& demand);

// Usage of one device while fitting: what is taken on it.
struct DeviceUse {
  int64_t slots = 0;
  int64_t mem_mib = 0;
  int64_t cores = 0;
};

// Fits every slice of `demand` (container by container) on the devices of `node`, whose current
// usage is `use` (parallel to node.devices), choosing the least-used fitting devices first as
// HAMi's spread policy does, and adds each chosen share to `use`. Returns false when a slice
// finds too few devices; then `why` (when not null) says which container and why each device
// was passed over. `use` is left partly updated on failure.
bool fit_gpu_slices(const NodeGpuView& node, const PodGpuDemand& demand, std::span<DeviceUse> use,
                    std::string* why);

}  // namespace loadshift::placement

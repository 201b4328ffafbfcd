// GPU annotation formats: decoders for what GPU schedulers and device plugins write on nodes
// and pods (shared/research/gpu-topology.md sections 2-4).
//
// Each decoder returns its result or a message saying what was wrong and where ("device 2:
// expected 7 or 9 comma-separated fields, found 5"); callers prefix the annotation name. None
// of them throws.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "placement/gpu.h"

namespace loadshift::placement {

inline constexpr std::string_view kHamiRegisterAnnotation = "hami.io/node-nvidia-register";
inline constexpr std::string_view kHamiHandshakeAnnotation = "hami.io/node-handshake";
inline constexpr std::string_view kHamiDeviceCordonAnnotation = "hami.io/device-cordon";
inline constexpr std::string_view kMetaxSgpuRegisterAnnotation = "metax-tech.com/node-gpu-devices";
inline constexpr std::string_view kVolcanoVgpuRegisterAnnotation = "volcano.sh/node-vgpu-register";
inline constexpr std::string_view kVolcanoUnhealthyIdsAnnotation = "volcano.sh/gpu-unhealthy-ids";

// Pod annotations recording device allocations and where they were made.
inline constexpr std::string_view kHamiAllocatedAnnotation = "hami.io/vgpu-devices-allocated";
inline constexpr std::string_view kHamiToAllocateAnnotation = "hami.io/vgpu-devices-to-allocate";
inline constexpr std::string_view kHamiMetaxAllocatedAnnotation =
    "hami.io/metax-sgpu-devices-allocated";
inline constexpr std::string_view kHamiNodeAnnotation = "hami.io/vgpu-node";
inline constexpr std::string_view kHamiBindPhaseAnnotation = "hami.io/bind-phase";
inline constexpr std::string_view kHamiMigAllocationsAnnotation = "hami.io/vgpu-mig-allocations";
inline constexpr std::string_view kVolcanoAllocatedAnnotation = "volcano.sh/vgpu-ids-new";
inline constexpr std::string_view kVolcanoNodeAnnotation = "volcano.sh/vgpu-node";
inline constexpr std::string_view kVolcanoBindPhaseAnnotation = "volcano.sh/bind-phase";
inline constexpr std::string_view kVolcanoGpuIndexAnnotation = "volcano.sh/gpu-index";

// Devices decoded from a register annotation (usage fields zero), or an error.
struct RegisterDecode {
  std::vector<GpuDevice> devices;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

// hami.io/node-nvidia-register. JSON (HAMi v2.8+) when the first non-space character is '['
// (or '{', which can only be malformed JSON):
// an array of {"id", "index", "count", "devmem", "devcore", "type", "numa", "mode", "health"};
// absent "health" means unhealthy, absent "index"/"numa" mean 0, "id" is required. Otherwise the
// legacy format (<= v2.7): devices "UUID,count,devmem,devcore,type,numa,health[,index,mode]"
// each terminated by ':'; with 7 fields the index is the position in the list.
RegisterDecode decode_hami_register(std::string_view text);

// volcano.sh/node-vgpu-register: devices "UUID,count,devmem,type,health,mode" each terminated
// by ':' (at least 6 fields; more are ignored, as Volcano does). Cores are 100 per device.
RegisterDecode decode_volcano_register(std::string_view text);

// metax-tech.com/node-gpu-devices: JSON array of {"uuid", "model", "totalDevCount",
// "totalCompute", "totalVRam", "numa", "healthy", "qosPolicy", "linkZone", ...}. The totals are
// the capacity (HAMi computes usage from pod annotations, not from the "available*" fields);
// absent "healthy" means unhealthy.
RegisterDecode decode_metax_sgpu_register(std::string_view text);

// One device entry of a pod allocation annotation.
struct DeviceAllocation {
  std::string uuid;
  std::string type;
  int64_t mem_mib = 0;
  int64_t cores = 0;
};

struct AllocationDecode {
  std::vector<DeviceAllocation> entries;  // all containers, in order
  std::string error;                      // empty on success
  bool ok() const { return error.empty(); }
};

// hami.io/vgpu-devices-allocated, hami.io/metax-sgpu-devices-allocated, volcano.sh/vgpu-ids-new:
// per container, devices "UUID,TYPE,<mem MiB>,<cores>" each terminated by ':', containers
// separated by ';'. Empty containers are allowed; extra fields after the fourth are ignored.
AllocationDecode decode_device_allocations(std::string_view text);

// Items of a comma-separated list, spaces trimmed, empty items dropped.
std::vector<std::string> split_list(std::string_view text, char separator = ',');

// A model name as GFD writes it into nvidia.com/gpu.product: characters outside
// [A-Za-z0-9-_. ] dropped, runs of whitespace turned into one '-'.
std::string sanitize_product(std::string_view model);

// Go's strconv.ParseBool: 1 t T TRUE true True / 0 f F FALSE false False. False when neither.
bool parse_go_bool(std::string_view text, bool* value);

}  // namespace loadshift::placement

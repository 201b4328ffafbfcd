// Per-device fitting of shared-GPU requests (research section 2.5, HAMi's per-device Fit, and
// the Volcano vGPU / MetaX sGPU / gpushare variants of the same rules).
#include <algorithm>
#include <array>
#include <cctype>
#include <numeric>

#include "placement/gpu.h"
#include "placement/gpu_internal.h"

namespace loadshift::placement {
namespace {

// Why a device was passed over for one container; the order is the order of the checks.
enum class DeviceMiss : uint8_t {
  kUnhealthy,
  kCordoned,
  kModelExcluded,
  kModeMismatch,
  kUuidExcluded,
  kMigMode,
  kQosMismatch,
  kNoSlot,
  kMutex,
  kMemory,
  kCores,
  kExclusive,
  kComputeExhausted,
  kCount,
};

constexpr std::array<std::string_view, static_cast<size_t>(DeviceMiss::kCount)> kMissNames = {
    "unhealthy",
    "cordoned",
    "model excluded by the pod",
    "mode not allowed by the pod",
    "UUID excluded by the pod",
    "in MIG mode",
    "QoS policy differs",
    "no free slot",
    "in use (mutex policy)",
    "short of memory",
    "short of cores",
    "in use (exclusive request needs an idle card)",
    "compute exhausted",
};

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  auto it = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

bool model_allowed(const GpuDevicePreferences& p, std::string_view type) {
  if (!p.use_types.empty() &&
      std::none_of(p.use_types.begin(), p.use_types.end(),
                   [&](const std::string& t) { return contains_ignoring_case(type, t); })) {
    return false;
  }
  return std::none_of(p.nouse_types.begin(), p.nouse_types.end(),
                      [&](const std::string& t) { return contains_ignoring_case(type, t); });
}

bool mode_allowed(GpuStack stack, const GpuDevicePreferences& p, const GpuDevice& d) {
  if (p.vgpu_mode.empty()) return true;
  if (stack == GpuStack::kVolcanoVgpu) {
    std::string_view mode = d.mode.empty() ? std::string_view("hami-core") : std::string_view(d.mode);
    return p.vgpu_mode == mode;
  }
  return p.vgpu_mode.find(d.mode) != std::string::npos;
}

int64_t memory_request(const GpuSliceRequest& slice, const GpuDevice& d) {
  return slice.mem_mib > 0 ? slice.mem_mib : d.mem_mib * slice.mem_percent / 100;
}

// The first rule `d` (with usage `u`) breaks for `slice`, or kCount when it is a candidate.
DeviceMiss check_device(GpuStack stack, const GpuDevice& d, const DeviceUse& u,
                        const GpuSliceRequest& slice, const GpuDevicePreferences& p) {
  if (!d.healthy) return DeviceMiss::kUnhealthy;
  if (d.cordoned) return DeviceMiss::kCordoned;
  bool nvidia = stack == GpuStack::kHamiNvidia || stack == GpuStack::kVolcanoVgpu;
  if (nvidia && !model_allowed(p, d.type)) return DeviceMiss::kModelExcluded;
  if (stack == GpuStack::kVolcanoVgpu && !contains_ignoring_case(d.type, "NVIDIA")) {
    return DeviceMiss::kModelExcluded;  // Volcano only hands NVIDIA devices to vGPU requests
  }
  if (nvidia && !mode_allowed(stack, p, d)) return DeviceMiss::kModeMismatch;
  if (std::find(p.nouse_uuids.begin(), p.nouse_uuids.end(), d.uuid) != p.nouse_uuids.end()) {
    return DeviceMiss::kUuidExcluded;
  }
  // MIG-mode devices are partitioned on demand (dynamic MIG); that layout is not modelled.
  if (nvidia && d.mode == "mig") return DeviceMiss::kMigMode;
  int64_t cores = std::min<int64_t>(slice.cores, 100);
  if (stack == GpuStack::kHamiMetaxSgpu && u.slots > 0 && cores != 100 && !d.qos.empty() &&
      d.qos != p.qos) {
    return DeviceMiss::kQosMismatch;
  }
  if (u.slots >= d.slots) return DeviceMiss::kNoSlot;
  if (p.mutex && u.slots > 0) return DeviceMiss::kMutex;
  if (d.mem_mib - u.mem_mib < memory_request(slice, d)) return DeviceMiss::kMemory;
  if (d.cores - u.cores < cores) return DeviceMiss::kCores;
  if (d.cores == 100 && cores == 100 && u.slots > 0) return DeviceMiss::kExclusive;
  if (d.cores != 0 && u.cores >= d.cores && cores == 0) return DeviceMiss::kComputeExhausted;
  return DeviceMiss::kCount;
}

std::string describe_slice(const GpuSliceRequest& slice) {
  std::string text = std::to_string(slice.count) + (slice.count == 1 ? " GPU" : " GPUs");
  text += slice.mem_mib > 0 ? " with " + std::to_string(slice.mem_mib) + " MiB"
                            : " with " + std::to_string(slice.mem_percent) + "% memory";
  text += " and " + std::to_string(slice.cores) + "% cores";
  return text;
}

std::string describe_failure(const GpuSliceRequest& slice, size_t device_count, size_t candidates,
                             const std::array<int, 16>& misses, bool numa_split) {
  std::string text = slice.container.empty() ? "the pod" : "container " + slice.container;
  text += " needs " + describe_slice(slice) + "; ";
  if (device_count == 0) return text + "the node registers no GPU devices";
  text += std::to_string(candidates) + " of " + std::to_string(device_count) + " devices fit";
  if (numa_split) return text + ", but not " + std::to_string(slice.count) + " on one NUMA node";
  std::string details;
  for (size_t i = 0; i < kMissNames.size(); ++i) {
    if (misses[i] == 0) continue;
    if (!details.empty()) details += ", ";
    details += std::to_string(misses[i]) + " " + std::string(kMissNames[i]);
  }
  if (!details.empty()) text += " (" + details + ")";
  return text;
}

// Chooses `count` of `candidates` (already in preference order); with numa_bind all on one
// NUMA node (the first NUMA node, in preference order, that has enough). Returns false when
// impossible; `chosen` then holds nothing useful.
bool choose_devices(const NodeGpuView& node, const std::vector<uint32_t>& candidates, int64_t count,
                    bool numa_bind, std::vector<uint32_t>* chosen) {
  chosen->clear();
  if (static_cast<int64_t>(candidates.size()) < count) return false;
  if (!numa_bind) {
    chosen->assign(candidates.begin(), candidates.begin() + count);
    return true;
  }
  for (uint32_t first : candidates) {
    int32_t numa = node.devices[first].numa;
    chosen->clear();
    for (uint32_t i : candidates) {
      if (node.devices[i].numa == numa) chosen->push_back(i);
      if (static_cast<int64_t>(chosen->size()) == count) return true;
    }
  }
  return false;
}

}  // namespace

bool fit_gpu_slices(const NodeGpuView& node, const PodGpuDemand& demand, std::span<DeviceUse> use,
                    std::string* why) {
  // Scratch space reused across calls: the fit runs in the placer's hot loop.
  thread_local std::vector<uint32_t> candidates;
  thread_local std::vector<uint32_t> chosen;
  const size_t device_count = std::min(node.devices.size(), use.size());
  for (const GpuSliceRequest& slice : demand.slices) {
    if (slice.count <= 0) continue;
    std::array<int, 16> misses{};
    candidates.clear();
    for (uint32_t i = 0; i < device_count; ++i) {
      DeviceMiss miss =
          check_device(node.stack, node.devices[i], use[i], slice, demand.preferences);
      if (miss == DeviceMiss::kCount) {
        candidates.push_back(i);
      } else {
        ++misses[static_cast<size_t>(miss)];
      }
    }
    // Spread: least-used devices first, then register order.
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](uint32_t a, uint32_t b) { return use[a].slots < use[b].slots; });
    if (!choose_devices(node, candidates, slice.count, demand.preferences.numa_bind, &chosen)) {
      if (why != nullptr) {
        bool numa_split = static_cast<int64_t>(candidates.size()) >= slice.count;
        *why = describe_failure(slice, device_count, candidates.size(), misses, numa_split);
      }
      return false;
    }
    for (uint32_t i : chosen) {
      use[i].slots += 1;
      use[i].mem_mib += memory_request(slice, node.devices[i]);
      use[i].cores += std::min<int64_t>(slice.cores, 100);
    }
  }
  return true;
}

}  // namespace loadshift::placement

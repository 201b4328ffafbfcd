#include "placement/verdict.h"

namespace loadshift::placement {

std::string_view to_string(Rule rule) {
  switch (rule) {
    case Rule::kNodeReady: return "NodeReady";
    case Rule::kNodeSchedulable: return "NodeSchedulable";
    case Rule::kResources: return "Resources";
    case Rule::kTaints: return "Taints";
    case Rule::kNodeSelector: return "NodeSelector";
    case Rule::kNodeAffinity: return "NodeAffinity";
    case Rule::kUsagePool: return "UsagePool";
    case Rule::kNetworkTopology: return "NetworkTopology";
    case Rule::kGpu: return "Gpu";
    case Rule::kInterPodAffinity: return "InterPodAffinity";
    case Rule::kHostPorts: return "HostPorts";
    case Rule::kExistingPodsAntiAffinity: return "ExistingPodsAntiAffinity";
    case Rule::kVolumeBinding: return "VolumeBinding";
    case Rule::kVolumeZone: return "VolumeZone";
    case Rule::kVolumeLimits: return "VolumeLimits";
    case Rule::kPodMovable: return "PodMovable";
    case Rule::kSameNode: return "SameNode";
    case Rule::kPodAffinity: return "PodAffinity";
    case Rule::kPodAntiAffinity: return "PodAntiAffinity";
    case Rule::kPodTopologySpread: return "PodTopologySpread";
  }
  return "?";
}

std::string Verdict::describe() const {
  if (failures.empty()) return "fits";
  std::string out;
  for (const Rejection& r : failures) {
    if (!out.empty()) out += "; ";
    out += r.reason;
  }
  return out;
}

}  // namespace loadshift::placement

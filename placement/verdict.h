// Verdicts: the answer to "may this pod run on that node?", with reasons a person can read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace loadshift::placement {

// Index of a node in Snapshot::nodes / of a pod in Snapshot::pods.
using NodeId = uint32_t;
using PodId = uint32_t;
inline constexpr uint32_t kNoNode = UINT32_MAX;

// One placement rule, one predicate (placement/predicates.h).
enum class Rule : uint8_t {
  kNodeReady,         // node Ready condition is True and the node is not being deleted
  kNodeSchedulable,   // not cordoned (spec.unschedulable)
  kResources,         // requests fit allocatable minus requested minus reserved
  kTaints,            // NoSchedule / NoExecute taints tolerated
  kNodeSelector,      // spec.nodeSelector
  kNodeAffinity,      // required node affinity
  kUsagePool,         // node-usage pool allowed for the pod
  kNetworkTopology,   // Volcano HyperNode tier bound of the pod's job
  kGpu,               // GPU stack, product, capacity, grouping, health
  kInterPodAffinity,  // an inter-pod rule the core cannot evaluate (refused)
  kHostPorts,         // hostPort already used on the node
  kExistingPodsAntiAffinity,  // a pod in the node's domain has required anti-affinity against it
  kVolumeBinding,     // a bound PersistentVolume's node affinity excludes the node
  kVolumeZone,        // a bound PersistentVolume's zone / region labels exclude the node
  kVolumeLimits,      // the node's CSI attachable-volume limit would be exceeded
  kPodMovable,        // the pod itself may not be moved (pinned, DRA, ...)
  kSameNode,          // target is the node the pod already runs on
  kPodAffinity,       // required pod affinity (InterPodAffinity)
  kPodAntiAffinity,   // the pod's own required anti-affinity (InterPodAffinity)
  kPodTopologySpread, // a DoNotSchedule topology spread constraint
};
std::string_view to_string(Rule rule);

struct Rejection {
  Rule rule;
  std::string reason;  // e.g. "taint nvidia.com/gpu.product=NVIDIA-H20:NoSchedule not tolerated"
};

// Failed rules, in predicate order. Empty means the pod fits.
using Reasons = std::vector<Rejection>;

struct Verdict {
  Reasons failures;
  bool fits() const { return failures.empty(); }
  // "insufficient cpu (...); taint ... not tolerated"
  std::string describe() const;
};

}  // namespace loadshift::placement

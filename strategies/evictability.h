// Evictability: may this pod be evicted at all? DefaultEvictor's rules in upstream's order, then
// loadshift's Volcano-gang and GPU rules. Stateless per pod; what depends on the plan so far
// (limits, a job's minAvailable after earlier evictions, one pod per job per cycle) is
// PlanContext's.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "placement/cluster_index.h"
#include "policy/policy.h"

namespace loadshift::strategies {

// LoadAware's default gpu.vendorPrefixes (policy::LoadAwareArgs{}.gpu_vendor_prefixes).
const std::vector<std::string>& default_gpu_vendor_prefixes();

// Switches a plugin's args may carry (LoadAware's gang.* and gpu.*); other plugins use defaults.
struct WorkloadSwitches {
  bool evict_gang_pods = false;          // allow jobs whose policies restart the job on eviction
  bool respect_restart_policies = true;  // false: ignore the job's PodEvicted/AnyEvent policies
  bool evict_gpu_pods = false;           // allow pods that request GPUs
  // A requested resource starting with one of these makes the pod a GPU pod (gpu.vendorPrefixes);
  // so does any GPU demand the placement core's GpuIndex sees.
  std::vector<std::string> gpu_vendor_prefixes = default_gpu_vendor_prefixes();
  // True when the plugin's own args carry these switches (LoadAware): a refusal's hint then names
  // the switch to set; other plugins' refusals say that only LoadAware has it.
  bool set_in_args = false;
};

class EvictionFilter {
 public:
  // `index` must outlive the filter. `now` is used for minPodAge.
  EvictionFilter(const placement::ClusterIndex& index, const policy::DefaultEvictorArgs& args,
                 std::chrono::system_clock::time_point now);

  // Why `pod` may not be evicted, or nullopt when it may. The reason starts with a short stable
  // phrase, then ": " and detail, e.g. "system-critical pod: priority 2000001000 >= 2000000000".
  // Order (upstream DefaultEvictor, then loadshift):
  //  1. annotation descheduler.alpha.kubernetes.io/evict forces evictable (skips 2-13, not 14+)
  //  2. descheduler.alpha.kubernetes.io/prefer-no-eviction under noEvictionPolicy Mandatory
  //  3. mirror / static pods, 4. terminating pods (deletionTimestamp), 5. system-critical /
  //  priorityThreshold, 6. ownerless pods (FailedBarePods protection), 7. local storage,
  //  8. DaemonSet pods, 9. PVC pods, 10. pods without a PDB, 10b. pods with resource claims
  //  (PodsWithResourceClaims), 11. labelSelector, 12. minReplicas, 13. minPodAge (since
  //  status.startTime, as upstream; none or unreadable: refused), 14. namespaces
  //  (namespaceLabelSelector, evaluated on the kubernetes.io/metadata.name label every namespace
  //  has; a selector on other namespace labels refuses every pod, since a snapshot holds no
  //  Namespace objects),
  //  15. placement::ClusterIndex::unmovable_reason (GPU pinning, DRA), not for finished pods,
  //  16. Volcano: volcano.sh/preemptable "false" on the pod or its PodGroup; jobs whose policies
  //      restart the job on PodEvicted/AnyEvent unless switches allow,
  //  17. GPU pods unless switches.evict_gpu_pods.
  std::optional<std::string> reject_reason(placement::PodId pod,
                                           const WorkloadSwitches& switches) const;

  // DefaultEvictor's priority threshold, resolved (a class name becomes its value).
  int32_t priority_threshold() const { return priority_threshold_; }
  const policy::DefaultEvictorArgs& args() const { return args_; }

 private:
  const placement::ClusterIndex& index_;
  policy::DefaultEvictorArgs args_;
  std::chrono::system_clock::time_point now_;
  int32_t priority_threshold_ = 2000000000;
  // More state (PDB selectors by namespace, replica counts per owner) is the .cc's business.
  struct Cache;
  std::shared_ptr<const Cache> cache_;
};

// The pod's priority: spec.priority, else its PriorityClass's value, else the global default's,
// else 0.
int32_t pod_priority(const model::Snapshot& snapshot, const model::Pod& pod);

// True when `resource` names a GPU (starts with one of the vendor prefixes).
bool is_gpu_resource(std::string_view resource, const std::vector<std::string>& vendor_prefixes);

}  // namespace loadshift::strategies

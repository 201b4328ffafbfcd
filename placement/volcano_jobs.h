// Volcano gangs: which pods belong to which job, the job's minAvailable and its network topology.
//
// A pod links to its PodGroup through the `scheduling.k8s.io/group-name` annotation (or
// `scheduling.volcano.sh/group-name`), and to its vcjob through `volcano.sh/job-name` (annotation
// or label). The PodGroup's spec.networkTopology wins; else the vcjob's; else the pod annotations
// `volcano.sh/network-topology-mode` / `volcano.sh/network-topology-highest-tier`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "placement/hypernode_tree.h"
#include "placement/ledger.h"
#include "placement/verdict.h"

namespace loadshift::placement {

using JobId = uint32_t;
inline constexpr JobId kNoJob = UINT32_MAX;

struct GangJob {
  std::string namespace_;
  std::string name;                     // PodGroup name, else vcjob name
  std::string job_name;                 // vcjob name, may be empty for plain PodGroups
  const model::PodGroup* pod_group = nullptr;  // into the Snapshot, may be null
  const model::VolcanoJob* job = nullptr;      // into the Snapshot, may be null
  int32_t min_available = 0;            // PodGroup minMember, else Job minAvailable
  std::optional<model::NetworkTopology> topology;
  // The tier bound resolved against the HyperNode tree: highestTierAllowed, or the tier of
  // highestTierName. Empty: no bound (no topology, or a tierName no HyperNode has).
  std::optional<int32_t> highest_tier;
  std::vector<PodId> pods;  // every pod of the job in the snapshot, in snapshot order
  // Parallel to `pods`: the node each pod runs on, or kNoNode when it is terminated, unbound or
  // bound to a node that is not in the snapshot (such pods never count for topology).
  std::vector<NodeId> live_nodes;
};

// Groups the pods of a Snapshot into Volcano jobs. Jobs are made from pods only: a vcjob or
// PodGroup without pods in the snapshot has no GangJob. Pods of one vcjob (by name, per namespace)
// form one job even when only some of them name its PodGroup (if that PodGroup is in the snapshot);
// pods with a PodGroup and no vcjob are grouped by PodGroup name. A PodGroup or vcjob that pods
// name but the snapshot lacks still groups them (with a warning). The Snapshot must outlive the
// index; the tree is only read while constructing.
class GangIndex {
 public:
  GangIndex() = default;
  // Problems (missing PodGroup or vcjob, unreadable topology annotations, a highestTierName no
  // HyperNode has) become warnings(), once per problem and job, never exceptions.
  GangIndex(const model::Snapshot& snapshot, const HyperNodeTree& tree);

  // The job of `pod`, or kNoJob.
  JobId job_of(PodId pod) const { return pod < job_of_pod_.size() ? job_of_pod_[pod] : kNoJob; }
  const GangJob& job(JobId id) const { return jobs_[id]; }
  const std::vector<GangJob>& jobs() const { return jobs_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<GangJob> jobs_;
  std::vector<JobId> job_of_pod_;
  std::vector<std::string> warnings_;
};

// The network-topology rule for moving `pod` to `target`. Hard mode: the nodes of the job's
// other live (non-terminated, bound) pods, each where the ledger has planned it if it did, plus
// `target`, must lie under one real HyperNode of tier <= the job's bound. When the job has no
// other live pod, `target` itself must lie under a real HyperNode of tier <= the bound. A node in
// no HyperNode never hosts a hard job (it shares only the virtual root, which is not a real
// domain, even when the bound is at or above the virtual root's tier). Pods without a job, jobs
// without a bound and soft-mode jobs always pass. On failure appends a kNetworkTopology rejection
// to `out` (when `out` is not null) and returns false.
// Cost: O(1) for pods without a bounded hard job; else usually O(depth) for a target far from the
// job and O(job size x depth) for one near it (plus a ledger lookup per pod once the ledger
// has moves). No allocation on success.
bool check_network_topology(const model::Snapshot& snapshot, const HyperNodeTree& tree,
                            const GangIndex& gangs, PodId pod, NodeId target, const Ledger& ledger,
                            Reasons* out);

// Soft-mode score: the tier of the lowest common domain of `target` and the job's other live pods
// (ledger applied), lower is better; the virtual root's tier when no real HyperNode holds them
// all. 0 for pods without a job or whose job has no topology. Same cost as the check.
int32_t network_topology_tier(const model::Snapshot& snapshot, const HyperNodeTree& tree,
                              const GangIndex& gangs, PodId pod, NodeId target,
                              const Ledger& ledger);

}  // namespace loadshift::placement

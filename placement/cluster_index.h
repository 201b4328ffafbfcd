// ClusterIndex: what placement precomputes once per Snapshot, so each check is cheap.
//
// Like the scheduler's NodeInfo: per node the requests of the pods already there (terminated
// pods excluded), the host ports they use, its GPU view; per pod its effective requests and node;
// the HyperNode tree and the Volcano gangs. Built in one pass; read-only afterwards, so one index
// serves any number of Placers and threads. The Snapshot must outlive the index.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/model.h"
#include "model/resources.h"
#include "placement/gpu.h"
#include "placement/hypernode_tree.h"
#include "placement/pod_topology.h"
#include "placement/pools.h"
#include "placement/verdict.h"
#include "placement/volcano_jobs.h"
#include "placement/volume_index.h"

namespace loadshift::placement {

struct PlacementOptions {
  std::string pool_label{kDefaultPoolLabel};  // node-usage pool label and taint key
  GpuOptions gpu;
  // Memory for remembered node-rule answers per constraint class (see node_rules_memo); 0 turns
  // the memo off.
  size_t node_rules_memo_bytes = size_t{64} << 20;
};

// An exact encoding of what the node-only rules read from a pod (tolerations, nodeSelector,
// required node affinity), written over `key`: two pods with equal keys get the same answers.
void write_constraints_key(const model::Pod& pod, std::string& key);

class ClusterIndex {
 public:
  ClusterIndex(const model::Snapshot& snapshot, PlacementOptions options = {});
  ClusterIndex(const ClusterIndex&) = delete;
  ClusterIndex& operator=(const ClusterIndex&) = delete;

  const model::Snapshot& snapshot() const { return snapshot_; }
  const PlacementOptions& options() const { return options_; }

  // The node named `name`, or kNoNode.
  NodeId node_id(std::string_view name) const;
  // The node `pod` is bound to (spec.nodeName), or kNoNode when unbound or unknown.
  NodeId node_of(PodId pod) const { return node_of_pod_[pod]; }
  // Live (non-terminated) pods bound to `node`.
  const std::vector<PodId>& pods_on(NodeId node) const { return pods_on_node_[node]; }
  // Sum of the effective requests of the live pods on `node` (pods count included).
  const model::ResourceList& requested(NodeId node) const { return requested_[node]; }
  // Host ports in use on `node`, sorted.
  const std::vector<int32_t>& host_ports(NodeId node) const { return host_ports_[node]; }
  // Whether `node` has a PreferNoSchedule taint (the only ones a target's score counts).
  bool soft_tainted(NodeId node) const { return soft_tainted_[node]; }
  // effective_requests(pod), computed once.
  const model::ResourceList& requests(PodId pod) const { return requests_[pod]; }

  // Why the pod may never be moved (GPU pinning, DRA, preferred node-affinity terms the
  // scheduler cannot parse, claims without a known volume, ...), or empty. Computed once.
  const std::optional<std::string>& unmovable_reason(PodId pod) const { return unmovable_[pod]; }

  // Pods with the same scheduling constraints (tolerations, nodeSelector, required node
  // affinity) form one class: the node rules that depend only on those and on the node (ready,
  // cordon, taints, nodeSelector, node affinity, usage pool) give the same answer for all of
  // them, so the answer is kept per (class, node) once asked. Classes of two pods or more get a
  // row of answers, within a memory budget.
  // The kept answer for `pod` on `node`: 1 pass, 2 fail, 0 not known yet or not kept.
  uint8_t node_rules_memo(PodId pod, NodeId node) const {
    uint32_t row = memo_row_of_pod_[pod];
    if (row == kNoMemoRow) return 0;
    return memo_[static_cast<size_t>(row) * snapshot_.nodes.size() + node].load(
        std::memory_order_relaxed);
  }
  // Keeps the answer (true: pass) for `pod` on `node`; a no-op for pods without a row. Safe to
  // call from several threads: racing writers store the same answer.
  void remember_node_rules(PodId pod, NodeId node, bool pass) const {
    uint32_t row = memo_row_of_pod_[pod];
    if (row == kNoMemoRow) return;
    memo_[static_cast<size_t>(row) * snapshot_.nodes.size() + node].store(
        pass ? 1 : 2, std::memory_order_relaxed);
  }
  // The pod's constraint class (equal for pods with equal constraint keys), 0..classes-1.
  uint32_t constraint_class(PodId pod) const { return class_of_pod_[pod]; }
  // Number of constraint classes and how many of them have a memo row.
  size_t constraint_classes() const { return constraint_classes_; }
  size_t memo_rows() const { return memo_rows_; }

  // Pool label values present on nodes, sorted.
  const std::vector<std::string>& known_pools() const { return known_pools_; }

  // Inter-pod affinity and topology spread counts (see pod_topology.h). A Ledger made with
  // &pod_topology() follows them through the plan's moves.
  const PodTopology& pod_topology() const { return pod_topology_; }
  // The pods' PersistentVolumeClaims, volumes and CSI attach limits (see volume_index.h).
  const VolumeIndex& volumes() const { return volumes_; }

  const HyperNodeTree& hyper_nodes() const { return tree_; }
  const GangIndex& gangs() const { return gangs_; }
  const GpuIndex& gpus() const { return gpus_; }

  // Problems met while building (HyperNode cycles, pods on unknown nodes, ...), for the report.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  const model::Snapshot& snapshot_;
  PlacementOptions options_;
  std::unordered_map<std::string_view, NodeId> node_by_name_;
  std::vector<NodeId> node_of_pod_;
  std::vector<std::vector<PodId>> pods_on_node_;
  std::vector<model::ResourceList> requested_;
  std::vector<std::vector<int32_t>> host_ports_;
  std::vector<bool> soft_tainted_;
  std::vector<model::ResourceList> requests_;
  std::vector<std::optional<std::string>> unmovable_;
  std::vector<std::string> known_pools_;
  static constexpr uint32_t kNoMemoRow = UINT32_MAX;
  std::vector<uint32_t> memo_row_of_pod_;
  std::vector<uint32_t> class_of_pod_;
  mutable std::unique_ptr<std::atomic<uint8_t>[]> memo_;
  size_t constraint_classes_ = 0;
  size_t memo_rows_ = 0;
  HyperNodeTree tree_;
  GangIndex gangs_;
  GpuIndex gpus_;
  PodTopology pod_topology_;
  VolumeIndex volumes_;
  std::vector<std::string> warnings_;

  void build_constraint_classes();
};

}  // namespace loadshift::placement

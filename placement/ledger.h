// The Ledger: what a plan has already reserved.
//
// Once a pod is planned onto a target, its requests count there for every later check, and the
// pod counts as living on the target for topology, inter-pod and GPU checks. The source keeps the
// pod's requests until the eviction is confirmed (a pending eviction frees nothing yet).
#pragma once

#include <cstdint>
#include <vector>

#include "model/resources.h"
#include "placement/topology_counts.h"
#include "placement/verdict.h"

namespace loadshift::placement {

struct PlannedMove {
  PodId pod;
  NodeId from;
  NodeId to;
};

class Ledger {
 public:
  // A ledger for a snapshot with `node_count` nodes; nothing reserved. With `topology` (the
  // ClusterIndex's pod_topology(), which must outlive the ledger) it follows the inter-pod
  // counts of the moved pods too.
  explicit Ledger(size_t node_count, const PodTopology* topology = nullptr);
  // Not copied: id() tells ledgers apart for those who keep answers per ledger.
  Ledger(const Ledger&) = delete;
  Ledger& operator=(const Ledger&) = delete;

  // Records that `pod` (requests `requests`, pods count included) moves from `from` to `to`.
  // A pod is reserved at most once; reserving it again replaces the earlier move.
  void reserve(PodId pod, NodeId from, NodeId to, const model::ResourceList& requests);

  // Requests reserved on `node` by planned moves.
  const model::ResourceList& reserved(NodeId node) const { return reserved_[node]; }
  // Pods planned onto `node`, in planning order.
  const std::vector<PodId>& incoming(NodeId node) const { return incoming_[node]; }
  // Where `pod` was planned to, or kNoNode.
  NodeId planned_node(PodId pod) const;
  const std::vector<PlannedMove>& moves() const { return moves_; }
  // A number no other Ledger of the process has.
  uint64_t id() const { return id_; }
  // The nodes whose reservations changed, one entry per change, in order: who keeps answers per
  // node redoes those of touched()[i] for every i from where it last looked.
  const std::vector<NodeId>& touched() const { return touched_; }
  size_t node_count() const { return reserved_.size(); }
  // The inter-pod counts this ledger follows (null: none), and how the moves changed them.
  const PodTopology* topology() const { return topology_; }
  const TopologyCounts& topology_counts() const { return counts_; }

 private:
  std::vector<model::ResourceList> reserved_;
  std::vector<std::vector<PodId>> incoming_;
  std::vector<PlannedMove> moves_;
  std::vector<model::ResourceList> requested_;  // requests of moves_[i]
  // By pod: its index in moves_, or kNoMove (an array, not a hash map: the placement core asks
  // for every pod and candidate node). Grows to the largest pod reserved.
  static constexpr size_t kNoMove = static_cast<size_t>(-1);
  std::vector<size_t> move_of_pod_;
  const PodTopology* topology_ = nullptr;
  TopologyCounts counts_;
  uint64_t id_;
  std::vector<NodeId> touched_;
};

}  // namespace loadshift::placement

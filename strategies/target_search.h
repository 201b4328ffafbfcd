// Target search: where may a balance plugin send a pod? Among its candidate nodes, those whose
// predicted usage with the pod added stays within their own high watermarks, then the placement
// core's choice among those (every rule: resources, taints, affinity, pools, HyperNode tiers,
// GPUs, with the Ledger). When there is none, a reason a person can read. Internal to
// strategies/.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strategies/predicted_usage.h"

namespace loadshift::strategies {

enum class TargetOrder {
  kBest,           // the Placer's best target (preferred affinity, least allocated, ...)
  kFirstFeasible,  // the first feasible candidate in the given order (bin packing)
};

struct TargetSearch {
  std::optional<NodeId> target;
  // When there is no target: "no target: " then the most common reasons with their nodes, e.g.
  // "no target: cpu would exceed targetThresholds on te5, te6; taint a=b:NoSchedule not
  // tolerated on te7".
  std::string why_not;
};

// Each node's cap on its predicted usage (a plugin's targetThresholds in effect there), laid out
// for the search's inner loop, which checks every candidate for every pod: one row per node, one
// column per resource any cap names (in name order), the node's allocatable of it beside.
class TargetCaps {
 public:
  TargetCaps() = default;
  // `high[n]` caps node n (percent per resource; an empty map caps nothing); `predicted` is the
  // usage the caps are checked against.
  TargetCaps(const placement::Snapshot& snapshot, const std::vector<Percentages>& high,
             const PredictedUsage& predicted);

  // The pod's load in this table's columns.
  std::vector<double> amounts(const PodAmounts& load) const;
  // The first resource (by name) whose cap the pod (`amounts`) would push `node` over, or null.
  const std::string* exceeded(NodeId node, std::span<const double> amounts,
                              const PredictedUsage& predicted) const;

 private:
  static constexpr size_t kUntracked = static_cast<size_t>(-1);
  struct Cell {
    double cap;          // percent; infinity when the node has no cap on the resource
    double allocatable;  // allocatable_of(node, resource)
  };
  std::vector<std::string> resources_;
  std::vector<size_t> tracked_;  // per column: its index in predicted.resources(), or kUntracked
  std::vector<Cell> cells_;      // row-major
};

// `caps` caps each candidate's predicted usage. `no_candidates` is the why_not detail when
// `candidates` is empty.
TargetSearch find_target(const PlanContext& ctx, PodId pod, std::span<const NodeId> candidates,
                         const PredictedUsage& predicted, const TargetCaps& caps,
                         const PodAmounts& load, TargetOrder order,
                         const std::string& no_candidates);

}  // namespace loadshift::strategies

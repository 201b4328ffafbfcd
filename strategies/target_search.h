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

// `high[n]` caps node n's predicted usage (percent per resource; an empty map caps nothing).
// `no_candidates` is the why_not detail when `candidates` is empty.
TargetSearch find_target(const PlanContext& ctx, PodId pod, std::span<const NodeId> candidates,
                         const PredictedUsage& predicted, const std::vector<Percentages>& high,
                         const PodAmounts& load, TargetOrder order,
                         const std::string& no_candidates);

}  // namespace loadshift::strategies

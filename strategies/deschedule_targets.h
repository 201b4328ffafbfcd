// What the deschedule plugins (RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints)
// share: which pods their args select, and where an evicted pod may go. A target is an in-scope
// node matching the profile's nodeFit selector (DefaultEvictor nodeSelector), found by the one
// target search (target_search.h) on the plan's measured usage account: the placement core
// proves the pod fits with the Ledger, and the node does not run hot. A node is refused when its
// usage is unknown while the UsageMap knows other nodes, when a plugin classed it overutilized,
// or when its predicted usage (every eviction of the plan so far applied, load in and load out)
// plus the pod's estimated load would exceed its watermark: the node's targetThresholds (cpu,
// memory) from its NodeState when a plugin set them (make_plan() classifies with LoadAware
// before the deschedule plugins run), else 100%. Internal to strategies/.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strategies/plan_context.h"
#include "strategies/target_search.h"

namespace loadshift::strategies {

// True when the plugin's namespaces (include / exclude) and labelSelector select `pod`.
bool args_select_pod(const model::Pod& pod, const policy::Namespaces& namespaces,
                     const std::optional<model::LabelSelector>& label_selector);

// A label selector for a reason: "app=web,tier in (a,b)"; "{} (every pod)" for the empty
// selector, "null (no pod)" for none.
std::string selector_text(const std::optional<model::LabelSelector>& selector);

// The target search's answer for a deschedule plugin.
struct TargetFound {
  std::optional<NodeId> node;
  // With a node: its predicted usage before and after the pod, for a reason: "cpu 21.0% ->
  // 27.0%, memory 30.0% -> 31.0%"; empty when the node's usage is not known.
  std::string usage_after;
  // Without one: "refused te5 (too hot: cpu 78.0% + 5.0% > 80%), te6 (insufficient cpu: ...),
  // and 2 more", or "no candidate node".
  std::string why_not;
  size_t refused = 0;  // candidates refused
};

class DescheduleTargets {
 public:
  // `ctx` must outlive this object, which must not outlive the plugin run that made it (each
  // node's watermarks are read once, here).
  DescheduleTargets(PlanContext& ctx, const ProfileScope& scope);

  // In-scope nodes matching the profile's nodeFit selector, in snapshot order.
  const std::vector<NodeId>& candidates() const { return candidates_; }

  // The best target for `pod` among `nodes` (target_search.h: the placement core's order,
  // preferred affinity, soft taints, topology tier, free room; ties to the earlier node),
  // refusing nodes for `rule` (may be null) first, then for their usage on the plan's measured
  // account: a node classed overutilized, a node of unknown usage while the UsageMap measures
  // others, a node whose cpu or memory with the pod would exceed its watermark. As
  // kube-scheduler does on large clusters (minFeasibleNodesToFind), the search stops once
  // kFeasibleEnough nodes passed: the best of those is the target.
  static constexpr size_t kFeasibleEnough = 100;
  TargetFound best(PodId pod, std::span<const NodeId> nodes, const NodeRule* rule = nullptr) const;

 private:
  PlanContext& ctx_;
  const PredictedUsage& usage_;
  std::vector<NodeId> candidates_;
  bool usage_known_somewhere_ = false;
  TargetCaps caps_;
};

// The checks every eviction of a deschedule plugin passes before its target is searched: the
// profile's evictability filter (DefaultEvictor, with default WorkloadSwitches), then the limits
// of the plan so far. Records a skip with the reason and returns false when one fails.
bool admit_for_eviction(PlanContext& ctx, const ProfileScope& scope, PodId pod,
                        const std::string& strategy);

// "te7 (hybrid)" when the node carries the pool label, else "te7".
std::string node_with_pool(const PlanContext& ctx, NodeId node);

}  // namespace loadshift::strategies

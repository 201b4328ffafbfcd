// What the deschedule plugins (RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints)
// share: which pods their args select, and where an evicted pod may go. A target is an in-scope
// node matching the profile's nodeFit selector (DefaultEvictor nodeSelector) where the placement
// core proves the pod fits with the Ledger, and that does not run hot: a node is refused when its
// usage is unknown while the UsageMap knows other nodes, when a plugin classed it overutilized,
// or when its usage plus the pod's estimated load (and the load of pods already planned onto it;
// load planned away from it is not subtracted, to stay on the safe side) would exceed its
// watermark: the node's targetThresholds (cpu, memory) from its NodeState when
// a plugin set them (make_plan() classifies with LoadAware before the deschedule plugins run),
// else 100%. Internal to strategies/.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strategies/plan_context.h"

namespace loadshift::strategies {

// True when the plugin's namespaces (include / exclude) and labelSelector select `pod`.
bool args_select_pod(const placement::Pod& pod, const policy::Namespaces& namespaces,
                     const std::optional<placement::LabelSelector>& label_selector);

// A label selector for a reason: "app=web,tier in (a,b)"; "{} (every pod)" for the empty
// selector, "null (no pod)" for none.
std::string selector_text(const std::optional<placement::LabelSelector>& selector);

// Why nodes were refused, for a skip reason: the first few, then a count of the rest.
class RefusedNodes {
 public:
  explicit RefusedNodes(size_t keep = 3) : keep_(keep) {}
  // Records a refusal; `why()` (returning a string) is called only while fewer than `keep`
  // refusals are kept, so building reasons costs nothing on large clusters.
  template <typename Why>
  void add(const std::string& node_name, Why&& why) {
    ++count_;
    if (kept_.size() < keep_) kept_.push_back(node_name + " (" + why() + ")");
  }
  size_t count() const { return count_; }
  // "refused te5 (too hot: cpu 78.0% + 5.0% > 80%), te6 (insufficient cpu: ...), and 2 more";
  // "no candidate node" when none was refused.
  std::string describe() const;

 private:
  size_t keep_;
  size_t count_ = 0;
  std::vector<std::string> kept_;
};

struct TargetFound {
  NodeId node = placement::kNoNode;
  // Predicted usage on the target, for a reason: "cpu 21.0% -> 27.0%, memory 30.0% -> 31.0%";
  // empty when the node's usage is not known.
  std::string usage_after;
};

// A plugin's own reason to refuse a target, checked before the others.
struct NodeRule {
  std::function<bool(NodeId)> refuses;
  std::function<std::string(NodeId)> why;  // called only for refusals a reason shows
};

class DescheduleTargets {
 public:
  // `ctx` must outlive this object, which must not outlive the plugin run that made it (it
  // keeps a running sum of the load the Ledger adds to each node).
  DescheduleTargets(PlanContext& ctx, const ProfileScope& scope);

  // In-scope nodes matching the profile's nodeFit selector, in snapshot order.
  const std::vector<NodeId>& candidates() const { return candidates_; }

  // The best target for `pod` among `nodes` (the placement core's order: preferred affinity,
  // soft taints, topology tier, free room; ties to the earlier node), refusing nodes for `rule`
  // (may be null) and for their usage. Every refused node is recorded in `refused`. As
  // kube-scheduler does on large clusters (minFeasibleNodesToFind), the search stops once
  // kFeasibleEnough nodes passed: the best of those is the target.
  static constexpr size_t kFeasibleEnough = 100;
  std::optional<TargetFound> best(PodId pod, std::span<const NodeId> nodes, RefusedNodes& refused,
                                  const NodeRule* rule = nullptr) const;

 private:
  // A node's usage with what the plan moved there, and the pod's share, in percent.
  struct UsageCheck {
    enum Status { kNoData, kOk, kOverutilized, kUnknown, kNoCapacity, kHot } status = kNoData;
    double cpu_now = 0, memory_now = 0, cpu_pod = 0, memory_pod = 0;
    double cpu_limit = 100, memory_limit = 100;
  };
  UsageCheck check_usage(const PodLoad& load, NodeId node) const;
  std::string describe_refusal(const UsageCheck& check, NodeId node) const;
  static std::string describe_after(const UsageCheck& check);
  // The load the Ledger holds on `node`, summed incrementally.
  const PodLoad& planned_load(NodeId node) const;

  PlanContext& ctx_;
  std::vector<NodeId> candidates_;
  bool usage_known_somewhere_ = false;
  // Per node, read once: its usage (null: unknown), the allocatable cpu and memory a pod's share
  // is measured against (as LoadAware does: allocatable is under capacity, so the share is if
  // anything over-estimated), its watermarks.
  struct NodeFacts {
    const metrics::NodeUsage* usage = nullptr;
    double cpu_base = 0, memory_base = 0;
    double cpu_limit = 100, memory_limit = 100;
  };
  std::vector<NodeFacts> facts_;
  struct PlannedLoad {
    size_t counted = 0;  // entries of ledger.incoming(node) summed
    PodLoad load;
  };
  mutable std::vector<PlannedLoad> planned_;
};

// The checks every eviction of a deschedule plugin passes before its target is searched: the
// profile's evictability filter (DefaultEvictor, with default WorkloadSwitches), then the limits
// of the plan so far. Records a skip with the reason and returns false when one fails.
bool admit_for_eviction(PlanContext& ctx, const ProfileScope& scope, PodId pod,
                        const std::string& strategy);

// "te7 (hybrid)" when the node carries the pool label, else "te7".
std::string node_with_pool(const PlanContext& ctx, NodeId node);

}  // namespace loadshift::strategies

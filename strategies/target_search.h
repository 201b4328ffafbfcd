// Target search: where may a plugin send a pod it evicts? One search for every plugin, balance
// and deschedule alike. Among the candidate nodes it refuses, in this order:
//  - the pod's own node (not a move);
//  - nodes the plugin's own rule refuses (a NodeRule, optional);
//  - nodes a plugin classed overutilized;
//  - nodes whose usage the plan's usage account does not know (or, when nothing is measured at
//    all, takes them without a usage check: TargetQuery::refuse_unknown);
//  - nodes whose predicted usage with the pod would exceed their caps (TargetCaps);
//  - nodes the placement core refuses (every rule: resources, taints, affinity, pools, HyperNode
//    tiers, GPUs, with the Ledger);
// and then picks the placement core's best (or the first, for bin packing) among the rest. The
// usage is the plan's one usage account (PlanContext::predicted), which every eviction of the
// plan has moved. When nothing passes, a reason a person can read. Internal to strategies/.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "strategies/plan_context.h"
#include "strategies/predicted_usage.h"

namespace loadshift::strategies {

// Each node's cap on its predicted usage (the targetThresholds in effect there), laid out for the
// search's inner loop, which checks every candidate for every pod: one row per node, one column
// per resource any cap names (in name order), the node's allocatable of it beside.
class TargetCaps {
 public:
  TargetCaps() = default;
  // `high[n]` caps node n (percent per resource; an empty map caps nothing); `predicted` is the
  // account the caps are checked against.
  TargetCaps(const model::Snapshot& snapshot, const std::vector<Percentages>& high,
             const PredictedUsage& predicted);

  // The pod's load in this table's columns.
  std::vector<double> amounts(const PodAmounts& load) const;
  // The first resource (by name) whose cap the pod (`amounts`) would push `node` over, or null.
  // The node's usage is `predicted`'s, with load planned away counted as gone only as far as it
  // surely leaves (PredictedUsage::uncertain).
  const std::string* exceeded(NodeId node, std::span<const double> amounts,
                              const PredictedUsage& predicted) const;
  // Every resource the pod would push over its cap on `node`: "too hot: cpu 78.0% + 5.0% > 80%,
  // memory ...", with "cpu 86.5% (+12.5% planned away, not surely gone) + 1.6% > 100%" when
  // uncertain departures count; "usage unknown: node has no allocatable cpu ..." for a resource
  // the node has none of.
  std::string excess_text(NodeId node, std::span<const double> amounts,
                          const PredictedUsage& predicted) const;

 private:
  static constexpr size_t kUntracked = static_cast<size_t>(-1);
  struct Cell {
    double cap;          // percent; infinity when the node has no cap on the resource
    double allocatable;  // allocatable_of(node, resource)
  };
  double now(NodeId node, size_t column, const PredictedUsage& predicted) const;
  static double share(const Cell& cell, double amount);
  std::vector<std::string> resources_;
  std::vector<size_t> tracked_;  // per column: its index in predicted.resources(), or kUntracked
  std::vector<Cell> cells_;      // row-major
};

enum class TargetOrder {
  kBest,           // the placement core's best target (preferred affinity, least allocated, ...)
  kFirstFeasible,  // the first candidate that passes, in the given order (bin packing)
};

// How the reason for "no target" reads.
enum class RefusalText {
  // Grouped by the short form of the reason, the most common first: "no target: cpu would
  // exceed targetThresholds on te5, te6; taint a=b:NoSchedule not tolerated on te7" (balance
  // plugins, which look at many nodes per pod).
  kGrouped,
  // The first few nodes with their full reasons: "refused te5 (too hot: cpu 78.0% + 5.0% >
  // 80%), te6 (insufficient cpu: ...), and 2 more" (deschedule plugins).
  kFirstNodes,
};

// A plugin's own reason to refuse a target, checked before the others.
struct NodeRule {
  std::function<bool(NodeId)> refuses;
  std::function<std::string(NodeId)> why;  // called only when no target is found, for the reason
};

struct TargetQuery {
  std::span<const NodeId> candidates;
  const PredictedUsage* usage = nullptr;  // the account the caps are checked against
  const TargetCaps* caps = nullptr;
  const PodAmounts* load = nullptr;  // the pod's load on the account's basis
  TargetOrder order = TargetOrder::kBest;
  const NodeRule* rule = nullptr;  // may be null
  // true: a candidate the account does not know is refused. false: it is taken without a usage
  // check (no node's usage is measured at all: there is nothing to check against).
  bool refuse_unknown = true;
  // Stop once this many candidates passed every check and take the best of them, as
  // kube-scheduler does on large clusters (minFeasibleNodesToFind); 0: look at every candidate.
  size_t enough = 0;
  RefusalText text = RefusalText::kGrouped;
  // The reason when `candidates` is empty (kGrouped: after "no target: ").
  std::string no_candidates = "no candidate node";
};

struct TargetSearch {
  std::optional<NodeId> target;
  // When there is no target: the reason, as TargetQuery::text says.
  std::string why_not;
  size_t refused = 0;  // candidates refused (the pod's own node not counted)
};

TargetSearch find_target(const PlanContext& ctx, PodId pod, const TargetQuery& query);

// The cool-down's rule for the balance plugins' targets: a node the pod's workload left within the
// cool-down is refused (PlanContext::cooldown_return_reason); empty when it refuses no node.
std::optional<NodeRule> cooldown_rule(const PlanContext& ctx, PodId pod);

// The predicted usage of `node` before and after `load` lands there, for a reason: "cpu 21.0% ->
// 27.0%, memory 30.0% -> 31.0%" over `resources`; empty when the account does not know the node.
std::string usage_change_text(const PlanContext& ctx, const PredictedUsage& usage, NodeId node,
                              const PodAmounts& load, const std::vector<std::string>& resources);

}  // namespace loadshift::strategies

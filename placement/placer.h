// The Placer: "may this pod run on that node, given what is there and what the plan reserved?"
//
// The one placement core every strategy, nodeFit check and report uses. It runs the predicates
// of placement/predicates.h, the usage-pool, HyperNode-tier and GPU rules, against a
// ClusterIndex and a Ledger. It never binds anything: the scheduler places evicted pods; the
// Placer proves they have somewhere to go.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "placement/cluster_index.h"
#include "placement/ledger.h"
#include "placement/verdict.h"

namespace loadshift::placement {

// How good a feasible target is, compared field by field in declaration order.
struct TargetScore {
  int64_t preferred_affinity = 0;       // sum of matching preferred-term weights (higher wins)
  int64_t pod_affinity = 0;             // InterPodAffinity score (inter_pod_rules.h; higher wins)
  bool spread_missing_key = false;      // lacks a ScheduleAnyway constraint's key (loses)
  double spread = 0;                    // PodTopologySpread score (lower wins)
  int32_t untolerated_soft_taints = 0;  // PreferNoSchedule taints not tolerated (fewer wins)
  int32_t topology_tier = 0;            // soft-mode job LCA tier (lower wins; 0 = no job)
  double free_fraction_after = 0;       // mean free cpu and memory fraction after placing
                                        // (higher wins: least allocated)
};
// True when `a` is a strictly better target than `b`.
bool better(const TargetScore& a, const TargetScore& b);

struct TargetChoice {
  std::optional<NodeId> target;                      // the best feasible candidate, or empty
  TargetScore score;                                 // its score
  std::vector<std::pair<NodeId, Verdict>> rejected;  // every infeasible candidate, with reasons
};

class Placer {
 public:
  // `index` must outlive the Placer.
  explicit Placer(const ClusterIndex& index) : index_(index) {}

  // Every rule for `pod` on `node`; the verdict lists every rule that fails, in rule order.
  Verdict fits(PodId pod, NodeId node, const Ledger& ledger) const;

  // The same decision as fits(...).fits(), without building reasons: the fast path.
  bool feasible(PodId pod, NodeId node, const Ledger& ledger) const;

  // The rules that read only the node and the pod's scheduling constraints (ready, cordon, taints,
  // nodeSelector, node affinity, usage pool), remembered per constraint class
  // (ClusterIndex::node_rules_memo): the cheap first filter of a search over many nodes.
  bool node_rules_pass(PodId pod, NodeId node) const;

  // As feasible(), for a new copy of `pod` (its owner's replacement after an eviction): the pod's
  // own node is a candidate like any other, and the original, which terminates, still counts
  // where it is (its requests, host ports, inter-pod counts), as it does for the scheduler.
  bool feasible_replacement(PodId pod, NodeId node, const Ledger& ledger) const;

  // The score of placing `pod` on `node` (meaningful for feasible nodes).
  TargetScore score(PodId pod, NodeId node, const Ledger& ledger) const;

  // The best feasible node of `candidates` for `pod` (ties go to the earlier candidate), and
  // the reasons every other candidate was rejected.
  TargetChoice best_target(PodId pod, std::span<const NodeId> candidates,
                           const Ledger& ledger) const;

 private:
  bool evaluate(PodId pod, NodeId node, const Ledger& ledger, Reasons* out,
                bool replacement = false) const;
  bool node_rules(const model::Pod& pod, const model::Node& node, Reasons* out) const;
  bool check_inter_pod_rules(const PodInterRules& rules, PodId pod, NodeId node,
                             const Ledger& ledger, Reasons* out) const;
  // Where the plan has `pod`: its planned target, else its node.
  NodeId pod_location(PodId pod, const Ledger& ledger) const;
  const ClusterIndex& index_;
};

}  // namespace loadshift::placement

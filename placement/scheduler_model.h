// The scheduler model: where would the cluster's scheduler put the replacement of an evicted pod?
//
// A descheduler that sends a pod toward a cold node only to have kube-scheduler, which sees
// requests and not real load, put the replacement straight back on the hot node evicts the same
// workload every cycle (ping-pong). This model answers the scheduler's question for a new copy of
// a pod (its owner's template: same spec), on the cluster as the plan so far leaves it:
//
//   filters: the placement core (Placer::feasible_replacement: every rule, the pod's own node
//            included, where the terminating original still counts), then
//   scores:  kube-scheduler's default profile, with its weights and normalisations —
//            NodeResourcesFit (LeastAllocated by default; MostAllocated, RequestedToCapacityRatio
//            when the profile says so) 1, NodeResourcesBalancedAllocation 1, TaintToleration 3,
//            NodeAffinity 2, InterPodAffinity 2, PodTopologySpread 2; ImageLocality is off.
//            A pod whose schedulerName is "volcano" gets Volcano's default scheduler config
//            instead: nodeorder (the same plugins and weights) plus binpack 1.
//
// What it leaves out, on purpose: the scheduler's node sampling (percentageOfNodesToScore: every
// feasible node is scored), its system-default spreading for pods without constraints, and the
// random choice among the best: every node with the top score is returned, and a caller treats
// all of them as possible. Pure: no I/O, no clocks.
//
// Fast path: for a pod without preferred node affinity and inter-pod rules, on a cluster where it
// meets at most one untolerated soft taint per node, every node's total is known before its
// filters run (the normalisations cannot change it), so predict() checks the filters only from
// the best total down until it has the best feasible nodes, not on every node.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "placement/cluster_index.h"
#include "placement/ledger.h"
#include "placement/placer.h"

namespace loadshift::placement {

// NodeResourcesFitArgs.scoringStrategy of KubeSchedulerConfiguration.
struct FitScoring {
  enum class Type { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };
  struct Resource {
    std::string name;
    int64_t weight = 1;
  };
  // requestedToCapacityRatio.shape: utilization 0..100, score 0..10, utilization ascending.
  struct ShapePoint {
    int64_t utilization = 0;
    int64_t score = 0;
  };
  Type type = Type::kLeastAllocated;
  std::vector<Resource> resources{{"cpu", 1}, {"memory", 1}};
  std::vector<ShapePoint> shape;
};
// "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"
const char* to_string(FitScoring::Type type);

// The score plugins' weights (0 turns one off) and the fit strategy.
struct SchedulerProfile {
  FitScoring fit;
  int64_t fit_weight = 1;
  int64_t balanced_weight = 1;
  int64_t taint_weight = 3;
  int64_t node_affinity_weight = 2;
  int64_t inter_pod_weight = 2;
  int64_t spread_weight = 2;
  int64_t volcano_binpack_weight = 1;  // Volcano's binpack (cpu 1, memory 1), volcano pods only
};

// The highest score a plugin gives a node (framework.MaxNodeScore).
inline constexpr int64_t kMaxNodeScore = 100;

// One node's score, plugin by plugin, after normalisation and before weights (0..100 each).
struct NodeScore {
  NodeId node = kNoNode;
  int64_t fit = 0, balanced = 0, taint = 0, node_affinity = 0, inter_pod = 0, spread = 0;
  int64_t binpack = 0;  // Volcano only
  int64_t total = 0;    // the weighted sum the scheduler ranks by
};

struct Landing {
  // Every node with the top score (the scheduler picks one of them at random), in node order;
  // empty when no node admits the replacement.
  std::vector<NodeId> best;
  int64_t score = 0;     // their total
  bool volcano = false;  // scored as Volcano would
  // The scores of the best nodes and of `also` (predict()'s argument) when it was feasible, for
  // reasons: "te3 287 (fit 92, balanced 95, ...)".
  std::vector<NodeScore> detail;
};

class SchedulerModel {
 public:
  // `index` must outlive the model.
  explicit SchedulerModel(const ClusterIndex& index, SchedulerProfile profile = {});
  SchedulerModel(const SchedulerModel&) = delete;
  SchedulerModel& operator=(const SchedulerModel&) = delete;

  // Whether each node carries loadshift's own PreferNoSchedule taint (loadshift.io/overutilized)
  // when the replacement is scheduled, indexed by NodeId: kTainted or kUntainted replace what the
  // snapshot says of that taint (the controller adds or removes it before it evicts), kAsIs (and
  // nodes past the end) keep the snapshot's. Without a call, every node is kAsIs.
  enum SoftTaint : int8_t { kAsIs = -1, kUntainted = 0, kTainted = 1 };
  void set_soft_taint(std::vector<SoftTaint> state) {
    if (state == soft_taint_) return;
    soft_taint_ = std::move(state);
    totals_.clear();  // the taint scores change
  }
  static constexpr const char* kSoftTaintKey = "loadshift.io/overutilized";

  // Whether evicting `pod` makes anything create a replacement elsewhere: a controller owner
  // other than a DaemonSet or a Node (a mirror pod). A bare pod is gone for good.
  bool recreated(PodId pod) const;
  // Whether the replacement comes back on the pod's own node whatever the scores: a DaemonSet's
  // pod, a mirror pod (owner Node).
  bool recreated_in_place(PodId pod) const;
  // Whether the replacement is created only once the original is gone (a StatefulSet's pod keeps
  // its name): the original no longer counts on its node when the replacement is scheduled.
  bool replaced_after_deletion(PodId pod) const;

  // Where the scheduler would put a new copy of `pod`, among `nodes`, on the cluster the index
  // shows plus `ledger`'s moves (the original still counted on its node). `also` (may be kNoNode)
  // gets a score detail even when it is not among the best. Not thread-safe: the fast path keeps
  // node totals between calls.
  Landing predict(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                  NodeId also = kNoNode) const;

  // Every feasible node of `nodes` with its scores, in node order (the tests' and the report's
  // view of predict()).
  std::vector<NodeScore> scores(PodId pod, std::span<const NodeId> nodes,
                                const Ledger& ledger) const;

  // "te3 287 (fit 92, balanced 95, taints 100, affinity 0, inter-pod 0, spread 0)"
  std::string describe(const NodeScore& score) const;

  const SchedulerProfile& profile() const { return profile_; }

 private:
  // A resource of FitScoring, resolved once: cpu and memory read fields, others look up by name.
  struct FitResource {
    enum Kind { kCpu, kMemory, kOther } kind;
    const std::string* name;
    int64_t weight;
  };
  int64_t nonzero_requested(NodeId node, FitResource::Kind kind, std::string_view name,
                            const Ledger& ledger) const;
  // The fast path's condition (see the header comment).
  bool totals_known_before_filters(PodId pod) const;
  Landing predict_fast(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                       NodeId also) const;
  // fit, balanced, taint (0 or 100), binpack and total of a node on the fast path.
  NodeScore fast_score(PodId pod, NodeId node, const Ledger& ledger, bool volcano) const;
  // `without_self`: the pod's own requests are taken off `node` (a StatefulSet's original is gone
  // from its node before the replacement is scheduled).
  int64_t fit_score(PodId pod, NodeId node, const Ledger& ledger, bool without_self) const;
  int64_t balanced_score(PodId pod, NodeId node, const Ledger& ledger, bool without_self) const;
  int64_t binpack_score(PodId pod, NodeId node, const Ledger& ledger, bool without_self) const;
  // Whether the replacement of `pod` may be scheduled on `node` (Placer::feasible_replacement;
  // for a pod replaced after deletion, its own node needs only the node rules: it ran there).
  bool admits(const Placer& placer, PodId pod, NodeId node, const Ledger& ledger) const;
  int64_t untolerated_soft_taints(PodId pod, NodeId node) const;

  // The fast path's node totals, kept between predictions for pods that score alike: the same
  // constraint class (tolerations, nodeSelector, required affinity: the node rules and the soft
  // taints), the same cpu and memory requests with and without defaults, the same scheduler.
  // A prediction rescores only the nodes the Ledger touched since the class was last asked.
  struct KeptTotals {
    static constexpr int64_t kUnset = INT64_MIN, kRefused = INT64_MIN + 1;  // node rules fail
    uint64_t ledger = 0;  // Ledger::id() the totals were computed with
    size_t seen = 0;      // Ledger::touched() entries accounted for
    std::vector<int64_t> total;  // per node
  };
  // The class key of `pod`, or empty when its totals cannot be shared (a StatefulSet's pod
  // scores its own node without itself; a profile scoring extended resources).
  std::string totals_key(PodId pod) const;
  mutable std::unordered_map<std::string, KeptTotals> totals_;
  // The kept totals take at most this much memory (8 bytes per class and node); past it, a new
  // class is scored afresh each time and the classes kept stay.
  static constexpr size_t kMaxTotalsBytes = size_t{16} << 20;

  const ClusterIndex& index_;
  SchedulerProfile profile_;
  std::vector<FitResource> fit_resources_;
  // Some node has a PreferNoSchedule taint other than loadshift's own.
  bool any_soft_taint_ = false;
  std::vector<SoftTaint> soft_taint_;
  // Per pod: cpu and memory requests with the scheduler's defaults for containers that request
  // none (100m, 200Mi), as NodeResourcesFit counts them; per node: their sum over its live pods.
  std::vector<int64_t> pod_nonzero_cpu_, pod_nonzero_memory_;
  std::vector<int64_t> node_nonzero_cpu_, node_nonzero_memory_;
};

}  // namespace loadshift::placement

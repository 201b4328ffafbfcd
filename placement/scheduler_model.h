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
//   kube-scheduler's system-default topology spreading for pods of ReplicaSets, StatefulSets and
//   ReplicationControllers without constraints of their own; for Volcano pods, the plugins of
//   the policy's loadshift.volcanoScheduler (nodeorder, binpack, usage).
//
// What it leaves out, on purpose: the scheduler's node sampling (percentageOfNodesToScore: every
// feasible node is scored) and the random choice among the best: every node the scheduler may
// pick is returned (the top score, and for Volcano the near-top within margin()), and a caller
// treats each of them as equally likely. Pure: no I/O, no clocks.
//
// Fast path: for a pod without preferred node affinity and inter-pod rules, on a cluster where it
// meets at most one untolerated soft taint per node, every node's total is known before its
// filters run (the normalisations cannot change it), so predict() checks the filters only from
// the best total down until it has the best feasible nodes, not on every node. System-default
// spreading takes it only on clusters over 100 nodes, where kube-scheduler scores a sample of the
// feasible nodes anyway: it is normalised over the nodes that pass the node rules (resource fit
// aside), an approximation; on smaller clusters every node is filtered and scored, exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
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

// Volcano's `usage` plugin as the policy configures it (policy::VolcanoUsagePlugin).
struct VolcanoUsageScoring {
  int64_t weight = 5, cpu_weight = 1, memory_weight = 1;
  double cpu_threshold = 80, memory_threshold = 80;  // percent; above: filtered out
  bool predicate = true;
};

// The score plugins' weights (0 turns one off) and the fit strategy.
struct SchedulerProfile {
  FitScoring fit;
  int64_t fit_weight = 1;
  int64_t balanced_weight = 1;
  int64_t taint_weight = 3;
  int64_t node_affinity_weight = 2;
  int64_t inter_pod_weight = 2;
  int64_t spread_weight = 2;
  // kube-scheduler's system-default topology spreading (PodTopologySpread, defaultingType
  // System): a pod without constraints of its own, owned by a ReplicaSet, StatefulSet or
  // ReplicationController, is spread ScheduleAnyway over hostname (maxSkew 3) and
  // topology.kubernetes.io/zone (maxSkew 5) among its owner's pods.
  bool system_default_spreading = true;
  // Volcano pods: the scheduler's scoring plugins (policy loadshift.volcanoScheduler).
  bool volcano_nodeorder = true;                     // the same plugins and weights as above
  int64_t volcano_binpack_weight = 1;                // binpack (cpu 1, memory 1); 0: not configured
  std::optional<VolcanoUsageScoring> volcano_usage;  // the usage plugin, when configured
};

// The highest score a plugin gives a node (framework.MaxNodeScore).
inline constexpr int64_t kMaxNodeScore = 100;

// One node's score, plugin by plugin, after normalisation and before weights (0..100 each).
struct NodeScore {
  NodeId node = kNoNode;
  int64_t fit = 0, balanced = 0, taint = 0, node_affinity = 0, inter_pod = 0, spread = 0;
  int64_t binpack = 0;  // Volcano only
  int64_t usage = 0;    // Volcano's usage plugin only
  int64_t total = 0;    // the weighted sum the scheduler ranks by
};

struct Landing {
  // Every node the scheduler may pick, in node order: those with the top score and, for a Volcano
  // pod, those within the model's known error of it (margin()); the scheduler picks one of
  // them at random. Empty when no node admits the replacement.
  std::vector<NodeId> best;
  int64_t score = 0;     // the top total
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

  // Each node's usage as Volcano's usage plugin reads it (percent of allocatable), indexed by
  // NodeId; a node without a value (or past the end) has no metrics: the plugin neither filters
  // nor scores it. Only read when the profile has volcano_usage.
  struct NodeLoad {
    bool known = false;
    double cpu = 0, memory = 0;
  };
  void set_node_load(std::vector<NodeLoad> load) {
    node_load_ = std::move(load);
    totals_.clear();  // the usage scores change
  }

  // How far below the top a node's total may be and still be a node the scheduler picks: 0 for
  // kube-scheduler, whose scores are integers the model reproduces; for a Volcano pod, the
  // truncation of the float scores of binpack and usage (their weights).
  int64_t margin(PodId pod) const;

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
  // kube-scheduler scores every feasible node of a cluster up to this size.
  static constexpr size_t kMinFeasibleNodesToFind = 100;
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
  // Volcano's usage plugin: whether it filters `node` out for `pod`, and its score (0..100).
  bool usage_refuses(PodId pod, NodeId node) const;
  int64_t usage_score(NodeId node) const;
  // The weights a pod is scored with: kube-scheduler's profile, or Volcano's plugins.
  struct Weights {
    int64_t fit, balanced, taint, node_affinity, inter_pod, spread, binpack, usage;
  };
  Weights weights_for(bool volcano) const;
  // System-default spreading (SchedulerProfile::system_default_spreading): whether it applies to
  // `pod` (scheduler_model_spread.cc).
  bool default_spreading(PodId pod) const;
  // The owners' pods and the nodes' zones, once (the constructor).
  void index_owners_and_zones();
  // A node's zone slot: 0 without a topology.kubernetes.io/zone label, z + 1 for zone z.
  size_t zone_slot(NodeId node) const { return static_cast<size_t>(zone_of_[node] + 1); }
  // PodTopologySpread's normalised score (0..100) of every candidate for one prediction of
  // `pod`, with the plan's moves (`ledger`) in. The candidates are those `is_candidate` accepts:
  // `candidates` of them, `per_slot[s]` in zone slot s. Marks the owner's pods in the model's
  // scratch arrays until destroyed (one at a time per model).
  class DefaultSpread {
   public:
    DefaultSpread(const SchedulerModel& model, PodId pod, std::span<const size_t> per_slot,
                  size_t candidates, const std::function<bool(NodeId)>& is_candidate,
                  const Ledger& ledger);
    ~DefaultSpread();
    DefaultSpread(const DefaultSpread&) = delete;
    DefaultSpread& operator=(const DefaultSpread&) = delete;
    int64_t score(NodeId node) const;

   private:
    const SchedulerModel& model_;
    std::vector<NodeId> occupied_;  // nodes holding the owner's pods, each once
    std::vector<int64_t> empty_;    // per zone slot: the score of a node without them
  };

  // The fast path's node totals, kept between predictions for pods that score alike: the same
  // constraint class (tolerations, nodeSelector, required affinity: the node rules and the soft
  // taints), the same cpu and memory requests with and without defaults, the same scheduler.
  // A prediction rescores only the nodes the Ledger touched since the class was last asked.
  struct KeptTotals {
    static constexpr int64_t kUnset = INT64_MIN, kRefused = INT64_MIN + 1;  // node rules fail
    uint64_t ledger = 0;         // Ledger::id() the totals were computed with
    size_t seen = 0;             // Ledger::touched() entries accounted for
    std::vector<int64_t> total;  // per node
    // The candidates (not kRefused) of the last prediction's node list, per zone slot with
    // system-default spreading; `complete`: that list was the whole cluster, every node is set
    // and the counts are kept (the touched nodes rescored at once).
    bool complete = false;
    std::vector<size_t> per_slot;
    size_t candidates = 0;
  };
  // Every node of `nodes` (distinct) scored in `kept` for `pod` with `ledger`, and counted:
  // afresh when the Ledger changed, else only the nodes the Ledger touched since.
  void complete_totals(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                       const Placer& placer, bool volcano, KeptTotals& kept) const;
  // The class key of `pod`, or empty when its totals cannot be shared (a StatefulSet's pod
  // scores its own node without itself; a profile scoring extended resources).
  std::string totals_key(PodId pod) const;
  mutable std::unordered_map<std::string, KeptTotals> totals_;
  // The kept totals take at most this much memory (8 bytes per class and node); past it, a new
  // class is scored afresh each time and the classes kept stay.
  static constexpr size_t kMaxTotalsBytes = size_t{16} << 20;
  // predict_fast's scratch: the nodes within the margin of the top seen so far, with totals.
  mutable std::vector<std::pair<int64_t, NodeId>> near_top_;

  const ClusterIndex& index_;
  SchedulerProfile profile_;
  std::vector<FitResource> fit_resources_;
  // Some node has a PreferNoSchedule taint other than loadshift's own.
  bool any_soft_taint_ = false;
  std::vector<SoftTaint> soft_taint_;
  std::vector<NodeLoad> node_load_;
  // The owners of pods owned by a ReplicaSet, StatefulSet or ReplicationController, numbered, and
  // their pods (the selector system-default spreading counts): per pod its owner (kNoOwner:
  // none such); owner o's pods are owner_members_[owner_start_[o] .. owner_start_[o + 1]).
  static constexpr uint32_t kNoOwner = UINT32_MAX;
  std::vector<uint32_t> owner_of_, owner_start_;
  std::vector<PodId> owner_members_;
  std::vector<int32_t> zone_of_;  // per node: index of its topology.kubernetes.io/zone, -1 none
  size_t zone_count_ = 0;
  // DefaultSpread's scratch, per node: the owner's pods there and the node's score; all zero
  // between predictions.
  mutable std::vector<int64_t> host_count_, occupied_score_;
  // Per pod: cpu and memory requests with the scheduler's defaults for containers that request
  // none (100m, 200Mi), as NodeResourcesFit counts them; per node: their sum over its live pods.
  std::vector<int64_t> pod_nonzero_cpu_, pod_nonzero_memory_;
  std::vector<int64_t> node_nonzero_cpu_, node_nonzero_memory_;
  // Per node: its allocatable cpu (millicores) and memory, beside the sums for the scores' loops.
  std::vector<int64_t> node_allocatable_cpu_, node_allocatable_memory_;
};

}  // namespace loadshift::placement

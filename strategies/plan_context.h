// PlanContext: the state one make_plan() call shares between plugins — the Ledger, the limits and
// what is already planned — so that every plugin goes through the same checks. Internal to
// strategies/.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "placement/ledger.h"
#include "placement/placer.h"
#include "placement/scheduler_model.h"
#include "strategies/cooldown.h"
#include "strategies/evictability.h"
#include "strategies/plan.h"
#include "strategies/predicted_usage.h"

namespace loadshift::strategies {

// A pod's estimated usage: its own Prometheus usage when the UsageMap has it, else its requests.
struct PodLoad {
  double cpu_milli = 0;
  double memory_bytes = 0;
  bool measured = false;  // true: from the UsageMap; false: from requests
};

// What a profile gives its plugins.
struct ProfileScope {
  std::string name;
  const EvictionFilter* filter = nullptr;
  bool node_fit = false;  // DefaultEvictor nodeFit
  // Nodes nodeFit may target: DefaultEvictor nodeSelector (empty: all).
  std::string node_selector;
};

class PlanContext;

// cpu and memory from ctx.pod_load (own usage, else requests), every other resource from the
// pod's requests: load_of(pod, UsageBasis::kMeasured).
PodAmounts estimated_load(const PlanContext& ctx, PodId pod);

class PlanContext {
 public:
  // All references must outlive the context. Fills plan.nodes with one NodeState per node (usage
  // from `usage`, class unknown until a plugin classifies it).
  PlanContext(const placement::ClusterIndex& index, const metrics::UsageMap& usage,
              const policy::Policy& policy, const PlanOptions& options, Plan& plan);

  const placement::ClusterIndex& index() const { return index_; }
  const model::Snapshot& snapshot() const { return index_.snapshot(); }
  const placement::Placer& placer() const { return placer_; }
  const placement::Ledger& ledger() const { return ledger_; }
  const metrics::UsageMap& usage() const { return usage_; }
  const PlanOptions& options() const { return options_; }
  Plan& plan() { return plan_; }

  // Usage of `node` from the UsageMap, or nullptr when unknown or when cpu and memory were not
  // measured (a MetricResource-only fetch).
  const metrics::NodeUsage* node_usage(NodeId node) const;
  // LowNodeUtilization's MetricResource of `node` (percent), or empty.
  std::optional<double> metric_resource(NodeId node) const;
  // Nodes in scope: Ready, not being deleted, matching the policy's top-level nodeSelector, and
  // not a second node of a name the snapshot lists twice (the index binds pods to the first).
  bool in_scope(NodeId node) const { return in_scope_[node]; }
  // Whether `node` matches a label-selector string ("a=b,c in (d)"; empty matches all). Each
  // string is parsed once; one that cannot be parsed matches no node and adds a plan note.
  bool matches_selector(NodeId node, const std::string& selector) const;

  PodLoad pod_load(PodId pod) const;
  // A pod's load on `basis`: estimated (pod_load, every other resource from requests) or
  // requested.
  PodAmounts load_of(PodId pod, UsageBasis basis) const;

  // The plan's usage account on `basis` (predicted_usage.h), one per basis and shared by every
  // plugin: each node's usage as the evictions planned so far leave it. evict() moves each pod
  // through every account, so no plugin keeps a running sum of its own. The account tracks at
  // least `resources`: a resource asked for the first time is added (its column seeded from the
  // cluster, then the plan so far applied); columns already there keep their place.
  const PredictedUsage& predicted(UsageBasis basis, const std::vector<std::string>& resources);
  // Sets node_state(node).cpu_after / memory_after from the account of the node's figures
  // (kUsage: measured, kRequests: requested; kMetric has none) when that account exists and
  // knows the node. evict() calls it for both ends of every move.
  void write_after(NodeId node);

  // The scheduler model over this plan's index (built on first use). With
  // options().soft_taint_hot_nodes, loadshift's soft taint as the controller leaves it before it
  // evicts: on every node classed overutilized so far, off every node classed underutilized or
  // appropriate, as the snapshot has it on the others.
  const placement::SchedulerModel& scheduler_model();
  // Every node of the snapshot, in order: the nodes the scheduler looks at.
  const std::vector<NodeId>& all_nodes() const { return all_nodes_; }

  // Why `pod` may not be evicted now because of what the plan already holds: already planned,
  // per-node / per-namespace / total limits of the policy, the plugin's own limits (`limits`, may
  // be null), the workload's pods in flight (PlanOptions::max_in_flight_per_workload), one pod per
  // Volcano job per cycle, the job's minAvailable. nullopt: allowed.
  // Every limit counts the evictions of the whole plan (all plugins and profiles), the plugin's
  // own limits included. The reason's phrase names the limit, e.g. "node eviction limit reached:
  // 2 of 2 from te3 (maxNoOfPodsToEvictPerNode)".
  std::optional<Skip> limit_reason(PodId pod, const policy::EvictionLimits* limits) const;
  // Whether the policy's maxNoOfPodsToEvictTotal is used up: no plugin may evict any more.
  bool total_limit_reached() const {
    return policy_.max_pods_to_evict_total && evicted_total_ >= *policy_.max_pods_to_evict_total;
  }

  // The per-workload cool-down (PlanOptions::cooldown, strategies/cooldown.h), which the balance
  // plugins check before their limits: why the running `pod` may not leave its node without
  // undoing a recent move of its workload ("workload cooling down: ..."). Finished pods, pods
  // without a controller owner and a zero cool-down: nullopt.
  std::optional<std::string> cooldown_reason(PodId pod) const;
  // Why the replacement of `pod` may not go to `node`: its workload left it within the cool-down.
  std::optional<std::string> cooldown_return_reason(PodId pod, NodeId node) const;
  // Whether cooldown_return_reason() can refuse any node for `pod`.
  bool cooldown_may_refuse_return(PodId pod) const { return cooldown_.has_moves(pod); }

  // Records the eviction: the decision, the Ledger reservation (when target != kNoNode), the
  // counters. Call only after limit_reason() returned nullopt: evict() checks again and throws
  // std::logic_error (a plugin bug) when the limits refuse the pod.
  // With `landing` (the scheduler model's prediction, kNoNode: none) the Ledger reserves the pod
  // there instead of on `target`. Every usage account (predicted()) moves the pod's load from its
  // node to where it is placed, and both nodes' after-columns follow (write_after()).
  void evict(PodId pod, NodeId target, const std::string& profile, const std::string& strategy,
             std::string reason, const policy::EvictionLimits* limits,
             NodeId landing = placement::kNoNode);
  // Records a pod that was looked at and stays. A pod skipped by several plugins keeps the first
  // reason; a pod later evicted loses its skip entries.
  void skip(PodId pod, const std::string& strategy, Skip skip);
  void skip(PodId pod, const std::string& strategy, SkipCode code, std::string reason) {
    skip(pod, strategy, Skip{code, std::move(reason)});
  }
  bool planned(PodId pod) const {
    return ledger_.planned_node(pod) != placement::kNoNode || evicted_.count(pod) != 0;
  }
  NodeState& node_state(NodeId node) { return plan_.nodes[node]; }
  const NodeState& node_state(NodeId node) const { return plan_.nodes[node]; }

 private:
  const placement::ClusterIndex& index_;
  const metrics::UsageMap& usage_;
  const policy::Policy& policy_;
  PlanOptions options_;
  Plan& plan_;
  placement::Placer placer_;
  placement::Ledger ledger_;
  std::vector<bool> in_scope_;
  std::vector<NodeId> all_nodes_;
  std::unique_ptr<placement::SchedulerModel> scheduler_model_;
  std::unique_ptr<PredictedUsage> accounts_[2];  // by UsageBasis; null until asked for
  std::unordered_set<PodId> evicted_;
  std::unordered_map<PodId, size_t> skipped_at_;  // pod -> index in plan_.skipped
  std::vector<uint32_t> evicted_per_node_;
  std::map<std::string, uint32_t, std::less<>> evicted_per_namespace_;
  std::map<std::string, uint32_t, std::less<>> evicted_per_workload_;  // "ns/Kind/name"
  // The in-flight limit's reason, or nullopt (limit_reason()).
  std::optional<std::string> in_flight_reason(PodId pod) const;
  Cooldown cooldown_;
  // PlanOptions::max_in_flight_per_workload, by rollout_workload() key: pods in flight in the
  // snapshot (counted on first use) and running pods this plan evicts.
  mutable std::optional<std::unordered_map<std::string, int>> in_flight_in_snapshot_;
  std::unordered_map<std::string, int> in_flight_planned_;
  std::unordered_map<uint32_t, uint32_t> evicted_per_job_;  // JobId -> count
  uint32_t evicted_total_ = 0;
  // Selector strings parsed by matches_selector(); empty optional: could not be parsed.
  mutable std::map<std::string, std::optional<model::LabelSelector>, std::less<>> selectors_;
};

}  // namespace loadshift::strategies

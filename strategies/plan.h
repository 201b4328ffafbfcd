// The Plan: what one descheduling cycle would evict, where each pod can go, and why every other
// pod it looked at stays. make_plan() is a pure function of (Snapshot index, UsageMap, Policy):
// the controller and the dry-run report call the same function.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "placement/scheduler_model.h"
#include "policy/policy.h"
#include "strategies/workload.h"

namespace loadshift::strategies {

using placement::NodeId;
using placement::PodId;

struct EvictionDecision {
  PodId pod = 0;
  NodeId node = placement::kNoNode;    // where it runs now
  NodeId target = placement::kNoNode;  // where the placement core proved it fits (kNoNode only
                                       // for a finished pod: nothing is placed)
  std::string profile;
  std::string strategy;  // plugin name, e.g. "LoadAware"
  // For a person: "te3 cpu 92.0% > 80%: evict default/x (est. 0.5 cpu) -> te5 (cpu 21% -> 27%)"
  std::string reason;
  // Where the scheduler model predicts the replacement lands (placement/scheduler_model.h), when
  // the plugin asked it (LoadAware with PlanOptions::predict_landing); kNoNode otherwise. The plan
  // counts the pod there (Ledger, predicted usage); it may differ from `target`.
  NodeId landing = placement::kNoNode;

  // Where the plan counts the pod after the move: `landing` when predicted, else `target`.
  NodeId placed() const { return landing != placement::kNoNode ? landing : target; }
};

// Why a plugin kept a pod, for programs (the controller's metrics, filters); SkippedPod::reason
// says it for people. Codes are stable; their names are to_string's.
enum class SkipCode {
  kNotEvictable,       // the evictability filter refused the pod (DefaultEvictor's rules)
  kNamespaceExcluded,  // the plugin's evictableNamespaces.exclude
  kNotThresholding,    // requests none of the thresholds' resources (OnlyThresholdingResources)
  kNodeRelieved,       // its node is within its targets after the evictions planned
  kNoRelief,           // evicting it takes nothing of what its node is over on
  kPerNodeRun,         // MetricResource's per-node cap of one run
  kCoolingDown,        // its workload moved within the cool-down
  kAlreadyPlanned,     // another plugin planned it
  kTotalLimit,         // maxNoOfPodsToEvictTotal
  kNodeLimit,          // maxNoOfPodsToEvictPerNode or the plugin's evictionLimits.node
  kNamespaceLimit,     // maxNoOfPodsToEvictPerNamespace or evictionLimits.namespace
  kWorkloadLimit,      // the plugin's evictionLimits.workload
  kWorkloadInFlight,   // its workload has pods in flight (--max-in-flight-per-workload)
  kGangDisrupted,      // its Volcano job already loses a pod this cycle
  kGangMinAvailable,   // its Volcano job would fall below minAvailable
  kNoTarget,           // no node fits (nodeFit, the placement core, the plugin's targets)
  kNoSpread,           // RemoveDuplicates: fewer than two nodes admit the copies
  kLandingRefused,     // the predicted landing is not one the plugin accepts
};
// "not_evictable", "namespace_excluded", ..., "landing_refused"
const char* to_string(SkipCode code);

// A skip before it is recorded: the code and the reason.
struct Skip {
  SkipCode code;
  std::string reason;
};

struct SkippedPod {
  PodId pod = 0;
  NodeId node = placement::kNoNode;
  std::string strategy;
  SkipCode code = SkipCode::kNotEvictable;
  // A short, stable reason first, then detail after ": ", e.g.
  // "priority at or above threshold: 2000001000 >= 2000000000". The report groups by the part
  // before the first ": ".
  std::string reason;
};

// kUnknown: a plugin classifies nodes by utilization but this node's data is missing or unusable.
// kUnclassified: no plugin classified the node (none of the policy's plugins classifies by
// utilization, or the node is outside the policy's scope: nodeSelector, not Ready, being deleted).
enum class NodeClass { kUnknown, kUnderutilized, kAppropriate, kOverutilized, kUnclassified };
// "unknown", "underutilized", "appropriate", "overutilized", "unclassified"
const char* to_string(NodeClass c);

// What a node's figures (NodeState::cpu, memory, metric) are: real usage (LoadAware,
// LowNodeUtilization with metricsUtilization KubernetesMetrics, and the default), requested
// percent of allocatable (Low/HighNodeUtilization without metricsUtilization), or
// LowNodeUtilization's MetricResource (source Prometheus).
enum class Figures { kUsage, kRequests, kMetric };
const char* to_string(Figures f);  // "usage", "requests", "MetricResource"

struct NodeState {
  NodeId node = placement::kNoNode;
  std::string pool;  // usage-pool label value, may be empty
  NodeClass node_class = NodeClass::kUnknown;
  // The figures the class was computed from (the plugin that classified the node sets them).
  Figures figures = Figures::kUsage;
  std::optional<double> cpu, memory;              // percent now (empty: unknown)
  std::optional<double> cpu_after, memory_after;  // predicted after the plan
  // figures kMetric: the node's MetricResource percent. Pods carry none, so it has no after.
  std::optional<double> metric;
  // The watermarks the node was classified against (resource -> percent), for the report's bars.
  policy::Percentages thresholds, target_thresholds;
  std::string why;            // e.g. "unknown: no cpu series", "cpu 92.0% > 80%"
  std::string classified_by;  // plugin that classified it ("" when none did)
};

// What LoadAware counted before it acted: the in-scope nodes with usage data and the share of
// them the policy requires (minNodeCoverage, or else all but max(1, 10%) of them). For
// loadshift_load_aware_coverage_ratio and loadshift_load_aware_coverage_required_ratio.
struct UsageCoverage {
  std::string profile;
  size_t known = 0, in_scope = 0;
  double required_percent = 100;
  double percent() const {
    return in_scope == 0 ? 100.0
                         : 100.0 * static_cast<double>(known) / static_cast<double>(in_scope);
  }
};

// How long one plugin of one profile took to plan (for descheduler_strategy_duration_seconds).
struct PluginRun {
  std::string profile, plugin;
  double seconds = 0;
};

struct Plan {
  std::vector<EvictionDecision> evictions;  // in the order they should be carried out
  std::vector<SkippedPod> skipped;
  std::vector<NodeState> nodes;  // one per node of the snapshot, in snapshot order
  // What a plugin did not do and why ("LoadAware: 80% of nodes have usage data, policy needs
  // 90%; nothing evicted"), and other notes for a person.
  std::vector<std::string> notes;
  std::vector<PluginRun> plugin_runs;  // every plugin run, in run order
  std::vector<UsageCoverage> coverage;  // one per LoadAware run that planned, in run order
};

struct PlanOptions {
  // "Now", for minPodAge and pod ages; the report's --at.
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  // Per-workload cool-down (strategies/cooldown.h): within `cooldown` of a move of one of its
  // pods (`last_moved`, may be null, and the moves planned earlier in this plan), the balance
  // plugins (LoadAware, Low/HighNodeUtilization) do not undo it: a running pod stays on a node
  // that received a pod of its workload, and no replacement is sent back to a node its workload
  // left ("workload cooling down: ..."). The deschedule plugins, which fix violations, do not
  // wait. Zero turns it off. `last_moved` must outlive make_plan().
  const WorkloadMoves* last_moved = nullptr;
  std::chrono::seconds cooldown{0};
  // At most this many pods of one workload (rollout_workload()) in flight — terminating, not yet
  // Ready, or evicted by this plan — for every plugin, as the controller's executor checks again
  // before each eviction ("workload in flight: ..."). 0: no limit.
  int max_in_flight_per_workload = 0;
  // Landing prediction (LoadAware): before a pod is evicted, the scheduler model
  // (placement/scheduler_model.h) predicts where its replacement lands; the pod stays when that is
  // its own node, a hot node, or a node whose usage is unknown. Off only for comparisons.
  bool predict_landing = true;
  // The controller puts loadshift.io/overutilized:PreferNoSchedule on every node the plan classes
  // overutilized, before it evicts, and removes it when the node cools (run
  // --soft-taint-hot-nodes): the scheduler model counts that taint on those nodes.
  bool soft_taint_hot_nodes = false;
  // Landings under uncertainty (strategies/landing_check.h): the scheduler picks at random among
  // the nodes tied at the top score (and, for Volcano, within the model's known error of it); a
  // pod moves only when at least this percent of them are acceptable landings.
  double min_landing_chance = 66;
};

// What `run`, `report` and `simulate` may override of the policy's `loadshift` section (their
// flags); empty: the policy's.
struct PlanOverrides {
  std::optional<std::chrono::seconds> workload_cooldown;
  std::optional<int> max_in_flight_per_workload;
  std::optional<bool> soft_taint_hot_nodes;
  std::optional<bool> landing_prediction;
};

// The policy's `loadshift` section with `overrides` applied: the one set of settings the three
// commands plan with.
policy::PlanSettings effective_settings(const policy::PlanSettings& policy,
                                        const PlanOverrides& overrides);
// PlanOptions of `settings` (cooldown, in-flight limit, soft taint, landing prediction and its
// chance); `now` and `last_moved` are the caller's.
PlanOptions plan_options(const policy::PlanSettings& settings,
                         std::chrono::system_clock::time_point now);

// Runs every profile of `policy` as the descheduler does (all deschedule plugins of every profile,
// then all balance plugins), with the policy's limits shared across them. `index` is built over the
// Snapshot with the policy's pool label and GPU options.
Plan make_plan(const placement::ClusterIndex& index, const metrics::UsageMap& usage,
               const policy::Policy& policy, const PlanOptions& options = {});

// The placement options the policy asks for (the usage-pool label of its first LoadAware), to
// build the index.
placement::PlacementOptions placement_options(const policy::Policy& policy);

// The args of the first LoadAware enabled under balance, in profile order, or nullptr: its
// metrics block names the usage source, its watermarks classify nodes before the deschedule
// plugins run, and its usage-pool label builds the index.
const policy::LoadAwareArgs* first_load_aware(const policy::Policy& policy);

// The scheduler profile the scheduler model predicts landings with: the first LoadAware's
// schedulerScoring, else kube-scheduler's default profile; for Volcano pods, the policy's
// loadshift.volcanoScheduler.
placement::SchedulerProfile scheduler_profile(const policy::Policy& policy);

// Each node's measured cpu and memory percent, as Volcano's usage plugin reads them (its own
// Prometheus window), for SchedulerModel::set_node_load.
std::vector<placement::SchedulerModel::NodeLoad> scheduler_node_load(
    const model::Snapshot& snapshot, const metrics::UsageMap& usage);

// True when make_plan() has a strategy for the deschedule or balance plugin `plugin`.
bool has_strategy(std::string_view plugin);

}  // namespace loadshift::strategies

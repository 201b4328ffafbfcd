// The DeschedulerPolicy (descheduler/v1alpha2), typed, validated, with every default filled in.
//
// Files written for kubernetes-sigs/descheduler and for the Volcano descheduler load unchanged;
// loadshift's own extensions (LoadAware metrics windows, sustainedFor, nodePools, limits, gang and
// GPU switches) sit on top with safe defaults. The loader (policy/loader.h) builds a Policy; once
// built it is a plain value: copy it, compare it, print it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/model.h"

namespace loadshift::policy {

// A duration in Prometheus / Go syntax ("30s", "5m", "1h30m"), kept as milliseconds and text.
struct Duration {
  int64_t milliseconds = 0;
  std::string text;  // canonical form, e.g. "5m"
  friend bool operator==(const Duration&, const Duration&) = default;
};

// resource name ("cpu", "memory", "pods", "MetricResource", ...) -> percent (0..100).
using Percentages = std::map<std::string, double>;

// model::LabelSelector has no operator==; args that hold one compare through this.
inline bool same_label_selector(const std::optional<model::LabelSelector>& a,
                                const std::optional<model::LabelSelector>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->match_labels.items() != b->match_labels.items()) return false;
  if (a->match_expressions.size() != b->match_expressions.size()) return false;
  for (size_t i = 0; i < a->match_expressions.size(); ++i) {
    const model::LabelSelectorRequirement& x = a->match_expressions[i];
    const model::LabelSelectorRequirement& y = b->match_expressions[i];
    if (x.key != y.key || x.op != y.op || x.values != y.values) return false;
  }
  return true;
}

// ---- DefaultEvictor ---------------------------------------------------------------------------

struct PriorityThreshold {
  std::optional<int32_t> value;  // default: 2000000000 (system-cluster-critical), when no name
  std::string name;              // a PriorityClass name, resolved against the cluster
  friend bool operator==(const PriorityThreshold&, const PriorityThreshold&) = default;
};

enum class NoEvictionPolicy { kPreferred, kMandatory };

// Protections of DefaultEvictor (podProtections): defaults PodsWithLocalStorage, DaemonSetPods,
// SystemCriticalPods, FailedBarePods; extras PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims.
struct PodProtections {
  bool local_storage = true;
  bool daemon_set = true;
  bool system_critical = true;
  bool failed_bare = true;
  bool with_pvc = false;
  bool without_pdb = false;
  bool with_resource_claims = false;
  std::vector<std::string> protected_storage_classes;  // PodsWithPVC config
  friend bool operator==(const PodProtections&, const PodProtections&) = default;
};

struct DefaultEvictorArgs {
  std::string node_selector;  // label-selector string; nodeFit destinations
  std::optional<model::LabelSelector> label_selector;
  std::optional<model::LabelSelector> namespace_label_selector;
  PriorityThreshold priority_threshold;
  bool node_fit = false;
  uint32_t min_replicas = 0;
  std::optional<Duration> min_pod_age;
  NoEvictionPolicy no_eviction_policy = NoEvictionPolicy::kPreferred;
  PodProtections protections;  // effective, after legacy booleans and podProtections lists
  friend bool operator==(const DefaultEvictorArgs& a, const DefaultEvictorArgs& b) {
    return a.node_selector == b.node_selector &&
           same_label_selector(a.label_selector, b.label_selector) &&
           same_label_selector(a.namespace_label_selector, b.namespace_label_selector) &&
           a.priority_threshold == b.priority_threshold && a.node_fit == b.node_fit &&
           a.min_replicas == b.min_replicas && a.min_pod_age == b.min_pod_age &&
           a.no_eviction_policy == b.no_eviction_policy && a.protections == b.protections;
  }
};

// ---- LoadAware (Volcano) + loadshift extensions ----------------------------------------------

enum class NodeMatch { kAuto, kName, kInternalIp };

// PromQL templates; `{{window}}` and `{{step}}` are replaced by metrics.window and metrics.step.
struct MetricsQueries {
  std::string cpu, memory, pod_cpu, pod_memory;  // empty: the built-in default query
  friend bool operator==(const MetricsQueries&, const MetricsQueries&) = default;
};

struct LoadAwareMetrics {
  std::string type = "Prometheus";  // as written: Prometheus | prometheus (prometheus_adaptor is
                                    // rejected)
  std::string address;              // http(s) base URL of Prometheus
  // Volcano's `duration` lands here. Unset: 2m (Volcano's default) when the args are in Volcano's
  // form (only Volcano's LoadAware keys, metrics only {type, address}), else 5m.
  Duration window{300000, "5m"};
  Duration step{30000, "30s"};
  Duration timeout{10000, "10s"};
  MetricsQueries queries;
  std::string node_label = "instance";
  NodeMatch node_match = NodeMatch::kAuto;
  std::string bearer_token_file;
  std::string ca_file;
  bool insecure_skip_verify = false;
  std::map<std::string, std::string> headers;
  // Percent of in-scope nodes that must have usage data. Unset: every node but max(1, 10%) of
  // them (a big cluster is protected from planning on a partial view; in a small one a single
  // node without an exporter does not silence the rest).
  std::optional<double> min_node_coverage;
  friend bool operator==(const LoadAwareMetrics&, const LoadAwareMetrics&) = default;
};

// A node pool with its own watermarks. After reading, `thresholds` and `target_thresholds` are
// effective: every resource the plugin classifies on, the pool's value or else the plugin's.
struct NodePool {
  std::string name;
  std::string node_selector;  // label-selector string, never empty
  Percentages thresholds;
  Percentages target_thresholds;
  friend bool operator==(const NodePool&, const NodePool&) = default;
};

struct EvictionLimits {
  std::optional<uint32_t> node;
  std::optional<uint32_t> namespace_;
  std::optional<uint32_t> workload;
  friend bool operator==(const EvictionLimits&, const EvictionLimits&) = default;
};

// How the cluster's scheduler scores nodes (LoadAware `schedulerScoring`, loadshift's own): what
// the scheduler model (placement/scheduler_model.h) predicts landings with. The same shape as
// KubeSchedulerConfiguration's NodeResourcesFitArgs.scoringStrategy, so it can be copied from
// there.
struct SchedulerScoring {
  std::string type = "LeastAllocated";  // | MostAllocated | RequestedToCapacityRatio
  std::vector<std::pair<std::string, int64_t>> resources{{"cpu", 1},
                                                         {"memory", 1}};  // name, weight
  std::vector<std::pair<int64_t, int64_t>>
      shape;  // requestedToCapacityRatio.shape: utilization, score
  friend bool operator==(const SchedulerScoring&, const SchedulerScoring&) = default;
};

struct LoadAwareArgs {
  LoadAwareMetrics metrics;
  SchedulerScoring scheduler_scoring;
  // Only the resources named here (cpu, memory, pods; same keys in both) classify nodes.
  // Volcano forces a missing one to 100/100, which never triggers either; in deviation mode it
  // forces 0/0 (classify at the mean), which loadshift does not copy.
  Percentages thresholds;
  Percentages target_thresholds;
  bool use_deviation_thresholds = false;
  int32_t number_of_nodes = 0;  // act only when more nodes than this are underutilized
  bool node_fit = false;
  std::string node_selector;  // label-selector string: nodeFit's candidate destinations
  std::vector<std::string> excluded_namespaces;  // evictableNamespaces.exclude
  std::optional<Duration> sustained_for;
  std::vector<NodePool> node_pools;
  std::string usage_pool_label = "maip.mxsf.io/node.usage";
  // Weight per classified resource (each resource of `thresholds`; unset ones weigh 1). The
  // default, before any thresholds are known, is cpu 1, memory 1.
  std::map<std::string, double> resource_weights{{"cpu", 1}, {"memory", 1}};
  EvictionLimits eviction_limits;
  bool evict_gang_pods = false;          // gang.evictGangPods
  bool respect_restart_policies = true;  // gang.respectRestartPolicies
  bool evict_gpu_pods = false;           // gpu.evictGpuPods
  // gpu.vendorPrefixes: a resource whose name starts with one of these is a GPU.
  std::vector<std::string> gpu_vendor_prefixes{"nvidia.com/", "metax-tech.com/", "hami.io/",
                                               "volcano.sh/vgpu", "huawei.com/Ascend"};
  friend bool operator==(const LoadAwareArgs&, const LoadAwareArgs&) = default;
};

// ---- kubernetes-sigs plugins ------------------------------------------------------------------

// LowNodeUtilization's metricsUtilization. The deprecated `metricsServer: true` is read as
// source KubernetesMetrics (with a warning) and written back as `source: KubernetesMetrics`.
struct MetricsUtilization {
  std::string source;            // "" (requests) | KubernetesMetrics | Prometheus
  std::string prometheus_query;  // prometheus.query
  friend bool operator==(const MetricsUtilization&, const MetricsUtilization&) = default;
};

// LowNodeUtilization and HighNodeUtilization.
struct NodeUtilizationArgs {
  Percentages thresholds;
  Percentages target_thresholds;  // LowNodeUtilization only
  bool use_deviation_thresholds = false;
  int32_t number_of_nodes = 0;
  std::vector<std::string> excluded_namespaces;
  std::optional<uint32_t> eviction_limit_node;  // evictionLimits.node (LowNodeUtilization)
  MetricsUtilization metrics_utilization;       // LowNodeUtilization only
  std::vector<std::string> eviction_modes;      // HighNodeUtilization only
  friend bool operator==(const NodeUtilizationArgs&, const NodeUtilizationArgs&) = default;
};

struct Namespaces {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  friend bool operator==(const Namespaces&, const Namespaces&) = default;
};

struct NodeAffinityArgs {
  std::vector<std::string> node_affinity_type;  // requiredDuring... / preferredDuring...
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const NodeAffinityArgs& a, const NodeAffinityArgs& b) {
    return a.node_affinity_type == b.node_affinity_type && a.namespaces == b.namespaces &&
           same_label_selector(a.label_selector, b.label_selector);
  }
};

struct NodeTaintsArgs {
  std::vector<std::string> excluded_taints;  // "key" or "key=value"
  std::vector<std::string> included_taints;  // "key" or "key=value"; not with excluded_taints
  bool include_prefer_no_schedule = false;
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const NodeTaintsArgs& a, const NodeTaintsArgs& b) {
    return a.excluded_taints == b.excluded_taints && a.included_taints == b.included_taints &&
           a.include_prefer_no_schedule == b.include_prefer_no_schedule &&
           a.namespaces == b.namespaces && same_label_selector(a.label_selector, b.label_selector);
  }
};

// One entry of PodLifeTime's `conditions`: a pod condition whose type, status and reason equal
// the ones given (empty: not checked) and, with minTimeSinceLastTransitionSeconds, whose
// lastTransitionTime is at least that many seconds ago.
struct PodConditionFilter {
  std::string type;
  std::string status;
  std::string reason;
  std::optional<int64_t> min_time_since_last_transition_seconds;
  friend bool operator==(const PodConditionFilter&, const PodConditionFilter&) = default;
};

// PodLifeTime (kubernetes-sigs descheduler v0.36): pods older than maxPodLifeTimeSeconds, in one
// of `states` (a phase, status.reason or a container's waiting or terminated reason; init and
// ephemeral containers' too when asked), passing ownerKinds, with a condition matching one of
// `conditions`, with a terminated container's exit code in `exitCodes`: each when given, at least
// one of the age, states, conditions and exit codes; oldest first.
struct PodLifeTimeArgs {
  std::optional<int64_t> max_pod_life_time_seconds;
  std::vector<std::string> states;
  std::vector<PodConditionFilter> conditions;
  bool including_init_containers = false;
  bool including_ephemeral_containers = false;
  std::vector<int32_t> exit_codes;  // containers' state.terminated.exitCode
  Namespaces owner_kinds;           // include / exclude owner kinds (reuses the two lists)
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const PodLifeTimeArgs& a, const PodLifeTimeArgs& b) {
    return a.max_pod_life_time_seconds == b.max_pod_life_time_seconds && a.states == b.states &&
           a.conditions == b.conditions &&
           a.including_init_containers == b.including_init_containers &&
           a.including_ephemeral_containers == b.including_ephemeral_containers &&
           a.exit_codes == b.exit_codes && a.owner_kinds == b.owner_kinds &&
           a.namespaces == b.namespaces && same_label_selector(a.label_selector, b.label_selector);
  }
};

// RemovePodsHavingTooManyRestarts: pods whose containers restarted podRestartThreshold times or
// more (init containers too with includingInitContainers).
struct TooManyRestartsArgs {
  int32_t pod_restart_threshold = 0;
  bool including_init_containers = false;
  std::vector<std::string> states;  // Running, CrashLoopBackOff
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const TooManyRestartsArgs& a, const TooManyRestartsArgs& b) {
    return a.pod_restart_threshold == b.pod_restart_threshold &&
           a.including_init_containers == b.including_init_containers && a.states == b.states &&
           a.namespaces == b.namespaces && same_label_selector(a.label_selector, b.label_selector);
  }
};

// RemoveFailedPods: pods in phase Failed, at least minPodLifetimeSeconds old (3600 by default),
// matching `reasons` and `exitCodes` when given, not owned by an excluded kind.
struct FailedPodsArgs {
  int64_t min_pod_lifetime_seconds = 3600;
  std::vector<std::string> exclude_owner_kinds;
  std::vector<std::string> reasons;
  std::vector<int32_t> exit_codes;
  bool including_init_containers = false;
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const FailedPodsArgs& a, const FailedPodsArgs& b) {
    return a.min_pod_lifetime_seconds == b.min_pod_lifetime_seconds &&
           a.exclude_owner_kinds == b.exclude_owner_kinds && a.reasons == b.reasons &&
           a.exit_codes == b.exit_codes &&
           a.including_init_containers == b.including_init_containers &&
           a.namespaces == b.namespaces && same_label_selector(a.label_selector, b.label_selector);
  }
};

// RemoveDuplicates: pods of one owner with the same images on one node, spread so that no node
// holds more than its share of the owner's pods.
struct RemoveDuplicatesArgs {
  std::vector<std::string> exclude_owner_kinds;
  Namespaces namespaces;
  friend bool operator==(const RemoveDuplicatesArgs&, const RemoveDuplicatesArgs&) = default;
};

// RemovePodsViolatingInterPodAntiAffinity: pods whose own required anti-affinity terms match
// another pod of their topology domain. namespaces and labelSelector choose the pods looked at,
// which are also the only pods that count as the other pod (as upstream).
struct InterPodAntiAffinityArgs {
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  friend bool operator==(const InterPodAntiAffinityArgs& a, const InterPodAntiAffinityArgs& b) {
    return a.namespaces == b.namespaces && same_label_selector(a.label_selector, b.label_selector);
  }
};

// RemovePodsViolatingTopologySpreadConstraint: pods of domains over their constraint's maxSkew,
// moved towards the ideal average. `constraints` names the whenUnsatisfiable actions balanced
// (never empty); topologyBalanceNodeFit: a pod moves only to a node of a domain below the ideal
// average.
struct TopologySpreadArgs {
  Namespaces namespaces;
  std::optional<model::LabelSelector> label_selector;
  std::vector<model::UnsatisfiableAction> constraints = {
      model::UnsatisfiableAction::kDoNotSchedule};
  bool topology_balance_node_fit = true;
  friend bool operator==(const TopologySpreadArgs& a, const TopologySpreadArgs& b) {
    return a.namespaces == b.namespaces &&
           same_label_selector(a.label_selector, b.label_selector) &&
           a.constraints == b.constraints &&
           a.topology_balance_node_fit == b.topology_balance_node_fit;
  }
};

using PluginArgs =
    std::variant<DefaultEvictorArgs, LoadAwareArgs, NodeUtilizationArgs, NodeAffinityArgs,
                 NodeTaintsArgs, PodLifeTimeArgs, TooManyRestartsArgs, FailedPodsArgs,
                 RemoveDuplicatesArgs, InterPodAntiAffinityArgs, TopologySpreadArgs>;

struct PluginConfig {
  std::string name;
  PluginArgs args;
  friend bool operator==(const PluginConfig&, const PluginConfig&) = default;
};

struct PluginSet {
  std::vector<std::string> enabled;
  friend bool operator==(const PluginSet&, const PluginSet&) = default;
};

struct Plugins {
  PluginSet deschedule, balance, filter, pre_eviction_filter;
  friend bool operator==(const Plugins&, const Plugins&) = default;
};

struct Profile {
  std::string name;
  std::vector<PluginConfig> plugin_config;  // one per plugin used, defaults filled in
  Plugins plugins;

  // The args of `plugin` in this profile, or nullptr.
  const PluginConfig* config(std::string_view plugin) const;
  friend bool operator==(const Profile&, const Profile&) = default;
};

struct PrometheusProvider {
  std::string url;
  std::string auth_secret_namespace, auth_secret_name;  // authToken.secretReference; empty: the
                                                        // service account's token
  friend bool operator==(const PrometheusProvider&, const PrometheusProvider&) = default;
};

struct MetricsProviders {
  bool kubernetes_metrics = false;
  std::optional<PrometheusProvider> prometheus;
  friend bool operator==(const MetricsProviders&, const MetricsProviders&) = default;
};

// ---- loadshift's plan settings (the top-level `loadshift` section) -----------------------------
// The Volcano scheduler's `usage` plugin (load-aware scheduling), as volcano-scheduler.conf
// configures it: a node whose cpu or memory usage is above its threshold is filtered out
// (enablePredicate), and nodes score ((100 - cpu%) * cpu.weight + (100 - mem%) * memory.weight) /
// (cpu.weight + memory.weight) * usage.weight. Defaults are the plugin's.
struct VolcanoUsagePlugin {
  int64_t weight = 5;         // usage.weight
  int64_t cpu_weight = 1;     // cpu.weight
  int64_t memory_weight = 1;  // memory.weight
  double cpu_threshold = 80;  // thresholds.cpu
  double memory_threshold = 80;  // thresholds.mem
  bool predicate = true;         // enablePredicate
  friend bool operator==(const VolcanoUsagePlugin&, const VolcanoUsagePlugin&) = default;
};

// The scoring plugins of the cluster's Volcano scheduler (loadshift.volcanoScheduler.plugins):
// what the scheduler model predicts Volcano pods' landings with. The default is the configuration
// Volcano's Helm chart and volcano-development.yaml install: nodeorder + binpack.
struct VolcanoScheduler {
  bool nodeorder = true;
  std::optional<int64_t> binpack_weight = 1;  // binpack.weight; empty: no binpack
  std::optional<VolcanoUsagePlugin> usage;    // empty: no usage plugin
  friend bool operator==(const VolcanoScheduler&, const VolcanoScheduler&) = default;
};

// Everything besides the plugins that changes the plan, read alike by `run`, `report` and
// `simulate` (their flags override it), so that a dry-run report shows what the controller does.
struct PlanSettings {
  Duration workload_cooldown{1800000, "30m"};  // 0s: off (strategies/cooldown.h)
  uint32_t max_in_flight_per_workload = 1;     // 0: no limit
  bool soft_taint_hot_nodes = false;           // loadshift.io/overutilized:PreferNoSchedule
  bool landing_prediction = true;
  // A pod moves only when at least this percent of the nodes the scheduler may pick (those tied,
  // or within the model's known error, at the top score) are acceptable landings.
  double min_landing_chance = 66;
  VolcanoScheduler volcano_scheduler;
  friend bool operator==(const PlanSettings&, const PlanSettings&) = default;
};

struct Policy {
  std::string node_selector;
  std::optional<uint32_t> max_pods_to_evict_per_node;
  std::optional<uint32_t> max_pods_to_evict_per_namespace;
  std::optional<uint32_t> max_pods_to_evict_total;
  bool eviction_failure_event_notification = false;
  std::optional<int64_t> grace_period_seconds;
  MetricsProviders metrics_providers;
  std::vector<Profile> profiles;
  PlanSettings loadshift;  // the top-level `loadshift` section
  friend bool operator==(const Policy&, const Policy&) = default;
};

}  // namespace loadshift::policy

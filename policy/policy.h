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
#include <variant>
#include <vector>

#include "placement/model.h"

namespace loadshift::policy {

// A duration in Prometheus / Go syntax ("30s", "5m", "1h30m"), kept as milliseconds and text.
struct Duration {
  int64_t milliseconds = 0;
  std::string text;  // canonical form, e.g. "5m"
  friend bool operator==(const Duration&, const Duration&) = default;
};

// resource name ("cpu", "memory", "pods", "MetricResource", ...) -> percent (0..100).
using Percentages = std::map<std::string, double>;

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
  std::optional<placement::LabelSelector> label_selector;
  std::optional<placement::LabelSelector> namespace_label_selector;
  PriorityThreshold priority_threshold;
  bool node_fit = false;
  uint32_t min_replicas = 0;
  std::optional<Duration> min_pod_age;
  NoEvictionPolicy no_eviction_policy = NoEvictionPolicy::kPreferred;
  PodProtections protections;  // effective, after legacy booleans and podProtections lists
};

// ---- LoadAware (Volcano) + loadshift extensions ----------------------------------------------

enum class NodeMatch { kAuto, kName, kInternalIp };

struct MetricsQueries {
  std::string cpu, memory, pod_cpu, pod_memory;  // empty: the built-in default query
};

struct LoadAwareMetrics {
  std::string type = "Prometheus";  // Prometheus | prometheus | prometheus_adaptor (rejected)
  std::string address;
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
  double min_node_coverage = 90;  // percent of in-scope nodes that must have fresh data
};

struct NodePool {
  std::string name;
  std::string node_selector;      // label-selector string
  Percentages thresholds;         // unset resources inherit the plugin's
  Percentages target_thresholds;
};

struct EvictionLimits {
  std::optional<uint32_t> node;
  std::optional<uint32_t> namespace_;
  std::optional<uint32_t> workload;
};

struct LoadAwareArgs {
  LoadAwareMetrics metrics;
  Percentages thresholds;
  Percentages target_thresholds;
  bool use_deviation_thresholds = false;
  int32_t number_of_nodes = 0;
  bool node_fit = false;
  std::string node_selector;
  std::vector<std::string> excluded_namespaces;  // evictableNamespaces.exclude
  std::optional<Duration> sustained_for;
  std::vector<NodePool> node_pools;
  std::string usage_pool_label = "maip.mxsf.io/node.usage";
  std::map<std::string, double> resource_weights;  // default cpu 1, memory 1
  EvictionLimits eviction_limits;
  bool evict_gang_pods = false;
  bool respect_restart_policies = true;
  bool evict_gpu_pods = false;
  std::vector<std::string> gpu_vendor_prefixes;  // default nvidia.com/, metax-tech.com/, ...
};

// ---- kubernetes-sigs plugins ------------------------------------------------------------------

struct MetricsUtilization {
  std::string source;            // "" (requests) | KubernetesMetrics | Prometheus
  bool metrics_server = false;   // deprecated spelling of source: KubernetesMetrics
  std::string prometheus_query;  // prometheus.query
};

// LowNodeUtilization and HighNodeUtilization.
struct NodeUtilizationArgs {
  Percentages thresholds;
  Percentages target_thresholds;  // LowNodeUtilization only
  bool use_deviation_thresholds = false;
  int32_t number_of_nodes = 0;
  std::vector<std::string> excluded_namespaces;
  std::optional<uint32_t> eviction_limit_node;   // evictionLimits.node (LowNodeUtilization)
  MetricsUtilization metrics_utilization;        // LowNodeUtilization only
  std::vector<std::string> eviction_modes;       // HighNodeUtilization only
};

struct Namespaces {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
};

struct NodeAffinityArgs {
  std::vector<std::string> node_affinity_type;  // requiredDuring... / preferredDuring...
  Namespaces namespaces;
  std::optional<placement::LabelSelector> label_selector;
};

struct NodeTaintsArgs {
  std::vector<std::string> excluded_taints;
  std::vector<std::string> included_taints;
  bool include_prefer_no_schedule = false;
  Namespaces namespaces;
  std::optional<placement::LabelSelector> label_selector;
};

using PluginArgs = std::variant<DefaultEvictorArgs, LoadAwareArgs, NodeUtilizationArgs,
                                NodeAffinityArgs, NodeTaintsArgs>;

struct PluginConfig {
  std::string name;
  PluginArgs args;
};

struct PluginSet {
  std::vector<std::string> enabled;
};

struct Plugins {
  PluginSet deschedule, balance, filter, pre_eviction_filter;
};

struct Profile {
  std::string name;
  std::vector<PluginConfig> plugin_config;  // one per plugin used, defaults filled in
  Plugins plugins;

  // The args of `plugin` in this profile, or nullptr.
  const PluginConfig* config(std::string_view plugin) const;
};

struct PrometheusProvider {
  std::string url;
  std::string auth_secret_namespace, auth_secret_name;
};

struct MetricsProviders {
  bool kubernetes_metrics = false;
  std::optional<PrometheusProvider> prometheus;
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
};

}  // namespace loadshift::policy

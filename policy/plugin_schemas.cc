// The plugin registry: every plugin loadshift implements, the extension points it serves and the
// functions that read, default and write its args. Adding a plugin means adding one row here and
// its args file; the loader and the effective-policy writer never list plugins by hand.
#include "policy/plugin_schemas.h"

#include <algorithm>

namespace loadshift::policy {

std::string_view to_string(ExtensionPoint point) {
  switch (point) {
    case ExtensionPoint::kDeschedule:
      return "deschedule";
    case ExtensionPoint::kBalance:
      return "balance";
    case ExtensionPoint::kFilter:
      return "filter";
    case ExtensionPoint::kPreEvictionFilter:
      return "preEvictionFilter";
  }
  return "unknown";
}

bool PluginSchema::implements(ExtensionPoint point) const {
  return std::find(extension_points.begin(), extension_points.end(), point) !=
         extension_points.end();
}

const std::vector<PluginSchema>& plugin_schemas() {
  using EP = ExtensionPoint;
  static const std::vector<PluginSchema> kSchemas = {
      {"DefaultEvictor",
       {EP::kFilter, EP::kPreEvictionFilter},
       {},
       default_default_evictor_args,
       read_default_evictor_args,
       write_default_evictor_args},
      // Volcano's descheduler enables LoadAware's nodeFit check as a preEvictionFilter whenever
      // LoadAware balances; the loader does the same.
      {"LoadAware",
       {EP::kBalance, EP::kPreEvictionFilter},
       {"thresholds", "targetThresholds"},
       default_load_aware_args,
       read_load_aware_args,
       write_load_aware_args},
      {"LowNodeUtilization",
       {EP::kBalance},
       {"thresholds", "targetThresholds"},
       default_low_node_utilization_args,
       read_low_node_utilization_args,
       write_node_utilization_args},
      {"HighNodeUtilization",
       {EP::kBalance},
       {"thresholds"},
       default_high_node_utilization_args,
       read_high_node_utilization_args,
       write_node_utilization_args},
      {"RemovePodsViolatingNodeAffinity",
       {EP::kDeschedule},
       {"nodeAffinityType"},
       default_node_affinity_args,
       read_node_affinity_args,
       write_node_affinity_args},
      {"RemovePodsViolatingNodeTaints",
       {EP::kDeschedule},
       {},
       default_node_taints_args,
       read_node_taints_args,
       write_node_taints_args},
      // Both need a selection to be safe: without one they would select every pod (upstream's
      // own validation refuses that), so an enabled plugin without args is an error.
      {"PodLifeTime",
       {EP::kDeschedule},
       {"maxPodLifeTimeSeconds, states or exitCodes"},
       default_pod_lifetime_args,
       read_pod_lifetime_args,
       write_pod_lifetime_args},
      {"RemovePodsHavingTooManyRestarts",
       {EP::kDeschedule},
       {"podRestartThreshold"},
       default_too_many_restarts_args,
       read_too_many_restarts_args,
       write_too_many_restarts_args},
      {"RemoveFailedPods",
       {EP::kDeschedule},
       {},
       default_failed_pods_args,
       read_failed_pods_args,
       write_failed_pods_args},
      {"RemoveDuplicates",
       {EP::kBalance},
       {},
       default_remove_duplicates_args,
       read_remove_duplicates_args,
       write_remove_duplicates_args},
      {"RemovePodsViolatingInterPodAntiAffinity",
       {EP::kDeschedule},
       {},
       default_inter_pod_anti_affinity_args,
       read_inter_pod_anti_affinity_args,
       write_inter_pod_anti_affinity_args},
      {"RemovePodsViolatingTopologySpreadConstraint",
       {EP::kBalance},
       {},
       default_topology_spread_args,
       read_topology_spread_args,
       write_topology_spread_args},
  };
  return kSchemas;
}

const PluginSchema* find_plugin_schema(std::string_view name) {
  for (const PluginSchema& schema : plugin_schemas()) {
    if (schema.name == name) return &schema;
  }
  return nullptr;
}

const std::vector<std::string_view>& upstream_only_plugins() {
  // Every plugin of kubernetes-sigs/descheduler v0.32 has a schema now; a plugin upstream adds
  // later goes here until loadshift implements it.
  static const std::vector<std::string_view> kUpstreamOnly = {};
  return kUpstreamOnly;
}

bool is_upstream_only_plugin(std::string_view name) {
  const std::vector<std::string_view>& names = upstream_only_plugins();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace loadshift::policy

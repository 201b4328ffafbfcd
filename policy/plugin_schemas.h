// The plugins a policy may name: their args schema (read, validate, default, write back) and the
// extension points they implement. A name not here is an error that says whether upstream has
// it (and loadshift does not yet) or nobody does (with a "did you mean").
#pragma once

#include <yaml-cpp/yaml.h>

#include <string_view>
#include <vector>

#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

enum class ExtensionPoint { kDeschedule, kBalance, kFilter, kPreEvictionFilter };
std::string_view to_string(ExtensionPoint point);  // "deschedule", "balance", ...

struct PluginSchema {
  std::string_view name;
  std::vector<ExtensionPoint> extension_points;
  // Args without a usable default (e.g. LoadAware's thresholds): a plugin that is enabled with no
  // pluginConfig, or whose pluginConfig has no args, is an error naming these.
  std::vector<std::string_view> required_args;
  // The args with every default filled in (what runs when the policy gives none).
  PluginArgs (*defaults)();
  // Reads `args` (a mapping), validates it, fills defaults, reports every problem through the
  // reader's diagnostics and calls args.finish(). Returns the args even when invalid (defaults
  // in place of bad fields); the loader discards the policy when any error was reported.
  PluginArgs (*read)(FieldReader& args);
  // Writes the args as a YAML mapping that read() accepts and turns back into equal args.
  void (*write)(const PluginArgs& args, YAML::Emitter& out);

  bool implements(ExtensionPoint point) const;
};

// The schema of `name`, or nullptr.
const PluginSchema* find_plugin_schema(std::string_view name);
// Every schema, in a stable order.
const std::vector<PluginSchema>& plugin_schemas();
// True for plugins kubernetes-sigs/descheduler has that loadshift does not (none today: the
// loader then says "does not implement ... yet" instead of "unknown plugin").
bool is_upstream_only_plugin(std::string_view name);
// Those plugins' names, in a stable order.
const std::vector<std::string_view>& upstream_only_plugins();

// Per-plugin args, defined in their own files (policy/*_args.cc).
PluginArgs default_default_evictor_args();
PluginArgs read_default_evictor_args(FieldReader& args);
void write_default_evictor_args(const PluginArgs& args, YAML::Emitter& out);
// The keys of DefaultEvictor's args that every version has (nodeSelector, labelSelector,
// priorityThreshold, nodeFit, minReplicas), for both effective forms.
void write_default_evictor_common(const DefaultEvictorArgs& args, YAML::Emitter& out);

PluginArgs default_load_aware_args();
PluginArgs read_load_aware_args(FieldReader& args);
void write_load_aware_args(const PluginArgs& args, YAML::Emitter& out);
// The keys of LoadAware's args that Volcano has besides metrics and duration (thresholds through
// evictableNamespaces), for both effective forms.
void write_load_aware_volcano_fields(const LoadAwareArgs& args, YAML::Emitter& out);

PluginArgs default_low_node_utilization_args();
PluginArgs read_low_node_utilization_args(FieldReader& args);
PluginArgs default_high_node_utilization_args();
PluginArgs read_high_node_utilization_args(FieldReader& args);
void write_node_utilization_args(const PluginArgs& args, YAML::Emitter& out);

PluginArgs default_node_affinity_args();
PluginArgs read_node_affinity_args(FieldReader& args);
void write_node_affinity_args(const PluginArgs& args, YAML::Emitter& out);

PluginArgs default_node_taints_args();
PluginArgs read_node_taints_args(FieldReader& args);
void write_node_taints_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_pod_lifetime_args();
PluginArgs read_pod_lifetime_args(FieldReader& args);
void write_pod_lifetime_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_too_many_restarts_args();
PluginArgs read_too_many_restarts_args(FieldReader& args);
void write_too_many_restarts_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_failed_pods_args();
PluginArgs read_failed_pods_args(FieldReader& args);
void write_failed_pods_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_remove_duplicates_args();
PluginArgs read_remove_duplicates_args(FieldReader& args);
void write_remove_duplicates_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_inter_pod_anti_affinity_args();
PluginArgs read_inter_pod_anti_affinity_args(FieldReader& args);
void write_inter_pod_anti_affinity_args(const PluginArgs& args, YAML::Emitter& out);
PluginArgs default_topology_spread_args();
PluginArgs read_topology_spread_args(FieldReader& args);
void write_topology_spread_args(const PluginArgs& args, YAML::Emitter& out);

}  // namespace loadshift::policy

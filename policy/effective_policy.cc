// Writing the effective policy back as YAML. Plugin args are written by their schemas
// (policy/plugin_schemas.h); this file writes the document around them.
#include "policy/effective_policy.h"

#include <yaml-cpp/yaml.h>

#include "policy/plan_settings.h"
#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

void write_profile(YAML::Emitter& out, const Profile& profile) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, profile.name);
  out << YAML::Key << "pluginConfig" << YAML::Value;
  if (profile.plugin_config.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const PluginConfig& config : profile.plugin_config) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value;
    emit_string(out, config.name);
    if (const PluginSchema* schema = find_plugin_schema(config.name)) {
      out << YAML::Key << "args" << YAML::Value;
      schema->write(config.args, out);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_plugins(out, profile.plugins);
  out << YAML::EndMap;
}

void write_metrics_providers(YAML::Emitter& out, const MetricsProviders& providers) {
  out << YAML::Key << "metricsProviders" << YAML::Value;
  if (!providers.kubernetes_metrics && !providers.prometheus) out << YAML::Flow;
  out << YAML::BeginSeq;
  if (providers.kubernetes_metrics) {
    out << YAML::BeginMap << YAML::Key << "source" << YAML::Value << "KubernetesMetrics"
        << YAML::EndMap;
  }
  if (const std::optional<PrometheusProvider>& prometheus = providers.prometheus) {
    out << YAML::BeginMap << YAML::Key << "source" << YAML::Value << "Prometheus";
    out << YAML::Key << "prometheus" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "url" << YAML::Value;
    emit_string(out, prometheus->url);
    if (!prometheus->auth_secret_namespace.empty() || !prometheus->auth_secret_name.empty()) {
      out << YAML::Key << "authToken" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "secretReference" << YAML::Value << YAML::BeginMap;
      out << YAML::Key << "namespace" << YAML::Value;
      emit_string(out, prometheus->auth_secret_namespace);
      out << YAML::Key << "name" << YAML::Value;
      emit_string(out, prometheus->auth_secret_name);
      out << YAML::EndMap << YAML::EndMap;
    }
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq;
}

void write_count(YAML::Emitter& out, const char* key, const std::optional<uint32_t>& value) {
  if (value) out << YAML::Key << key << YAML::Value << *value;
}

}  // namespace

std::string write_policy_yaml(const Policy& policy) {
  YAML::Emitter out;
  out << YAML::Comment(
      "The effective policy: every default filled in (written by loadshift).\n"
      "loadshift reads it back unchanged. It holds loadshift's own keys (podProtections,\n"
      "LoadAware metrics.window, gang, gpu, ...), which Volcano's descheduler refuses: it decodes\n"
      "plugin args strictly. For Volcano write `loadshift validate --effective --for volcano`.");
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "descheduler/v1alpha2";
  out << YAML::Key << "kind" << YAML::Value << "DeschedulerPolicy";
  out << YAML::Key << "nodeSelector" << YAML::Value;
  emit_string(out, policy.node_selector);
  write_count(out, "maxNoOfPodsToEvictPerNode", policy.max_pods_to_evict_per_node);
  write_count(out, "maxNoOfPodsToEvictPerNamespace", policy.max_pods_to_evict_per_namespace);
  write_count(out, "maxNoOfPodsToEvictTotal", policy.max_pods_to_evict_total);
  out << YAML::Key << "evictionFailureEventNotification" << YAML::Value
      << policy.eviction_failure_event_notification;
  if (policy.grace_period_seconds) {
    out << YAML::Key << "gracePeriodSeconds" << YAML::Value << *policy.grace_period_seconds;
  }
  write_metrics_providers(out, policy.metrics_providers);
  write_plan_settings(out, policy.loadshift);
  out << YAML::Key << "profiles" << YAML::Value;
  if (policy.profiles.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const Profile& profile : policy.profiles) write_profile(out, profile);
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace loadshift::policy

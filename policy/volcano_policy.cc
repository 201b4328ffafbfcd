// Writing the effective policy for Volcano's descheduler: kubernetes-sigs/descheduler v0.30's
// fields (the version Volcano's descheduler builds on) plus Volcano's LoadAware args.
#include "policy/volcano_policy.h"

#include <yaml-cpp/yaml.h>

#include <sstream>

#include "policy/plan_settings.h"
#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

// Collects the settings Volcano cannot express, each prefixed with where it is.
class NotCarried {
 public:
  explicit NotCarried(std::vector<std::string>* out) : out_(out) {}
  void add(const std::string& where, const std::string& what) {
    out_->push_back(where.empty() ? what : where + " " + what);
  }

 private:
  std::vector<std::string>* out_;
};

void write_default_evictor(const DefaultEvictorArgs& args, YAML::Emitter& out,
                           const std::string& where, NotCarried& lost) {
  out << YAML::BeginMap;
  write_default_evictor_common(args, out);
  // Protections as the booleans of v0.30 (podProtections came with v0.34).
  const PodProtections& p = args.protections;
  out << YAML::Key << "evictLocalStoragePods" << YAML::Value << !p.local_storage;
  out << YAML::Key << "evictDaemonSetPods" << YAML::Value << !p.daemon_set;
  out << YAML::Key << "evictSystemCriticalPods" << YAML::Value << !p.system_critical;
  out << YAML::Key << "evictFailedBarePods" << YAML::Value << !p.failed_bare;
  out << YAML::Key << "ignorePvcPods" << YAML::Value << p.with_pvc;
  out << YAML::EndMap;

  if (args.namespace_label_selector) {
    lost.add(where, "namespaceLabelSelector: kubernetes-sigs v0.35+; Volcano has no such filter");
  }
  if (args.min_pod_age) {
    lost.add(where, "minPodAge " + args.min_pod_age->text +
                        ": kubernetes-sigs v0.31+; Volcano evicts pods of any age");
  }
  if (args.no_eviction_policy == NoEvictionPolicy::kMandatory) {
    lost.add(where,
             "noEvictionPolicy Mandatory: kubernetes-sigs v0.34+; Volcano ignores the "
             "prefer-no-eviction annotation");
  }
  if (p.without_pdb) {
    lost.add(where,
             "protection PodsWithoutPDB: kubernetes-sigs v0.32+; Volcano evicts pods "
             "without a PodDisruptionBudget");
  }
  if (p.with_resource_claims) {
    lost.add(where,
             "protection PodsWithResourceClaims: kubernetes-sigs v0.34+; Volcano evicts "
             "pods with resource claims");
  }
  if (!p.protected_storage_classes.empty()) {
    lost.add(where,
             "PodsWithPVC protectedStorageClasses: kubernetes-sigs v0.35+; Volcano's "
             "ignorePvcPods protects every pod with a PVC");
  }
}

// `evictor_node_fit`: the profile's DefaultEvictor nodeFit, which Volcano's LoadAware runs as
// its pre-eviction filter.
void write_load_aware(const LoadAwareArgs& args, bool evictor_node_fit, YAML::Emitter& out,
                      const std::string& where, NotCarried& lost) {
  out << YAML::BeginMap;
  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value << "prometheus";  // Volcano's exact constant
  out << YAML::Key << "address" << YAML::Value;
  emit_string(out, args.metrics.address);
  out << YAML::EndMap;
  out << YAML::Key << "duration" << YAML::Value << args.metrics.window.text;
  write_load_aware_volcano_fields(args, out);
  out << YAML::EndMap;

  const LoadAwareArgs defaults;
  const LoadAwareMetrics& m = args.metrics;
  const LoadAwareMetrics& dm = defaults.metrics;
  if (m.step != dm.step) {
    lost.add(where, "metrics.step " + m.step.text + ": Volcano hard-codes 30s");
  }
  if (m.timeout != dm.timeout) {
    lost.add(where, "metrics.timeout " + m.timeout.text + ": Volcano waits without a timeout");
  }
  if (m.queries != dm.queries) {
    lost.add(where, "metrics.queries: Volcano runs its own fixed queries");
  }
  if (m.node_label != dm.node_label || m.node_match == NodeMatch::kInternalIp) {
    lost.add(where,
             "metrics.nodeLabel/nodeMatch: Volcano matches the instance label to the node "
             "name only");
  }
  if (!m.bearer_token_file.empty() || !m.ca_file.empty() || m.insecure_skip_verify ||
      !m.headers.empty()) {
    lost.add(where, "metrics TLS, token and header settings: Volcano connects without them");
  }
  if (m.min_node_coverage != dm.min_node_coverage) {
    lost.add(where,
             "metrics.minNodeCoverage: Volcano has no coverage gate (a node without data "
             "counts as idle there)");
  }
  if (args.sustained_for) {
    lost.add(where, "sustainedFor " + args.sustained_for->text + ": Volcano acts on one window");
  }
  if (!args.node_pools.empty()) {
    lost.add(where, "nodePools: Volcano applies one pair of watermarks to every node");
  }
  if (args.scheduler_scoring != defaults.scheduler_scoring) {
    lost.add(where, "schedulerScoring " + args.scheduler_scoring.type +
                        ": Volcano does not predict where replacements land");
  }
  if (args.resource_weights != defaults.resource_weights) {
    lost.add(where, "resourceWeights: Volcano orders nodes by an unweighted sum");
  }
  if (args.eviction_limits.node || args.eviction_limits.namespace_ ||
      args.eviction_limits.workload) {
    lost.add(where,
             "evictionLimits: Volcano has only the policy's maxNoOfPodsToEvictPerNode and "
             "PerNamespace");
  }
  // Where Volcano's LoadAware itself behaves differently, whatever the settings.
  lost.add(where,
           "nodes without usage data: loadshift never uses them, Volcano counts them as "
           "idle (usage 0) and may send pods there");
  if (!args.node_fit && !evictor_node_fit) {
    lost.add(where,
             "nodeFit false here and in DefaultEvictor: loadshift evicts only to a target "
             "it proved, Volcano then evicts without any fit check");
  }
  if (args.use_deviation_thresholds) {
    lost.add(where,
             "useDeviationThresholds: Volcano takes the mean from requests, not usage, and "
             "sets unnamed resources to 0/0");
  }
  // loadshift's own protections, on by default: Volcano has none of them.
  if (!args.evict_gpu_pods || !args.evict_gang_pods || args.respect_restart_policies) {
    lost.add(where,
             "loadshift's protections of GPU pods and Volcano gangs (gpu, gang): Volcano "
             "evicts such pods like any other");
  }
}

void write_node_utilization(const std::string& name, const NodeUtilizationArgs& args,
                            YAML::Emitter& out, const std::string& where, NotCarried& lost) {
  bool low = name == "LowNodeUtilization";
  out << YAML::BeginMap;
  out << YAML::Key << "thresholds" << YAML::Value;
  emit_percentages(out, args.thresholds);
  if (low) {
    out << YAML::Key << "targetThresholds" << YAML::Value;
    emit_percentages(out, args.target_thresholds);
    out << YAML::Key << "useDeviationThresholds" << YAML::Value << args.use_deviation_thresholds;
  }
  out << YAML::Key << "numberOfNodes" << YAML::Value << args.number_of_nodes;
  emit_namespaces(out, "evictableNamespaces", Namespaces{{}, args.excluded_namespaces});
  out << YAML::EndMap;

  if (args.eviction_limit_node) {
    lost.add(where, "evictionLimits.node: kubernetes-sigs v0.33+");
  }
  if (!args.metrics_utilization.source.empty()) {
    lost.add(where, "metricsUtilization (source " + args.metrics_utilization.source +
                        "): kubernetes-sigs v0.32+; Volcano classifies on requests");
  }
  if (!args.eviction_modes.empty()) {
    lost.add(where, "evictionModes: kubernetes-sigs v0.33+");
  }
}

void write_profile(YAML::Emitter& out, const Profile& profile, size_t index, NotCarried& lost) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  emit_string(out, profile.name);
  out << YAML::Key << "pluginConfig" << YAML::Value << YAML::BeginSeq;
  for (const PluginConfig& config : profile.plugin_config) {
    std::string where = "profiles[" + std::to_string(index) + "] " + config.name;
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value;
    emit_string(out, config.name);
    out << YAML::Key << "args" << YAML::Value;
    if (const auto* evictor = std::get_if<DefaultEvictorArgs>(&config.args)) {
      write_default_evictor(*evictor, out, where, lost);
    } else if (const auto* load_aware = std::get_if<LoadAwareArgs>(&config.args)) {
      const PluginConfig* evictor = profile.config("DefaultEvictor");
      const auto* evictor_args =
          evictor != nullptr ? std::get_if<DefaultEvictorArgs>(&evictor->args) : nullptr;
      write_load_aware(*load_aware, evictor_args != nullptr && evictor_args->node_fit, out, where,
                       lost);
    } else if (const auto* utilization = std::get_if<NodeUtilizationArgs>(&config.args)) {
      write_node_utilization(config.name, *utilization, out, where, lost);
    } else {
      // NodeAffinity and NodeTaints: every field loadshift has, v0.30 has too.
      find_plugin_schema(config.name)->write(config.args, out);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_plugins(out, profile.plugins);
  out << YAML::EndMap;
}

void note_top_level(const Policy& policy, NotCarried& lost) {
  if (policy.max_pods_to_evict_total) {
    lost.add("", "maxNoOfPodsToEvictTotal " + std::to_string(*policy.max_pods_to_evict_total) +
                     ": kubernetes-sigs v0.31+; Volcano has no total limit");
  }
  if (policy.grace_period_seconds) {
    lost.add("",
             "gracePeriodSeconds: kubernetes-sigs v0.33+; Volcano evicts with each pod's own "
             "grace period");
  }
  if (policy.metrics_providers.kubernetes_metrics || policy.metrics_providers.prometheus) {
    lost.add("", "metricsProviders: kubernetes-sigs v0.33+");
  }
  if (policy.eviction_failure_event_notification) {
    lost.add("", "evictionFailureEventNotification: kubernetes-sigs v0.33+");
  }
}

}  // namespace

VolcanoPolicy write_volcano_policy_yaml(const Policy& policy) {
  VolcanoPolicy result;
  NotCarried lost(&result.not_carried);
  note_top_level(policy, lost);

  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "apiVersion" << YAML::Value << "descheduler/v1alpha2";
  out << YAML::Key << "kind" << YAML::Value << "DeschedulerPolicy";
  out << YAML::Key << "nodeSelector" << YAML::Value;
  emit_string(out, policy.node_selector);
  if (policy.max_pods_to_evict_per_node) {
    out << YAML::Key << "maxNoOfPodsToEvictPerNode" << YAML::Value
        << *policy.max_pods_to_evict_per_node;
  }
  if (policy.max_pods_to_evict_per_namespace) {
    out << YAML::Key << "maxNoOfPodsToEvictPerNamespace" << YAML::Value
        << *policy.max_pods_to_evict_per_namespace;
  }
  // Volcano's descheduler drops unknown top-level keys: loadshift's section rides along, so the
  // same ConfigMap serves both.
  write_plan_settings(out, policy.loadshift);
  out << YAML::Key << "profiles" << YAML::Value;
  if (policy.profiles.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (size_t i = 0; i < policy.profiles.size(); ++i) {
    write_profile(out, policy.profiles[i], i, lost);
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;

  std::ostringstream text;
  text << "# The effective policy for Volcano's descheduler (written by loadshift validate "
          "--effective --for volcano):\n"
          "# only the fields Volcano reads, with loadshift's defaults written out.\n";
  if (result.not_carried.empty()) {
    text << "# Every setting of the policy is carried over.\n";
  } else {
    text << "# Not carried over (Volcano has no such setting and behaves differently there):\n";
    for (const std::string& line : result.not_carried) text << "#   - " << line << "\n";
  }
  text << out.c_str() << "\n";
  result.yaml = text.str();
  return result;
}

}  // namespace loadshift::policy

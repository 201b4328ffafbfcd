// The human summary of an effective policy, for `loadshift validate`.
#include <charconv>
#include <sstream>
#include <type_traits>

#include "policy/effective_policy.h"
#include "policy/plan_settings.h"

namespace loadshift::policy {
namespace {

std::string number(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : "?";
}

std::string join(const std::vector<std::string>& items, const std::string& none = "none") {
  if (items.empty()) return none;
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// "cpu 30%, memory 30%".
std::string percentages(const Percentages& values) {
  std::vector<std::string> parts;
  for (const auto& [resource, percent] : values)
    parts.push_back(resource + " " + number(percent) + "%");
  return join(parts);
}

std::string count(const std::optional<uint32_t>& value) {
  return value ? std::to_string(*value) : "unlimited";
}

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}

std::string selector(const std::string& text) {
  return text.empty() ? "all nodes" : "\"" + text + "\"";
}

std::string protections(const PodProtections& p) {
  std::vector<std::string> names;
  if (p.local_storage) names.push_back("PodsWithLocalStorage");
  if (p.daemon_set) names.push_back("DaemonSetPods");
  if (p.system_critical) names.push_back("SystemCriticalPods");
  if (p.failed_bare) names.push_back("FailedBarePods");
  if (p.with_pvc) {
    names.push_back(p.protected_storage_classes.empty()
                        ? "PodsWithPVC"
                        : "PodsWithPVC (storage classes " + join(p.protected_storage_classes) +
                              ")");
  }
  if (p.without_pdb) names.push_back("PodsWithoutPDB");
  if (p.with_resource_claims) names.push_back("PodsWithResourceClaims");
  return join(names);
}

void summarize(std::ostream& out, const DefaultEvictorArgs& a) {
  out << "priorityThreshold "
      << (a.priority_threshold.name.empty()
              ? std::to_string(a.priority_threshold.value.value_or(2000000000))
              : "PriorityClass " + a.priority_threshold.name)
      << ", nodeFit " << yes_no(a.node_fit);
  if (a.node_fit) out << " (destinations: " << selector(a.node_selector) << ")";
  out << ", minReplicas " << a.min_replicas << ", minPodAge "
      << (a.min_pod_age ? a.min_pod_age->text : "none") << ", noEvictionPolicy "
      << (a.no_eviction_policy == NoEvictionPolicy::kMandatory ? "Mandatory" : "Preferred");
  if (a.label_selector) out << ", with a pod labelSelector";
  if (a.namespace_label_selector) out << ", with a namespaceLabelSelector";
  out << "\n      protects: " << protections(a.protections);
}

void summarize(std::ostream& out, const LoadAwareArgs& a) {
  out << "thresholds " << percentages(a.thresholds) << "; targetThresholds "
      << percentages(a.target_thresholds);
  if (a.use_deviation_thresholds) out << " (deviation from the mean)";
  out << "\n      metrics " << a.metrics.type << " "
      << (a.metrics.address.empty() ? "(no address)" : a.metrics.address) << ", window "
      << a.metrics.window.text << ", step " << a.metrics.step.text << ", timeout "
      << a.metrics.timeout.text;
  if (a.sustained_for) out << ", sustainedFor " << a.sustained_for->text;
  out << "\n      nodeFit " << yes_no(a.node_fit) << ", numberOfNodes " << a.number_of_nodes
      << ", excluded namespaces " << join(a.excluded_namespaces);
  if (!a.node_pools.empty()) {
    std::vector<std::string> names;
    for (const NodePool& pool : a.node_pools) names.push_back(pool.name);
    out << ", node pools " << join(names);
  }
  out << ", gang pods " << (a.evict_gang_pods ? "evicted" : "kept") << ", GPU pods "
      << (a.evict_gpu_pods ? "evicted" : "kept");
}

void summarize(std::ostream& out, const NodeUtilizationArgs& a) {
  out << "thresholds " << percentages(a.thresholds);
  if (!a.target_thresholds.empty())
    out << "; targetThresholds " << percentages(a.target_thresholds);
  if (a.use_deviation_thresholds) out << " (deviation from the mean)";
  out << "\n      usage from "
      << (a.metrics_utilization.source.empty() ? "pod requests" : a.metrics_utilization.source)
      << ", numberOfNodes " << a.number_of_nodes << ", excluded namespaces "
      << join(a.excluded_namespaces);
  if (a.eviction_limit_node) out << ", at most " << *a.eviction_limit_node << " per node";
  if (!a.eviction_modes.empty()) out << ", evictionModes " << join(a.eviction_modes);
}

std::string namespaces(const Namespaces& n) {
  if (!n.include.empty()) return "namespaces " + join(n.include);
  if (!n.exclude.empty()) return "all namespaces but " + join(n.exclude);
  return "all namespaces";
}

void summarize(std::ostream& out, const NodeAffinityArgs& a) {
  out << "nodeAffinityType " << join(a.node_affinity_type) << "; " << namespaces(a.namespaces);
}

void summarize(std::ostream& out, const NodeTaintsArgs& a) {
  if (!a.included_taints.empty())
    out << "only taints " << join(a.included_taints);
  else if (!a.excluded_taints.empty())
    out << "all taints but " << join(a.excluded_taints);
  else
    out << "all taints";
  out << ", PreferNoSchedule " << (a.include_prefer_no_schedule ? "included" : "ignored") << "; "
      << namespaces(a.namespaces);
}

std::string exit_codes(const std::vector<int32_t>& codes) {
  std::vector<std::string> texts;
  for (int32_t code : codes) texts.push_back(std::to_string(code));
  return join(texts);
}

std::string containers(bool including_init) {
  return including_init ? "containers and init containers" : "containers";
}

void summarize(std::ostream& out, const PodLifeTimeArgs& a) {
  std::vector<std::string> parts;
  if (a.max_pod_life_time_seconds) {
    parts.push_back("older than " + std::to_string(*a.max_pod_life_time_seconds) + " s");
  }
  if (!a.states.empty()) parts.push_back("in states " + join(a.states));
  if (!a.conditions.empty()) {
    std::vector<std::string> any;  // ORed; the fields of one entry ANDed
    for (const PodConditionFilter& c : a.conditions) {
      std::vector<std::string> fields;
      if (!c.type.empty()) fields.push_back("type " + c.type);
      if (!c.status.empty()) fields.push_back("status " + c.status);
      if (!c.reason.empty()) fields.push_back("reason " + c.reason);
      if (c.min_time_since_last_transition_seconds) {
        fields.push_back("unchanged for " +
                         std::to_string(*c.min_time_since_last_transition_seconds) + " s");
      }
      std::string text;
      for (const std::string& f : fields) text += (text.empty() ? "" : " and ") + f;
      any.push_back("{" + text + "}");
    }
    std::string text;
    for (const std::string& c : any) text += (text.empty() ? "" : " or ") + c;
    parts.push_back("with a condition " + text);
  }
  if (!a.exit_codes.empty()) parts.push_back("exit codes " + exit_codes(a.exit_codes));
  if (!a.owner_kinds.include.empty()) parts.push_back("owned by " + join(a.owner_kinds.include));
  if (!a.owner_kinds.exclude.empty()) {
    parts.push_back("not owned by " + join(a.owner_kinds.exclude));
  }
  std::string which = containers(a.including_init_containers);
  if (a.including_ephemeral_containers) which += ", ephemeral containers' states";
  out << "pods " << join(parts) << " (" << which << "); " << namespaces(a.namespaces);
}

void summarize(std::ostream& out, const TooManyRestartsArgs& a) {
  out << "pods with " << a.pod_restart_threshold << " restarts or more ("
      << containers(a.including_init_containers) << ")";
  if (!a.states.empty()) out << " in states " << join(a.states);
  out << "; " << namespaces(a.namespaces);
}

void summarize(std::ostream& out, const FailedPodsArgs& a) {
  out << "Failed pods at least " << a.min_pod_lifetime_seconds << " s old";
  if (!a.reasons.empty()) out << ", reasons " << join(a.reasons);
  if (!a.exit_codes.empty()) out << ", exit codes " << exit_codes(a.exit_codes);
  if (!a.exclude_owner_kinds.empty()) out << ", not owned by " << join(a.exclude_owner_kinds);
  out << " (" << containers(a.including_init_containers) << "); " << namespaces(a.namespaces);
}

void summarize(std::ostream& out, const RemoveDuplicatesArgs& a) {
  out << "duplicates of one owner and images on a node";
  if (!a.exclude_owner_kinds.empty()) out << ", not owned by " << join(a.exclude_owner_kinds);
  out << "; " << namespaces(a.namespaces);
}

void summarize(std::ostream& out, const InterPodAntiAffinityArgs& a) {
  out << "pods whose required anti-affinity matches a pod of their domain; "
      << namespaces(a.namespaces);
  if (a.label_selector) out << ", with a pod labelSelector";
}

void summarize(std::ostream& out, const TopologySpreadArgs& a) {
  std::vector<std::string> actions;
  for (model::UnsatisfiableAction action : a.constraints) {
    actions.push_back(action == model::UnsatisfiableAction::kDoNotSchedule ? "DoNotSchedule"
                                                                           : "ScheduleAnyway");
  }
  out << "constraints " << join(actions) << ", targets "
      << (a.topology_balance_node_fit ? "in domains below the ideal average"
                                      : "anywhere outside the pod's domain")
      << "; " << namespaces(a.namespaces);
  if (a.label_selector) out << ", with a pod labelSelector";
}

void summarize_profile(std::ostream& out, const Profile& profile) {
  out << "profile \"" << profile.name << "\"\n";
  out << "  deschedule:        " << join(profile.plugins.deschedule.enabled) << "\n";
  out << "  balance:           " << join(profile.plugins.balance.enabled) << "\n";
  out << "  filter:            " << join(profile.plugins.filter.enabled) << "\n";
  out << "  preEvictionFilter: " << join(profile.plugins.pre_eviction_filter.enabled) << "\n";
  for (const PluginConfig& config : profile.plugin_config) {
    out << "    " << config.name << ": ";
    std::visit([&](const auto& args) { summarize(out, args); }, config.args);
    out << "\n";
  }
}

}  // namespace

std::string summarize_policy(const Policy& policy) {
  std::ostringstream out;
  out << "DeschedulerPolicy descheduler/v1alpha2, " << policy.profiles.size()
      << (policy.profiles.size() == 1 ? " profile\n" : " profiles\n");
  out << "  nodes: " << selector(policy.node_selector) << "\n";
  out << "  eviction limits: per node " << count(policy.max_pods_to_evict_per_node)
      << ", per namespace " << count(policy.max_pods_to_evict_per_namespace) << ", total "
      << count(policy.max_pods_to_evict_total) << "\n";
  out << "  grace period: "
      << (policy.grace_period_seconds ? std::to_string(*policy.grace_period_seconds) + "s"
                                      : "each pod's own")
      << "; events on failed evictions: " << yes_no(policy.eviction_failure_event_notification)
      << "\n";
  std::vector<std::string> providers;
  if (policy.metrics_providers.kubernetes_metrics) providers.push_back("KubernetesMetrics");
  if (const auto& prometheus = policy.metrics_providers.prometheus) {
    providers.push_back("Prometheus " + prometheus->url +
                        (prometheus->auth_secret_name.empty()
                             ? " (service account token)"
                             : " (token from secret " + prometheus->auth_secret_namespace + "/" +
                                   prometheus->auth_secret_name + ")"));
  }
  out << "  metrics providers: " << join(providers) << "\n";
  summarize_plan_settings(out, policy.loadshift);
  for (const Profile& profile : policy.profiles) summarize_profile(out, profile);
  return out.str();
}

}  // namespace loadshift::policy

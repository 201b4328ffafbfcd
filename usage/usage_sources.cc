#include "usage/usage_sources.h"

#include "http/http_client.h"

#include <variant>

#include "metrics/file_source.h"
#include "policy/http_url.h"

namespace loadshift::usage {
namespace {

metrics::NodeMatchMode node_match_mode(policy::NodeMatch match) {
  switch (match) {
    case policy::NodeMatch::kName:
      return metrics::NodeMatchMode::kName;
    case policy::NodeMatch::kInternalIp:
      return metrics::NodeMatchMode::kInternalIp;
    case policy::NodeMatch::kAuto:
      break;
  }
  return metrics::NodeMatchMode::kAuto;
}

// Every LowNodeUtilization enabled under balance with metricsUtilization source Prometheus, in
// profile order.
std::vector<const policy::NodeUtilizationArgs*> prometheus_low_node_utilizations(
    const policy::Policy& policy) {
  std::vector<const policy::NodeUtilizationArgs*> out;
  for (const policy::Profile& profile : policy.profiles) {
    for (const std::string& name : profile.plugins.balance.enabled) {
      if (name != "LowNodeUtilization") continue;
      const policy::PluginConfig* config = profile.config(name);
      if (config == nullptr) continue;
      const auto* args = std::get_if<policy::NodeUtilizationArgs>(&config->args);
      if (args != nullptr && args->metrics_utilization.source == "Prometheus") out.push_back(args);
    }
  }
  return out;
}

// The metricsProviders prometheus url, "" when the policy names none.
std::string providers_url(const policy::Policy& policy) {
  const auto& prometheus = policy.metrics_providers.prometheus;
  return prometheus ? prometheus->url : "";
}

}  // namespace

metrics::PrometheusSettings prometheus_settings(
    const policy::LoadAwareMetrics& m, std::optional<std::chrono::system_clock::time_point> at) {
  metrics::PrometheusSettings s;
  s.address = m.address;
  s.window_ms = m.window.milliseconds;
  s.step_ms = m.step.milliseconds;
  s.timeout_ms = m.timeout.milliseconds;
  s.cpu_query = m.queries.cpu;
  s.memory_query = m.queries.memory;
  s.pod_cpu_query = m.queries.pod_cpu;
  s.pod_memory_query = m.queries.pod_memory;
  s.node_label = m.node_label;
  s.node_match = node_match_mode(m.node_match);
  s.bearer_token_file = m.bearer_token_file;
  s.ca_file = m.ca_file;
  s.insecure_skip_verify = m.insecure_skip_verify;
  s.headers = m.headers;
  s.evaluation_time = at;
  return s;
}

const policy::NodeUtilizationArgs* first_prometheus_low_node_utilization(
    const policy::Policy& policy) {
  std::vector<const policy::NodeUtilizationArgs*> all = prometheus_low_node_utilizations(policy);
  return all.empty() ? nullptr : all.front();
}

metrics::UsageRequest usage_request(const policy::LoadAwareArgs* load_aware,
                                    const policy::NodeUtilizationArgs* low_node_utilization) {
  metrics::UsageRequest request;
  request.pods = true;
  if (load_aware != nullptr && load_aware->sustained_for) {
    request.sustained_for_ms = load_aware->sustained_for->milliseconds;
  }
  if (low_node_utilization != nullptr &&
      low_node_utilization->metrics_utilization.source == "Prometheus") {
    request.metric_resource_query = low_node_utilization->metrics_utilization.prometheus_query;
  }
  return request;
}

namespace {

bool reads_node_usage(const policy::Policy& policy) {
  if (first_load_aware(policy) != nullptr) return true;
  for (const policy::Profile& profile : policy.profiles) {
    if (!profile.plugins.deschedule.enabled.empty()) return true;
    for (const std::string& name : profile.plugins.balance.enabled) {
      const policy::PluginConfig* config = profile.config(name);
      if (config == nullptr) continue;
      const auto* args = std::get_if<policy::NodeUtilizationArgs>(&config->args);
      if (args != nullptr && args->metrics_utilization.source == "KubernetesMetrics") return true;
    }
  }
  return false;
}

}  // namespace

bool check_prometheus_flag(const std::string& url, std::ostream& err) {
  if (url.empty()) return true;
  std::string why = policy::check_http_url(url);
  if (why.empty()) return true;
  err << "error: --prometheus: expected an http(s) URL such as "
         "http://prometheus.monitoring.svc:9090, found \""
      << http::redact_url(url) << "\": " << why << "\n";
  return false;
}

metrics::UsageRequest usage_request(const policy::Policy& policy) {
  metrics::UsageRequest request =
      usage_request(first_load_aware(policy), first_prometheus_low_node_utilization(policy));
  if (!request.metric_resource_query.empty() && !reads_node_usage(policy)) {
    request.node_usage = false;
    request.pods = false;
  }
  return request;
}

std::vector<metrics::NodeIdentity> node_identities(const model::Snapshot& snapshot) {
  std::vector<metrics::NodeIdentity> nodes;
  nodes.reserve(snapshot.nodes.size());
  for (const model::Node& node : snapshot.nodes) nodes.push_back(node_identity(node));
  return nodes;
}

metrics::NodeIdentity node_identity(const model::Node& node) {
  return {node.meta.name, std::string(node.internal_ip())};
}

std::unique_ptr<metrics::NodeUsageSource> make_usage_source(const UsageFlags& flags,
                                                            const policy::Policy& policy,
                                                            std::string* why_none) {
  if (!flags.usage_file.empty()) return std::make_unique<metrics::FileSource>(flags.usage_file);
  const policy::LoadAwareArgs* load_aware = first_load_aware(policy);
  if (load_aware != nullptr) {
    metrics::PrometheusSettings settings = prometheus_settings(load_aware->metrics, flags.at);
    if (!flags.prometheus_url.empty()) settings.address = flags.prometheus_url;
    if (flags.providers_token && settings.address == providers_url(policy)) {
      settings.bearer_token = *flags.providers_token;
    }
    return std::make_unique<metrics::PrometheusSource>(std::move(settings), flags.self_metrics);
  }
  std::string address =
      !flags.prometheus_url.empty() ? flags.prometheus_url : providers_url(policy);
  if (!address.empty()) {
    metrics::PrometheusSettings settings;  // the built-in defaults: 5m window, 30s step, ...
    settings.address = address;
    settings.evaluation_time = flags.at;
    if (flags.providers_token && address == providers_url(policy)) {
      settings.bearer_token = *flags.providers_token;
    }
    return std::make_unique<metrics::PrometheusSource>(std::move(settings), flags.self_metrics);
  }
  if (why_none != nullptr) {
    *why_none =
        "no usage source: the policy has no LoadAware plugin (whose metrics block names "
        "Prometheus) and no metricsProviders prometheus url, and neither --usage nor --prometheus "
        "was given";
  }
  return nullptr;
}

std::vector<std::string> usage_source_warnings(const UsageFlags& flags,
                                               const policy::Policy& policy) {
  std::vector<std::string> out;
  if (!flags.usage_file.empty()) return out;
  const std::string providers = providers_url(policy);
  const policy::LoadAwareArgs* load_aware = first_load_aware(policy);
  std::vector<const policy::NodeUtilizationArgs*> lnus = prometheus_low_node_utilizations(policy);
  if (!lnus.empty() && !providers.empty()) {
    std::string used = !flags.prometheus_url.empty() ? flags.prometheus_url
                       : load_aware != nullptr       ? load_aware->metrics.address
                                                     : providers;
    std::string why = !flags.prometheus_url.empty() ? "--prometheus" : "LoadAware's metrics block";
    if (used != providers) {
      out.push_back("LowNodeUtilization's MetricResource query went to " + http::redact_url(used) +
                    " (" + why + "), not to the metricsProviders prometheus url " +
                    http::redact_url(providers));
    }
  }
  const auto& prometheus = policy.metrics_providers.prometheus;
  if (prometheus && !flags.providers_token &&
      (!prometheus->auth_secret_name.empty() || !prometheus->auth_secret_namespace.empty())) {
    out.push_back("metricsProviders prometheus authToken secretReference " +
                  prometheus->auth_secret_namespace + "/" + prometheus->auth_secret_name +
                  " is not used: reading a Secret needs the API client, so the queries carry no "
                  "token from it");
  }
  for (size_t i = 1; i < lnus.size(); ++i) {
    if (lnus[i]->metrics_utilization.prometheus_query !=
        lnus[0]->metrics_utilization.prometheus_query) {
      out.push_back(
          "several LowNodeUtilization plugins with source Prometheus have different queries: "
          "only the first one's (" +
          lnus[0]->metrics_utilization.prometheus_query +
          ") was sent, and all of them classify on its MetricResource");
      break;
    }
  }
  return out;
}

metrics::UsageMap usage_without_source(const std::string& why) {
  metrics::UsageMap usage;
  usage.warnings.push_back(why);
  usage.origin = "none";
  return usage;
}

}  // namespace loadshift::usage

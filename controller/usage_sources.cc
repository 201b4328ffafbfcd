#include "controller/usage_sources.h"

#include <variant>

#include "metrics/file_source.h"

namespace loadshift::controller {
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

metrics::UsageRequest usage_request(const policy::LoadAwareArgs* load_aware) {
  metrics::UsageRequest request;
  request.pods = true;
  if (load_aware != nullptr && load_aware->sustained_for) {
    request.sustained_for_ms = load_aware->sustained_for->milliseconds;
  }
  return request;
}

std::vector<metrics::NodeIdentity> node_identities(const placement::Snapshot& snapshot) {
  std::vector<metrics::NodeIdentity> nodes;
  nodes.reserve(snapshot.nodes.size());
  for (const placement::Node& node : snapshot.nodes) {
    nodes.push_back({node.meta.name, std::string(node.internal_ip())});
  }
  return nodes;
}

std::unique_ptr<metrics::NodeUsageSource> make_usage_source(const UsageFlags& flags,
                                                            const policy::Policy& policy,
                                                            std::string* why_none) {
  if (!flags.usage_file.empty()) return std::make_unique<metrics::FileSource>(flags.usage_file);
  const policy::LoadAwareArgs* load_aware = first_load_aware(policy);
  if (load_aware != nullptr) {
    metrics::PrometheusSettings settings = prometheus_settings(load_aware->metrics, flags.at);
    if (!flags.prometheus_url.empty()) settings.address = flags.prometheus_url;
    return std::make_unique<metrics::PrometheusSource>(std::move(settings));
  }
  if (!flags.prometheus_url.empty()) {
    metrics::PrometheusSettings settings;  // the built-in defaults: 5m window, 30s step, ...
    settings.address = flags.prometheus_url;
    settings.evaluation_time = flags.at;
    return std::make_unique<metrics::PrometheusSource>(std::move(settings));
  }
  if (why_none != nullptr) {
    *why_none =
        "no usage source: the policy has no LoadAware plugin (whose metrics block names "
        "Prometheus) and neither --usage nor --prometheus was given";
  }
  return nullptr;
}

metrics::UsageMap usage_without_source(const std::string& why) {
  metrics::UsageMap usage;
  usage.warnings.push_back(why);
  usage.origin = "none";
  return usage;
}

}  // namespace loadshift::controller

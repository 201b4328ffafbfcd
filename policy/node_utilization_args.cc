// LowNodeUtilization and HighNodeUtilization args, as kubernetes-sigs/descheduler v0.33+ defines
// them (LowNodeUtilizationArgs / HighNodeUtilizationArgs), read strictly. Both share one struct;
// the writer emits only the fields the args use, so HighNodeUtilization's output never carries a
// LowNodeUtilization-only key.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

constexpr const char* kMetricResource = "MetricResource";

// With source Prometheus, upstream's usage client stores the query's value under one key.
std::string check_prometheus_resource(const std::string& name) {
  if (name == kMetricResource) return "";
  return "with metricsUtilization.source Prometheus the only resource is MetricResource (the "
         "query gives one utilisation per node), found \"" +
         name + "\"";
}

MetricsUtilization read_metrics_utilization(FieldReader& args) {
  MetricsUtilization out;
  std::optional<FieldReader> reader = args.object("metricsUtilization");
  if (!reader || !reader->valid()) return out;
  std::optional<bool> metrics_server = reader->boolean("metricsServer");
  std::optional<std::string> source = reader->choice("source", {"KubernetesMetrics", "Prometheus"});
  if (source) out.source = *source;
  if (metrics_server.value_or(false)) {
    if (reader->has("source")) {
      reader->error_at("metricsServer",
                       "set either metricsServer (deprecated) or source, not both; metricsServer: "
                       "true means source: KubernetesMetrics");
    } else {
      reader->warning_at("metricsServer",
                         "deprecated since kubernetes-sigs/descheduler v0.33: use source: "
                         "KubernetesMetrics");
      out.source = "KubernetesMetrics";
    }
  }
  if (reader->has("prometheus")) {
    std::optional<FieldReader> prometheus = reader->object("prometheus");
    if (prometheus && prometheus->valid()) {
      std::optional<std::string> query = prometheus->string("query");
      if (out.source == "Prometheus" && query && query->empty()) {
        prometheus->error_at("query", "expected a PromQL query, found an empty string");
      } else if (out.source == "Prometheus" && !query) {
        prometheus->error_at("query",
                             prometheus->absent("query") +
                                 " (source Prometheus needs a query giving "
                                 "each node's utilisation in 0..1, labelled instance=<node name>)");
      }
      out.prometheus_query = query.value_or("");
      prometheus->finish();
    }
    bool bad_source = reader->has("source") && !source;  // already reported
    if (out.source != "Prometheus" && !bad_source) {
      reader->error_at(
          "prometheus",
          "prometheus is read only with source: Prometheus" +
              std::string(out.source.empty() ? "" : ", not with source: " + out.source));
    }
  } else if (out.source == "Prometheus") {
    reader->error_at("prometheus",
                     reader->absent("prometheus") + " (source Prometheus needs prometheus.query)");
  }
  reader->finish();
  return out;
}

int32_t read_number_of_nodes(FieldReader& args) {
  return static_cast<int32_t>(
      args.integer("numberOfNodes", 0, std::numeric_limits<int32_t>::max()).value_or(0));
}

void emit_common_tail(YAML::Emitter& out, const NodeUtilizationArgs& args) {
  out << YAML::Key << "numberOfNodes" << YAML::Value << args.number_of_nodes;
  emit_namespaces(out, "evictableNamespaces", Namespaces{{}, args.excluded_namespaces});
}

}  // namespace

PluginArgs default_low_node_utilization_args() {
  return NodeUtilizationArgs{};
}
PluginArgs default_high_node_utilization_args() {
  return NodeUtilizationArgs{};
}

PluginArgs read_low_node_utilization_args(FieldReader& args) {
  NodeUtilizationArgs out;
  if (!args.valid()) return out;
  out.metrics_utilization = read_metrics_utilization(args);
  ResourceRule rule = out.metrics_utilization.source == "Prometheus"
                          ? ResourceRule(check_prometheus_resource)
                          : ResourceRule(check_requests_resource);
  std::optional<Percentages> low = read_watermarks(args, "thresholds", true, rule);
  std::optional<Percentages> high = read_watermarks(args, "targetThresholds", true, rule);
  out.use_deviation_thresholds = args.boolean("useDeviationThresholds").value_or(false);
  if (low && high) check_watermark_pair(args, *low, *high, out.use_deviation_thresholds);
  out.thresholds = low.value_or(Percentages{});
  out.target_thresholds = high.value_or(Percentages{});
  out.number_of_nodes = read_number_of_nodes(args);
  out.excluded_namespaces = read_evictable_namespaces(args, "LowNodeUtilization");
  if (std::optional<FieldReader> limits = args.object("evictionLimits");
      limits && limits->valid()) {
    if (std::optional<int64_t> node =
            limits->integer("node", 0, std::numeric_limits<uint32_t>::max())) {
      out.eviction_limit_node = static_cast<uint32_t>(*node);
    }
    limits->finish();
  }
  args.finish();
  return out;
}

PluginArgs read_high_node_utilization_args(FieldReader& args) {
  NodeUtilizationArgs out;
  if (!args.valid()) return out;
  out.thresholds =
      read_watermarks(args, "thresholds", true, check_requests_resource).value_or(Percentages{});
  out.number_of_nodes = read_number_of_nodes(args);
  out.excluded_namespaces = read_evictable_namespaces(args, "HighNodeUtilization");
  if (std::optional<std::vector<std::string>> modes = args.string_list("evictionModes")) {
    for (size_t i = 0; i < modes->size(); ++i) {
      const std::string& mode = (*modes)[i];
      if (mode == "OnlyThresholdingResources") {
        if (std::find(out.eviction_modes.begin(), out.eviction_modes.end(), mode) ==
            out.eviction_modes.end()) {
          out.eviction_modes.push_back(mode);
        }
        continue;
      }
      std::string message = "expected OnlyThresholdingResources, found \"" + mode + "\"";
      std::string near = closest_match(mode, {"OnlyThresholdingResources"});
      if (!near.empty()) message += " (did you mean \"" + near + "\"?)";
      error_at_item(args, "evictionModes", i, message);
    }
  }
  args.finish();
  return out;
}

void write_node_utilization_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const NodeUtilizationArgs& args = std::get<NodeUtilizationArgs>(plugin_args);
  bool low = !args.target_thresholds.empty();  // only LowNodeUtilization has targetThresholds
  out << YAML::BeginMap;
  out << YAML::Key << "thresholds" << YAML::Value;
  emit_percentages(out, args.thresholds);
  if (low) {
    out << YAML::Key << "targetThresholds" << YAML::Value;
    emit_percentages(out, args.target_thresholds);
  }
  if (low || args.use_deviation_thresholds) {
    out << YAML::Key << "useDeviationThresholds" << YAML::Value << args.use_deviation_thresholds;
  }
  emit_common_tail(out, args);
  if (args.eviction_limit_node) {
    out << YAML::Key << "evictionLimits" << YAML::Value << YAML::BeginMap << YAML::Key << "node"
        << YAML::Value << *args.eviction_limit_node << YAML::EndMap;
  }
  const MetricsUtilization& metrics = args.metrics_utilization;
  if (!metrics.source.empty() || !metrics.prometheus_query.empty()) {
    out << YAML::Key << "metricsUtilization" << YAML::Value << YAML::BeginMap;
    if (!metrics.source.empty()) {
      out << YAML::Key << "source" << YAML::Value << metrics.source;
    }
    if (!metrics.prometheus_query.empty()) {
      out << YAML::Key << "prometheus" << YAML::Value << YAML::BeginMap << YAML::Key << "query"
          << YAML::Value;
      emit_string(out, metrics.prometheus_query);
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (!args.eviction_modes.empty()) {
    out << YAML::Key << "evictionModes" << YAML::Value;
    emit_string_list(out, args.eviction_modes);
  }
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

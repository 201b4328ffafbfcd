// LoadAware args: the Volcano descheduler's LoadAwareUtilizationArgs, read strictly, plus
// loadshift's extensions (sustainedFor, nodePools, usagePoolLabel, resourceWeights,
// evictionLimits, gang, gpu, schedulerScoring). The metrics block lives in load_aware_metrics.cc.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "policy/load_aware_metrics.h"
#include "policy/plugin_schemas.h"
#include "policy/scheduler_scoring_args.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

const std::vector<std::string> kResources = {"cpu", "memory", "pods"};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::vector<std::string> keys_of(const Percentages& map) {
  std::vector<std::string> out;
  for (const auto& [key, value] : map) out.push_back(key);
  return out;
}

// Volcano classifies on cpu, memory and pods; anything else is an error.
std::string check_resource(const std::string& name) {
  if (std::find(kResources.begin(), kResources.end(), name) != kResources.end()) return "";
  return "unknown resource \"" + name + "\": LoadAware classifies nodes on " + join(kResources) +
         did_you_mean(name, kResources);
}

// The evictor fields Volcano declares on LoadAware but never reads. Type-checked and accepted,
// each with a warning that DefaultEvictor's args are the ones that apply.
void read_legacy_evictor_fields(FieldReader& args) {
  auto warn = [&](std::string_view key) {
    args.warning_at(key, "accepted for Volcano compatibility, but LoadAware does not read " +
                             std::string(key) +
                             " (neither does Volcano's): DefaultEvictor's args apply, set it "
                             "there");
  };
  for (std::string_view key : {"evictLocalStoragePods", "evictSystemCriticalPods", "ignorePvcPods",
                               "evictFailedBarePods"}) {
    if (!args.has(key)) continue;
    args.boolean(key);
    warn(key);
  }
  if (args.has("labelSelector")) {
    args.label_selector("labelSelector");
    warn("labelSelector");
  }
  if (args.has("priorityThreshold")) {
    if (std::optional<FieldReader> priority = args.object("priorityThreshold");
        priority && priority->valid()) {
      priority->integer("value", std::numeric_limits<int32_t>::min(),
                        std::numeric_limits<int32_t>::max());
      priority->string("name");
      priority->finish();
    }
    warn("priorityThreshold");
  }
}

// Checks a pool's effective watermarks; reports at the pool's own value when it set one.
void check_pool_watermarks(FieldReader& pool, const Percentages& low, const Percentages& high,
                           const Percentages& own_low, const Percentages& own_high) {
  for (const auto& [resource, value] : low) {
    auto it = high.find(resource);
    if (it == high.end() || value <= it->second) continue;
    bool own_threshold = own_low.count(resource) != 0;
    if (!own_threshold && own_high.count(resource) == 0) continue;  // the plugin's own error
    std::string message =
        resource + " threshold " + number_text(value) +
        (own_threshold ? " (this pool's)" : " (inherited from the plugin)") +
        " is greater than targetThresholds." + resource + " " + number_text(it->second) +
        (own_high.count(resource) != 0 ? " (this pool's)" : " (inherited from the plugin)") +
        "; thresholds must not exceed targetThresholds unless useDeviationThresholds is true";
    error_in_mapping(pool, own_threshold ? "thresholds" : "targetThresholds", resource, message);
  }
}

// nodePools: per-pool watermarks over the plugin's. `low`/`high` are the plugin's watermarks
// (nullopt when they were invalid: then pools are read but not cross-checked).
std::vector<NodePool> read_node_pools(FieldReader& args, const std::optional<Percentages>& low,
                                      const std::optional<Percentages>& high, bool deviation) {
  std::vector<NodePool> pools;
  std::map<std::string, size_t> seen;
  std::vector<FieldReader> readers = args.object_list("nodePools");
  ResourceRule rule = [&](const std::string& name) {
    std::string problem = check_resource(name);
    if (problem.empty() && low && low->count(name) == 0) {
      problem = "resource \"" + name + "\" is not in the plugin's thresholds (" +
                join(keys_of(*low)) +
                "): a pool only overrides the watermarks of resources the plugin classifies on";
    }
    return problem;
  };
  for (size_t i = 0; i < readers.size(); ++i) {
    FieldReader& reader = readers[i];
    if (!reader.valid()) continue;
    NodePool pool;
    if (std::optional<std::string> name = reader.string("name", true)) {
      if (name->empty()) {
        reader.error_at("name", "expected a pool name, found an empty string");
      } else if (auto it = seen.find(*name); it != seen.end()) {
        reader.error_at("name", "duplicate pool name \"" + *name + "\" (also nodePools[" +
                                    std::to_string(it->second) + "])");
      } else {
        seen[*name] = i;
      }
      pool.name = *name;
    }
    if (!reader.has("nodeSelector")) {
      reader.error_at("nodeSelector", reader.absent("nodeSelector") +
                                          " (the label selector of the pool's nodes, e.g. "
                                          "maip.mxsf.io/node.usage=training)");
    } else if (std::optional<std::string> selector = reader.selector_string("nodeSelector")) {
      if (selector->empty()) {
        reader.error_at("nodeSelector",
                        "expected a label selector, found an empty string (it would select "
                        "every node)");
      }
      pool.node_selector = *selector;
    }
    std::optional<Percentages> own_low = read_watermarks(reader, "thresholds", false, rule);
    std::optional<Percentages> own_high = read_watermarks(reader, "targetThresholds", false, rule);
    reader.finish();
    bool own_ok =
        (own_low || !reader.has("thresholds")) && (own_high || !reader.has("targetThresholds"));
    pool.thresholds = low.value_or(Percentages{});
    pool.target_thresholds = high.value_or(Percentages{});
    for (const auto& [resource, value] : own_low.value_or(Percentages{})) {
      pool.thresholds[resource] = value;
    }
    for (const auto& [resource, value] : own_high.value_or(Percentages{})) {
      pool.target_thresholds[resource] = value;
    }
    if (low && high && own_ok && !deviation) {
      check_pool_watermarks(reader, pool.thresholds, pool.target_thresholds,
                            own_low.value_or(Percentages{}), own_high.value_or(Percentages{}));
    }
    pools.push_back(std::move(pool));
  }
  return pools;
}

// resourceWeights: the given weights for resources of `thresholds`, 1 for the others.
std::map<std::string, double> read_resource_weights(FieldReader& args,
                                                    const std::optional<Percentages>& thresholds,
                                                    std::map<std::string, double> weights) {
  std::map<std::string, double> given;
  std::optional<FieldReader> reader = args.object("resourceWeights");
  if (reader && reader->valid()) {
    for (const auto& entry : reader->node()) {
      if (!entry.first.IsScalar()) continue;  // finish() reports it
      const std::string name = entry.first.Scalar();
      std::string problem = check_resource(name);
      if (problem.empty() && thresholds && thresholds->count(name) == 0) {
        problem = "resource \"" + name + "\" is not in thresholds (" + join(keys_of(*thresholds)) +
                  "): weights apply only to the resources nodes are classified on";
      }
      if (!problem.empty()) {
        reader->error_at(name, problem);
        reader->accept({name});
      } else if (std::optional<double> weight = reader->entry_number(name, 0, 1000)) {
        given[name] = *weight;
      }
    }
    reader->finish();
  }
  if (thresholds) {
    weights.clear();
    for (const auto& [resource, percent] : *thresholds) {
      auto it = given.find(resource);
      weights[resource] = it != given.end() ? it->second : 1;
    }
  } else {
    for (const auto& [resource, weight] : given) weights[resource] = weight;
  }
  bool any_positive = std::any_of(weights.begin(), weights.end(),
                                  [](const auto& entry) { return entry.second > 0; });
  if (!weights.empty() && !any_positive) {
    args.error_at("resourceWeights", "at least one weight must be greater than 0");
  }
  return weights;
}

void read_limits_gang_gpu(FieldReader& args, LoadAwareArgs& out) {
  if (std::optional<FieldReader> limits = args.object("evictionLimits");
      limits && limits->valid()) {
    constexpr int64_t kMax = std::numeric_limits<uint32_t>::max();
    auto read_limit = [&](std::string_view key) -> std::optional<uint32_t> {
      if (std::optional<int64_t> v = limits->integer(key, 0, kMax)) {
        return static_cast<uint32_t>(*v);
      }
      return std::nullopt;
    };
    out.eviction_limits.node = read_limit("node");
    out.eviction_limits.namespace_ = read_limit("namespace");
    out.eviction_limits.workload = read_limit("workload");
    limits->finish();
  }
  if (std::optional<FieldReader> gang = args.object("gang"); gang && gang->valid()) {
    out.evict_gang_pods = gang->boolean("evictGangPods").value_or(out.evict_gang_pods);
    out.respect_restart_policies =
        gang->boolean("respectRestartPolicies").value_or(out.respect_restart_policies);
    gang->finish();
  }
  if (std::optional<FieldReader> gpu = args.object("gpu"); gpu && gpu->valid()) {
    out.evict_gpu_pods = gpu->boolean("evictGpuPods").value_or(out.evict_gpu_pods);
    if (std::optional<std::vector<std::string>> prefixes = gpu->string_list("vendorPrefixes")) {
      bool ok = true;
      if (prefixes->empty()) {
        gpu->error_at("vendorPrefixes",
                      "expected at least one resource name prefix, found an empty list (omit "
                      "vendorPrefixes for the defaults)");
        ok = false;
      }
      for (size_t i = 0; i < prefixes->size(); ++i) {
        if (!(*prefixes)[i].empty()) continue;
        error_at_item(*gpu, "vendorPrefixes", i,
                      "expected a resource name prefix such as nvidia.com/, found an empty string");
        ok = false;
      }
      if (ok) out.gpu_vendor_prefixes = *prefixes;
    }
    gpu->finish();
  }
}

}  // namespace

PluginArgs default_load_aware_args() {
  return LoadAwareArgs{};
}

PluginArgs read_load_aware_args(FieldReader& args) {
  LoadAwareArgs out;
  if (!args.valid()) return out;
  out.metrics = read_load_aware_metrics(args);
  std::optional<Percentages> low = read_watermarks(args, "thresholds", true, check_resource);
  std::optional<Percentages> high = read_watermarks(args, "targetThresholds", true, check_resource);
  out.use_deviation_thresholds = args.boolean("useDeviationThresholds").value_or(false);
  if (low && high) check_watermark_pair(args, *low, *high, out.use_deviation_thresholds);
  out.thresholds = low.value_or(Percentages{});
  out.target_thresholds = high.value_or(Percentages{});
  out.number_of_nodes = static_cast<int32_t>(
      args.integer("numberOfNodes", 0, std::numeric_limits<int32_t>::max()).value_or(0));
  out.node_fit = args.boolean("nodeFit").value_or(false);
  out.node_selector = args.selector_string("nodeSelector").value_or("");
  out.excluded_namespaces = read_evictable_namespaces(args, "LoadAware");
  read_legacy_evictor_fields(args);

  out.sustained_for = read_positive_duration(args, "sustainedFor");
  if (out.sustained_for && out.sustained_for->milliseconds < out.metrics.step.milliseconds) {
    args.error_at("sustainedFor", "sustainedFor " + out.sustained_for->text +
                                      " is shorter than metrics.step " + out.metrics.step.text +
                                      " (the sustain check samples usage once per step)");
  }
  out.node_pools = read_node_pools(args, low, high, out.use_deviation_thresholds);
  if (std::optional<std::string> label = args.string("usagePoolLabel")) {
    if (is_qualified_name(*label)) {
      out.usage_pool_label = *label;
    } else {
      args.error_at(
          "usagePoolLabel",
          "expected a label key such as maip.mxsf.io/node.usage, found \"" + *label + "\"");
    }
  }
  out.resource_weights = read_resource_weights(args, low, out.resource_weights);
  read_limits_gang_gpu(args, out);
  out.scheduler_scoring = read_scheduler_scoring(args);
  args.finish();
  return out;
}

void write_load_aware_volcano_fields(const LoadAwareArgs& args, YAML::Emitter& out) {
  out << YAML::Key << "thresholds" << YAML::Value;
  emit_percentages(out, args.thresholds);
  out << YAML::Key << "targetThresholds" << YAML::Value;
  emit_percentages(out, args.target_thresholds);
  out << YAML::Key << "useDeviationThresholds" << YAML::Value << args.use_deviation_thresholds;
  out << YAML::Key << "numberOfNodes" << YAML::Value << args.number_of_nodes;
  out << YAML::Key << "nodeFit" << YAML::Value << args.node_fit;
  if (!args.node_selector.empty()) {
    out << YAML::Key << "nodeSelector" << YAML::Value;
    emit_string(out, args.node_selector);
  }
  emit_namespaces(out, "evictableNamespaces", Namespaces{{}, args.excluded_namespaces});
}

void write_load_aware_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const LoadAwareArgs& args = std::get<LoadAwareArgs>(plugin_args);
  out << YAML::BeginMap;
  write_load_aware_metrics(args.metrics, out);
  write_load_aware_volcano_fields(args, out);
  if (args.sustained_for) {
    out << YAML::Key << "sustainedFor" << YAML::Value << args.sustained_for->text;
  }
  if (!args.node_pools.empty()) {
    out << YAML::Key << "nodePools" << YAML::Value << YAML::BeginSeq;
    for (const NodePool& pool : args.node_pools) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value;
      emit_string(out, pool.name);
      out << YAML::Key << "nodeSelector" << YAML::Value;
      emit_string(out, pool.node_selector);
      if (!pool.thresholds.empty()) {
        out << YAML::Key << "thresholds" << YAML::Value;
        emit_percentages(out, pool.thresholds);
      }
      if (!pool.target_thresholds.empty()) {
        out << YAML::Key << "targetThresholds" << YAML::Value;
        emit_percentages(out, pool.target_thresholds);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::Key << "usagePoolLabel" << YAML::Value;
  emit_string(out, args.usage_pool_label);
  out << YAML::Key << "resourceWeights" << YAML::Value;
  emit_percentages(out, args.resource_weights);
  const EvictionLimits& limits = args.eviction_limits;
  if (limits.node || limits.namespace_ || limits.workload) {
    out << YAML::Key << "evictionLimits" << YAML::Value << YAML::BeginMap;
    if (limits.node) out << YAML::Key << "node" << YAML::Value << *limits.node;
    if (limits.namespace_) out << YAML::Key << "namespace" << YAML::Value << *limits.namespace_;
    if (limits.workload) out << YAML::Key << "workload" << YAML::Value << *limits.workload;
    out << YAML::EndMap;
  }
  out << YAML::Key << "gang" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "evictGangPods" << YAML::Value << args.evict_gang_pods;
  out << YAML::Key << "respectRestartPolicies" << YAML::Value << args.respect_restart_policies;
  out << YAML::EndMap;
  out << YAML::Key << "gpu" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "evictGpuPods" << YAML::Value << args.evict_gpu_pods;
  out << YAML::Key << "vendorPrefixes" << YAML::Value;
  emit_string_list(out, args.gpu_vendor_prefixes);
  out << YAML::EndMap;
  write_scheduler_scoring(args.scheduler_scoring, out);
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

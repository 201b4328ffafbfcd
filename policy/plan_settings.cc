// The `loadshift` section: cool-down, in-flight limit, soft taint, landing prediction and the
// Volcano scheduler's plugins.
#include "policy/plan_settings.h"

#include <cctype>
#include <string>

#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

// Plugins of volcano-scheduler.conf that place pods but do not score nodes: listed without
// effect on the model, so a user may paste the whole tier list.
bool non_scoring_volcano_plugin(const std::string& name) {
  for (const char* known : {"priority", "gang", "conformance", "drf", "predicates", "proportion",
                            "overcommit", "capacity", "sla", "extender", "resourcequota"}) {
    if (name == known) return true;
  }
  return false;
}

// A threshold of the usage plugin: a mapping entry, so a null is an error, not an absent key.
std::optional<int64_t> threshold(FieldReader& thresholds, std::string_view key) {
  YAML::Node value = thresholds.get(key);
  if (value.IsDefined() && value.IsNull()) {
    thresholds.error_at(key, "expected an integer in 0..100, found null");
    return std::nullopt;
  }
  return thresholds.integer(key, 0, 100);
}

void read_usage_arguments(FieldReader& arguments, VolcanoUsagePlugin& usage) {
  if (auto v = arguments.integer("usage.weight", 0, 100)) usage.weight = *v;
  if (auto v = arguments.integer("cpu.weight", 0, 100)) usage.cpu_weight = *v;
  if (auto v = arguments.integer("memory.weight", 0, 100)) usage.memory_weight = *v;
  if (usage.cpu_weight + usage.memory_weight == 0) {
    arguments.error("cpu.weight and memory.weight are both 0: the usage plugin would divide by 0");
  }
  if (std::optional<FieldReader> thresholds = arguments.object("thresholds")) {
    // Volcano reads the thresholds as whole numbers (an int type assertion): 80.5 reads as 0.
    if (auto v = threshold(*thresholds, "cpu")) usage.cpu_threshold = static_cast<double>(*v);
    if (auto v = threshold(*thresholds, "mem")) usage.memory_threshold = static_cast<double>(*v);
    thresholds->finish();
  }
}

VolcanoScheduler read_volcano_scheduler(FieldReader& section) {
  VolcanoScheduler out;
  std::vector<FieldReader> plugins = section.object_list("plugins", true);
  if (plugins.empty()) {
    YAML::Node given = section.get("plugins");
    if (given.IsDefined() && given.IsSequence()) {
      section.error_at("plugins",
                       "expected at least one plugin (omit volcanoScheduler for Volcano's Helm "
                       "chart configuration, nodeorder + binpack)");
    }
    return out;
  }
  out.nodeorder = false;
  out.binpack_weight.reset();
  for (FieldReader& plugin : plugins) {
    if (!plugin.valid()) continue;
    std::optional<std::string> name = plugin.string("name", true);
    if (!name) continue;
    std::optional<FieldReader> arguments = plugin.object("arguments");
    // Volcano's per-plugin switches (enablePreemptable, enableJobOrder, enableNodeOrder, ...):
    // booleans, read so that a tier list pastes unchanged; enableNodeOrder: false turns a plugin's
    // scoring off, enablePredicate (usage) its filter.
    bool scores = true;
    for (const auto& entry : plugin.node()) {
      if (!entry.first.IsScalar()) continue;  // finish() reports it
      const std::string key = entry.first.Scalar();
      if (key.size() <= 6 || !key.starts_with("enable") ||
          !std::isupper(static_cast<unsigned char>(key[6]))) {
        continue;
      }
      std::optional<bool> on = plugin.boolean(key);
      if (key == "enableNodeOrder" && on) scores = *on;
    }
    if (!scores && (*name == "nodeorder" || *name == "binpack")) {
      plugin.accept({"arguments"});
    } else if (*name == "nodeorder") {
      out.nodeorder = true;
      if (arguments) {
        plugin.error_at("arguments",
                        "nodeorder is modelled with its default weights (leastrequested 1, "
                        "balancedresource 1, tainttoleration 3, nodeaffinity 2, podaffinity 2, "
                        "podtopologyspread 2); other weights are not read yet: remove "
                        "`arguments` or leave nodeorder out");
        arguments->accept({});
        plugin.accept({"arguments"});
      }
    } else if (*name == "binpack") {
      out.binpack_weight = 1;
      if (arguments) {
        if (auto v = arguments->integer("binpack.weight", 0, 100)) out.binpack_weight = *v;
        arguments->finish();
      }
    } else if (*name == "usage") {
      VolcanoUsagePlugin usage;
      if (auto v = plugin.boolean("enablePredicate")) usage.predicate = *v;
      if (arguments) {
        read_usage_arguments(*arguments, usage);
        arguments->finish();
      }
      if (!scores) usage.weight = 0;  // enableNodeOrder: false: the filter alone
      out.usage = usage;
    } else if (non_scoring_volcano_plugin(*name)) {
      plugin.accept({"arguments"});
    } else {
      plugin.error_at("name", "Volcano scheduler plugin \"" + *name +
                                  "\" is not modelled: loadshift predicts Volcano pods' landings "
                                  "with nodeorder, binpack and usage (and reads priority, gang, "
                                  "conformance, drf, predicates, proportion, overcommit, "
                                  "capacity, sla, extender and resourcequota, which do not score "
                                  "nodes)");
      plugin.accept({"arguments"});
    }
    plugin.finish();
  }
  if (!out.nodeorder && !out.binpack_weight && !out.usage) {
    section.error_at("plugins",
                     "no scoring plugin (nodeorder, binpack, usage): Volcano would place pods on "
                     "the first feasible node, which loadshift cannot predict");
  }
  return out;
}

void write_volcano_scheduler(YAML::Emitter& out, const VolcanoScheduler& v) {
  out << YAML::Key << "volcanoScheduler" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "plugins" << YAML::Value << YAML::BeginSeq;
  if (v.nodeorder) out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "nodeorder"
                       << YAML::EndMap;
  if (v.binpack_weight) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "binpack";
    out << YAML::Key << "arguments" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "binpack.weight" << YAML::Value << *v.binpack_weight;
    out << YAML::EndMap << YAML::EndMap;
  }
  if (const auto& u = v.usage) {
    out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << "usage";
    out << YAML::Key << "enablePredicate" << YAML::Value << u->predicate;
    out << YAML::Key << "arguments" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "usage.weight" << YAML::Value << u->weight;
    out << YAML::Key << "cpu.weight" << YAML::Value << u->cpu_weight;
    out << YAML::Key << "memory.weight" << YAML::Value << u->memory_weight;
    out << YAML::Key << "thresholds" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "cpu" << YAML::Value << static_cast<int64_t>(u->cpu_threshold);
    out << YAML::Key << "mem" << YAML::Value << static_cast<int64_t>(u->memory_threshold);
    out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

std::string volcano_text(const VolcanoScheduler& v) {
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : " + ") + part; };
  if (v.nodeorder) add("nodeorder");
  if (v.binpack_weight) add("binpack (weight " + std::to_string(*v.binpack_weight) + ")");
  if (const auto& u = v.usage) {
    add("usage (weight " + std::to_string(u->weight) + ", " +
        (u->predicate ? "filters nodes above cpu " + std::to_string(int(u->cpu_threshold)) +
                            "% or memory " + std::to_string(int(u->memory_threshold)) + "%"
                      : "no filter") +
        ")");
  }
  return out;
}

}  // namespace

PlanSettings read_plan_settings(FieldReader& top) {
  PlanSettings out;
  std::optional<FieldReader> section = top.object("loadshift");
  if (!section || !section->valid()) return out;
  if (std::optional<Duration> d = section->duration("workloadCooldown")) {
    if (d->milliseconds % 1000 != 0) {
      section->error_at("workloadCooldown",
                        "expected whole seconds (30s, 10m, 1h30m; 0s: off), found \"" + d->text +
                            "\"");
    } else {
      out.workload_cooldown = *d;
    }
  }
  if (auto v = section->integer("maxInFlightPerWorkload", 0, 1000000)) {
    out.max_in_flight_per_workload = static_cast<uint32_t>(*v);
  }
  if (auto v = section->boolean("softTaintHotNodes")) out.soft_taint_hot_nodes = *v;
  if (auto v = section->boolean("landingPrediction")) out.landing_prediction = *v;
  if (auto v = section->number("minLandingChance", 1, 100)) out.min_landing_chance = *v;
  if (std::optional<FieldReader> volcano = section->object("volcanoScheduler")) {
    if (volcano->valid()) out.volcano_scheduler = read_volcano_scheduler(*volcano);
    volcano->finish();
  }
  section->finish();
  return out;
}

void write_plan_settings(YAML::Emitter& out, const PlanSettings& s) {
  out << YAML::Key << "loadshift" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "workloadCooldown" << YAML::Value << s.workload_cooldown.text;
  out << YAML::Key << "maxInFlightPerWorkload" << YAML::Value << s.max_in_flight_per_workload;
  out << YAML::Key << "softTaintHotNodes" << YAML::Value << s.soft_taint_hot_nodes;
  out << YAML::Key << "landingPrediction" << YAML::Value << s.landing_prediction;
  out << YAML::Key << "minLandingChance" << YAML::Value;
  emit_number(out, s.min_landing_chance);
  write_volcano_scheduler(out, s.volcano_scheduler);
  out << YAML::EndMap;
}

void summarize_plan_settings(std::ostream& out, const PlanSettings& s) {
  out << "  plan: workload cool-down "
      << (s.workload_cooldown.milliseconds == 0 ? std::string("off") : s.workload_cooldown.text)
      << ", " << (s.max_in_flight_per_workload == 0
                      ? std::string("no in-flight limit")
                      : std::to_string(s.max_in_flight_per_workload) +
                            " pod(s) in flight per workload")
      << ", soft taint " << (s.soft_taint_hot_nodes ? "on" : "off") << ", landing prediction "
      << (s.landing_prediction ? "on" : "off");
  if (s.landing_prediction) {
    out << " (a move needs " << s.min_landing_chance << "% of the likely landings acceptable)";
  }
  out << "\n";
  out << "  volcano scheduler: " << volcano_text(s.volcano_scheduler) << "\n";
}

}  // namespace loadshift::policy

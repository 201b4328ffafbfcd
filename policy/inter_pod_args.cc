// Args of the plugins that judge pods by their inter-pod rules, as kubernetes-sigs/descheduler
// defines them, read strictly: RemovePodsViolatingInterPodAntiAffinity
// (RemovePodsViolatingInterPodAntiAffinityArgs) and RemovePodsViolatingTopologySpreadConstraint
// (RemovePodsViolatingTopologySpreadConstraintArgs).
#include <algorithm>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

using model::UnsatisfiableAction;

const char* action_name(UnsatisfiableAction action) {
  return action == UnsatisfiableAction::kDoNotSchedule ? "DoNotSchedule" : "ScheduleAnyway";
}

// `constraints`: a list of DoNotSchedule | ScheduleAnyway; absent: [DoNotSchedule]. Upstream
// defaults only an absent list: an empty one balances no constraint at all, which loadshift
// refuses rather than run a plugin that can do nothing.
std::vector<UnsatisfiableAction> read_constraints(FieldReader& args) {
  std::vector<UnsatisfiableAction> out = {UnsatisfiableAction::kDoNotSchedule};
  if (!args.has("constraints")) return out;
  std::optional<std::vector<std::string>> items = args.string_list("constraints");
  if (!items) return out;
  if (items->empty()) {
    args.error_at("constraints",
                  "expected at least one of DoNotSchedule, ScheduleAnyway, found an empty list "
                  "(upstream would then balance no constraint at all); omit constraints for the "
                  "default [DoNotSchedule]");
    return out;
  }
  out.clear();
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string& item = (*items)[i];
    UnsatisfiableAction action;
    if (item == "DoNotSchedule") {
      action = UnsatisfiableAction::kDoNotSchedule;
    } else if (item == "ScheduleAnyway") {
      action = UnsatisfiableAction::kScheduleAnyway;
    } else {
      error_at_item(args, "constraints", i,
                    "expected DoNotSchedule or ScheduleAnyway, found \"" + item + "\"");
      continue;
    }
    // A repeated action means nothing more (upstream keeps a set).
    if (std::find(out.begin(), out.end(), action) == out.end()) out.push_back(action);
  }
  if (out.empty()) out = {UnsatisfiableAction::kDoNotSchedule};
  return out;
}

void emit_selection(YAML::Emitter& out, const Namespaces& namespaces,
                    const std::optional<model::LabelSelector>& label_selector) {
  emit_namespaces(out, "namespaces", namespaces);
  if (label_selector) {
    out << YAML::Key << "labelSelector" << YAML::Value;
    emit_label_selector(out, *label_selector);
  }
}

}  // namespace

// ---- RemovePodsViolatingInterPodAntiAffinity ----

PluginArgs default_inter_pod_anti_affinity_args() {
  return InterPodAntiAffinityArgs{};
}

PluginArgs read_inter_pod_anti_affinity_args(FieldReader& args) {
  InterPodAntiAffinityArgs out;
  if (!args.valid()) return out;
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  args.finish();
  return out;
}

void write_inter_pod_anti_affinity_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const InterPodAntiAffinityArgs& args = std::get<InterPodAntiAffinityArgs>(plugin_args);
  out << YAML::BeginMap;
  emit_selection(out, args.namespaces, args.label_selector);
  out << YAML::EndMap;
}

// ---- RemovePodsViolatingTopologySpreadConstraint ----

PluginArgs default_topology_spread_args() {
  return TopologySpreadArgs{};
}

PluginArgs read_topology_spread_args(FieldReader& args) {
  TopologySpreadArgs out;
  if (!args.valid()) return out;
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  out.constraints = read_constraints(args);
  out.topology_balance_node_fit = args.boolean("topologyBalanceNodeFit").value_or(true);
  args.finish();
  return out;
}

void write_topology_spread_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const TopologySpreadArgs& args = std::get<TopologySpreadArgs>(plugin_args);
  out << YAML::BeginMap;
  emit_selection(out, args.namespaces, args.label_selector);
  out << YAML::Key << "constraints" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (UnsatisfiableAction action : args.constraints) out << action_name(action);
  out << YAML::EndSeq;
  out << YAML::Key << "topologyBalanceNodeFit" << YAML::Value << args.topology_balance_node_fit;
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

// RemovePodsViolatingNodeAffinity args, as kubernetes-sigs/descheduler defines them
// (RemovePodsViolatingNodeAffinityArgs), read strictly.
#include <algorithm>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

const std::vector<std::string> kAffinityTypes = {"requiredDuringSchedulingIgnoredDuringExecution",
                                                 "preferredDuringSchedulingIgnoredDuringExecution"};

std::string expected_types() {
  return "expected " + kAffinityTypes[0] + " or " + kAffinityTypes[1];
}

}  // namespace

PluginArgs default_node_affinity_args() {
  return NodeAffinityArgs{};
}

PluginArgs read_node_affinity_args(FieldReader& args) {
  NodeAffinityArgs out;
  if (!args.valid()) return out;
  if (!args.has("nodeAffinityType")) {
    args.error_at("nodeAffinityType",
                  args.absent("nodeAffinityType") + " (" + expected_types() + ")");
  } else if (std::optional<std::vector<std::string>> types = args.string_list("nodeAffinityType")) {
    if (types->empty()) {
      args.error_at("nodeAffinityType", expected_types() + ", found an empty list");
    }
    for (size_t i = 0; i < types->size(); ++i) {
      const std::string& type = (*types)[i];
      if (std::find(kAffinityTypes.begin(), kAffinityTypes.end(), type) == kAffinityTypes.end()) {
        std::string message = expected_types() + ", found \"" + type + "\"";
        std::string near = closest_match(type, kAffinityTypes);
        if (!near.empty()) message += " (did you mean \"" + near + "\"?)";
        error_at_item(args, "nodeAffinityType", i, message);
      } else if (std::find(out.node_affinity_type.begin(), out.node_affinity_type.end(), type) !=
                 out.node_affinity_type.end()) {
        error_at_item(args, "nodeAffinityType", i, type + " is listed twice");
      } else {
        out.node_affinity_type.push_back(type);
      }
    }
  }
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  args.finish();
  return out;
}

void write_node_affinity_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const NodeAffinityArgs& args = std::get<NodeAffinityArgs>(plugin_args);
  out << YAML::BeginMap;
  out << YAML::Key << "nodeAffinityType" << YAML::Value;
  emit_string_list(out, args.node_affinity_type);
  emit_namespaces(out, "namespaces", args.namespaces);
  if (args.label_selector) {
    out << YAML::Key << "labelSelector" << YAML::Value;
    emit_label_selector(out, *args.label_selector);
  }
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

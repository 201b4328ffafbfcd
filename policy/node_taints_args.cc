// RemovePodsViolatingNodeTaints args, as kubernetes-sigs/descheduler defines them
// (RemovePodsViolatingNodeTaintsArgs), read strictly.
#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

// A list of "key" or "key=value" taint matchers; reports the items that are neither.
std::vector<std::string> read_taint_list(FieldReader& args, std::string_view key) {
  std::vector<std::string> out;
  std::optional<std::vector<std::string>> items = args.string_list(key);
  if (!items) return out;
  if (items->empty() && key == "includedTaints") {
    // Upstream tells an empty list from an absent one: empty matches no taint at all.
    args.error_at(key,
                  "expected at least one taint, found an empty list (it would match no taint, so "
                  "the plugin would evict nothing); omit includedTaints to consider every taint");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string& item = (*items)[i];
    size_t equals = item.find('=');
    std::string_view taint_key = std::string_view(item).substr(0, equals);
    std::string_view value = equals == std::string::npos
                                 ? std::string_view()
                                 : std::string_view(item).substr(equals + 1);
    if (is_qualified_name(taint_key) && is_label_value(value)) {
      out.push_back(item);
    } else {
      error_at_item(
          args, key, i,
          "expected a taint key or key=value such as dedicated=gpu, found \"" + item + "\"");
    }
  }
  return out;
}

}  // namespace

PluginArgs default_node_taints_args() {
  return NodeTaintsArgs{};
}

PluginArgs read_node_taints_args(FieldReader& args) {
  NodeTaintsArgs out;
  if (!args.valid()) return out;
  out.excluded_taints = read_taint_list(args, "excludedTaints");
  out.included_taints = read_taint_list(args, "includedTaints");
  if (!out.excluded_taints.empty() && !out.included_taints.empty()) {
    args.error_at("includedTaints", "set excludedTaints or includedTaints, not both");
  }
  out.include_prefer_no_schedule = args.boolean("includePreferNoSchedule").value_or(false);
  out.namespaces = read_namespaces(args);
  out.label_selector = args.label_selector("labelSelector");
  args.finish();
  return out;
}

void write_node_taints_args(const PluginArgs& plugin_args, YAML::Emitter& out) {
  const NodeTaintsArgs& args = std::get<NodeTaintsArgs>(plugin_args);
  out << YAML::BeginMap;
  if (!args.excluded_taints.empty()) {
    out << YAML::Key << "excludedTaints" << YAML::Value;
    emit_string_list(out, args.excluded_taints);
  }
  if (!args.included_taints.empty()) {
    out << YAML::Key << "includedTaints" << YAML::Value;
    emit_string_list(out, args.included_taints);
  }
  out << YAML::Key << "includePreferNoSchedule" << YAML::Value << args.include_prefer_no_schedule;
  emit_namespaces(out, "namespaces", args.namespaces);
  if (args.label_selector) {
    out << YAML::Key << "labelSelector" << YAML::Value;
    emit_label_selector(out, *args.label_selector);
  }
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

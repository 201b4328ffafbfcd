// DefaultEvictor args as kubernetes-sigs/descheduler (v0.36) defines them: defaults, validation,
// the deprecated booleans and how they combine with podProtections, and writing the effective
// args back (always in the podProtections form, never the deprecated booleans).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

// The priority of system-cluster-critical: upstream's default threshold and its maximum.
constexpr int64_t kSystemCriticalPriority = 2000000000;

const std::vector<std::string> kDefaultProtections = {"PodsWithLocalStorage", "DaemonSetPods",
                                                      "SystemCriticalPods", "FailedBarePods"};
const std::vector<std::string> kExtraProtections = {"PodsWithPVC", "PodsWithoutPDB",
                                                    "PodsWithResourceClaims"};

// A deprecated boolean and the protection it stands for: `true` disables a default protection
// (evict*) or enables an extra one (ignore*).
struct LegacyFlag {
  std::string_view key;
  std::string_view protection;
  bool disables_default;
  bool volcano_reads;  // Volcano's descheduler (kubernetes-sigs v0.30) has the boolean and no
                       // podProtections
};
constexpr LegacyFlag kLegacyFlags[] = {
    {"evictLocalStoragePods", "PodsWithLocalStorage", true, true},
    {"evictDaemonSetPods", "DaemonSetPods", true, true},
    {"evictSystemCriticalPods", "SystemCriticalPods", true, true},
    {"evictFailedBarePods", "FailedBarePods", true, true},
    {"ignorePvcPods", "PodsWithPVC", false, true},
    {"ignorePodsWithoutPDB", "PodsWithoutPDB", false, false},
};

bool* protection_flag(PodProtections& p, std::string_view name) {
  if (name == "PodsWithLocalStorage") return &p.local_storage;
  if (name == "DaemonSetPods") return &p.daemon_set;
  if (name == "SystemCriticalPods") return &p.system_critical;
  if (name == "FailedBarePods") return &p.failed_bare;
  if (name == "PodsWithPVC") return &p.with_pvc;
  if (name == "PodsWithoutPDB") return &p.without_pdb;
  if (name == "PodsWithResourceClaims") return &p.with_resource_claims;
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

void read_priority_threshold(FieldReader& args, PriorityThreshold& out) {
  out = PriorityThreshold{};
  std::optional<FieldReader> reader = args.object("priorityThreshold");
  if (reader && reader->valid()) {
    // Priorities above system-cluster-critical's are never evictable anyway; upstream rejects
    // them.
    std::optional<int64_t> value =
        reader->integer("value", std::numeric_limits<int32_t>::min(), kSystemCriticalPriority);
    std::optional<std::string> name = reader->string("name");
    if (value && name && !name->empty()) {
      reader->error("set value or name, not both (found value " + std::to_string(*value) +
                    " and name \"" + *name + "\")");
    }
    if (name && !name->empty()) {
      out.name = *name;
    } else if (value) {
      out.value = static_cast<int32_t>(*value);
    }
    reader->finish();
  }
  if (out.name.empty() && !out.value) out.value = static_cast<int32_t>(kSystemCriticalPriority);
}

// Reads one podProtections list; every item must be one of `allowed`. Returns the valid items.
std::vector<std::string> read_protection_list(FieldReader& reader, std::string_view key,
                                              const std::vector<std::string>& allowed,
                                              const std::vector<std::string>& other,
                                              std::string_view other_key) {
  std::vector<std::string> out;
  std::optional<std::vector<std::string>> items = reader.string_list(key);
  if (!items) return out;
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string& item = (*items)[i];
    if (std::find(allowed.begin(), allowed.end(), item) != allowed.end()) {
      out.push_back(item);
      continue;
    }
    std::string message = "expected one of " + join(allowed) + ", found \"" + item + "\"";
    if (std::find(other.begin(), other.end(), item) != other.end()) {
      message += " (" + item + " belongs in " + std::string(other_key) + ")";
    } else if (std::string near = closest_match(item, allowed); !near.empty()) {
      message += " (did you mean \"" + near + "\"?)";
    }
    error_at_item(reader, key, i, message);
  }
  return out;
}

std::vector<std::string> read_protected_storage_classes(FieldReader& protections) {
  std::vector<std::string> out;
  std::optional<FieldReader> config = protections.object("config");
  if (!config || !config->valid()) return out;
  if (std::optional<FieldReader> pvc = config->object("PodsWithPVC"); pvc && pvc->valid()) {
    for (FieldReader& storage_class : pvc->object_list("protectedStorageClasses")) {
      std::optional<std::string> name = storage_class.string("name", true);
      if (name && name->empty()) storage_class.error_at("name", "must not be empty");
      if (name && !name->empty()) out.push_back(*name);
      storage_class.finish();
    }
    pvc->finish();
  }
  config->finish();
  return out;
}

// podProtections and the deprecated booleans -> effective protections.
PodProtections read_protections(FieldReader& args) {
  PodProtections out;
  std::vector<std::string> legacy_set;  // deprecated booleans given as true
  std::vector<std::string_view> legacy_protections;
  for (const LegacyFlag& flag : kLegacyFlags) {
    std::optional<bool> value = args.boolean(flag.key);
    if (!value) continue;
    std::string replacement =
        std::string(flag.disables_default ? "defaultDisabled" : "extraEnabled") + ": [" +
        std::string(flag.protection) + "]";
    // `false` is the default of every deprecated boolean: the podProtections equivalent is to
    // list nothing, and listing the protection would flip its meaning.
    args.warning_at(flag.key,
                    *value ? "deprecated since kubernetes-sigs/descheduler v0.34; use "
                             "podProtections." +
                                 replacement + " instead" +
                                 (flag.volcano_reads ? " (not for Volcano's descheduler: it reads "
                                                       "only the boolean)"
                                                     : "")
                           : "deprecated since kubernetes-sigs/descheduler v0.34; " +
                                 std::string(flag.key) +
                                 ": false is the default, so delete the line (do not "
                                 "list " +
                                 std::string(flag.protection) + " in podProtections)");
    if (*value) {
      legacy_set.push_back(std::string(flag.key) + ": true (= " + replacement + ")");
      legacy_protections.push_back(flag.protection);
    }
  }

  std::vector<std::string> disabled, enabled;
  std::optional<FieldReader> protections = args.object("podProtections");
  if (protections && protections->valid()) {
    disabled = read_protection_list(*protections, "defaultDisabled", kDefaultProtections,
                                    kExtraProtections, "extraEnabled");
    enabled = read_protection_list(*protections, "extraEnabled", kExtraProtections,
                                   kDefaultProtections, "defaultDisabled");
    out.protected_storage_classes = read_protected_storage_classes(*protections);
    protections->finish();
  }

  bool lists_given = !disabled.empty() || !enabled.empty();
  if (lists_given && !legacy_set.empty()) {
    args.error_at("podProtections", "cannot be combined with the deprecated " + join(legacy_set) +
                                        "; move those settings into podProtections");
  }
  if (lists_given) {
    for (const std::string& name : disabled) *protection_flag(out, name) = false;
    for (const std::string& name : enabled) *protection_flag(out, name) = true;
  } else {
    for (const LegacyFlag& flag : kLegacyFlags) {
      if (std::find(legacy_protections.begin(), legacy_protections.end(), flag.protection) !=
          legacy_protections.end()) {
        *protection_flag(out, flag.protection) = !flag.disables_default;
      }
    }
  }
  if (!out.protected_storage_classes.empty() && !out.with_pvc) {
    protections->warning_at("config",
                            "protectedStorageClasses has no effect unless PodsWithPVC "
                            "is enabled (podProtections.extraEnabled: [PodsWithPVC])");
    out.protected_storage_classes.clear();  // the effective args: nothing to configure
  }
  return out;
}

}  // namespace

PluginArgs default_default_evictor_args() {
  DefaultEvictorArgs args;
  args.priority_threshold.value = static_cast<int32_t>(kSystemCriticalPriority);
  return args;
}

PluginArgs read_default_evictor_args(FieldReader& args) {
  DefaultEvictorArgs out = std::get<DefaultEvictorArgs>(default_default_evictor_args());
  if (std::optional<std::string> selector = args.selector_string("nodeSelector")) {
    out.node_selector = *selector;
  }
  out.label_selector = args.label_selector("labelSelector");
  out.namespace_label_selector = args.label_selector("namespaceLabelSelector");
  read_priority_threshold(args, out.priority_threshold);
  if (std::optional<bool> node_fit = args.boolean("nodeFit")) out.node_fit = *node_fit;
  if (std::optional<int64_t> replicas =
          args.integer("minReplicas", 0, std::numeric_limits<uint32_t>::max())) {
    out.min_replicas = static_cast<uint32_t>(*replicas);
  }
  out.min_pod_age = args.duration("minPodAge");
  if (std::optional<std::string> policy = args.string("noEvictionPolicy")) {
    static const std::vector<std::string> kPolicies = {"Preferred", "Mandatory"};
    if (*policy == "Mandatory") {
      out.no_eviction_policy = NoEvictionPolicy::kMandatory;
    } else if (!policy->empty() && *policy != "Preferred") {
      std::string message = "expected Preferred or Mandatory, found \"" + *policy + "\"";
      if (std::string near = closest_match(*policy, kPolicies); !near.empty()) {
        message += " (did you mean \"" + near + "\"?)";
      }
      args.error_at("noEvictionPolicy", message);
    }
  }
  out.protections = read_protections(args);
  args.finish();
  return out;
}

void write_default_evictor_common(const DefaultEvictorArgs& args, YAML::Emitter& out) {
  out << YAML::Key << "nodeSelector" << YAML::Value;
  emit_string(out, args.node_selector);
  if (args.label_selector) {
    out << YAML::Key << "labelSelector" << YAML::Value;
    emit_label_selector(out, *args.label_selector);
  }
  out << YAML::Key << "priorityThreshold" << YAML::Value << YAML::BeginMap;
  if (!args.priority_threshold.name.empty()) {
    out << YAML::Key << "name" << YAML::Value;
    emit_string(out, args.priority_threshold.name);
  } else {
    out << YAML::Key << "value" << YAML::Value
        << args.priority_threshold.value.value_or(kSystemCriticalPriority);
  }
  out << YAML::EndMap;
  out << YAML::Key << "nodeFit" << YAML::Value << args.node_fit;
  out << YAML::Key << "minReplicas" << YAML::Value << args.min_replicas;
}

void write_default_evictor_args(const PluginArgs& variant, YAML::Emitter& out) {
  const DefaultEvictorArgs& args = std::get<DefaultEvictorArgs>(variant);
  out << YAML::BeginMap;
  write_default_evictor_common(args, out);
  if (args.namespace_label_selector) {
    out << YAML::Key << "namespaceLabelSelector" << YAML::Value;
    emit_label_selector(out, *args.namespace_label_selector);
  }
  if (args.min_pod_age) {
    out << YAML::Key << "minPodAge" << YAML::Value;
    emit_string(out, args.min_pod_age->text);
  }
  out << YAML::Key << "noEvictionPolicy" << YAML::Value
      << (args.no_eviction_policy == NoEvictionPolicy::kMandatory ? "Mandatory" : "Preferred");

  PodProtections protections = args.protections;
  std::vector<std::string> disabled, enabled;
  for (const std::string& name : kDefaultProtections) {
    if (!*protection_flag(protections, name)) disabled.push_back(name);
  }
  for (const std::string& name : kExtraProtections) {
    if (*protection_flag(protections, name)) enabled.push_back(name);
  }
  out << YAML::Key << "podProtections" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "defaultDisabled" << YAML::Value;
  if (disabled.empty()) out << YAML::Flow;
  emit_string_list(out, disabled);
  out << YAML::Key << "extraEnabled" << YAML::Value;
  if (enabled.empty()) out << YAML::Flow;
  emit_string_list(out, enabled);
  if (!protections.protected_storage_classes.empty()) {
    out << YAML::Key << "config" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "PodsWithPVC" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "protectedStorageClasses" << YAML::Value << YAML::BeginSeq;
    for (const std::string& name : protections.protected_storage_classes) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value;
      emit_string(out, name);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

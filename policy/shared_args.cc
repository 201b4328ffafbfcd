#include "policy/shared_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace loadshift::policy {
namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// 1..63 of [A-Za-z0-9._-], alphanumeric at both ends (the name part of a qualified name).
bool is_name_part(std::string_view text) {
  if (text.empty() || text.size() > 63) return false;
  if (!is_alnum(text.front()) || !is_alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; });
}

// A DNS-1123 subdomain: dot-separated DNS labels, at most 253 characters.
bool is_dns_subdomain(std::string_view text) {
  if (text.empty() || text.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    std::string_view label = text.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!is_dns_label(label)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// The value of `key` in `map` (a valid mapping), or an undefined node.
YAML::Node find_value(const YAML::Node& map, std::string_view key) {
  for (const auto& entry : map) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Reads a list of namespace names at `key`. A name that is not a DNS-1123 label can never be a
// namespace. Under `exclude` that is an error: the protection the user meant would protect
// nothing. Under `include` it is a warning and the name is kept: upstream loads such files (the
// OpenShift operator's testdata have "includedNamespace"), the name matches no pod, and dropping
// it could leave the include list empty, which would mean every namespace.
std::vector<std::string> read_namespace_list(FieldReader& reader, std::string_view key,
                                             bool include) {
  std::vector<std::string> out;
  std::optional<std::vector<std::string>> names = reader.string_list(key);
  if (!names) return out;
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    if (is_dns_label(name)) {
      out.push_back(name);
    } else if (include) {
      out.push_back(name);
      warning_at_item(reader, key, i,
                      "\"" + name +
                          "\" can never be a namespace name (lowercase letters, digits and '-'), "
                          "so it matches no pod");
    } else {
      error_at_item(
          reader, key, i,
          "expected a namespace name (lowercase letters, digits and '-'), found \"" + name + "\"");
    }
  }
  return out;
}

}  // namespace

bool is_qualified_name(std::string_view text) {
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return is_name_part(text);
  return is_dns_subdomain(text.substr(0, slash)) && is_name_part(text.substr(slash + 1));
}

bool is_label_value(std::string_view text) {
  return text.empty() || is_name_part(text);
}

bool is_dns_label(std::string_view text) {
  if (text.empty() || text.size() > 63) return false;
  auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_alnum(text.front()) || !lower_alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) { return lower_alnum(c) || c == '-'; });
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::string near = closest_match(name, candidates);
  if (near.empty() || name.empty() || lower(near.substr(0, 1)) != lower(name.substr(0, 1))) {
    return "";
  }
  return " (did you mean \"" + near + "\"?)";
}

std::string check_requests_resource(const std::string& name) {
  static const std::vector<std::string> kStandard = {"cpu", "memory", "pods", "ephemeral-storage"};
  if (std::find(kStandard.begin(), kStandard.end(), name) != kStandard.end()) return "";
  if (name.starts_with("hugepages-") && name.size() > 10) return "";
  if (name.find('/') != std::string::npos && is_qualified_name(name)) return "";
  if (name == "MetricResource") {
    return "MetricResource is only valid with metricsUtilization.source: Prometheus";
  }
  return "unknown resource \"" + name +
         "\": expected cpu, memory, pods, ephemeral-storage, hugepages-<size> or an extended "
         "resource with a domain such as nvidia.com/gpu" +
         did_you_mean(name, kStandard);
}

std::optional<Percentages> read_watermarks(FieldReader& args, std::string_view key, bool required,
                                           const ResourceRule& rule) {
  if (!args.has(key)) {
    if (required && args.valid()) args.error_at(key, args.absent(key));
    return std::nullopt;
  }
  std::optional<FieldReader> map = args.object(key);
  if (!map || !map->valid()) return std::nullopt;
  if (map->node().size() == 0) {
    map->error("expected at least one resource, found an empty mapping");
    return std::nullopt;
  }
  Percentages out;
  bool ok = true;
  for (const auto& entry : map->node()) {
    if (!entry.first.IsScalar()) {  // finish() reports it
      ok = false;
      continue;
    }
    const std::string name = entry.first.Scalar();
    if (std::string problem = rule(name); !problem.empty()) {
      map->error_at(name, problem);
      map->accept({name});
      ok = false;
      continue;
    }
    if (std::optional<double> value = map->entry_number(name, 0, 100)) {
      out[name] = *value;
    } else {
      ok = false;
    }
  }
  map->finish();
  if (!ok) return std::nullopt;
  return out;
}

void check_watermark_pair(FieldReader& args, const Percentages& low, const Percentages& high,
                          bool deviation, std::string_view low_key, std::string_view high_key) {
  const std::string same = " (" + std::string(low_key) + " and " + std::string(high_key) +
                           " must name the same resources)";
  for (const auto& [resource, value] : low) {
    auto it = high.find(resource);
    if (it == high.end()) {
      error_in_mapping(
          args, high_key, resource,
          "missing resource \"" + resource + "\", which " + std::string(low_key) + " sets" + same);
    } else if (!deviation && value > it->second) {
      error_in_mapping(args, low_key, resource,
                       resource + " threshold " + number_text(value) + " is greater than " +
                           std::string(high_key) + "." + resource + " " + number_text(it->second) +
                           " (" + std::string(low_key) + " must not exceed " +
                           std::string(high_key) + " unless useDeviationThresholds is true)");
    }
  }
  for (const auto& [resource, value] : high) {
    if (low.count(resource) == 0) {
      error_in_mapping(args, high_key, resource,
                       "resource \"" + resource + "\" is not in " + std::string(low_key) + same);
    }
  }
}

void error_in_mapping(FieldReader& args, std::string_view key, const std::string& entry,
                      std::string message) {
  if (args.valid()) {
    YAML::Node map = find_value(args.node(), key);
    if (map.IsDefined() && map.IsMap()) {
      FieldReader reader(map, args.child_path(key), &args.diagnostics());
      if (reader.has(entry)) {
        reader.error_at(entry, std::move(message));
      } else {
        reader.error(std::move(message));
      }
      return;
    }
  }
  args.error_at(key, std::move(message));
}

namespace {

void report_at_item(FieldReader& args, std::string_view key, size_t index, std::string message,
                    bool error) {
  if (args.valid()) {
    YAML::Node list = find_value(args.node(), key);
    if (list.IsDefined() && list.IsSequence() && index < list.size()) {
      YAML::Mark mark = list[index].Mark();
      std::string path = args.child_path(key) + "[" + std::to_string(index) + "]";
      if (error) {
        args.diagnostics().error(mark.line, mark.column, std::move(path), std::move(message));
      } else {
        args.diagnostics().warning(mark.line, mark.column, std::move(path), std::move(message));
      }
      return;
    }
  }
  if (error) {
    args.error_at(key, std::move(message));
  } else {
    args.warning_at(key, std::move(message));
  }
}

}  // namespace

void error_at_item(FieldReader& args, std::string_view key, size_t index, std::string message) {
  report_at_item(args, key, index, std::move(message), true);
}

void warning_at_item(FieldReader& args, std::string_view key, size_t index, std::string message) {
  report_at_item(args, key, index, std::move(message), false);
}

std::vector<std::string> read_evictable_namespaces(FieldReader& args, std::string_view plugin) {
  std::optional<FieldReader> namespaces = args.object("evictableNamespaces");
  if (!namespaces || !namespaces->valid()) return {};
  std::optional<std::vector<std::string>> include = namespaces->string_list("include");
  if (include && !include->empty()) {
    namespaces->error_at("include",
                         "only exclude is supported (as upstream): " + std::string(plugin) +
                             " cannot be limited to some namespaces; list the "
                             "namespaces whose pods must stay under exclude");
  }
  std::vector<std::string> out = read_namespace_list(*namespaces, "exclude", false);
  namespaces->finish();
  return out;
}

Namespaces read_namespaces(FieldReader& args) {
  Namespaces out;
  std::optional<FieldReader> namespaces = args.object("namespaces");
  if (!namespaces || !namespaces->valid()) return out;
  out.include = read_namespace_list(*namespaces, "include", true);
  out.exclude = read_namespace_list(*namespaces, "exclude", false);
  if (!out.include.empty() && !out.exclude.empty()) {
    namespaces->error("set include or exclude, not both");
  }
  namespaces->finish();
  return out;
}

std::string number_text(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (ec != std::errc()) return "0";
  return std::string(buffer, end);
}

void emit_string(YAML::Emitter& out, const std::string& text) {
  static const std::vector<std::string> kKeywords = {"true", "false", "yes", "no",   "on",
                                                     "off",  "y",     "n",   "null", "~"};
  bool looks_special =
      text.empty() || std::string_view("0123456789+-.").find(text[0]) != std::string_view::npos;
  std::string folded = lower(text);
  looks_special =
      looks_special || std::find(kKeywords.begin(), kKeywords.end(), folded) != kKeywords.end();
  if (looks_special) {
    out << YAML::DoubleQuoted << text;
  } else {
    out << text;
  }
}

void emit_number(YAML::Emitter& out, double value) {
  out << number_text(value);
}

void emit_string_list(YAML::Emitter& out, const std::vector<std::string>& items) {
  out << YAML::BeginSeq;
  for (const std::string& item : items) emit_string(out, item);
  out << YAML::EndSeq;
}

void emit_percentages(YAML::Emitter& out, const Percentages& values) {
  out << YAML::BeginMap;
  for (const auto& [resource, percent] : values) {
    out << YAML::Key << resource << YAML::Value;
    emit_number(out, percent);
  }
  out << YAML::EndMap;
}

void emit_label_selector(YAML::Emitter& out, const model::LabelSelector& selector) {
  out << YAML::BeginMap;
  if (!selector.match_labels.empty()) {
    out << YAML::Key << "matchLabels" << YAML::Value << YAML::BeginMap;
    for (const auto& [key, value] : selector.match_labels.items()) {
      out << YAML::Key << key << YAML::Value;
      emit_string(out, value);
    }
    out << YAML::EndMap;
  }
  if (!selector.match_expressions.empty()) {
    out << YAML::Key << "matchExpressions" << YAML::Value << YAML::BeginSeq;
    for (const model::LabelSelectorRequirement& r : selector.match_expressions) {
      out << YAML::BeginMap << YAML::Key << "key" << YAML::Value;
      emit_string(out, r.key);
      out << YAML::Key << "operator" << YAML::Value << r.op;
      if (!r.values.empty()) {
        out << YAML::Key << "values" << YAML::Value;
        emit_string_list(out, r.values);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
}

void emit_namespaces(YAML::Emitter& out, std::string_view key, const Namespaces& namespaces) {
  if (namespaces.include.empty() && namespaces.exclude.empty()) return;
  out << YAML::Key << std::string(key) << YAML::Value << YAML::BeginMap;
  if (!namespaces.include.empty()) {
    out << YAML::Key << "include" << YAML::Value;
    emit_string_list(out, namespaces.include);
  }
  if (!namespaces.exclude.empty()) {
    out << YAML::Key << "exclude" << YAML::Value;
    emit_string_list(out, namespaces.exclude);
  }
  out << YAML::EndMap;
}

void emit_plugins(YAML::Emitter& out, const Plugins& plugins) {
  auto set = [&out](const char* key, const PluginSet& plugin_set) {
    out << YAML::Key << key << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "enabled" << YAML::Value;
    if (plugin_set.enabled.empty()) out << YAML::Flow;
    emit_string_list(out, plugin_set.enabled);
    out << YAML::EndMap;
  };
  out << YAML::Key << "plugins" << YAML::Value << YAML::BeginMap;
  set("deschedule", plugins.deschedule);
  set("balance", plugins.balance);
  set("filter", plugins.filter);
  set("preevictionfilter", plugins.pre_eviction_filter);
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

#include "policy/profile_reader.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "policy/plugin_schemas.h"

namespace loadshift::policy {
namespace {

constexpr std::string_view kDefaultEvictor = "DefaultEvictor";
constexpr std::string_view kLoadAware = "LoadAware";

template <typename Items>
std::string join(const Items& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += std::string(item);
  }
  return out;
}

// "a", "a and b", "a, b and c".
std::string join_and(const std::vector<std::string_view>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += std::string(items[i]);
  }
  return out;
}

std::string available_plugins() {
  std::vector<std::string_view> names;
  for (const PluginSchema& schema : plugin_schemas()) names.push_back(schema.name);
  return join(names);
}

std::string extension_points_of(const PluginSchema& schema) {
  std::vector<std::string_view> names;
  for (ExtensionPoint point : schema.extension_points) names.push_back(to_string(point));
  return join(names);
}

void error_at(Diagnostics& diagnostics, const YAML::Node& at, const std::string& path,
              std::string message) {
  YAML::Mark mark = at.Mark();
  diagnostics.error(mark.line, mark.column, path, std::move(message));
}

// The schema of `name`, or an error at `at` saying whether upstream has the plugin or nobody does.
const PluginSchema* resolve_plugin(const std::string& name, const YAML::Node& at,
                                   const std::string& path, Diagnostics& diagnostics) {
  if (const PluginSchema* schema = find_plugin_schema(name)) return schema;
  std::string message;
  if (is_upstream_only_plugin(name)) {
    message = "loadshift does not implement plugin " + name +
              " yet (available: " + available_plugins() + ")";
  } else {
    std::vector<std::string> candidates;
    for (const PluginSchema& schema : plugin_schemas()) candidates.emplace_back(schema.name);
    for (std::string_view upstream : upstream_only_plugins()) candidates.emplace_back(upstream);
    message = "unknown plugin \"" + name + "\"";
    if (std::string near = closest_match(name, candidates); !near.empty()) {
      message += " (did you mean \"" + near + "\"?)";
    } else {
      message += " (available: " + available_plugins() + ")";
    }
  }
  error_at(diagnostics, at, path, std::move(message));
  return nullptr;
}

// Where a plugin was first enabled, for errors about it.
struct EnableSite {
  YAML::Node at;
  std::string path;
};

struct ConfigEntry {
  const PluginSchema* schema = nullptr;
  PluginArgs args;
  YAML::Node name_node;
  std::string name_path;
  ProfileArgsSource source;
};

// Reads plugins.<key>: {enabled, disabled}. Valid enabled plugins are appended to `set`.
void read_extension_point(FieldReader& plugins, std::string_view key, ExtensionPoint point,
                          PluginSet& set, std::map<std::string, EnableSite>& sites) {
  std::optional<FieldReader> reader = plugins.object(key);
  if (!reader || !reader->valid()) return;
  std::optional<std::vector<std::string>> names = reader->string_list("enabled");
  YAML::Node nodes = reader->get("enabled");
  std::optional<std::vector<std::string>> disabled = reader->string_list("disabled");
  if (disabled && !disabled->empty()) {
    reader->warning_at("disabled",
                       "has no effect: no plugin is enabled by default, so there is nothing to "
                       "disable (kubernetes-sigs/descheduler parses it but never uses it)");
  }
  for (size_t i = 0; names && i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    YAML::Node at = nodes[i];
    std::string path = reader->child_path("enabled") + "[" + std::to_string(i) + "]";
    const PluginSchema* schema = resolve_plugin(name, at, path, reader->diagnostics());
    if (schema == nullptr) continue;
    if (!schema->implements(point)) {
      error_at(reader->diagnostics(), at, path,
               "plugin " + name + " does not implement the " + std::string(to_string(point)) +
                   " extension point (it implements " + extension_points_of(*schema) + ")");
      continue;
    }
    if (std::find(set.enabled.begin(), set.enabled.end(), name) != set.enabled.end()) {
      error_at(reader->diagnostics(), at, path,
               "plugin " + name + " is enabled twice at " + std::string(to_string(point)));
      continue;
    }
    set.enabled.push_back(name);
    sites.emplace(name, EnableSite{at, path});
  }
  reader->finish();
}

// sort and presort: parsed upstream, never used. Only a plugin enabled there deserves a warning:
// empty blocks ({enabled: null, disabled: null}, as the OpenShift operator writes them) and
// disabled lists change nothing either way.
void read_unused_point(FieldReader& plugins, std::string_view key) {
  std::optional<FieldReader> reader = plugins.object(key);
  if (!reader || !reader->valid()) return;
  std::optional<std::vector<std::string>> enabled = reader->string_list("enabled");
  reader->string_list("disabled");
  reader->finish();
  if (enabled && !enabled->empty()) {
    plugins.warning_at(key,
                       "has no effect: kubernetes-sigs/descheduler parses it but never uses it");
  }
}

void read_plugins(FieldReader& profile, Plugins& out, std::map<std::string, EnableSite>& sites) {
  std::optional<FieldReader> plugins = profile.object("plugins");
  if (!plugins || !plugins->valid()) return;
  read_extension_point(*plugins, "deschedule", ExtensionPoint::kDeschedule, out.deschedule, sites);
  read_extension_point(*plugins, "balance", ExtensionPoint::kBalance, out.balance, sites);
  read_extension_point(*plugins, "filter", ExtensionPoint::kFilter, out.filter, sites);
  // Upstream's key is all lowercase; its README spells it preEvictionFilter (which upstream then
  // silently ignores). Both are accepted here, one at a time.
  bool lowercase = plugins->has("preevictionfilter");
  bool camel_case = plugins->has("preEvictionFilter");
  if (lowercase && camel_case) {
    plugins->error_at("preEvictionFilter",
                      "preevictionfilter and preEvictionFilter are the same extension point; "
                      "give only one");
  }
  read_extension_point(*plugins, lowercase ? "preevictionfilter" : "preEvictionFilter",
                       ExtensionPoint::kPreEvictionFilter, out.pre_eviction_filter, sites);
  read_unused_point(*plugins, "sort");
  read_unused_point(*plugins, "presort");
  plugins->finish();
}

std::vector<ConfigEntry> read_plugin_config(FieldReader& profile) {
  std::vector<ConfigEntry> entries;
  std::set<std::string> seen;
  for (FieldReader& entry : profile.object_list("pluginConfig")) {
    std::optional<std::string> name = entry.string("name", true);
    YAML::Node name_node = entry.get("name");
    std::string name_path = entry.child_path("name");
    const PluginSchema* schema =
        name ? resolve_plugin(*name, name_node, name_path, entry.diagnostics()) : nullptr;
    if (schema != nullptr && !seen.insert(*name).second) {
      error_at(entry.diagnostics(), name_node, name_path,
               "duplicate pluginConfig for " + *name + "; give each plugin one entry");
      schema = nullptr;
    }
    if (schema == nullptr) {
      entry.accept({"args"});
      entry.finish();
      continue;
    }
    ConfigEntry config;
    config.schema = schema;
    config.name_node = name_node;
    config.name_path = name_path;
    if (std::optional<FieldReader> args = entry.object("args")) {
      config.args = schema->read(*args);
      config.source = {args->node(), args->path()};
    } else {
      config.args = schema->defaults();
      config.source = {YAML::Node(YAML::NodeType::Undefined), entry.child_path("args")};
      if (!schema->required_args.empty()) {
        entry.error("pluginConfig for " + *name + " has no args; its args " +
                    join_and(schema->required_args) + " are required");
      }
    }
    entry.finish();
    entries.push_back(std::move(config));
  }
  return entries;
}

bool contains(const std::vector<std::string>& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

Profile read_profile(FieldReader& reader, std::map<std::string, ProfileArgsSource>* sources) {
  Profile profile;
  const size_t errors_before = reader.diagnostics().errors().size();
  if (std::optional<std::string> name = reader.string("name", true)) {
    if (name->empty()) reader.error_at("name", "must not be empty");
    profile.name = *name;
  }
  std::vector<ConfigEntry> configs = read_plugin_config(reader);
  std::map<std::string, EnableSite> sites;
  read_plugins(reader, profile.plugins, sites);

  // Upstream always runs DefaultEvictor as the filter and preEvictionFilter; Volcano adds
  // LoadAware's nodeFit check to preEvictionFilter whenever LoadAware balances.
  Plugins& plugins = profile.plugins;
  if (!contains(plugins.filter.enabled, kDefaultEvictor)) {
    plugins.filter.enabled.insert(plugins.filter.enabled.begin(), std::string(kDefaultEvictor));
  }
  if (!contains(plugins.pre_eviction_filter.enabled, kDefaultEvictor)) {
    plugins.pre_eviction_filter.enabled.insert(plugins.pre_eviction_filter.enabled.begin(),
                                               std::string(kDefaultEvictor));
  }
  if (contains(plugins.balance.enabled, kLoadAware) &&
      !contains(plugins.pre_eviction_filter.enabled, kLoadAware)) {
    plugins.pre_eviction_filter.enabled.emplace_back(kLoadAware);
  }
  std::vector<std::string> enabled;
  for (const PluginSet* set :
       {&plugins.deschedule, &plugins.balance, &plugins.filter, &plugins.pre_eviction_filter}) {
    for (const std::string& name : set->enabled) {
      if (!contains(enabled, name)) enabled.push_back(name);
    }
  }

  // plugin_config: the configured plugins that run, in the file's order, then defaults for the
  // enabled plugins without a pluginConfig (DefaultEvictor first, as it always exists).
  for (ConfigEntry& config : configs) {
    std::string name(config.schema->name);
    if (!contains(enabled, name)) {
      YAML::Mark mark = config.name_node.Mark();
      reader.diagnostics().warning(
          mark.line, mark.column, config.name_path,
          "plugin " + name +
              " has a pluginConfig but is not enabled; it has no effect (enable "
              "it under plugins." +
              std::string(to_string(config.schema->extension_points.front())) + ".enabled)");
      continue;
    }
    if (sources != nullptr) (*sources)[name] = config.source;
    profile.plugin_config.push_back({name, std::move(config.args)});
  }
  if (profile.config(kDefaultEvictor) == nullptr) {
    const PluginSchema* evictor = find_plugin_schema(kDefaultEvictor);
    profile.plugin_config.insert(profile.plugin_config.begin(),
                                 {std::string(kDefaultEvictor), evictor->defaults()});
  }
  for (const std::string& name : enabled) {
    if (profile.config(name) != nullptr) continue;
    const PluginSchema* schema = find_plugin_schema(name);
    if (!schema->required_args.empty()) {
      std::string message = "plugin " + name + " is enabled but has no pluginConfig; its args " +
                            join_and(schema->required_args) + " are required";
      auto site = sites.find(name);
      if (site != sites.end()) {
        error_at(reader.diagnostics(), site->second.at, site->second.path, message);
      } else {
        reader.error_at("plugins", message);  // enabled implicitly
      }
      continue;
    }
    profile.plugin_config.push_back({name, schema->defaults()});
  }

  // An enabled plugin that failed to load is missing from the sets; the errors say why, and
  // "enables nothing" next to them would contradict the file.
  if (plugins.deschedule.enabled.empty() && plugins.balance.enabled.empty() &&
      reader.diagnostics().errors().size() == errors_before) {
    reader.warning_at("plugins",
                      "no deschedule or balance plugin is enabled; this profile evicts nothing");
  }
  reader.finish();
  return profile;
}

}  // namespace loadshift::policy

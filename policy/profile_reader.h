// Reading one profile of a DeschedulerPolicy (profiles[i]): its pluginConfig entries, read by the
// plugins' schemas, and its plugins.<extension point>.enabled lists, resolved against the plugin
// registry, with upstream's implicit additions (DefaultEvictor in filter and preEvictionFilter,
// LoadAware in preEvictionFilter as Volcano does). Internal to the loader.
#pragma once

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

// Where a profile's plugin args sit in the file, for the loader's cross-checks against top-level
// settings (e.g. LowNodeUtilization's metricsUtilization needs a metrics provider).
struct ProfileArgsSource {
  YAML::Node node;   // the args mapping (Undefined when the args were defaulted)
  std::string path;  // "profiles[0].pluginConfig[1].args"
};

// Reads the profile mapping `reader`, reports every problem through its diagnostics and calls
// reader.finish(). Returns the profile with plugin_config holding one entry per enabled plugin,
// defaults filled in. `sources` receives, per plugin name, where its args were read from.
Profile read_profile(FieldReader& reader, std::map<std::string, ProfileArgsSource>* sources);

}  // namespace loadshift::policy

#include "policy/policy.h"

namespace loadshift::policy {

const PluginConfig* Profile::config(std::string_view plugin) const {
  for (const PluginConfig& entry : plugin_config) {
    if (entry.name == plugin) return &entry;
  }
  return nullptr;
}

}  // namespace loadshift::policy

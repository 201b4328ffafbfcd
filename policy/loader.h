// Loading a DeschedulerPolicy: text -> validated Policy with defaults, or every error at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/policy.h"

namespace loadshift::policy {

struct LoadResult {
  std::optional<Policy> policy;      // set only when there is no error
  std::vector<Diagnostic> errors;    // every error of the file, in document order
  std::vector<Diagnostic> warnings;  // accepted but without effect, deprecated, ...
  bool ok() const { return policy.has_value(); }
};

// Reads a policy from `text` (YAML or JSON): a bare `descheduler/v1alpha2` DeschedulerPolicy, or
// a ConfigMap whose data["policy.yaml"] holds one (positions then point into the ConfigMap file).
// `file` names the source in diagnostics.
LoadResult load_policy(std::string_view text, const std::string& file);

// Reads the file at `path` and loads it; a file that cannot be read is one error.
LoadResult load_policy_file(const std::string& path);

}  // namespace loadshift::policy

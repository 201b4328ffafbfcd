// The effective policy in the form Volcano's descheduler reads (`loadshift validate --effective
// --for volcano`). Volcano's descheduler builds on kubernetes-sigs/descheduler v0.30 and decodes
// plugin args strictly, so loadshift's own keys (podProtections, metrics.window, nodePools, ...)
// make it refuse the file. This writer emits only the fields Volcano reads, with loadshift's
// defaults made explicit where Volcano has the field, and lists every setting it could not carry.
#pragma once

#include <string>
#include <vector>

#include "policy/policy.h"

namespace loadshift::policy {

struct VolcanoPolicy {
  // A descheduler/v1alpha2 DeschedulerPolicy document. Its header comment lists `not_carried`.
  std::string yaml;
  // One line per setting of `policy` that Volcano has no field for, so Volcano running `yaml`
  // behaves differently there: "profiles[0] LoadAware metrics.step 1m: Volcano hard-codes 30s".
  std::vector<std::string> not_carried;
};

// Writes `policy` (valid, as load_policy() returns it) for Volcano's descheduler.
VolcanoPolicy write_volcano_policy_yaml(const Policy& policy);

}  // namespace loadshift::policy

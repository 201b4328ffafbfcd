// The top-level `loadshift` section of a policy (policy::PlanSettings): reading it, writing it
// back, summarizing it. kubernetes-sigs' and Volcano's descheduler drop unknown top-level keys, so
// a ConfigMap with this section still loads there. Internal to policy/.
#pragma once

#include <yaml-cpp/yaml.h>

#include <ostream>

#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

// Reads `loadshift` of the document `top` (absent: every default), reporting each problem at its
// position.
PlanSettings read_plan_settings(FieldReader& top);
// Writes `loadshift: {...}` with every field, as the loader reads it back.
void write_plan_settings(YAML::Emitter& out, const PlanSettings& settings);
// "  plan: cool-down 30m, 1 pod in flight per workload, ..." lines for `loadshift validate`.
void summarize_plan_settings(std::ostream& out, const PlanSettings& settings);

}  // namespace loadshift::policy

// LoadAware's `schedulerScoring` (loadshift's own): how the cluster's scheduler scores nodes, so
// that the scheduler model predicts where replacements land. The shape of
// KubeSchedulerConfiguration's NodeResourcesFitArgs.scoringStrategy, validated as kube-scheduler
// validates it. Internal to policy/.
#pragma once

#include <yaml-cpp/yaml.h>

#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

// Reads `schedulerScoring` from LoadAware's args when present; the default (LeastAllocated, cpu
// 1, memory 1) otherwise. Errors go to the reader's diagnostics.
SchedulerScoring read_scheduler_scoring(FieldReader& args);

// Writes `schedulerScoring` (key and value) into the open args mapping.
void write_scheduler_scoring(const SchedulerScoring& scoring, YAML::Emitter& out);

}  // namespace loadshift::policy

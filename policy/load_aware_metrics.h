// LoadAware's `metrics` block: Volcano's {type, address} plus loadshift's window, step, timeout,
// query templates, node matching, TLS and header settings. Internal to policy/ (used by
// load_aware_args.cc); the metrics module reads the resulting LoadAwareMetrics.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

// Reads `metrics` and Volcano's top-level `duration` (another name for metrics.window) from the
// plugin's args, validates them and fills defaults. Every problem goes to the reader's
// diagnostics; a bad field keeps its default.
LoadAwareMetrics read_load_aware_metrics(FieldReader& args);

// Writes `metrics: {...}` (key and mapping) with every field, so the effective settings are
// visible; read_load_aware_metrics() reads it back into equal metrics.
void write_load_aware_metrics(const LoadAwareMetrics& metrics, YAML::Emitter& out);

// Why a PromQL template uses a placeholder other than {{window}} and {{step}}, or empty.
std::string check_query_placeholders(std::string_view query);

// Reads `key` as a duration greater than zero. A bad or non-positive value is reported and
// gives nullopt, as does an absent one.
std::optional<Duration> read_positive_duration(FieldReader& reader, std::string_view key);

}  // namespace loadshift::policy

// The pieces that several plugins' args share: resource watermarks (thresholds and
// targetThresholds), namespace lists, Kubernetes name checks, and writing values back as YAML so
// that FieldReader reads them unchanged. Internal to policy/; the plugins' *_args.cc use it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "policy/field_reader.h"
#include "policy/policy.h"

namespace loadshift::policy {

// ---- names --------------------------------------------------------------------------------

// A Kubernetes qualified name (label key, taint key): optional DNS-subdomain prefix and "/",
// then 1..63 of [A-Za-z0-9._-], starting and ending alphanumeric.
bool is_qualified_name(std::string_view text);
// A label (or taint) value: empty, or 1..63 of [A-Za-z0-9._-] starting and ending alphanumeric.
bool is_label_value(std::string_view text);
// A DNS-1123 label, as namespace names are: 1..63 of [a-z0-9-], alphanumeric at both ends.
bool is_dns_label(std::string_view text);

// " (did you mean \"cpu\"?)" when a candidate is close to `name` and starts with the same letter
// (so "gpu" is not offered "cpu"), else empty.
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

// Checks a resource name a requests-based plugin may classify on: cpu, memory, pods,
// ephemeral-storage, hugepages-<size>, or an extended resource with a domain prefix
// (nvidia.com/gpu). Returns an error message, or empty when the name is allowed.
std::string check_requests_resource(const std::string& name);

// ---- watermarks ---------------------------------------------------------------------------

// Returns an error message for a resource name that is not allowed, or empty.
using ResourceRule = std::function<std::string(const std::string& name)>;

// Reads `key` as a non-empty mapping of resource name -> percent in 0..100, each name checked by
// `rule`. Every problem is reported at its key or value. Returns nullopt when the field is absent
// (an error when `required`) or when any entry is wrong, so that cross-checks do not pile
// follow-up errors onto an error already reported.
std::optional<Percentages> read_watermarks(FieldReader& args, std::string_view key, bool required,
                                           const ResourceRule& rule);

// Cross-checks a thresholds / targetThresholds pair read from `args` under `low_key` and
// `high_key`: the same resources in both, and low <= high for each unless `deviation`.
void check_watermark_pair(FieldReader& args, const Percentages& low, const Percentages& high,
                          bool deviation, std::string_view low_key = "thresholds",
                          std::string_view high_key = "targetThresholds");

// Reports `message` at `args.<key>.<entry>` when that entry exists in the mapping at `key`, else
// at `args.<key>`.
void error_in_mapping(FieldReader& args, std::string_view key, const std::string& entry,
                      std::string message);

// Reports `message` at item `index` of the list at `args.<key>` (path `key[index]`), as an error
// or as a warning.
void error_at_item(FieldReader& args, std::string_view key, size_t index, std::string message);
void warning_at_item(FieldReader& args, std::string_view key, size_t index, std::string message);

// ---- namespaces ---------------------------------------------------------------------------

// Reads `evictableNamespaces: {exclude: [...]}` as LowNodeUtilization, HighNodeUtilization and
// LoadAware take it: `include` is an error naming `plugin`. Returns the excluded namespaces.
std::vector<std::string> read_evictable_namespaces(FieldReader& args, std::string_view plugin);

// Reads `namespaces: {include: [...]} | {exclude: [...]}` (not both).
Namespaces read_namespaces(FieldReader& args);

// ---- writing ------------------------------------------------------------------------------

// The shortest text that reads back as the same double ("30", "20.5"); also used in messages.
std::string number_text(double value);

// A string value, quoted when its plain form would read back as a number, boolean or null.
void emit_string(YAML::Emitter& out, const std::string& text);
// A number, as number_text() writes it.
void emit_number(YAML::Emitter& out, double value);
void emit_string_list(YAML::Emitter& out, const std::vector<std::string>& items);
void emit_percentages(YAML::Emitter& out, const Percentages& values);
void emit_label_selector(YAML::Emitter& out, const model::LabelSelector& selector);
// `{include: [...]}` or `{exclude: [...]}`; emits nothing at all when both are empty.
void emit_namespaces(YAML::Emitter& out, std::string_view key, const Namespaces& namespaces);
// `plugins: {deschedule, balance, filter, preevictionfilter}`, each `{enabled: [...]}` (key and
// mapping; upstream's own spelling of preevictionfilter).
void emit_plugins(YAML::Emitter& out, const Plugins& plugins);

}  // namespace loadshift::policy

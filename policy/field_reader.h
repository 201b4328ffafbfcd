// FieldReader: strict, position-aware reading of one YAML (or JSON) mapping of a policy.
//
// Every accessor names the key it reads, checks the type, range and format, and reports a
// Diagnostic at the value's line and column when something is wrong (the accessor then returns
// empty). finish() reports every key of the mapping that no accessor asked for — upstream drops
// unknown keys silently; loadshift says "unknown field" and suggests the closest known name.
//
// Types follow Kubernetes' JSON decoding: a quoted "10" is a string, not a number; a plain
// `true` is a boolean, not a string.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "policy/diagnostics.h"
#include "policy/policy.h"

namespace loadshift::policy {

// Parses a duration in Prometheus or Go syntax: one or more <number><unit>, units ms, s, m, h,
// d, w, y (and Go's ns, us, µs); decimals allowed ("1.5h"). Returns empty on error.
std::optional<Duration> parse_duration(std::string_view text);
// The canonical text of a duration in milliseconds ("1h30m", "500ms", "0s").
std::string format_duration(int64_t milliseconds);

// "the string \"abc\"", "the number 12", "a mapping", "a list", "null" — for error messages.
std::string describe_node(const YAML::Node& node);

class FieldReader {
 public:
  // Reads `node` found at `path`. When `node` is not a mapping, reports that once and every
  // accessor returns empty.
  FieldReader(YAML::Node node, std::string path, Diagnostics* diagnostics);

  const std::string& path() const { return path_; }
  const YAML::Node& node() const { return node_; }
  bool valid() const { return valid_; }
  Diagnostics& diagnostics() const { return *diagnostics_; }

  // True when `key` is present (and not null). Marks it known.
  bool has(std::string_view key);
  // The raw value of `key` (an Undefined node when absent), for readers that need positions of
  // list items or nested nodes. Marks it known; reports nothing.
  YAML::Node get(std::string_view key);
  // "required field is missing", or "required field is null" when `key` is present with the value
  // null (`type: null`, as Volcano's installer writes): the start of the message for a required
  // key that has no value.
  std::string absent(std::string_view key) const;
  // The path of `key` under this mapping: "profiles[0].name".
  std::string child_path(std::string_view key) const;

  // Scalars. `required` reports a missing key as an error.
  std::optional<std::string> string(std::string_view key, bool required = false);
  std::optional<bool> boolean(std::string_view key);
  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max,
                                 bool required = false);
  std::optional<double> number(std::string_view key, double min, double max);
  std::optional<Duration> duration(std::string_view key);
  // A string that must be one of `allowed` (exact, case-sensitive).
  std::optional<std::string> choice(std::string_view key, const std::vector<std::string>& allowed);

  // Entries of a mapping whose keys are data (resource names, label keys, header names): the key
  // is there, so a null value is an error at the value ("expected a number in 0..100, found
  // null"), never an absent field: `thresholds: {cpu: 20, pods: }` must not load as `{cpu: 20}`
  // nor as no thresholds at all.
  std::optional<double> entry_number(std::string_view key, double min, double max);
  std::optional<std::string> entry_string(std::string_view key);

  // Collections.
  std::optional<std::vector<std::string>> string_list(std::string_view key);
  // A list of integers, each in [min, max].
  std::optional<std::vector<int64_t>> integer_list(std::string_view key, int64_t min, int64_t max);
  // A mapping of strings to strings (each value read with entry_string).
  std::optional<std::map<std::string, std::string>> string_map(std::string_view key);
  // A nested mapping, to read with its own FieldReader (call finish() on it too).
  std::optional<FieldReader> object(std::string_view key, bool required = false);
  // A list of mappings.
  std::vector<FieldReader> object_list(std::string_view key, bool required = false);
  // metav1.LabelSelector {matchLabels, matchExpressions[{key, operator, values}]}.
  std::optional<model::LabelSelector> label_selector(std::string_view key);
  // A label-selector string ("a=b,c!=d,e in (x,y),!f"), checked for syntax; returned as written.
  std::optional<std::string> selector_string(std::string_view key);

  // Reports a key of this mapping as an error (e.g. a cross-field rule), at the key's value.
  void error_at(std::string_view key, std::string message);
  void warning_at(std::string_view key, std::string message);
  // Reports at the mapping itself.
  void error(std::string message);

  // Marks keys as known without reading them (accepted and ignored ones).
  void accept(std::initializer_list<std::string_view> keys);
  // Reports every present key that no accessor asked for, with a "did you mean" when one of the
  // known keys is close, and every key given twice (upstream's strict args decoding rejects those).
  void finish();

 private:
  YAML::Node value(std::string_view key) const;
  void report(const YAML::Node& at, std::string path, std::string message);
  YAML::Node node_;
  std::string path_;
  Diagnostics* diagnostics_;
  bool valid_ = false;
  std::set<std::string, std::less<>> known_;
};

}  // namespace loadshift::policy

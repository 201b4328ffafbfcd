#include "policy/field_reader.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "policy/selector_string.h"

namespace loadshift::policy {
namespace {

bool is_plain(const YAML::Node& node) {
  return node.Tag() == "?";
}

bool parse_int(const std::string& text, int64_t& value) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  return ec == std::errc() && ptr == end && begin != end;
}

bool parse_double(const std::string& text, double& value) {
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

bool is_bool_text(const std::string& text, bool& value) {
  if (text == "true" || text == "True" || text == "TRUE") {
    value = true;
    return true;
  }
  if (text == "false" || text == "False" || text == "FALSE") {
    value = false;
    return true;
  }
  return false;
}

std::string format_number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  std::string text = std::to_string(value);
  while (!text.empty() && text.back() == '0') text.pop_back();
  return text;
}

// Checks the syntax of a label-selector string; returns an error message or empty.
std::string check_selector_string(const std::string& text) {
  try {
    parse_selector_string(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) return std::nullopt;
    double amount = 0;
    std::string number(text.substr(start, i - start));
    if (!parse_double(number, amount)) return std::nullopt;
    size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    std::string_view unit = text.substr(unit_start, i - unit_start);
    double factor = 0;
    if (unit == "ns")
      factor = 1e-6;
    else if (unit == "us" || unit == "\xC2\xB5s")
      factor = 1e-3;
    else if (unit == "ms")
      factor = 1;
    else if (unit == "s")
      factor = 1e3;
    else if (unit == "m")
      factor = 60e3;
    else if (unit == "h")
      factor = 3600e3;
    else if (unit == "d")
      factor = 86400e3;
    else if (unit == "w")
      factor = 7 * 86400e3;
    else if (unit == "y")
      factor = 365 * 86400e3;
    else
      return std::nullopt;
    total_ms += amount * factor;
  }
  if (total_ms > 9.2e15) return std::nullopt;
  Duration d;
  d.milliseconds = static_cast<int64_t>(std::llround(total_ms));
  d.text = format_duration(d.milliseconds);
  return d;
}

std::string format_duration(int64_t ms) {
  if (ms == 0) return "0s";
  std::string out;
  const std::pair<int64_t, const char*> units[] = {
      {3600000, "h"}, {60000, "m"}, {1000, "s"}, {1, "ms"}};
  for (const auto& [size, name] : units) {
    if (ms >= size) {
      out += std::to_string(ms / size) + name;
      ms %= size;
    }
  }
  return out;
}

std::string describe_node(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  const std::string& text = node.Scalar();
  if (is_plain(node)) {
    double number = 0;
    bool flag = false;
    if (parse_double(text, number)) return "the number " + text;
    if (is_bool_text(text, flag)) return "the boolean " + text;
  }
  return "the string \"" + text + "\"";
}

FieldReader::FieldReader(YAML::Node node, std::string path, Diagnostics* diagnostics)
    : node_(std::move(node)), path_(std::move(path)), diagnostics_(diagnostics) {
  valid_ = node_.IsMap();
  if (!valid_) report(node_, path_, "expected a mapping, found " + describe_node(node_));
}

void FieldReader::report(const YAML::Node& at, std::string path, std::string message) {
  auto mark = at.IsDefined() ? at.Mark() : node_.Mark();
  diagnostics_->error(mark.line, mark.column, std::move(path), std::move(message));
}

YAML::Node FieldReader::value(std::string_view key) const {
  if (!valid_) return YAML::Node(YAML::NodeType::Undefined);
  for (const auto& entry : node_) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string FieldReader::absent(std::string_view key) const {
  YAML::Node v = value(key);
  return v.IsDefined() && v.IsNull() ? "required field is null" : "required field is missing";
}

std::string FieldReader::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

YAML::Node FieldReader::get(std::string_view key) {
  known_.emplace(key);
  return value(key);
}

bool FieldReader::has(std::string_view key) {
  known_.emplace(key);
  YAML::Node v = value(key);
  return v.IsDefined() && !v.IsNull();
}

std::optional<std::string> FieldReader::string(std::string_view key, bool required) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) {
    if (required && valid_) report(node_, child_path(key), absent(key));
    return std::nullopt;
  }
  bool flag = false;
  double number = 0;
  if (!v.IsScalar() ||
      (is_plain(v) && (is_bool_text(v.Scalar(), flag) || parse_double(v.Scalar(), number)))) {
    report(v, child_path(key), "expected a string, found " + describe_node(v));
    return std::nullopt;
  }
  return v.Scalar();
}

std::optional<bool> FieldReader::boolean(std::string_view key) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  bool flag = false;
  if (!v.IsScalar() || !is_plain(v) || !is_bool_text(v.Scalar(), flag)) {
    report(v, child_path(key), "expected true or false, found " + describe_node(v));
    return std::nullopt;
  }
  return flag;
}

std::optional<int64_t> FieldReader::integer(std::string_view key, int64_t min, int64_t max,
                                            bool required) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) {
    if (required && valid_) report(node_, child_path(key), absent(key));
    return std::nullopt;
  }
  int64_t result = 0;
  if (!v.IsScalar() || !is_plain(v) || !parse_int(v.Scalar(), result) || result < min ||
      result > max) {
    report(v, child_path(key),
           "expected an integer in " + std::to_string(min) + ".." + std::to_string(max) +
               ", found " + describe_node(v));
    return std::nullopt;
  }
  return result;
}

std::optional<double> FieldReader::number(std::string_view key, double min, double max) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  double result = 0;
  if (!v.IsScalar() || !is_plain(v) || !parse_double(v.Scalar(), result) || result < min ||
      result > max) {
    report(v, child_path(key),
           "expected a number in " + format_number(min) + ".." + format_number(max) + ", found " +
               describe_node(v));
    return std::nullopt;
  }
  return result;
}

std::optional<double> FieldReader::entry_number(std::string_view key, double min, double max) {
  YAML::Node v = value(key);
  if (v.IsDefined() && v.IsNull()) {
    known_.emplace(key);
    report(v, child_path(key),
           "expected a number in " + format_number(min) + ".." + format_number(max) +
               ", found null");
    return std::nullopt;
  }
  return number(key, min, max);
}

std::optional<std::string> FieldReader::entry_string(std::string_view key) {
  YAML::Node v = value(key);
  if (v.IsDefined() && v.IsNull()) {
    known_.emplace(key);
    report(v, child_path(key), "expected a string, found null");
    return std::nullopt;
  }
  return string(key);
}

std::optional<Duration> FieldReader::duration(std::string_view key) {
  std::optional<std::string> text = string(key);
  if (!text) return std::nullopt;
  std::optional<Duration> d = parse_duration(*text);
  if (!d) {
    report(value(key), child_path(key),
           "expected a duration such as \"30s\", \"5m\" or \"1h30m\", found \"" + *text + "\"");
  }
  return d;
}

std::optional<std::string> FieldReader::choice(std::string_view key,
                                               const std::vector<std::string>& allowed) {
  std::optional<std::string> text = string(key);
  if (!text) return std::nullopt;
  if (std::find(allowed.begin(), allowed.end(), *text) != allowed.end()) return text;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  std::string message = "expected one of " + list + ", found \"" + *text + "\"";
  std::string near = closest_match(*text, allowed);
  if (!near.empty()) message += " (did you mean \"" + near + "\"?)";
  report(value(key), child_path(key), message);
  return std::nullopt;
}

std::optional<std::vector<std::string>> FieldReader::string_list(std::string_view key) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  if (!v.IsSequence()) {
    report(v, child_path(key), "expected a list of strings, found " + describe_node(v));
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    YAML::Node item = v[i];
    bool flag = false;
    double number = 0;
    if (!item.IsScalar() || (is_plain(item) && (is_bool_text(item.Scalar(), flag) ||
                                                parse_double(item.Scalar(), number)))) {
      report(item, child_path(key) + "[" + std::to_string(i) + "]",
             "expected a string, found " + describe_node(item));
      ok = false;
      continue;
    }
    out.push_back(item.Scalar());
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<int64_t>> FieldReader::integer_list(std::string_view key, int64_t min,
                                                              int64_t max) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  if (!v.IsSequence()) {
    report(v, child_path(key), "expected a list of integers, found " + describe_node(v));
    return std::nullopt;
  }
  std::vector<int64_t> out;
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    YAML::Node item = v[i];
    int64_t number = 0;
    if (!item.IsScalar() || !is_plain(item) || !parse_int(item.Scalar(), number) || number < min ||
        number > max) {
      report(item, child_path(key) + "[" + std::to_string(i) + "]",
             "expected an integer in " + std::to_string(min) + ".." + std::to_string(max) +
                 ", found " + describe_node(item));
      ok = false;
      continue;
    }
    out.push_back(number);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::map<std::string, std::string>> FieldReader::string_map(std::string_view key) {
  std::optional<FieldReader> map = object(key);
  if (!map || !map->valid()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& entry : map->node()) {
    std::string name = entry.first.Scalar();
    if (std::optional<std::string> v = map->entry_string(name)) out[name] = *v;
  }
  return out;
}

std::optional<FieldReader> FieldReader::object(std::string_view key, bool required) {
  known_.emplace(key);
  YAML::Node v = value(key);
  if (!v.IsDefined() || v.IsNull()) {
    if (required && valid_) report(node_, child_path(key), absent(key));
    return std::nullopt;
  }
  return FieldReader(v, child_path(key), diagnostics_);
}

std::vector<FieldReader> FieldReader::object_list(std::string_view key, bool required) {
  known_.emplace(key);
  YAML::Node v = value(key);
  std::vector<FieldReader> out;
  if (!v.IsDefined() || v.IsNull()) {
    if (required && valid_) report(node_, child_path(key), absent(key));
    return out;
  }
  if (!v.IsSequence()) {
    report(v, child_path(key), "expected a list, found " + describe_node(v));
    return out;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    out.emplace_back(v[i], child_path(key) + "[" + std::to_string(i) + "]", diagnostics_);
  }
  return out;
}

std::optional<model::LabelSelector> FieldReader::label_selector(std::string_view key) {
  std::optional<FieldReader> reader = object(key);
  if (!reader || !reader->valid()) return std::nullopt;
  model::LabelSelector selector;
  if (auto labels = reader->string_map("matchLabels")) {
    selector.match_labels = model::StringMap({labels->begin(), labels->end()});
  }
  for (FieldReader& expression : reader->object_list("matchExpressions")) {
    model::LabelSelectorRequirement r;
    r.key = expression.string("key", true).value_or("");
    r.op = expression.choice("operator", {"In", "NotIn", "Exists", "DoesNotExist"}).value_or("");
    r.values = expression.string_list("values").value_or(std::vector<std::string>{});
    bool needs_values = r.op == "In" || r.op == "NotIn";
    if (!r.op.empty() && needs_values == r.values.empty()) {
      expression.error(needs_values ? "operator " + r.op + " needs at least one value"
                                    : "operator " + r.op + " takes no values");
    }
    expression.finish();
    selector.match_expressions.push_back(std::move(r));
  }
  reader->finish();
  return selector;
}

std::optional<std::string> FieldReader::selector_string(std::string_view key) {
  std::optional<std::string> text = string(key);
  if (!text || text->empty()) return text;
  std::string problem = check_selector_string(*text);
  if (!problem.empty()) {
    report(value(key), child_path(key), "expected a label selector: " + problem);
    return std::nullopt;
  }
  return text;
}

void FieldReader::error_at(std::string_view key, std::string message) {
  YAML::Node v = value(key);
  report(v.IsDefined() ? v : node_, child_path(key), std::move(message));
}

void FieldReader::warning_at(std::string_view key, std::string message) {
  YAML::Node v = value(key);
  auto mark = v.IsDefined() ? v.Mark() : node_.Mark();
  diagnostics_->warning(mark.line, mark.column, child_path(key), std::move(message));
}

void FieldReader::error(std::string message) {
  report(node_, path_, std::move(message));
}

void FieldReader::accept(std::initializer_list<std::string_view> keys) {
  for (std::string_view key : keys) known_.emplace(key);
}

void FieldReader::finish() {
  if (!valid_) return;
  std::vector<std::string> known(known_.begin(), known_.end());
  std::set<std::string, std::less<>> seen;
  for (const auto& entry : node_) {
    if (!entry.first.IsScalar()) {
      report(entry.first, path_, "expected a field name, found " + describe_node(entry.first));
      continue;
    }
    const std::string& key = entry.first.Scalar();
    if (!seen.insert(key).second) {
      report(entry.first, child_path(key), "field \"" + key + "\" is given twice");
      continue;
    }
    if (known_.count(key) != 0) continue;
    std::string message = "unknown field \"" + key + "\"";
    std::string near = closest_match(key, known);
    if (!near.empty()) message += " (did you mean \"" + near + "\"?)";
    report(entry.first, child_path(key), message);
  }
}

}  // namespace loadshift::policy

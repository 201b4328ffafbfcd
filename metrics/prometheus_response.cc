// Decoding /api/v1/query answers with simdjson's DOM parser: the whole body is validated first,
// as before, then read from simdjson's tape, without building a document tree of nlohmann
// objects (150,000 pods' answers are about 16 MB each). nlohmann only words the messages of
// failures: the parse error of a body that is not JSON and the compact dump of a malformed value.
#include "metrics/prometheus_response.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace loadshift::metrics {

namespace {

using nlohmann::json;
namespace dom = simdjson::dom;

std::string type_name(dom::element value) {
  switch (value.type()) {
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
    case dom::element_type::DOUBLE:
      return "a number";
    case dom::element_type::STRING:
      return "a string";
    case dom::element_type::BOOL:
      return "a boolean";
    case dom::element_type::NULL_VALUE:
      return "null";
    case dom::element_type::ARRAY:
      return "an array";
    case dom::element_type::OBJECT:
      break;
  }
  return "an object";
}

// `value` as compact JSON, written the way nlohmann writes it (for messages).
std::string dump(dom::element value) {
  return json::parse(simdjson::minify(value)).dump();
}

[[noreturn]] void bad(const std::string& message) {
  throw QueryFailure("bad_response", message);
}

// The first line of `body`, at most 200 characters, for messages about non-JSON answers.
std::string body_excerpt(std::string_view body) {
  size_t start = body.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return "(empty body)";
  body.remove_prefix(start);
  size_t end = body.find_first_of("\r\n");
  std::string line(body.substr(0, end));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// Why `body` is not JSON, in nlohmann's words (as the messages have always said it); simdjson's
// own words when nlohmann accepts what simdjson refused (integers beyond 64 bits, nesting deeper
// than 1,024 levels).
std::string not_json_reason(std::string_view body, simdjson::error_code error) {
  try {
    [[maybe_unused]] json parsed = json::parse(body);
  } catch (const json::exception& e) {
    return strip_json_exception_prefix(e.what());
  }
  return simdjson::error_message(error);
}

// Parses `body` with `parser`; nullopt when it is not JSON, with `error` set.
std::optional<dom::element> parse_json(dom::parser& parser, std::string_view body,
                                       simdjson::error_code& error) {
  // A UTF-8 byte order mark is skipped, as nlohmann skips it (simdjson 3.0 would refuse it).
  if (body.starts_with("\xEF\xBB\xBF")) body.remove_prefix(3);
  dom::element doc;
  error = parser.parse(body.data(), body.size()).get(doc);
  if (error) return std::nullopt;
  return doc;
}

// The value of `key` in `object`, or nullopt; the last one when the key repeats (as nlohmann,
// whose object keeps the last).
std::optional<dom::element> field(dom::object object, std::string_view key) {
  std::optional<dom::element> found;
  for (dom::key_value_pair pair : object) {
    if (pair.key == key) found = pair.value;
  }
  return found;
}

// "<errorType>: <error>" when `doc` is Prometheus' error object, else "".
std::string prometheus_error_text(dom::element doc) {
  dom::object object;
  if (doc.get_object().get(object)) return "";
  auto status = field(object, "status");
  std::string_view status_text;
  if (!status || status->get_string().get(status_text) || status_text != "error") return "";
  // A missing or non-string field keeps its placeholder.
  std::string_view type = "unknown error type";
  std::string_view text = "(no error message)";
  if (auto it = field(object, "errorType"); it && it->get_string().get(type)) {
    type = "unknown error type";
  }
  if (auto it = field(object, "error"); it && it->get_string().get(text)) {
    text = "(no error message)";
  }
  return std::string(type) + ": " + std::string(text);
}

void read_warnings(dom::object doc, const char* key, const char* prefix,
                   std::vector<std::string>& out) {
  auto list = field(doc, key);
  if (!list || list->is_null()) return;
  dom::array items;
  if (list->get_array().get(items)) {
    bad(std::string(key) + ": expected a list of strings, got " + type_name(*list));
  }
  for (dom::element w : items) {
    std::string_view text;
    if (w.get_string().get(text)) {
      bad(std::string(key) + ": expected a list of strings, got " + type_name(w));
    }
    out.push_back(prefix + std::string(text));
  }
}

// [<unix seconds>, "<value>"] at `path()` (a function: the path is written only for a message).
template <typename Path>
void read_point(dom::element point, const Path& path, Sample& out) {
  dom::array pair;
  if (point.get_array().get(pair) || pair.size() != 2) {
    bad(path() + ": expected [timestamp, \"value\"], got " + dump(point));
  }
  auto it = pair.begin();
  dom::element time = *it;
  dom::element value = *++it;
  std::string_view text;
  if (time.get_double().get(out.timestamp) || value.get_string().get(text)) {
    bad(path() + ": expected [timestamp, \"value\"], got " + dump(point));
  }
  if (!parse_sample_value(text, out.value)) {
    bad(path() + ": value \"" + std::string(text) + "\" is not a number");
  }
}

// The labels of one series into `out`. Prometheus writes them in name order, so each goes in at
// the end without a search. A name that repeats keeps its last value (as nlohmann did);
// the first non-string label in name order is the one reported.
template <typename Path>
void read_labels(dom::object metric, const Path& path, SeriesLabels& out) {
  std::set<std::string, std::less<>> not_strings;  // names whose (last) value is not a string
  out.reserve(metric.size());
  for (dom::key_value_pair label : metric) {
    std::string_view value;
    if (label.value.get_string().get(value)) {
      not_strings.emplace(label.key);
      continue;
    }
    if (!not_strings.empty()) {
      if (auto it = not_strings.find(label.key); it != not_strings.end()) not_strings.erase(it);
    }
    out.set(std::string(label.key), std::string(value));
  }
  if (!not_strings.empty()) {
    bad(path() + ".metric." + *not_strings.begin() + ": expected a string");
  }
}

InstantResult decode_document(dom::element doc) {
  dom::object top;
  if (doc.get_object().get(top)) {
    bad("expected a JSON object with \"status\", got " + type_name(doc));
  }
  if (std::string error = prometheus_error_text(doc); !error.empty()) {
    throw QueryFailure("prometheus_error", error, false);
  }
  auto status = field(top, "status");
  if (!status) bad("missing \"status\"");
  std::string_view status_text;
  if (status->get_string().get(status_text) || status_text != "success") {
    bad("status: expected \"success\" or \"error\", got " + dump(*status));
  }
  InstantResult result;
  read_warnings(top, "warnings", "", result.warnings);
  read_warnings(top, "infos", "info: ", result.warnings);

  auto data = field(top, "data");
  dom::object data_object;
  if (!data || data->get_object().get(data_object)) bad("missing \"data\" object");
  auto type = field(data_object, "resultType");
  std::string_view type_text;
  if (!type || type->get_string().get(type_text)) bad("data.resultType: missing");
  auto list = field(data_object, "result");
  if (!list) bad("data.result: missing");

  if (type_text == "scalar") {
    result.scalar = true;
    Sample sample;
    auto path = [] { return std::string("data.result"); };
    read_point(*list, path, sample);
    result.samples.push_back(std::move(sample));
    return result;
  }
  if (type_text != "vector") {
    bad("expected an instant vector or scalar, got " + std::string(type_text) +
        ": use an instant query, e.g. wrap range selectors in avg_over_time");
  }
  dom::array items;
  if (list->get_array().get(items)) {
    bad("data.result: expected a list, got " + type_name(*list));
  }
  result.samples.reserve(items.size());
  size_t i = 0;
  for (dom::element item : items) {
    // The series' place in messages, written only when one is needed.
    auto path = [i] { return "data.result[" + std::to_string(i) + "]"; };
    auto value_path = [&path] { return path() + ".value"; };
    dom::object fields;
    if (item.get_object().get(fields)) bad(path() + ": expected an object, got " + type_name(item));
    // One pass over the series' fields; a repeated field keeps its last value.
    std::optional<dom::element> metric, value;
    bool histogram = false;
    for (dom::key_value_pair f : fields) {
      if (f.key == "metric") {
        metric = f.value;
      } else if (f.key == "value") {
        value = f.value;
      } else if (f.key == "histogram") {
        histogram = true;
      }
    }
    dom::object labels;
    if (!metric || metric->get_object().get(labels)) bad(path() + ".metric: missing object");
    Sample& sample = result.samples.emplace_back();
    read_labels(labels, path, sample.labels);
    if (!value) {
      if (histogram) {
        bad(path() +
            ": a native histogram sample, expected a float value: aggregate it, e.g. "
            "with histogram_quantile or histogram_sum");
      }
      bad(path() + ".value: missing");
    }
    read_point(*value, value_path, sample);
    ++i;
  }
  return result;
}

}  // namespace

std::string strip_json_exception_prefix(const std::string& what) {
  // "[json.exception.parse_error.101] parse error at line 1, ..." -> "parse error at line 1, ..."
  if (!what.empty() && what[0] == '[') {
    size_t close = what.find("] ");
    if (close != std::string::npos) return what.substr(close + 2);
  }
  return what;
}

bool parse_sample_value(std::string_view text, double& out) {
  if (text == "NaN") {
    out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "+Inf" || text == "Inf") {
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Inf") {
    out = -std::numeric_limits<double>::infinity();
    return true;
  }
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end;
}

SeriesLabels::SeriesLabels(std::initializer_list<value_type> labels) {
  items_.reserve(labels.size());
  for (const value_type& label : labels) set(label.first, label.second);
}

std::vector<SeriesLabels::value_type>::iterator SeriesLabels::lower_bound(std::string_view name) {
  return std::lower_bound(
      items_.begin(), items_.end(), name,
      [](const value_type& item, std::string_view n) { return item.first < n; });
}

SeriesLabels::const_iterator SeriesLabels::find(std::string_view name) const {
  auto it =
      std::lower_bound(items_.begin(), items_.end(), name,
                       [](const value_type& item, std::string_view n) { return item.first < n; });
  return it != items_.end() && it->first == name ? it : items_.end();
}

const std::string& SeriesLabels::at(std::string_view name) const {
  auto it = find(name);
  if (it == end()) throw std::out_of_range("no label " + std::string(name));
  return it->second;
}

std::string& SeriesLabels::operator[](std::string_view name) {
  auto it = lower_bound(name);
  if (it == items_.end() || it->first != name) it = items_.emplace(it, std::string(name), "");
  return it->second;
}

void SeriesLabels::set(std::string name, std::string value) {
  if (items_.empty() || items_.back().first < name) {
    items_.emplace_back(std::move(name), std::move(value));
    return;
  }
  auto it = lower_bound(name);
  if (it != items_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_.emplace(it, std::move(name), std::move(value));
  }
}

std::string describe_labels(const SeriesLabels& labels) {
  std::string out = "{";
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ", ";
    first = false;
    out += name + "=\"" + value + "\"";
  }
  return out + "}";
}

InstantResult decode_instant_response(std::string_view body) {
  dom::parser parser;
  simdjson::error_code error;
  auto doc = parse_json(parser, body, error);
  if (!doc) {
    bad("response is not JSON (" + not_json_reason(body, error) + "): " + body_excerpt(body));
  }
  return decode_document(*doc);
}

InstantResult decode_http_answer(long status, std::string_view body) {
  if (status >= 200 && status < 300) return decode_instant_response(body);
  bool retryable = status >= 500 || status == 429;
  std::string prefix = "HTTP " + std::to_string(status) + ": ";
  std::string error;
  dom::parser parser;
  simdjson::error_code parse_error;
  // Not JSON: a proxy's page or plain text, quoted below.
  if (auto doc = parse_json(parser, body, parse_error)) {
    error = prometheus_error_text(*doc);
    if (error.find("bad_data: ") == 0) retryable = false;
  }
  if (!error.empty()) throw QueryFailure("prometheus_error", prefix + error, retryable);
  std::string reason = "http_" + std::to_string(status / 100 % 10) + "xx";
  throw QueryFailure(reason, prefix + body_excerpt(body), retryable);
}

}  // namespace loadshift::metrics

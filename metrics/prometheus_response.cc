// Decoding /api/v1/query answers with nlohmann/json.
#include "metrics/prometheus_response.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace loadshift::metrics {

namespace {

using nlohmann::json;

std::string type_name(const json& value) {
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
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

json parse_body(std::string_view body) {
  try {
    return json::parse(body);
  } catch (const json::exception& e) {
    bad("response is not JSON (" + strip_json_exception_prefix(e.what()) +
        "): " + body_excerpt(body));
  }
}

// "<errorType>: <error>" when `doc` is Prometheus' error object, else "".
std::string prometheus_error_text(const json& doc) {
  if (!doc.is_object()) return "";
  auto status = doc.find("status");
  if (status == doc.end() || !status->is_string() || *status != "error") return "";
  std::string type = "unknown error type";
  std::string text = "(no error message)";
  if (auto it = doc.find("errorType"); it != doc.end() && it->is_string()) {
    type = it->get<std::string>();
  }
  if (auto it = doc.find("error"); it != doc.end() && it->is_string()) {
    text = it->get<std::string>();
  }
  return type + ": " + text;
}

void read_warnings(const json& doc, const char* key, const char* prefix,
                   std::vector<std::string>& out) {
  auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return;
  if (!it->is_array())
    bad(std::string(key) + ": expected a list of strings, got " + type_name(*it));
  for (const auto& w : *it) {
    if (!w.is_string()) bad(std::string(key) + ": expected a list of strings, got " + type_name(w));
    out.push_back(prefix + w.get<std::string>());
  }
}

// [<unix seconds>, "<value>"] at `path`.
void read_point(const json& point, const std::string& path, Sample& out) {
  if (!point.is_array() || point.size() != 2 || !point[0].is_number() || !point[1].is_string()) {
    bad(path + ": expected [timestamp, \"value\"], got " + point.dump());
  }
  out.timestamp = point[0].get<double>();
  const auto& text = point[1].get_ref<const std::string&>();
  if (!parse_sample_value(text, out.value)) {
    bad(path + ": value \"" + text + "\" is not a number");
  }
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
  json doc = parse_body(body);
  if (!doc.is_object()) bad("expected a JSON object with \"status\", got " + type_name(doc));
  if (std::string error = prometheus_error_text(doc); !error.empty()) {
    throw QueryFailure("prometheus_error", error, false);
  }
  auto status = doc.find("status");
  if (status == doc.end()) bad("missing \"status\"");
  if (!status->is_string() || *status != "success") {
    bad("status: expected \"success\" or \"error\", got " + status->dump());
  }
  InstantResult result;
  read_warnings(doc, "warnings", "", result.warnings);
  read_warnings(doc, "infos", "info: ", result.warnings);

  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) bad("missing \"data\" object");
  auto type = data->find("resultType");
  if (type == data->end() || !type->is_string()) bad("data.resultType: missing");
  const auto& type_text = type->get_ref<const std::string&>();
  auto list = data->find("result");
  if (list == data->end()) bad("data.result: missing");

  if (type_text == "scalar") {
    result.scalar = true;
    Sample sample;
    read_point(*list, "data.result", sample);
    result.samples.push_back(std::move(sample));
    return result;
  }
  if (type_text != "vector") {
    bad("expected an instant vector or scalar, got " + type_text +
        ": use an instant query, e.g. wrap range selectors in avg_over_time");
  }
  if (!list->is_array()) bad("data.result: expected a list, got " + type_name(*list));
  result.samples.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    std::string path = "data.result[" + std::to_string(i) + "]";
    if (!item.is_object()) bad(path + ": expected an object, got " + type_name(item));
    Sample sample;
    auto metric = item.find("metric");
    if (metric == item.end() || !metric->is_object()) bad(path + ".metric: missing object");
    for (const auto& [name, value] : metric->items()) {
      if (!value.is_string()) bad(path + ".metric." + name + ": expected a string");
      sample.labels.emplace(name, value.get<std::string>());
    }
    auto value = item.find("value");
    if (value == item.end()) {
      if (item.contains("histogram")) {
        bad(path +
            ": a native histogram sample, expected a float value: aggregate it, e.g. "
            "with histogram_quantile or histogram_sum");
      }
      bad(path + ".value: missing");
    }
    read_point(*value, path + ".value", sample);
    result.samples.push_back(std::move(sample));
  }
  return result;
}

InstantResult decode_http_answer(long status, std::string_view body) {
  if (status >= 200 && status < 300) return decode_instant_response(body);
  bool retryable = status >= 500 || status == 429;
  std::string prefix = "HTTP " + std::to_string(status) + ": ";
  std::string error;
  try {
    json doc = json::parse(body);
    error = prometheus_error_text(doc);
    if (doc.is_object() && error.find("bad_data: ") == 0) retryable = false;
  } catch (const json::exception&) {
    // not JSON: a proxy's page or plain text, quoted below
  }
  if (!error.empty()) throw QueryFailure("prometheus_error", prefix + error, retryable);
  std::string reason = "http_" + std::to_string(status / 100 % 10) + "xx";
  throw QueryFailure(reason, prefix + body_excerpt(body), retryable);
}

}  // namespace loadshift::metrics

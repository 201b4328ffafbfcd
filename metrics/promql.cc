// PromQL templates: the built-in queries, placeholder rendering, sustain subqueries, durations.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>

#include "metrics/prometheus_source.h"
#include "metrics/promql_text.h"

namespace loadshift::metrics {

namespace {

constexpr std::string_view kDefaultCpu =
    "100 * (1 - avg by (instance) "
    "(rate(node_cpu_seconds_total{mode=\"idle\"}[{{window}}])))";
// Dividing two vectors keeps every label but the metric name, so `instance` (or whatever label
// names the node) survives. MemTotal is constant: read at the instant (half the work of averaging
// it, and a node whose exporter stopped loses it after Prometheus' 5m lookback: unknown, not idle).
constexpr std::string_view kDefaultMemory =
    "100 * (1 - avg_over_time(node_memory_MemAvailable_bytes[{{window}}]) / "
    "node_memory_MemTotal_bytes)";
constexpr std::string_view kDefaultPodCpu =
    "sum by (namespace, pod) (rate(container_cpu_usage_seconds_total"
    "{container!=\"\",container!=\"POD\"}[{{window}}])) * 1000";
constexpr std::string_view kDefaultPodMemory =
    "sum by (namespace, pod) (avg_over_time(container_memory_working_set_bytes"
    "{container!=\"\",container!=\"POD\"}[{{window}}]))";

}  // namespace

std::string_view default_query(Query query) {
  switch (query) {
    case Query::kCpu:
      return kDefaultCpu;
    case Query::kMemory:
      return kDefaultMemory;
    case Query::kPodCpu:
      return kDefaultPodCpu;
    case Query::kPodMemory:
      return kDefaultPodMemory;
  }
  throw std::invalid_argument("default_query: unknown query kind");
}

std::string default_query(Query query, std::string_view node_label) {
  std::string text(default_query(query));
  if (query != Query::kCpu || node_label == "instance") return text;
  if (!is_label_name(node_label)) {
    throw std::invalid_argument("node label \"" + std::string(node_label) +
                                "\" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
  }
  const std::string_view group = "by (instance)";
  text.replace(text.find(group), group.size(), "by (" + std::string(node_label) + ")");
  return text;
}

bool is_label_name(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    bool digit = c >= '0' && c <= '9';
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

std::string prometheus_duration(int64_t ms) {
  if (ms <= 0) {
    throw std::invalid_argument("a PromQL duration must be positive, got " + std::to_string(ms) +
                                " ms");
  }
  if (ms % 1000 != 0) return std::to_string(ms) + "ms";
  std::string out;
  int64_t seconds = ms / 1000;
  const std::pair<int64_t, const char*> units[] = {{3600, "h"}, {60, "m"}, {1, "s"}};
  for (const auto& unit : units) {
    if (seconds >= unit.first) {
      out += std::to_string(seconds / unit.first) + unit.second;
      seconds %= unit.first;
    }
  }
  return out;
}

std::string render_query(std::string_view tmpl, int64_t window_ms, int64_t step_ms) {
  std::string out;
  out.reserve(tmpl.size() + 16);
  size_t pos = 0;
  while (true) {
    size_t open = tmpl.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t close = tmpl.find("}}", open + 2);
    if (close == std::string_view::npos) {
      throw std::invalid_argument(
          "query \"" + std::string(tmpl) + "\": unterminated placeholder at \"" +
          std::string(tmpl.substr(open, 20)) + "\": a query may use only {{window}} and {{step}}");
    }
    std::string_view name = tmpl.substr(open + 2, close - open - 2);
    out.append(tmpl.substr(pos, open - pos));
    if (name == "window") {
      out += prometheus_duration(window_ms);
    } else if (name == "step") {
      out += prometheus_duration(step_ms);
    } else {
      throw std::invalid_argument("query \"" + std::string(tmpl) + "\": unknown placeholder {{" +
                                  std::string(name) +
                                  "}}: a query may use only {{window}} and {{step}}");
    }
    pos = close + 2;
  }
  out.append(tmpl.substr(pos));
  return out;
}

std::string sustained_query(std::string_view expr, std::string_view fn, int64_t sustained_for_ms,
                            int64_t step_ms) {
  if (fn != "min" && fn != "max") {
    throw std::invalid_argument("sustained_query: fn must be \"min\" or \"max\", got \"" +
                                std::string(fn) + "\"");
  }
  const std::string subquery = "((" + std::string(expr) + ")[" +
                               prometheus_duration(sustained_for_ms) + ":" +
                               prometheus_duration(step_ms) + "])";
  const int64_t steps = std::max<int64_t>(1, sustained_for_ms / step_ms);
  return std::string(fn) + "_over_time" + subquery + " and (count_over_time" + subquery +
         " >= " + std::to_string(steps) + ")";
}

}  // namespace loadshift::metrics

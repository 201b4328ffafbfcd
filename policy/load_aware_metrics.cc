#include "policy/load_aware_metrics.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "policy/http_url.h"
#include "policy/shared_args.h"

namespace loadshift::policy {
namespace {

constexpr const char* kExampleUrl = "http://prometheus-server.monitoring.svc:9090";
constexpr const char* kNoTypeNote =
    "without a metrics type the Volcano descheduler logs an error every cycle and balances "
    "nothing; set type: prometheus";

// HTTP header names are RFC 9110 tokens.
bool is_header_name(std::string_view name) {
  static constexpr std::string_view kExtra = "!#$%&'*+-.^_`|~";
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || kExtra.find(c) != kExtra.npos;
  });
}

bool is_prometheus_label_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) != 0) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

std::string_view to_text(NodeMatch match) {
  switch (match) {
    case NodeMatch::kName:
      return "name";
    case NodeMatch::kInternalIp:
      return "internalIP";
    case NodeMatch::kAuto:
      break;
  }
  return "auto";
}

// Metrics type: Prometheus or prometheus (Volcano's constant), stored as written.
void read_type(FieldReader& metrics, LoadAwareMetrics& out) {
  if (!metrics.has("type")) {
    metrics.error_at("type", metrics.absent("type") + " (" + kNoTypeNote + ")");
    return;
  }
  std::optional<std::string> type = metrics.string("type");
  if (!type) return;
  if (*type == "Prometheus" || *type == "prometheus") {
    out.type = *type;
  } else if (*type == "prometheus_adaptor") {
    metrics.error_at("type",
                     "prometheus_adaptor is not supported by loadshift: use type prometheus");
  } else if (type->empty()) {
    metrics.error_at(
        "type", std::string("expected prometheus, found an empty string (") + kNoTypeNote + ")");
  } else {
    std::string message = "expected prometheus, found \"" + *type + "\"";
    std::string lower = *type;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string near = closest_match(lower, {"prometheus"});
    if (!near.empty()) message += " (did you mean \"" + near + "\"?)";
    metrics.error_at("type", message);
  }
}

void read_address(FieldReader& metrics, LoadAwareMetrics& out) {
  if (!metrics.has("address")) {
    metrics.error_at("address", metrics.absent("address") + ": the Prometheus base URL, e.g. " +
                                    kExampleUrl +
                                    " (`loadshift report --prometheus URL` can override it for "
                                    "one report, but the policy must name one)");
    return;
  }
  std::optional<std::string> address = metrics.string("address");
  if (!address) return;
  if (std::string why = check_http_url(*address); !why.empty()) {
    metrics.error_at("address", std::string("expected an http(s) URL such as ") + kExampleUrl +
                                    ", found \"" + *address + "\": " + why);
    return;
  }
  out.address = *address;
}

// Volcano's default `duration` (the outer range of its [2m:30s] subqueries).
const Duration kVolcanoDefaultWindow{120000, "2m"};

// True when every key of `mapping` is one of `keys`.
bool only_keys(const YAML::Node& mapping, std::initializer_list<std::string_view> keys) {
  if (!mapping.IsMap()) return true;
  for (const auto& entry : mapping) {
    if (!entry.first.IsScalar()) return false;
    if (std::find(keys.begin(), keys.end(), entry.first.Scalar()) == keys.end()) return false;
  }
  return true;
}

// True when the args are in Volcano's form: only the keys Volcano's LoadAware declares, and a
// metrics block of only {type, address}. Such a file gets Volcano's default window.
bool is_volcano_form(const FieldReader& args, const FieldReader* metrics) {
  if (metrics != nullptr && !only_keys(metrics->node(), {"type", "address"})) return false;
  return only_keys(args.node(),
                   {"metrics", "duration", "thresholds", "targetThresholds",
                    "useDeviationThresholds", "numberOfNodes", "nodeFit", "nodeSelector",
                    "evictableNamespaces", "evictLocalStoragePods", "evictSystemCriticalPods",
                    "ignorePvcPods", "evictFailedBarePods", "labelSelector", "priorityThreshold"});
}

// window (or Volcano's duration), step, and their rule step <= window.
void read_window_and_step(FieldReader& args, FieldReader* metrics, LoadAwareMetrics& out) {
  std::optional<Duration> volcano = read_positive_duration(args, "duration");
  std::optional<Duration> window, step, timeout;
  if (metrics != nullptr) {
    window = read_positive_duration(*metrics, "window");
    step = read_positive_duration(*metrics, "step");
    timeout = read_positive_duration(*metrics, "timeout");
  }
  if (volcano && metrics != nullptr && metrics->has("window")) {
    args.error_at("duration",
                  "set either duration or metrics.window, not both (duration is Volcano's name "
                  "for metrics.window)");
  }
  if (window) {
    out.window = *window;
  } else if (volcano) {
    out.window = *volcano;
  } else if (is_volcano_form(args, metrics)) {
    // A file in Volcano's form classifies nodes on Volcano's window, so it behaves the same.
    out.window = kVolcanoDefaultWindow;
  }
  if (step) out.step = *step;
  if (timeout) out.timeout = *timeout;
  if (out.step.milliseconds <= out.window.milliseconds) return;
  if (step) {
    metrics->error_at("step", "step " + out.step.text + " is longer than the window " +
                                  out.window.text +
                                  " (a subquery step must not exceed its window)");
  } else if (window) {
    metrics->error_at("window", "window " + out.window.text +
                                    " is shorter than the default step 30s (set metrics.step to at "
                                    "most the window)");
  } else if (volcano) {
    args.error_at("duration", "duration " + out.window.text +
                                  " is shorter than the default step 30s (set metrics.step to at "
                                  "most the duration)");
  }
}

void read_queries(FieldReader& metrics, MetricsQueries& out) {
  std::optional<FieldReader> queries = metrics.object("queries");
  if (!queries || !queries->valid()) return;
  const std::pair<const char*, std::string*> fields[] = {{"cpu", &out.cpu},
                                                         {"memory", &out.memory},
                                                         {"podCpu", &out.pod_cpu},
                                                         {"podMemory", &out.pod_memory}};
  for (const auto& [key, target] : fields) {
    std::optional<std::string> query = queries->string(key);
    if (!query) continue;
    if (query->empty()) {
      queries->error_at(key,
                        "expected a PromQL query, found an empty string (omit the field to use "
                        "the default query)");
    } else if (std::string why = check_query_placeholders(*query); !why.empty()) {
      queries->error_at(key, why);
    } else {
      *target = *query;
    }
  }
  queries->finish();
}

void read_headers(FieldReader& metrics, std::map<std::string, std::string>& out) {
  std::optional<FieldReader> headers = metrics.object("headers");
  if (!headers || !headers->valid()) return;
  for (const auto& entry : headers->node()) {
    if (!entry.first.IsScalar()) continue;  // finish() reports it
    const std::string name = entry.first.Scalar();
    std::optional<std::string> value = headers->entry_string(name);
    if (!is_header_name(name)) {
      headers->error_at(name,
                        "expected an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
                        ", found \"" +
                            name + "\"");
    } else if (value && value->find_first_of("\r\n") != std::string::npos) {
      headers->error_at(name, "a header value must not contain a line break");
    } else if (value) {
      out[name] = *value;
    }
  }
  headers->finish();
}

void read_connection(FieldReader& metrics, LoadAwareMetrics& out) {
  if (std::optional<std::string> label = metrics.string("nodeLabel")) {
    if (is_prometheus_label_name(*label)) {
      out.node_label = *label;
    } else {
      metrics.error_at(
          "nodeLabel",
          "expected a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), found \"" + *label + "\"");
    }
  }
  if (std::optional<std::string> match =
          metrics.choice("nodeMatch", {"auto", "name", "internalIP"})) {
    out.node_match = *match == "name"         ? NodeMatch::kName
                     : *match == "internalIP" ? NodeMatch::kInternalIp
                                              : NodeMatch::kAuto;
  }
  out.bearer_token_file = metrics.string("bearerTokenFile").value_or("");
  out.ca_file = metrics.string("caFile").value_or("");
  out.insecure_skip_verify = metrics.boolean("insecureSkipVerify").value_or(false);
  read_headers(metrics, out.headers);
  out.min_node_coverage = metrics.number("minNodeCoverage", 0, 100);
}

}  // namespace

std::optional<Duration> read_positive_duration(FieldReader& reader, std::string_view key) {
  std::optional<Duration> d = reader.duration(key);
  if (d && d->milliseconds <= 0) {
    reader.error_at(key, "expected a duration greater than 0, found \"" + d->text + "\"");
    return std::nullopt;
  }
  return d;
}

std::string check_query_placeholders(std::string_view query) {
  size_t pos = 0;
  while ((pos = query.find("{{", pos)) != std::string_view::npos) {
    size_t close = query.find("}}", pos + 2);
    if (close == std::string_view::npos) {
      return "unterminated placeholder \"" + std::string(query.substr(pos, 20)) +
             "\": a query may use only {{window}} and {{step}}";
    }
    std::string_view name = query.substr(pos + 2, close - pos - 2);
    if (name != "window" && name != "step") {
      return "unknown placeholder {{" + std::string(name) +
             "}}: a query may use only {{window}} and {{step}}";
    }
    pos = close + 2;
  }
  return "";
}

LoadAwareMetrics read_load_aware_metrics(FieldReader& args) {
  LoadAwareMetrics out;
  std::optional<FieldReader> metrics = args.object("metrics");
  if (!metrics) {
    args.error_at("metrics", args.absent("metrics") +
                                 " (LoadAware reads node load from Prometheus: set "
                                 "metrics.type: prometheus and metrics.address)");
  }
  FieldReader* block = metrics && metrics->valid() ? &*metrics : nullptr;
  read_window_and_step(args, block, out);
  if (block == nullptr) return out;
  read_type(*block, out);
  read_address(*block, out);
  read_queries(*block, out.queries);
  read_connection(*block, out);
  block->finish();
  return out;
}

void write_load_aware_metrics(const LoadAwareMetrics& metrics, YAML::Emitter& out) {
  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "type" << YAML::Value;
  emit_string(out, metrics.type);
  out << YAML::Key << "address" << YAML::Value;
  emit_string(out, metrics.address);
  out << YAML::Key << "window" << YAML::Value << metrics.window.text;
  out << YAML::Key << "step" << YAML::Value << metrics.step.text;
  out << YAML::Key << "timeout" << YAML::Value << metrics.timeout.text;
  const MetricsQueries& q = metrics.queries;
  if (!q.cpu.empty() || !q.memory.empty() || !q.pod_cpu.empty() || !q.pod_memory.empty()) {
    out << YAML::Key << "queries" << YAML::Value << YAML::BeginMap;
    const std::pair<const char*, const std::string*> fields[] = {{"cpu", &q.cpu},
                                                                 {"memory", &q.memory},
                                                                 {"podCpu", &q.pod_cpu},
                                                                 {"podMemory", &q.pod_memory}};
    for (const auto& [key, query] : fields) {
      if (query->empty()) continue;
      out << YAML::Key << key << YAML::Value;
      emit_string(out, *query);
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "nodeLabel" << YAML::Value;
  emit_string(out, metrics.node_label);
  out << YAML::Key << "nodeMatch" << YAML::Value << std::string(to_text(metrics.node_match));
  if (!metrics.bearer_token_file.empty()) {
    out << YAML::Key << "bearerTokenFile" << YAML::Value;
    emit_string(out, metrics.bearer_token_file);
  }
  if (!metrics.ca_file.empty()) {
    out << YAML::Key << "caFile" << YAML::Value;
    emit_string(out, metrics.ca_file);
  }
  out << YAML::Key << "insecureSkipVerify" << YAML::Value << metrics.insecure_skip_verify;
  if (!metrics.headers.empty()) {
    out << YAML::Key << "headers" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, value] : metrics.headers) {
      out << YAML::Key << name << YAML::Value;
      emit_string(out, value);
    }
    out << YAML::EndMap;
  }
  if (metrics.min_node_coverage) {  // unset: the rule "all but max(1, 10%)", no number
    out << YAML::Key << "minNodeCoverage" << YAML::Value;
    emit_number(out, *metrics.min_node_coverage);
  }
  out << YAML::EndMap;
}

}  // namespace loadshift::policy

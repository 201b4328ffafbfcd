// Loading a DeschedulerPolicy file: YAML/JSON parsing, the ConfigMap wrapper, the top-level
// fields and the metrics providers. Profiles are read by policy/profile_reader.cc, plugin args by
// the plugins' schemas (policy/plugin_schemas.h). yaml-cpp reports problems by throwing; every
// YAML::Exception is caught here and becomes a diagnostic.
#include "policy/loader.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "policy/field_reader.h"
#include "policy/http_url.h"
#include "policy/plan_settings.h"
#include "policy/profile_reader.h"

namespace loadshift::policy {
namespace {

constexpr std::string_view kApiVersion = "descheduler/v1alpha2";
constexpr std::string_view kKind = "DeschedulerPolicy";
constexpr std::string_view kPolicyKey = "policy.yaml";

constexpr std::string_view kConvertV1alpha1 =
    "descheduler/v1alpha1 is not supported (kubernetes-sigs/descheduler removed it in v0.31); "
    "convert the file to apiVersion: descheduler/v1alpha2: every entry of `strategies` becomes a "
    "plugin of a profile, its `params` go to profiles[].pluginConfig[] as {name: <strategy>, "
    "args: {...}} and its name is listed under profiles[].plugins.<deschedule or balance>.enabled; "
    "evictor options (evictLocalStoragePods, ignorePvcPods, nodeFit, priorityThreshold, ...) move "
    "to the args of DefaultEvictor. See https://github.com/kubernetes-sigs/descheduler"
    "#policy-default-evictor-and-strategy-plugins";

// DefaultEvictor args that users put at the top level of a v1alpha2 policy (a v1alpha1 habit),
// where upstream silently ignores them.
constexpr std::string_view kEvictorArgs[] = {
    "evictLocalStoragePods", "evictDaemonSetPods", "evictSystemCriticalPods",
    "evictFailedBarePods",   "ignorePvcPods",      "ignorePodsWithoutPDB",
    "podProtections",        "priorityThreshold",  "nodeFit",
    "labelSelector",         "minReplicas",        "minPodAge"};

void report_yaml_error(const YAML::Exception& e, Diagnostics& diagnostics) {
  diagnostics.error(e.mark.line, e.mark.column, "", "invalid YAML: " + e.msg);
}

// Counts the documents of a YAML stream without building them. yaml-cpp 0.7's LoadAll never
// ends on some inputs (a top-level flow collection followed by a comma, `{},`: the parser
// returns an empty document at the same place forever), so documents are counted here with a
// bound and a progress check before the first one is built.
class DocumentCounter : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Parses `text` as one YAML (or JSON) document; reports a syntax error, an empty text or more
// than one document.
std::optional<YAML::Node> parse_document(const std::string& text, Diagnostics& diagnostics) {
  constexpr size_t kMaxDocuments = 16;
  DocumentCounter counter;
  bool stuck = false;
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    while (counter.starts.size() < kMaxDocuments && parser.HandleNextDocument(counter)) {
      size_t n = counter.starts.size();
      if (n >= 2 && counter.starts[n - 1].pos == counter.starts[n - 2].pos) {
        stuck = true;
        break;
      }
    }
  } catch (const YAML::Exception& e) {
    report_yaml_error(e, diagnostics);
    return std::nullopt;
  }
  if (stuck) {
    YAML::Mark mark = counter.starts.back();
    std::string found = mark.pos >= 0 && static_cast<size_t>(mark.pos) < text.size()
                            ? "\"" + std::string(1, text[mark.pos]) + "\""
                            : "more text";
    diagnostics.error(mark.line, mark.column, "",
                      "invalid YAML: unexpected " + found + " after the end of the document");
    return std::nullopt;
  }
  if (counter.starts.size() > 1) {
    YAML::Mark mark = counter.starts[1];
    std::string count = counter.starts.size() < kMaxDocuments
                            ? std::to_string(counter.starts.size())
                            : std::to_string(kMaxDocuments) + " or more";
    diagnostics.error(mark.line, mark.column, "",
                      "expected one document, found " + count +
                          "; a policy file holds one DeschedulerPolicy or one ConfigMap");
    return std::nullopt;
  }
  YAML::Node document;
  if (!counter.starts.empty()) document = YAML::Load(text);
  if (counter.starts.empty() || document.IsNull()) {
    diagnostics.error(-1, -1, "",
                      "the file is empty; expected a DeschedulerPolicy (apiVersion: "
                      "descheduler/v1alpha2) or a ConfigMap holding one in data[\"policy.yaml\"]");
    return std::nullopt;
  }
  return document;
}

// Positions inside the policy string of a ConfigMap are shifted onto the ConfigMap file. Exact
// for a literal block (`policy.yaml: |`), the usual form; for a quoted or plain string only the
// first line maps exactly.
void set_embedded_offset(std::string_view file_text, const YAML::Node& scalar,
                         Diagnostics& diagnostics) {
  YAML::Mark mark = scalar.Mark();
  if (mark.pos < 0 || static_cast<size_t>(mark.pos) >= file_text.size()) return;
  char indicator = file_text[mark.pos];
  if (indicator == '"' || indicator == '\'') {
    diagnostics.set_offset(mark.line, mark.column + 1);
    return;
  }
  if (indicator != '|' && indicator != '>') {
    diagnostics.set_offset(mark.line, mark.column);
    return;
  }
  // The content starts on the next line; its indentation is that of the first non-blank line.
  int indentation = 0;
  size_t newline = file_text.find('\n', mark.pos);
  while (newline != std::string_view::npos) {
    size_t begin = newline + 1;
    newline = file_text.find('\n', begin);
    std::string_view line = file_text.substr(
        begin, newline == std::string_view::npos ? std::string_view::npos : newline - begin);
    size_t first = line.find_first_not_of(' ');
    if (first != std::string_view::npos && line[first] != '\r') {
      indentation = static_cast<int>(first);
      break;
    }
  }
  diagnostics.set_offset(mark.line + 1, indentation);
}

// A ConfigMap whose data["policy.yaml"] holds the policy: returns the parsed inner document, with
// the diagnostics' offset set so that its positions point into the ConfigMap file.
std::optional<YAML::Node> read_config_map(FieldReader& config_map, std::string_view file_text,
                                          Diagnostics& diagnostics) {
  config_map.string("apiVersion");
  config_map.accept({"kind", "metadata", "binaryData", "immutable"});
  std::optional<FieldReader> data = config_map.object("data", true);
  config_map.finish();
  if (!data || !data->valid()) return std::nullopt;
  YAML::Node scalar = data->get(kPolicyKey);
  std::vector<std::string> other_keys;
  for (const auto& entry : data->node()) {
    if (!entry.first.IsScalar() || entry.first.Scalar() == kPolicyKey) continue;
    other_keys.push_back(entry.first.Scalar());
    data->get(entry.first.Scalar());
  }
  if (!scalar.IsDefined()) {
    std::string found;
    for (const std::string& key : other_keys) found += (found.empty() ? "" : ", ") + key;
    data->error("the ConfigMap has no key policy.yaml" +
                (found.empty() ? std::string() : " (found " + found + ")"));
    return std::nullopt;
  }
  for (const std::string& key : other_keys) {
    data->warning_at(key, "ignored: loadshift reads the policy from data[\"policy.yaml\"] only");
  }
  std::optional<std::string> text = data->string(kPolicyKey);
  if (!text) return std::nullopt;
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    data->error_at(kPolicyKey, "the policy is empty");
    return std::nullopt;
  }
  data->finish();
  set_embedded_offset(file_text, scalar, diagnostics);
  return parse_document(*text, diagnostics);
}

std::optional<uint32_t> read_count(FieldReader& reader, std::string_view key) {
  std::optional<int64_t> value = reader.integer(key, 0, std::numeric_limits<uint32_t>::max());
  if (!value) return std::nullopt;
  return static_cast<uint32_t>(*value);
}

PrometheusProvider read_prometheus(FieldReader& provider) {
  PrometheusProvider out;
  std::optional<FieldReader> prometheus = provider.object("prometheus", true);
  if (!prometheus || !prometheus->valid()) return out;
  if (std::optional<std::string> url = prometheus->string("url", true)) {
    if (std::string problem = check_http_url(*url); !problem.empty()) {
      prometheus->error_at("url",
                           "expected an http(s) URL such as "
                           "https://prometheus.monitoring.svc:9090, found \"" +
                               *url + "\": " + problem);
    }
    out.url = *url;
  }
  if (std::optional<FieldReader> token = prometheus->object("authToken"); token && token->valid()) {
    std::optional<FieldReader> secret = token->object("secretReference", true);
    if (secret && secret->valid()) {
      out.auth_secret_namespace = secret->string("namespace", true).value_or("");
      out.auth_secret_name = secret->string("name", true).value_or("");
      secret->finish();
    }
    token->finish();
  }
  prometheus->finish();
  return out;
}

MetricsProviders read_metrics_providers(FieldReader& top) {
  MetricsProviders out;
  bool collector = false;
  if (std::optional<FieldReader> reader = top.object("metricsCollector");
      reader && reader->valid()) {
    collector = reader->boolean("enabled").value_or(false);
    reader->finish();
  }
  std::set<std::string> sources;
  for (FieldReader& provider : top.object_list("metricsProviders")) {
    if (!provider.valid()) continue;
    if (!provider.has("source")) provider.string("source", true);
    std::optional<std::string> source =
        provider.choice("source", {"KubernetesMetrics", "Prometheus"});
    if (source && !sources.insert(*source).second) {
      provider.error_at("source", "metrics provider " + *source +
                                      " is given twice; give each source at most once");
    } else if (source && *source == "KubernetesMetrics") {
      out.kubernetes_metrics = true;
      if (provider.has("prometheus")) {
        provider.error_at("prometheus", "only valid with source: Prometheus");
      }
    } else if (source && *source == "Prometheus") {
      out.prometheus = read_prometheus(provider);
    }
    provider.accept({"prometheus"});
    provider.finish();
  }
  if (collector && out.kubernetes_metrics) {
    top.error_at("metricsCollector",
                 "metricsCollector.enabled and a KubernetesMetrics metrics provider cannot both be "
                 "set; metricsCollector is deprecated, keep only metricsProviders: "
                 "[{source: KubernetesMetrics}]");
  } else if (collector) {
    top.warning_at("metricsCollector",
                   "deprecated since kubernetes-sigs/descheduler v0.33; use metricsProviders: "
                   "[{source: KubernetesMetrics}]");
    out.kubernetes_metrics = true;
  }
  return out;
}

// LowNodeUtilization's metricsUtilization.source needs the matching top-level metrics provider.
void check_metrics_sources(const Policy& policy,
                           const std::vector<std::map<std::string, ProfileArgsSource>>& sources,
                           Diagnostics& diagnostics) {
  for (size_t i = 0; i < policy.profiles.size() && i < sources.size(); ++i) {
    const PluginConfig* config = policy.profiles[i].config("LowNodeUtilization");
    auto where = sources[i].find("LowNodeUtilization");
    if (config == nullptr || where == sources[i].end() || !where->second.node.IsMap()) continue;
    const std::string& source =
        std::get<NodeUtilizationArgs>(config->args).metrics_utilization.source;
    bool missing = (source == "Prometheus" && !policy.metrics_providers.prometheus) ||
                   (source == "KubernetesMetrics" && !policy.metrics_providers.kubernetes_metrics);
    if (!missing) continue;
    FieldReader args(where->second.node, where->second.path, &diagnostics);
    std::optional<FieldReader> utilization = args.object("metricsUtilization");
    if (!utilization || !utilization->valid()) continue;
    std::string provider = source == "Prometheus" ? "{source: Prometheus, prometheus: {url: ...}}"
                                                  : "{source: KubernetesMetrics}";
    utilization->error_at(utilization->has("source") ? "source" : "metricsServer",
                          source + " usage needs the metrics provider " + provider +
                              " under metricsProviders at the top of the policy");
  }
}

// One usage fetch per cycle serves every LoadAware: a second LoadAware whose metrics settings or
// sustainedFor differ from the first's would plan on data it did not ask for. An error, never a
// silently ignored setting. minNodeCoverage is each plugin's own.
void check_one_usage_fetch(const Policy& policy,
                           const std::vector<std::map<std::string, ProfileArgsSource>>& sources,
                           Diagnostics& diagnostics) {
  const LoadAwareArgs* first = nullptr;
  std::string first_path;
  for (size_t i = 0; i < policy.profiles.size() && i < sources.size(); ++i) {
    const PluginConfig* config = policy.profiles[i].config("LoadAware");
    auto where = sources[i].find("LoadAware");
    if (config == nullptr || where == sources[i].end()) continue;
    const auto& args = std::get<LoadAwareArgs>(config->args);
    if (first == nullptr) {
      first = &args;
      first_path = where->second.path;
      continue;
    }
    LoadAwareMetrics mine = args.metrics, theirs = first->metrics;
    mine.min_node_coverage = theirs.min_node_coverage = std::nullopt;
    const char* field = !(mine == theirs)                            ? "metrics"
                        : args.sustained_for != first->sustained_for ? "sustainedFor"
                                                                     : nullptr;
    if (field == nullptr || !where->second.node.IsMap()) continue;
    FieldReader reader(where->second.node, where->second.path, &diagnostics);
    reader.error_at(
        field,
        std::string("differs from ") + first_path + "." + field +
            ": one usage fetch per cycle serves every LoadAware plugin, so all "
            "must use the same " +
            field +
            (std::string_view(field) == "metrics" ? " settings (minNodeCoverage may differ)" : ""));
  }
}

std::optional<Policy> read_policy(const YAML::Node& document, Diagnostics& diagnostics) {
  FieldReader top(document, "", &diagnostics);
  if (!top.valid()) return std::nullopt;
  std::optional<std::string> api_version = top.string("apiVersion", true);
  if (api_version && *api_version == "descheduler/v1alpha1") {
    top.error_at("apiVersion", std::string(kConvertV1alpha1));
    return std::nullopt;
  }
  std::optional<std::string> kind = top.string("kind", true);
  bool is_descheduler = api_version && api_version->rfind("descheduler/", 0) == 0;
  if (kind && *kind != kKind) {
    top.error_at("kind",
                 "expected DeschedulerPolicy (or a ConfigMap holding one in "
                 "data[\"policy.yaml\"]), found \"" +
                     *kind + "\"");
    if (!is_descheduler) return std::nullopt;  // not a policy at all: spare the field errors
  }
  if (api_version && *api_version != kApiVersion) {
    top.error_at("apiVersion", "expected descheduler/v1alpha2, found \"" + *api_version + "\"");
  }

  Policy policy;
  policy.node_selector = top.selector_string("nodeSelector").value_or("");
  policy.max_pods_to_evict_per_node = read_count(top, "maxNoOfPodsToEvictPerNode");
  policy.max_pods_to_evict_per_namespace = read_count(top, "maxNoOfPodsToEvictPerNamespace");
  policy.max_pods_to_evict_total = read_count(top, "maxNoOfPodsToEvictTotal");
  policy.eviction_failure_event_notification =
      top.boolean("evictionFailureEventNotification").value_or(false);
  policy.grace_period_seconds =
      top.integer("gracePeriodSeconds", 0, std::numeric_limits<int64_t>::max());
  policy.metrics_providers = read_metrics_providers(top);
  policy.loadshift = read_plan_settings(top);

  std::vector<std::map<std::string, ProfileArgsSource>> sources;
  std::map<std::string, std::string> profile_paths;  // name -> path of its first profile
  for (FieldReader& reader : top.object_list("profiles")) {
    if (!reader.valid()) continue;
    sources.emplace_back();
    Profile profile = read_profile(reader, &sources.back());
    if (!profile.name.empty()) {
      auto [first, inserted] = profile_paths.emplace(profile.name, reader.path());
      if (!inserted) {
        FieldReader again(reader.node(), reader.path(), &diagnostics);
        again.error_at("name", "duplicate profile name \"" + profile.name + "\" (also " +
                                   first->second + "); profile names must be unique");
      }
    }
    policy.profiles.push_back(std::move(profile));
  }
  if (policy.profiles.empty()) {
    top.warning_at("profiles", "no profiles: loadshift will evict nothing");
  }
  check_metrics_sources(policy, sources, diagnostics);
  check_one_usage_fetch(policy, sources, diagnostics);

  for (std::string_view key : kEvictorArgs) {
    if (top.has(key)) {
      top.error_at(key, "unknown field \"" + std::string(key) +
                            "\": it is an arg of DefaultEvictor; move it to "
                            "profiles[].pluginConfig[] {name: DefaultEvictor, args: {" +
                            std::string(key) +
                            ": ...}} (kubernetes-sigs/descheduler silently "
                            "ignores it here)");
    }
  }
  if (top.has("strategies")) {
    top.error_at("strategies",
                 "unknown field \"strategies\": strategies belong to "
                 "descheduler/v1alpha1; in v1alpha2 each strategy is a plugin of a "
                 "profile (profiles[].pluginConfig and profiles[].plugins)");
  }
  top.finish();
  return policy;
}

std::optional<Policy> load(std::string_view text, Diagnostics& diagnostics) {
  std::string owned(text);
  std::optional<YAML::Node> document = parse_document(owned, diagnostics);
  if (!document) return std::nullopt;
  if (document->IsMap()) {
    FieldReader probe(*document, "", &diagnostics);
    YAML::Node kind = probe.get("kind");
    if (kind.IsScalar() && kind.Scalar() == "ConfigMap") {
      document = read_config_map(probe, owned, diagnostics);
      if (!document) return std::nullopt;
    }
  }
  return read_policy(*document, diagnostics);
}

bool before(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.line, a.column) < std::tie(b.line, b.column);
}

}  // namespace

// The byte offset of the first byte that makes `text` not UTF-8 text (invalid sequences, control
// characters other than tab and newlines), or npos. YAML and ConfigMap data are UTF-8 text.
static size_t first_non_text_byte(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
      ++i;
      continue;
    }
    size_t length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (length == 0 || (length == 3 && c > 0xef) || i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
    }
    i += length;
  }
  return std::string_view::npos;
}

LoadResult load_policy(std::string_view text, const std::string& file) {
  Diagnostics diagnostics(file);
  std::optional<Policy> policy;
  if (size_t bad = first_non_text_byte(text); bad != std::string_view::npos) {
    diagnostics.error(-1, -1, "",
                      "expected UTF-8 text; byte " + std::to_string(bad) +
                          " is not (a control character or an invalid UTF-8 sequence)");
    LoadResult result;
    result.errors = diagnostics.errors();
    return result;
  }
  try {
    policy = load(text, diagnostics);
  } catch (const YAML::Exception& e) {
    report_yaml_error(e, diagnostics);
  } catch (const std::exception& e) {
    diagnostics.error(-1, -1, "", std::string("cannot read the policy: ") + e.what());
  }
  LoadResult result;
  result.errors = diagnostics.errors();
  result.warnings = diagnostics.warnings();
  std::stable_sort(result.errors.begin(), result.errors.end(), before);
  std::stable_sort(result.warnings.begin(), result.warnings.end(), before);
  if (result.errors.empty()) {
    if (policy) {
      result.policy = std::move(policy);
    } else {
      result.errors.push_back({file, 0, 0, "", "no policy was read"});
    }
  }
  return result;
}

LoadResult load_policy_file(const std::string& path) {
  auto failure = [&](std::string message) {
    LoadResult result;
    result.errors.push_back({path, 0, 0, "", std::move(message)});
    return result;
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return failure("cannot read the file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return failure(std::string("cannot read the file: ") + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return failure(std::string("cannot read the file: ") + std::strerror(errno));
  return load_policy(text, path);
}

}  // namespace loadshift::policy

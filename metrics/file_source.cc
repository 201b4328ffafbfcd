// Usage from a JSON file (nlohmann/json), strict: every field checked, every problem named by path.
#include "metrics/file_source.h"
#include "metrics/prometheus_response.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

namespace loadshift::metrics {

namespace {

using nlohmann::json;

constexpr size_t kExamples = 3;

// `parent.key`, or `parent["key"]` when the key is not a plain word.
std::string child_path(const std::string& parent, const std::string& key) {
  bool plain = !key.empty();
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    plain = plain && ok;
  }
  if (plain) return parent.empty() ? key : parent + "." + key;
  return parent + "[" + json(key).dump() + "]";
}

std::string shown(const json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 40) + "...";
  return text;
}

class Reader {
 public:
  explicit Reader(std::string origin) : origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw UsageError(origin_ + ": " + (path.empty() ? "" : path + ": ") + message);
  }

  const json& object_at(const json& value, const std::string& path, const char* what) const {
    if (!value.is_object()) fail(path, std::string("expected ") + what + ", got " + shown(value));
    return value;
  }

  // A number within [low, high] (high may be infinite).
  double number(const json& value, const std::string& path, double low, double high,
                const char* expected) const {
    if (!value.is_number())
      fail(path, std::string("expected ") + expected + ", got " + shown(value));
    double v = value.get<double>();
    if (!std::isfinite(v) || v < low || v > high) {
      fail(path, std::string("expected ") + expected + ", got " + shown(value));
    }
    return v;
  }

  void only_fields(const json& object, const std::string& path,
                   std::initializer_list<const char*> allowed) const {
    for (const auto& item : object.items()) {
      bool known = false;
      for (const char* name : allowed) known = known || item.key() == name;
      if (!known) {
        std::string list;
        for (const char* name : allowed) list += (list.empty() ? "" : ", ") + std::string(name);
        fail(child_path(path, item.key()), "unknown field (expected " + list + ")");
      }
    }
  }

  const json& required(const json& object, const std::string& path, const char* name,
                       const char* expected) const {
    auto it = object.find(name);
    if (it == object.end()) {
      fail(path, std::string("missing \"") + name + "\" (expected " + expected + ")");
    }
    return *it;
  }

 private:
  std::string origin_;
};

constexpr const char* kPercent = "a number 0..100";

std::optional<double> optional_percent(const Reader& reader, const json& node,
                                       const std::string& path, const char* name) {
  auto it = node.find(name);
  if (it == node.end()) return std::nullopt;
  return reader.number(*it, child_path(path, name), 0, 100, kPercent);
}

NodeUsage read_node(const Reader& reader, const json& value, const std::string& path) {
  const json& node =
      reader.object_at(value, path, "an object {\"cpu\": percent, \"memory\": percent}");
  reader.only_fields(
      node, path,
      {"cpu", "memory", "cpuMin", "cpuMax", "memoryMin", "memoryMax", "metricResource"});
  NodeUsage usage;
  // A MetricResource-only fetch measured no cpu or memory: such a node carries metricResource
  // alone (loadshift snapshot writes it so).
  if (!node.contains("cpu") && !node.contains("memory") && node.contains("metricResource")) {
    reader.only_fields(node, path, {"metricResource"});
    usage.cpu_memory_measured = false;
    usage.metric_resource = optional_percent(reader, node, path, "metricResource");
    return usage;
  }
  usage.cpu.percent = reader.number(reader.required(node, path, "cpu", kPercent),
                                    child_path(path, "cpu"), 0, 100, kPercent);
  usage.memory.percent = reader.number(reader.required(node, path, "memory", kPercent),
                                       child_path(path, "memory"), 0, 100, kPercent);
  usage.cpu.sustained_min = optional_percent(reader, node, path, "cpuMin");
  usage.cpu.sustained_max = optional_percent(reader, node, path, "cpuMax");
  usage.memory.sustained_min = optional_percent(reader, node, path, "memoryMin");
  usage.memory.sustained_max = optional_percent(reader, node, path, "memoryMax");
  usage.metric_resource = optional_percent(reader, node, path, "metricResource");
  for (const auto* resource : {&usage.cpu, &usage.memory}) {
    if (resource->sustained_min && resource->sustained_max &&
        *resource->sustained_min > *resource->sustained_max) {
      const char* name = resource == &usage.cpu ? "cpu" : "memory";
      reader.fail(path, std::string(name) + "Min " + shown(node.at(std::string(name) + "Min")) +
                            " is greater than " + name + "Max " +
                            shown(node.at(std::string(name) + "Max")));
    }
  }
  return usage;
}

PodUsage read_pod(const Reader& reader, const std::string& key, const json& value,
                  const std::string& path) {
  size_t slash = key.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() ||
      key.find('/', slash + 1) != std::string::npos) {
    reader.fail(path, "expected a pod key \"namespace/name\"");
  }
  const json& pod =
      reader.object_at(value, path, "an object {\"cpu\": millicores, \"memory\": bytes}");
  reader.only_fields(pod, path, {"cpu", "memory"});
  constexpr double kAny = HUGE_VAL;
  PodUsage usage;
  usage.cpu_milli = reader.number(reader.required(pod, path, "cpu", "millicores >= 0"),
                                  child_path(path, "cpu"), 0, kAny, "millicores >= 0");
  usage.memory_bytes = reader.number(reader.required(pod, path, "memory", "bytes >= 0"),
                                     child_path(path, "memory"), 0, kAny, "bytes >= 0");
  return usage;
}

}  // namespace

UsageMap parse_usage_json(const std::string& text, const std::string& origin,
                          std::span<const NodeIdentity> nodes) {
  Reader reader(origin);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    reader.fail("", "not JSON: " + strip_json_exception_prefix(e.what()));
  }
  reader.object_at(doc, "", "an object {\"nodes\": {...}, \"pods\": {...}}");
  reader.only_fields(doc, "", {"nodes", "pods"});
  auto nodes_it = doc.find("nodes");
  if (nodes_it == doc.end()) {
    reader.fail("",
                "missing \"nodes\" (expected {\"nodes\": {\"<node>\": {\"cpu\": percent, "
                "\"memory\": percent}}})");
  }
  reader.object_at(*nodes_it, "nodes", "an object of node name -> usage");

  UsageMap out;
  out.origin = "file " + origin;
  std::map<std::string, NodeUsage, std::less<>> in_file;
  for (const auto& item : nodes_it->items()) {
    in_file.emplace(item.key(), read_node(reader, item.value(), child_path("nodes", item.key())));
  }
  if (auto pods = doc.find("pods"); pods != doc.end()) {
    reader.object_at(*pods, "pods", "an object of \"namespace/name\" -> usage");
    for (const auto& item : pods->items()) {
      out.pods.emplace(item.key(),
                       read_pod(reader, item.key(), item.value(), child_path("pods", item.key())));
    }
  }

  std::set<std::string, std::less<>> asked;
  for (const auto& node : nodes) {
    asked.insert(node.name);
    auto it = in_file.find(node.name);
    if (it == in_file.end()) {
      out.unknown[node.name] = "not in " + origin;
    } else {
      out.nodes[node.name] = it->second;
    }
  }
  size_t extra = 0;
  std::string examples;
  for (const auto& entry : in_file) {
    if (asked.count(entry.first)) continue;
    if (extra++ < kExamples) examples += (examples.empty() ? "" : ", ") + entry.first;
  }
  if (extra > 0) {
    out.warnings.push_back(origin + ": " + std::to_string(extra) +
                           " node(s) in the file are not among the nodes asked about (e.g. " +
                           examples + ")");
  }
  return out;
}

UsageMap FileSource::fetch(std::span<const NodeIdentity> nodes, const UsageRequest& /*request*/) {
  std::FILE* file = std::fopen(path_.c_str(), "rb");
  if (file == nullptr) throw UsageError(path_ + ": cannot read: " + std::strerror(errno));
  std::string text;
  char buffer[65536];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  bool failed = std::ferror(file) != 0;
  int error = errno;
  std::fclose(file);
  if (failed) throw UsageError(path_ + ": cannot read: " + std::strerror(error));
  return parse_usage_json(text, path_, nodes);
}

}  // namespace loadshift::metrics

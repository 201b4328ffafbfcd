// Node and pod usage as planning reads it: the UsageMap.
//
// Data only: the sources that fill it (metrics/prometheus_source.h, metrics/file_source.h) live
// beside it, and strategies/ reads it without linking them (nothing in strategies talks to the
// network). Percentages are 0..100 of the node's capacity as the query defines it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace loadshift::metrics {

// One resource of one node.
struct ResourceUsage {
  double percent = 0;  // the windowed value
  // Over the sustain period (policy sustainedFor), when it was asked for and answered: the lowest
  // and the highest value the same expression took. A node is "hot for 10 minutes" when its
  // minimum is over the watermark, "idle for 10 minutes" when its maximum is under it.
  std::optional<double> sustained_min;
  std::optional<double> sustained_max;
};

struct NodeUsage {
  ResourceUsage cpu;
  ResourceUsage memory;
  // LowNodeUtilization's MetricResource (metricsUtilization.source Prometheus): the value of the
  // policy's own query for this node, as percent 0..100 (the query answers 0..1, times 100).
  // Unset when it was not asked for, or when the node's sample was missing or unusable (NaN,
  // +-Inf, outside 0..1; a warning says which): LowNodeUtilization then treats the node as unknown.
  std::optional<double> metric_resource;
  // False when the fetch asked only for MetricResource (UsageRequest::node_usage false): cpu and
  // memory were not measured and read 0; nothing may use them.
  bool cpu_memory_measured = true;
  // Seconds between the answer's sample timestamp and the evaluation time (0 for instant queries,
  // which Prometheus stamps with the evaluation time).
  double age_seconds = 0;
};

// Hashes std::string and std::string_view alike, so a map keyed by strings is searched by view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view text) const noexcept {
    return std::hash<std::string_view>{}(text);
  }
};

// A pod's own usage, when the pod queries are answered.
struct PodUsage {
  double cpu_milli = 0;     // millicores
  double memory_bytes = 0;  // working set
};

// Both `nodes` and `unknown` empty means there was no usage source at all (a policy without
// LoadAware, and no --usage): plugins that need usage do nothing, placement-only plugins run.
struct UsageMap {
  // By node name (the Snapshot's name). A node is in exactly one of `nodes` and `unknown`.
  std::map<std::string, NodeUsage, std::less<>> nodes;
  // Nodes asked about with no usable data, and why ("no cpu series for label instance",
  // "cpu 130% outside 0..100"). Freshness comes from the queries: the default ones use range
  // functions over the window, so a node whose series stopped a window ago has no series. Unknown
  // nodes are never sources and never targets.
  std::map<std::string, std::string, std::less<>> unknown;
  // By "namespace/name"; empty when pod usage was not asked for or not answered. Hashed: a plan
  // looks up every pod it considers, among up to hundreds of thousands.
  std::unordered_map<std::string, PodUsage, StringHash, std::equal_to<>> pods;
  // Problems that made no node unknown but that a person should see (Prometheus warnings, series
  // that match no node, ...).
  std::vector<std::string> warnings;
  // Where the data came from, for the report: "prometheus http://... at 2026-11-22T04:00:00Z",
  // "file usage.json".
  std::string origin;

  const NodeUsage* find(std::string_view node) const {
    auto it = nodes.find(node);
    return it == nodes.end() ? nullptr : &it->second;
  }
  // Percent of asked nodes with data; 0 when no node was asked (no data is no coverage).
  double coverage_percent() const {
    size_t asked = nodes.size() + unknown.size();
    return asked == 0 ? 0.0
                      : 100.0 * static_cast<double>(nodes.size()) / static_cast<double>(asked);
  }
};

}  // namespace loadshift::metrics

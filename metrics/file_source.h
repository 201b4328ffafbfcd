// Node usage from a JSON file, for the offline report and tests:
//   {"nodes": {"te1": {"cpu": 35.5, "memory": 40}},
//    "pods":  {"default/web-1": {"cpu": 250, "memory": 268435456}}}      (pods optional)
// Node values are percent (0..100); pod cpu is millicores, pod memory bytes. A node may also carry
// "cpuMin", "cpuMax", "memoryMin", "memoryMax" (percent over the sustain period) and
// "metricResource" (percent 0..100: LowNodeUtilization's MetricResource for metricsUtilization
// source Prometheus, what its query would answer times 100; absent: that node has none). A node
// with "metricResource" and neither "cpu" nor "memory" is known by its MetricResource alone (its
// cpu and memory were not measured), as a MetricResource-only fetch knows it.
#pragma once

#include <string>

#include "metrics/node_usage_source.h"

namespace loadshift::metrics {

class FileSource : public NodeUsageSource {
 public:
  explicit FileSource(std::string path) : path_(std::move(path)) {}
  // Reads the file at every fetch. Nodes asked about and absent from the file are unknown
  // ("not in usage.json"); nodes in the file that were not asked about become warnings. Throws
  // UsageError naming the file and the JSON path for anything malformed (not an object, a
  // value that is not a number, NaN, a percent outside 0..100, negative pod usage).
  UsageMap fetch(std::span<const NodeIdentity> nodes, const UsageRequest& request) override;

 private:
  std::string path_;
};

// The same, from text already in memory (`origin` names it in messages).
UsageMap parse_usage_json(const std::string& text, const std::string& origin,
                          std::span<const NodeIdentity> nodes);

}  // namespace loadshift::metrics

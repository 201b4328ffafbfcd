// Where node usage comes from: an interface, so the controller and the report do not care whether
// it is Prometheus or a file.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "metrics/usage.h"

namespace loadshift::metrics {

// A node as the sources match it against series: by name, or by InternalIP (port stripped).
struct NodeIdentity {
  std::string name;
  std::string internal_ip;  // may be empty
};

// What one fetch asks for.
struct UsageRequest {
  // Fetch each node's cpu and memory (the node queries). false: a policy that reads only
  // LowNodeUtilization's MetricResource: only metric_resource_query is sent (it must be set), a node
  // is known by its MetricResource value alone (NodeUsage::cpu_memory_measured false), and
  // sustained_for_ms and pods are ignored.
  bool node_usage = true;
  // Also fetch each node's min and max over this period (milliseconds), e.g. 600000 for 10m.
  std::optional<int64_t> sustained_for_ms;
  // Also fetch per-pod usage (the podCpu / podMemory queries).
  bool pods = false;
  // Also fetch LowNodeUtilization's MetricResource with this PromQL (its
  // metricsUtilization.prometheus.query, one value in 0..1 per node, labelled by node like the cpu
  // query); fills NodeUsage::metric_resource. Empty: not asked.
  std::string metric_resource_query;
};

// The whole fetch failed (no node could get data): unreachable server, every query refused, a file
// that is not usage JSON. The message names the place and what was expected.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class NodeUsageSource {
 public:
  virtual ~NodeUsageSource() = default;
  // Usage for `nodes`: each of them ends up in exactly one of UsageMap::nodes and
  // UsageMap::unknown. Throws UsageError only when no node can have data at all.
  virtual UsageMap fetch(std::span<const NodeIdentity> nodes, const UsageRequest& request) = 0;
};

}  // namespace loadshift::metrics

// Which node a series belongs to (internal to metrics/): the value of the series' node label
// compared with node names and InternalIPs.
//
// kName: the label value, or its host with any ":port" removed, equals the node name.
// kInternalIp: the host with any ":port" removed ("10.0.0.1:9100" -> 10.0.0.1, "[::1]:9100" ->
// ::1) is the node's InternalIP (IPv6 compared in canonical form).
// kAuto: by name first, then by InternalIP.
// An InternalIP shared by several nodes matches none of them (reported by shared_ip_warnings()).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "metrics/node_usage_source.h"
#include "metrics/prometheus_response.h"
#include "metrics/prometheus_source.h"

namespace loadshift::metrics {

// "10.0.0.1:9100" -> "10.0.0.1", "[fd00::1]:9100" -> "fd00::1", "fd00::1" -> "fd00::1",
// "te1" -> "te1".
std::string_view strip_port(std::string_view value);

// Where the series of one answer landed.
struct SeriesMatch {
  // For each node (same index as the nodes given to the matcher), the samples that match it.
  std::vector<std::vector<const Sample*>> by_node;
  size_t unmatched = 0;                         // series whose label names no node
  std::vector<std::string> unmatched_examples;  // their label values, at most 3
  size_t unlabeled = 0;                         // series without the node label
  std::vector<std::string> unlabeled_examples;  // their label sets, at most 3
};

class NodeMatcher {
 public:
  NodeMatcher(std::span<const NodeIdentity> nodes, std::string node_label, NodeMatchMode mode);

  // The node index a label value names, if any.
  std::optional<size_t> find(std::string_view label_value) const;
  SeriesMatch match(const std::vector<Sample>& samples) const;

  const std::string& node_label() const { return node_label_; }
  // One line per InternalIP shared by several nodes (not used for matching).
  const std::vector<std::string>& shared_ip_warnings() const { return shared_ip_warnings_; }
  // "name te1 or InternalIP 10.0.0.1": what a series of this node must carry, for messages.
  std::string expected_for(size_t node) const;

 private:
  std::span<const NodeIdentity> nodes_;
  std::string node_label_;
  NodeMatchMode mode_;
  std::unordered_map<std::string_view, size_t> by_name_;
  std::unordered_map<std::string, size_t> by_ip_;  // canonical IP text; SIZE_MAX: shared
  std::vector<std::string> shared_ip_warnings_;
};

}  // namespace loadshift::metrics

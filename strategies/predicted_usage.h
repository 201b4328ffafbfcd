// Predicted usage: what each node would use, percent per resource, once the moves of the plan
// so far are carried out. PlanContext keeps the plan's one account of it per basis (measured
// usage, requests) and moves every eviction through it, whichever plugin planned it: a source
// stops when it is relieved and a target is never pushed over its watermarks. Internal to
// strategies/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "placement/cluster_index.h"
#include "strategies/plan.h"
#include "strategies/watermarks.h"

namespace loadshift::strategies {

// A pod's load in absolute amounts: cpu and memory as estimated, every other resource from its
// requests, and one pod.
struct PodAmounts {
  double cpu_milli = 0;
  double memory_bytes = 0;
  bool measured = false;  // cpu and memory are the pod's own usage, not its requests
  const model::ResourceList* requests = nullptr;  // for resources other than cpu and memory
  double amount(std::string_view resource) const;
};

// What a plan's usage account measures nodes and pods by.
enum class UsageBasis {
  // Each node's measured cpu and memory (the UsageMap; nodes without them are unknown), every
  // other resource as requested; a pod's load is its estimated load (own usage, else requests).
  kMeasured,
  // Every resource as requested (pods: the pod count), on every node; a pod's load is its
  // requests. The column "MetricResource" holds LowNodeUtilization's MetricResource value (0
  // where there is none), which no pod carries.
  kRequested,
};

// LowNodeUtilization's Prometheus MetricResource, as a column of the requested account.
inline constexpr const char* kMetricResource = "MetricResource";

// "0.5 cpu", "1.5Gi memory", "1 pod", "2 nvidia.com/gpu": an amount of a pod's load for reasons.
std::string amount_text(std::string_view resource, double amount);

// Everything from the pod's effective requests (requests-based LowNodeUtilization).
PodAmounts requested_load(const placement::ClusterIndex& index, PodId pod);

// The node's allocatable amount of `resource` (cpu in millicores), or its capacity when
// allocatable does not list it.
double allocatable_of(const model::Node& node, std::string_view resource);
// `amount` of `resource` as a percent of the node's allocatable. A node with none of it: 0 for
// nothing, else 1e9 (never fits under a watermark).
double percent_of(const model::Node& node, std::string_view resource, double amount);

class PredictedUsage {
 public:
  // Tracks `resources` (e.g. cpu, memory, pods) on the nodes of `snapshot`; no node known yet.
  PredictedUsage(const model::Snapshot& snapshot, std::vector<std::string> resources);

  // The node's usage now; it becomes known. Resources not tracked are dropped.
  void set(NodeId node, const Percentages& usage);
  bool known(NodeId node) const { return known_[node]; }
  // Predicted usage of a known node (empty for unknown ones).
  const Percentages& of(NodeId node) const { return usage_[node]; }
  const std::vector<std::string>& resources() const { return resources_; }
  // of(node) at resources()[i], read without a map lookup (the target search's inner loop); 0
  // on unknown nodes.
  double tracked(NodeId node, size_t i) const { return by_index_[node * resources_.size() + i]; }
  // Of the cpu and memory that left `node` (column i), the part that may not really be gone: all
  // of a departure estimated from requests (the pod has no measured usage) and, of a measured
  // one, the amount by which its share of allocatable exceeds its share of capacity (node usage
  // is measured against capacity). Kept only after track_uncertain_departures() (the measured
  // account); a target's cap is checked against tracked() plus this, so load planned away makes
  // room on a target only as far as it surely leaves.
  double uncertain(NodeId node, size_t i) const {
    return uncertain_.empty() ? 0 : uncertain_[node * resources_.size() + i];
  }
  void track_uncertain_departures() { uncertain_.assign(by_index_.size(), 0.0); }

  // The pod's share of `node` per tracked resource.
  Percentages share(NodeId node, const PodAmounts& load) const;
  // The pod leaves `from` and lands on `to` (either may be kNoNode or unknown: left alone).
  // Usage never goes below 0.
  void move(NodeId from, NodeId to, const PodAmounts& load);
  // Applies one eviction of a plan: the pod leaves its node and lands where it is placed. A
  // finished pod (Succeeded, Failed) changes nothing: it was never counted on its node, and its
  // controller replaced it (or will not) whether or not it is evicted.
  void apply(const EvictionDecision& decision, const PodAmounts& load);

 private:
  void copy_to_index(NodeId node);

  const model::Snapshot* snapshot_;
  std::vector<std::string> resources_;
  std::vector<Percentages> usage_;
  std::vector<double> by_index_;  // usage_ again: one row per node, one column per resource
  std::vector<double> uncertain_;  // laid out as by_index_; empty unless tracked
  std::vector<bool> known_;
};

}  // namespace loadshift::strategies

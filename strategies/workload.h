// Workloads: the pods one controller owns, as the limits, the in-flight rule and the cool-down
// see them.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "model/model.h"

namespace loadshift::strategies {

// The key a workload's pods share in limits and cool-downs: "namespace/Kind/name" of the pod's
// controller owner; empty for a pod without one.
std::string workload_key(const model::Pod& pod);

// The workload whose pods the in-flight limit counts together: the controlling owner, except that
// a ReplicaSet a Deployment made (named <deployment>-<pod-template-hash>, its pods labelled with
// that hash) stands for the Deployment, so the old and the new ReplicaSet of a rollout count as
// one. `key` is "" for a bare pod.
struct RolloutWorkload {
  std::string key, kind, name;
};
RolloutWorkload rollout_workload(const model::Pod& pod);

// Whether a pod is in flight: terminating, not yet running, or running and not Ready. (A running
// pod without a Ready condition, which the API never serves but a hand-written object may,
// counts as Ready.) A finished pod is not in flight.
bool in_flight(const model::Pod& pod);

// One eviction of a workload's pod, as the cool-down remembers it: from node `from` (""
// unknown), its replacement counted on `to` (the predicted landing, else the target; ""
// unknown), at `at`.
struct WorkloadMove {
  std::string from, to;
  std::chrono::system_clock::time_point at;
  friend bool operator==(const WorkloadMove&, const WorkloadMove&) = default;
};

// The moves of each workload (workload_key()), oldest first.
using WorkloadMoves = std::map<std::string, std::vector<WorkloadMove>, std::less<>>;

}  // namespace loadshift::strategies

// The order in which balance plugins give up a node's pods: the facts about a pod that decide
// it (priority, QoS class, pod-deletion-cost, prefer-no-eviction, age), read once per pod.
// Internal to strategies/.
#pragma once

#include <cstdint>
#include <string>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::strategies {

// Kubernetes QoS class, in eviction order: BestEffort (0) < Burstable (1) < Guaranteed (2).
// status.qosClass when the pod has one, else computed from its containers' requests and limits
// as the kubelet does.
int qos_rank(const model::Pod& pod);

// The controller.kubernetes.io/pod-deletion-cost annotation (lower goes first); 0 when absent or
// not an int32, as the ReplicaSet controller reads it.
int32_t deletion_cost(const model::Pod& pod);

// True when the pod carries descheduler.alpha.kubernetes.io/prefer-no-eviction.
bool prefers_no_eviction(const model::Pod& pod);

// What orders one pod among the candidates of a node, read once.
struct PodRank {
  placement::PodId pod = 0;
  int32_t priority = 0;
  int qos = 0;
  int32_t deletion_cost = 0;
  bool prefers_no_eviction = false;
  // Creation time in seconds since the epoch (offsets and fractions applied); the oldest
  // possible value when the timestamp is missing or unreadable (counts as oldest).
  double created = -1e300;
  std::string key;  // "namespace/name"
};
PodRank rank_of(const model::Snapshot& snapshot, placement::PodId pod);

// Upstream LowNodeUtilization / HighNodeUtilization order: priority ascending, then QoS, then
// pods without prefer-no-eviction first, then namespace/name for determinism.
bool evicted_before_upstream(const PodRank& a, const PodRank& b);

// The newer of two pods goes first (a creation timestamp sorts after an empty one); ties: name.
bool newer_first(const PodRank& a, const PodRank& b);

}  // namespace loadshift::strategies

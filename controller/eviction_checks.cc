#include "controller/eviction_checks.h"

#include "strategies/workload.h"

namespace loadshift::controller {
namespace {

using model::Pod;

std::optional<CheckSkip> soft_taint_in_place(const CheckInput& in) {
  if (in.node_writes == nullptr || in.node_writes->refused.empty()) return std::nullopt;
  const auto& [tainted, why] = *in.node_writes->refused.begin();
  return CheckSkip{ExecutorSkip::kSoftTaintFailed,
                   "soft taint missing: the plan assumed loadshift.io/overutilized on " + tainted +
                       " and it could not be put on (" + why +
                       "); every landing this cycle was predicted with it"};
}

std::optional<CheckSkip> pod_unchanged(const CheckInput& in) {
  const Pod& planned = in.pod;
  const std::optional<Pod> live = in.live.pod(planned.meta.namespace_, planned.meta.name);
  auto changed = [](std::string reason) {
    return CheckSkip{ExecutorSkip::kPodChanged, std::move(reason)};
  };
  if (!live) return changed("pod gone: no longer in the cache");
  if (live->meta.uid != planned.meta.uid) {
    return changed("pod replaced: the name now belongs to uid " + live->meta.uid);
  }
  if (live->node_name != in.node) {
    return changed("pod moved: now on " + (live->node_name.empty() ? "no node" : live->node_name) +
                   ", planned from " + in.node);
  }
  if (live->meta.deleting) return changed("pod terminating: already being deleted");
  // A plugin may choose a finished pod (RemoveFailedPods, PodLifeTime); a running one that
  // finished since the plan is another pod than the one decided on.
  if (live->terminated() && !planned.terminated()) {
    return changed("pod finished: phase is no longer Running");
  }
  return std::nullopt;
}

std::optional<CheckSkip> target_unchanged(const CheckInput& in) {
  if (in.target.empty()) return std::nullopt;
  const model::Node& planned = in.index.snapshot().nodes[in.decision.target];
  const std::optional<model::Node> live = in.live.node(in.target);
  if (!live || live->meta.uid != planned.meta.uid) {
    return CheckSkip{ExecutorSkip::kTargetChanged,
                     "target gone: node " + in.target + " is no longer in the cache"};
  }
  if (live->meta.resource_version == planned.meta.resource_version) return std::nullopt;
  if (in.node_writes != nullptr) {
    auto own = in.node_writes->patched.find(in.target);
    if (own != in.node_writes->patched.end() && live->meta.resource_version == own->second) {
      return std::nullopt;
    }
  }
  return CheckSkip{ExecutorSkip::kTargetChanged,
                   "target changed since the plan: node " + in.target +
                       " was updated (resourceVersion " + planned.meta.resource_version + " -> " +
                       live->meta.resource_version + "); the next cycle plans again"};
}

std::optional<CheckSkip> no_pod_arrived(const CheckInput& in) {
  if (in.target.empty()) return std::nullopt;
  const model::Snapshot& snap = in.index.snapshot();
  std::set<std::string> planned_pods;
  for (placement::PodId id : in.index.pods_on(in.decision.target)) {
    planned_pods.insert(snap.pods[id].meta.uid);
  }
  for (const Pod& now : in.live.pods_on_node(in.target)) {
    if (now.terminated() || planned_pods.count(now.meta.uid) != 0) continue;
    if (in.cycle.expected_on(in.target, strategies::rollout_workload(now).key)) continue;
    return CheckSkip{ExecutorSkip::kTargetChanged, "target changed since the plan: pod " +
                                                       now.key() + " arrived on " + in.target +
                                                       "; the next cycle plans again"};
  }
  return std::nullopt;
}

std::optional<CheckSkip> workload_in_flight(const CheckInput& in) {
  // A finished pod serves nothing, and its controller has replaced it already (a ReplicaSet
  // counts only active pods): removing it takes no replica away.
  if (in.max_in_flight_per_workload <= 0 || in.workload.key.empty() || in.pod.terminated()) {
    return std::nullopt;
  }
  const int busy = in.cycle.in_flight_besides(in.workload, in.pod);
  if (busy < in.max_in_flight_per_workload) return std::nullopt;
  return CheckSkip{ExecutorSkip::kWorkloadInFlight,
                   "workload limit: " + in.workload.kind + " " + in.pod.meta.namespace_ + "/" +
                       in.workload.name + " has " + std::to_string(busy) +
                       " pod(s) in flight (evicted, terminating or not Ready), limit " +
                       std::to_string(in.max_in_flight_per_workload) +
                       " (--max-in-flight-per-workload)"};
}

}  // namespace

const char* to_string(ExecutorSkip skip) {
  switch (skip) {
    case ExecutorSkip::kNotAllowed:
      return "not_allowed";
    case ExecutorSkip::kSoftTaintFailed:
      return "soft_taint_failed";
    case ExecutorSkip::kPodChanged:
      return "pod_changed";
    case ExecutorSkip::kTargetChanged:
      return "target_changed";
    case ExecutorSkip::kWorkloadInFlight:
      return "workload_in_flight";
    case ExecutorSkip::kGone:
      return "gone";
    case ExecutorSkip::kReplaced:
      return "replaced";
    case ExecutorSkip::kPdb:
      return "pdb";
  }
  return "not_allowed";
}

int& CycleRecord::in_flight(const std::string& key) {
  auto [it, inserted] = in_flight_.try_emplace(key, 0);
  if (inserted) {
    for (const Pod& pod : snapshot_.pods) {
      if (strategies::in_flight(pod) && strategies::rollout_workload(pod).key == key) {
        ++it->second;
      }
    }
  }
  return it->second;
}

int CycleRecord::in_flight_besides(const strategies::RolloutWorkload& workload, const Pod& self) {
  return in_flight(workload.key) - (strategies::in_flight(self) ? 1 : 0);
}

void CycleRecord::evicted(const strategies::RolloutWorkload& workload, const Pod& pod,
                          const std::vector<std::string>& toward) {
  if (workload.key.empty()) return;
  maybe_evicted(workload, pod);
  for (const std::string& node : toward) {
    if (!node.empty()) evicted_toward_[node].insert(workload.key);
  }
}

void CycleRecord::maybe_evicted(const strategies::RolloutWorkload& workload, const Pod& pod) {
  if (workload.key.empty() || strategies::in_flight(pod) || pod.terminated()) return;
  // No count of the snapshot here: with a limit the check counted this workload already (it
  // runs for every pod this can count), without one nobody reads the count.
  ++in_flight_[workload.key];
}

bool CycleRecord::expected_on(const std::string& node, const std::string& workload_key) const {
  auto it = evicted_toward_.find(node);
  return it != evicted_toward_.end() && it->second.count(workload_key) != 0;
}

const std::array<EvictionCheck, 5>& eviction_checks() {
  static const std::array<EvictionCheck, 5> checks{{
      {"soft_taint_in_place", soft_taint_in_place},
      {"pod_unchanged", pod_unchanged},
      {"target_unchanged", target_unchanged},
      {"no_pod_arrived", no_pod_arrived},
      {"workload_in_flight", workload_in_flight},
  }};
  return checks;
}

std::optional<CheckSkip> check_eviction(const CheckInput& input) {
  for (const EvictionCheck& check : eviction_checks()) {
    if (std::optional<CheckSkip> skip = check.run(input)) return skip;
  }
  return std::nullopt;
}

}  // namespace loadshift::controller

// Workloads: keys, rollouts, pods in flight.
#include "strategies/workload.h"

namespace loadshift::strategies {

std::string workload_key(const model::Pod& pod) {
  const model::OwnerReference* owner = pod.controller();
  if (owner == nullptr) return "";
  return pod.meta.namespace_ + "/" + owner->kind + "/" + owner->name;
}

RolloutWorkload rollout_workload(const model::Pod& pod) {
  const model::OwnerReference* owner = pod.controller();
  if (owner == nullptr) return {};
  if (owner->kind == "ReplicaSet") {
    const std::string* hash = pod.meta.labels.find("pod-template-hash");
    if (hash != nullptr && !hash->empty() && owner->name.size() > hash->size() + 1 &&
        owner->name.ends_with("-" + *hash)) {
      std::string deployment = owner->name.substr(0, owner->name.size() - hash->size() - 1);
      return {"Deployment " + pod.meta.namespace_ + "/" + deployment, "Deployment", deployment};
    }
  }
  return {owner->uid, owner->kind, owner->name};
}

bool in_flight(const model::Pod& pod) {
  if (pod.terminated()) return false;
  if (pod.meta.deleting || pod.phase == model::PodPhase::kPending) return true;
  return pod.ready.has_value() && !*pod.ready;
}

}  // namespace loadshift::strategies

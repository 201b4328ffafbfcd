// The one-pod cluster the EvictionFilter tests ask about, and small pod builders.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "model/rfc3339.h"
#include "strategies/evictability.h"
#include "test/strategies/plan_fixture.h"

namespace loadshift::testing {

using strategies::WorkloadSwitches;

// A two-node cluster whose first pod is `pod` (on n1), at 2026-11-22T04:00:00Z. Every claim
// of its pods is bound to a volume of its own, as in a cluster (a claim the snapshot lacks
// would make the pod unmovable).
struct OnePod : PlanFixture {
  explicit OnePod(Pod pod, std::vector<Pod> others = {},
                  std::vector<model::Namespace> namespaces = {}) {
    snapshot.nodes = {make_node("n1"), make_node("n2")};
    snapshot.namespaces = std::move(namespaces);
    snapshot.pods.push_back(std::move(pod));
    for (Pod& other : others) snapshot.pods.push_back(std::move(other));
    for (const Pod& p : snapshot.pods) {
      for (const model::Volume& v : p.volumes) {
        if (v.kind != kVolumePersistentClaim) continue;
        model::PersistentVolumeClaim& claim = snapshot.persistent_volume_claims.emplace_back();
        claim.meta.namespace_ = p.meta.namespace_;
        claim.meta.name = v.claim_name;
        claim.volume_name = "pv-" + p.meta.namespace_ + "-" + v.claim_name;
        claim.phase = "Bound";
        claim.meta.annotations.set("pv.kubernetes.io/bind-completed", "yes");
        snapshot.persistent_volumes.emplace_back().meta.name = claim.volume_name;
      }
    }
    options.now = *model::parse_rfc3339("2026-11-22T04:00:00Z");
    build();
  }
  // LoadAware's default switches (its args carry them, so hints name them).
  static WorkloadSwitches load_aware_switches() {
    WorkloadSwitches switches;
    switches.set_in_args = true;
    return switches;
  }
  // The reason the first pod is refused under `args`, or "" when it may be evicted.
  std::string reason(const policy::DefaultEvictorArgs& args = default_evictor(),
                     const WorkloadSwitches& switches = load_aware_switches()) {
    std::optional<std::string> r = filter(args).reject_reason(0, switches);
    return r ? *r : "";
  }
};

// A label set from pairs.
inline StringMap labels(std::vector<std::pair<std::string, std::string>> pairs) {
  return StringMap(std::move(pairs));
}

inline Pod plain() { return owned_pod("p", "n1"); }

inline Pod with_annotation(Pod pod, const std::string& key, const std::string& value = "") {
  pod.meta.annotations.set(key, value);
  return pod;
}

inline Volume volume(const std::string& name, VolumeKind kind, const std::string& claim = "") {
  Volume v;
  v.name = name;
  v.kind = kind;
  v.claim_name = claim;
  return v;
}

}  // namespace loadshift::testing

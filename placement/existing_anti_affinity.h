// Existing pods' required anti-affinity against an incoming pod (the symmetric half of the
// scheduler's InterPodAffinity filter: "node(s) didn't satisfy existing pods anti-affinity
// rules").
//
// A live pod E bound to node N with a required podAntiAffinity term T refuses an incoming pod P
// on every node that has T.topologyKey with the same value as N (T's topology domain), when T
// selects P: T.labelSelector matches P's labels (a null selector matches nothing) and P's
// namespace is one of T's namespaces (T.namespaces, or E's own namespace when T has neither
// namespaces nor a namespaceSelector). A non-empty namespaceSelector cannot be evaluated without
// Namespace objects, so it is taken to select P's namespace: conservative, the node is refused.
// An empty namespaceSelector selects every namespace. Pods planned away from a node still count
// there until they are evicted.
//
// Built once per ClusterIndex: the terms are grouped by topology key and domain value, so a
// cluster without such pods pays one branch per check, and one with them a lookup per key.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "placement/model.h"
#include "placement/verdict.h"

namespace loadshift::placement {

class ExistingAntiAffinity {
 public:
  ExistingAntiAffinity() = default;
  // `pods_on_node[n]`: the live pods bound to node n. `snapshot` must outlive this object.
  ExistingAntiAffinity(const Snapshot& snapshot,
                       const std::vector<std::vector<PodId>>& pods_on_node);

  // True when no existing pod's required anti-affinity refuses `pod_id` on `node`. On failure
  // appends, when `out` is not null, a reason naming every refusing pod and term.
  bool check(PodId pod_id, NodeId node, Reasons* out) const;

  // Number of (pod, term) pairs that can refuse incoming pods.
  size_t terms() const { return terms_; }

 private:
  struct TermRef {
    PodId owner;
    uint32_t term;  // index in owner's required_anti_affinity
  };
  struct Domains {
    std::string topology_key;
    std::unordered_map<std::string, std::vector<TermRef>> by_value;
  };
  const Snapshot* snapshot_ = nullptr;
  std::vector<Domains> keys_;
  size_t terms_ = 0;
};

// True when `term` of `owner` selects `pod` (label selector and namespaces, as above).
bool anti_affinity_term_selects(const PodAffinityTerm& term, const Pod& owner, const Pod& pod);

}  // namespace loadshift::placement

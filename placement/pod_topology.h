// PodTopology: what the scheduler's InterPodAffinity and PodTopologySpread PreFilter compute,
// once per ClusterIndex instead of once per pod, so each check reads counts instead of walking
// pods.
//
// A slot counts pods per topology domain of one key: the pods an inter-pod term selects, the pods
// matching all of a pod's required affinity terms, the owners of required anti-affinity terms
// that select a pod (the symmetric rule), the weights of existing pods' score terms, or, for a
// spread constraint, the pods of its selector in the pod's namespace on the nodes the constraint
// counts (nodeAffinityPolicy, nodeTaintsPolicy, every key of the pod's constraints present). Pods
// whose terms and constraints are equal share slots, so a Deployment's replicas cost one slot per
// term. Each pod keeps the slots it is checked against (PodInterRules) and the slots it counts in
// (its contributions), which the Ledger follows when the plan moves it (topology_counts.h).
//
// Which pods count, as the scheduler: every live (not Succeeded or Failed) pod bound to a known
// node; for spread also not terminating, and only on counted nodes. A term's namespaceSelector
// selects by the labels of the snapshot's Namespaces. Without Namespaces (snapshot files without
// them) one that is neither null nor {} cannot be evaluated: a required anti-affinity term, the
// pod's own or an existing pod's, is taken to select every namespace (the node is refused rather
// than the rule broken); a required affinity term makes the pod unmovable; preferred terms are
// left out of the score.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/model.h"
#include "placement/label_groups.h"
#include "placement/topology_domains.h"
#include "placement/verdict.h"

namespace loadshift::placement {

inline constexpr uint32_t kEveryNode = UINT32_MAX;
// InterPodAffinityArgs.hardPodAffinityWeight, the default profile's value: an existing pod's
// required affinity term that selects the incoming pod adds this much to its score.
inline constexpr int64_t kHardPodAffinityWeight = 1;

struct TopologySlot {
  TopologyKeyId key = 0;
  uint32_t eligibility = kEveryNode;  // spread slots: the nodes they count (eligible_nodes)
  std::vector<std::pair<DomainId, int64_t>> base;       // non-zero counts by domain, sorted
  std::vector<std::pair<int64_t, DomainId>> ascending;  // spread slots: `base` by count
  int64_t total = 0;                                    // sum of `base`
  uint32_t eligible_domains = 0;  // spread slots: domains with at least one counted node
  std::string what;               // what is counted, for reasons
  bool spread() const { return eligibility != kEveryNode; }
  int64_t base_count(DomainId domain) const;
};

// A spread constraint of a pod, against its slot.
struct SpreadTerm {
  uint32_t slot;
  int32_t max_skew;
  int32_t min_domains;
  bool self_match;  // the constraint's selector matches the pod's own labels
  uint32_t index;   // in pod.topology_spread
};

// A weighted slot of a pod's score: its own preferred terms (weight +w affinity, -w anti) and
// the existing pods' score terms that select it (weight 1: the slot holds their weights).
struct ScoredSlot {
  uint32_t slot;
  int64_t weight;
};

// What a pod is checked against when it is placed.
struct PodInterRules {
  std::optional<std::string> unmovable;  // a rule the placement core cannot evaluate
  std::vector<uint32_t> anti;            // per own required anti-affinity term
  std::vector<uint32_t> affinity;        // per own required affinity term
  bool affinity_self_match = false;      // the pod matches all its own affinity terms
  std::vector<uint32_t> existing_anti;   // owners' required anti-affinity selecting the pod
  std::vector<SpreadTerm> spread;        // whenUnsatisfiable: DoNotSchedule
  std::vector<SpreadTerm> soft_spread;   // whenUnsatisfiable: ScheduleAnyway
  std::vector<ScoredSlot> scored;
};

struct Contribution {
  uint32_t slot;
  int64_t weight;
};

class PodTopology {
 public:
  PodTopology() = default;
  // `snapshot` must outlive this object; `node_of_pod` as ClusterIndex::node_of.
  PodTopology(const model::Snapshot& snapshot, const std::vector<NodeId>& node_of_pod);

  // The rules `pod` is checked against, or nullptr when it has none (one branch on the hot path).
  const PodInterRules* rules(PodId pod) const {
    if (pod >= rules_of_pod_.size() || rules_of_pod_[pod] == kNoRules) return nullptr;
    return &rules_[rules_of_pod_[pod]];
  }
  // The slots `pod` counts in, with its weight.
  std::span<const Contribution> contributions(PodId pod) const {
    if (pod + 1 >= contribution_offsets_.size()) return {};
    return {contributions_.data() + contribution_offsets_[pod],
            contributions_.data() + contribution_offsets_[pod + 1]};
  }
  // The weight `pod` has in `slot`, 0 when none.
  int64_t own_weight(PodId pod, uint32_t slot) const;

  const TopologySlot& slot(uint32_t id) const { return slots_[id]; }
  size_t slot_count() const { return slots_.size(); }
  bool counts_on(uint32_t slot, NodeId node) const;
  const TopologyDomains& domains() const { return domains_; }
  size_t pods_with_rules() const { return rules_.size(); }

 private:
  static constexpr uint32_t kNoRules = UINT32_MAX;
  TopologyDomains domains_;
  std::vector<TopologySlot> slots_;
  std::vector<std::vector<uint8_t>> eligible_nodes_;  // by eligibility id, by node
  std::vector<uint32_t> rules_of_pod_;
  std::vector<PodInterRules> rules_;
  std::vector<uint32_t> contribution_offsets_;  // CSR by pod
  std::vector<Contribution> contributions_;
  friend class PodTopologyBuilder;
};

}  // namespace loadshift::placement

// The checks before each eviction, as kube-scheduler's Filter plugins: small named units that
// each answer "go" (nullopt) or a skip with a code and a reason, run in one order for every
// planned eviction. They compare the plan with the cluster as the watch cache has it now, and
// with what this cycle already did:
//
//  1. soft_taint_in_place   the taint the plan assumed on every hot node is on (the plan predicted
//                           every landing with it); else no pod is evicted this cycle
//  2. pod_unchanged         the pod exists with the same uid, on the planned node, not terminating,
//                           not finished since the plan
//  3. target_unchanged      the target (when the plan names one) exists with the same uid and
//                           resourceVersion (this cycle's own soft-taint patch aside): no new
//                           taint, label, cordon or condition
//  4. no_pod_arrived        no pod arrived on the target since the snapshot other than
//                           replacements of pods this cycle evicted toward it
//  5. workload_in_flight    the pod's workload has fewer than max_in_flight pods in flight
//                           (terminating, not Ready, or evicted by this cycle), the pod aside
//
// The first skip wins; the later checks do not run. Whether this replica may evict at all (the
// lease) is asked before them, and a "no" stops the rest of the plan rather than skipping one.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "placement/cluster_index.h"
#include "strategies/plan.h"

namespace loadshift::controller {

// Why a planned eviction was not carried out. The metric label of
// loadshift_evictions_skipped_total{reason} is to_string's.
enum class ExecutorSkip {
  kNotAllowed,        // "not_allowed": this replica may not evict (lease lost, stopping)
  kSoftTaintFailed,   // "soft_taint_failed"
  kPodChanged,        // "pod_changed"
  kTargetChanged,     // "target_changed"
  kWorkloadInFlight,  // "workload_in_flight"
  kGone,              // "gone": the Eviction API found no such pod
  kReplaced,          // "replaced": the name belongs to another uid now
  kPdb,               // "pdb": a PodDisruptionBudget refused the eviction
};
const char* to_string(ExecutorSkip skip);

struct CheckSkip {
  ExecutorSkip code;
  std::string reason;  // for people: the log and the summary
};

// The cluster as it is now, as the checks read it (the watch cache in the controller).
class LiveObjects {
 public:
  virtual ~LiveObjects() = default;
  virtual std::optional<model::Pod> pod(std::string_view namespace_,
                                        std::string_view name) const = 0;
  virtual std::optional<model::Node> node(std::string_view name) const = 0;
  virtual std::vector<model::Pod> pods_on_node(std::string_view node) const = 0;
};

// What this cycle has done so far, which the checks read: pods in flight per workload and the
// workloads evicted toward each node. The executor records every eviction here.
class CycleRecord {
 public:
  explicit CycleRecord(const model::Snapshot& snapshot) : snapshot_(snapshot) {}
  // Pods of `workload` in flight (in the snapshot, counted once, plus this cycle's), `self`
  // aside: evicting a pod that serves nothing takes nothing away.
  int in_flight_besides(const strategies::RolloutWorkload& workload, const model::Pod& self);
  // `pod` of `workload` was evicted (or maybe was: a request that got no answer) toward
  // `toward` (names; empty: none), whose replacement is expected there.
  void evicted(const strategies::RolloutWorkload& workload, const model::Pod& pod,
               const std::vector<std::string>& toward);
  void maybe_evicted(const strategies::RolloutWorkload& workload, const model::Pod& pod);
  // Whether a pod of `workload_key` arriving on `node` is a replacement this cycle caused.
  bool expected_on(const std::string& node, const std::string& workload_key) const;

 private:
  int& in_flight(const std::string& key);
  const model::Snapshot& snapshot_;
  std::map<std::string, int> in_flight_;                         // workload key -> pods
  std::map<std::string, std::set<std::string>> evicted_toward_;  // node -> workload keys
};

// This cycle's own writes to nodes before its evictions (the soft taint, soft_taint.h).
struct NodeWrites {
  // node name -> the resourceVersion this cycle's own patch of the node as the plan saw it gave
  // the node: a target found at that version has changed only as the plan expected.
  std::map<std::string, std::string> patched;
  // node name -> why the taint the plan assumed on it could not be put on. The plan predicted
  // every landing with it: while any node is here, no pod is evicted this cycle.
  std::map<std::string, std::string> refused;
};

// Everything one check may read about one planned eviction.
struct CheckInput {
  const placement::ClusterIndex& index;
  const strategies::EvictionDecision& decision;
  const model::Pod& pod;      // as planned
  const std::string& node;    // the pod's node, as planned
  const std::string& target;  // the planned target's name; empty: none
  const strategies::RolloutWorkload& workload;
  const LiveObjects& live;
  const NodeWrites* node_writes;  // may be null
  CycleRecord& cycle;
  int max_in_flight_per_workload;  // 0: no limit
};

struct EvictionCheck {
  const char* name;
  std::optional<CheckSkip> (*run)(const CheckInput&);
};

// The checks, in the order they run (the list at the top of this file).
const std::array<EvictionCheck, 5>& eviction_checks();

// Runs the checks in order: the first skip, or nullopt (go).
std::optional<CheckSkip> check_eviction(const CheckInput& input);

}  // namespace loadshift::controller

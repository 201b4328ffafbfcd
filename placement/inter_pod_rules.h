// The scheduler's InterPodAffinity and PodTopologySpread, as the placement core evaluates them:
// filters over PodTopology's counts as the plan changed them (the Ledger), and their scores.
//
// Filter, in the scheduler's order (the first failure ends a fast-path check):
// 1. InterPodAffinity: every required affinity term's topologyKey is a label of the node, and
//    its domain holds a pod matching all the terms; or no such pod exists anywhere and the pod
//    matches its own terms (the first pod of a group). A running pod that is that first pod is
//    held to its own domains: while it terminates, the scheduler counts it and puts its
//    replacement there. Each required anti-affinity term: no
//    selected pod in the node's domain (a node without the key is not constrained). No existing
//    pod's required anti-affinity selects the pod in the node's domain.
// 2. PodTopologySpread, each DoNotSchedule constraint: the node has the key, and
//    count(node's domain) + (1 if the pod matches the selector) - minimum over the counted
//    domains (0 when there are fewer than minDomains) <= maxSkew.
// The pod itself never counts (where it runs now, or where the plan put it): the scheduler sees
// only its replacement.
#pragma once

#include <cstdint>

#include "placement/ledger.h"
#include "placement/pod_topology.h"
#include "placement/verdict.h"

namespace loadshift::placement {

// True when `pod` (now on `at` as the plan sees it, kNoNode if nowhere; `origin`: the node it runs
// on in the snapshot, where it lingers while it terminates) may go to `node` by the rules above.
bool check_inter_pod(const PodTopology& topology, const PodInterRules& rules, PodId pod, NodeId at,
                     NodeId origin, NodeId node, const Ledger& ledger, Reasons* out);

struct InterPodScore {
  int64_t affinity = 0;             // preferred terms and existing pods' terms (higher wins)
  double spread = 0;                // ScheduleAnyway constraints (lower wins)
  bool spread_missing_key = false;  // the node lacks a constraint's key (worst)
};
InterPodScore score_inter_pod(const PodTopology& topology, const PodInterRules& rules, PodId pod,
                              NodeId at, NodeId node, const Ledger& ledger);

}  // namespace loadshift::placement

#include "placement/placer.h"

#include <algorithm>

#include "placement/inter_pod_rules.h"
#include "placement/predicates.h"

namespace loadshift::placement {
namespace {

double free_fraction(int64_t allocatable, int64_t used) {
  if (allocatable <= 0) return 0;
  return std::clamp(static_cast<double>(allocatable - used) / static_cast<double>(allocatable), 0.0,
                    1.0);
}

}  // namespace

bool better(const TargetScore& a, const TargetScore& b) {
  if (a.preferred_affinity != b.preferred_affinity) {
    return a.preferred_affinity > b.preferred_affinity;
  }
  if (a.pod_affinity != b.pod_affinity) return a.pod_affinity > b.pod_affinity;
  if (a.spread_missing_key != b.spread_missing_key) return !a.spread_missing_key;
  if (a.spread != b.spread) return a.spread < b.spread;
  if (a.untolerated_soft_taints != b.untolerated_soft_taints) {
    return a.untolerated_soft_taints < b.untolerated_soft_taints;
  }
  if (a.topology_tier != b.topology_tier) return a.topology_tier < b.topology_tier;
  return a.free_fraction_after > b.free_fraction_after;
}

// The rules that read only the node and the pod's scheduling constraints (see
// ClusterIndex::node_rules_memo). With `out` null the first failure ends the evaluation.
bool Placer::node_rules(const model::Pod& pod, const model::Node& node, Reasons* out) const {
  bool ok = true;
  auto keep_going = [&](bool passed) {
    ok = ok && passed;
    return ok || out != nullptr;
  };
  if (!keep_going(check_node_ready(node, out))) return false;
  if (!keep_going(check_node_schedulable(pod, node, out))) return false;
  if (!keep_going(check_taints(pod, node, out))) return false;
  if (!keep_going(check_node_selector(pod, node, out))) return false;
  if (!keep_going(check_node_affinity(pod, node, out))) return false;
  keep_going(check_usage_pool(pod, node, index_.options().pool_label, index_.known_pools(), out));
  return ok;
}

// Rules run cheapest first. With `out` null the first failure ends the evaluation.
bool Placer::evaluate(PodId pod_id, NodeId node_id, const Ledger& ledger, Reasons* out,
                      bool replacement) const {
  const model::Snapshot& snapshot = index_.snapshot();
  const model::Pod& pod = snapshot.pods[pod_id];
  const model::Node& node = snapshot.nodes[node_id];
  bool ok = true;
  auto keep_going = [&](bool passed) {
    ok = ok && passed;
    return ok || out != nullptr;
  };
  if (!replacement &&
      (index_.node_of(pod_id) == node_id || ledger.planned_node(pod_id) == node_id)) {
    if (out == nullptr) return false;
    out->push_back(Rejection{Rule::kSameNode, "the pod is already on this node"});
    ok = false;
  }
  if (const auto& reason = index_.unmovable_reason(pod_id)) {
    if (out == nullptr) return false;
    out->push_back(Rejection{Rule::kPodMovable, *reason});
    ok = false;
  }
  if (out != nullptr) {
    keep_going(node_rules(pod, node, out));
  } else {
    uint8_t memo = index_.node_rules_memo(pod_id, node_id);
    if (memo == 0) {
      bool pass = node_rules(pod, node, nullptr);
      index_.remember_node_rules(pod_id, node_id, pass);
      if (!pass) return false;
    } else if (memo == 2) {
      return false;
    }
  }
  NodeLoad load{&index_.requested(node_id), &ledger.reserved(node_id)};
  if (!keep_going(check_resources(index_.requests(pod_id), node, load,
                                  index_.gpus().node(node_id).stack, out)))
    return false;
  if (!keep_going(check_host_ports(pod, index_.host_ports(node_id), out))) return false;
  if (const PodInterRules* rules = index_.pod_topology().rules(pod_id)) {
    if (!keep_going(check_inter_pod_rules(*rules, pod_id, node_id, ledger, out))) return false;
  }
  if (!keep_going(index_.volumes().check(pod_id, node_id, ledger, out))) return false;
  if (!keep_going(check_network_topology(snapshot, index_.hyper_nodes(), index_.gangs(), pod_id,
                                         node_id, ledger, out)))
    return false;
  if (!keep_going(check_gpu(snapshot, index_.gpus(), pod_id, node_id, ledger, out))) return false;
  return ok;
}

// The inter-pod rules need a ledger that follows the inter-pod counts of its moves.
bool Placer::check_inter_pod_rules(const PodInterRules& rules, PodId pod, NodeId node,
                                   const Ledger& ledger, Reasons* out) const {
  const PodTopology& topology = index_.pod_topology();
  if (ledger.topology() != &topology && !ledger.moves().empty()) {
    if (out != nullptr) {
      out->push_back(Rejection{Rule::kInterPodAffinity,
                               "the plan's ledger does not follow inter-pod counts; not moved"});
    }
    return false;
  }
  // A running pod lingers on its node while it terminates (a finished one is no longer counted).
  const NodeId origin = index_.snapshot().pods[pod].terminated() ? kNoNode : index_.node_of(pod);
  return check_inter_pod(topology, rules, pod, pod_location(pod, ledger), origin, node, ledger,
                         out);
}

NodeId Placer::pod_location(PodId pod, const Ledger& ledger) const {
  NodeId planned = ledger.planned_node(pod);
  return planned != kNoNode ? planned : index_.node_of(pod);
}

Verdict Placer::fits(PodId pod, NodeId node, const Ledger& ledger) const {
  Verdict verdict;
  evaluate(pod, node, ledger, &verdict.failures);
  return verdict;
}

bool Placer::feasible(PodId pod, NodeId node, const Ledger& ledger) const {
  return evaluate(pod, node, ledger, nullptr);
}

bool Placer::node_rules_pass(PodId pod, NodeId node) const {
  uint8_t memo = index_.node_rules_memo(pod, node);
  if (memo != 0) return memo == 1;
  bool pass = node_rules(index_.snapshot().pods[pod], index_.snapshot().nodes[node], nullptr);
  index_.remember_node_rules(pod, node, pass);
  return pass;
}

bool Placer::feasible_replacement(PodId pod, NodeId node, const Ledger& ledger) const {
  return evaluate(pod, node, ledger, nullptr, /*replacement=*/true);
}

TargetScore Placer::score(PodId pod_id, NodeId node_id, const Ledger& ledger) const {
  const model::Snapshot& snapshot = index_.snapshot();
  const model::Pod& pod = snapshot.pods[pod_id];
  const model::Node& node = snapshot.nodes[node_id];
  TargetScore score;
  score.preferred_affinity = preferred_affinity_score(pod, node);
  if (index_.soft_tainted(node_id)) {
    score.untolerated_soft_taints = untolerated_prefer_no_schedule(pod, node);
  }
  if (const PodInterRules* rules = index_.pod_topology().rules(pod_id)) {
    InterPodScore inter_pod = score_inter_pod(index_.pod_topology(), *rules, pod_id,
                                              pod_location(pod_id, ledger), node_id, ledger);
    score.pod_affinity = inter_pod.affinity;
    score.spread = inter_pod.spread;
    score.spread_missing_key = inter_pod.spread_missing_key;
  }
  score.topology_tier = network_topology_tier(snapshot, index_.hyper_nodes(), index_.gangs(),
                                              pod_id, node_id, ledger);
  const model::ResourceList& requested = index_.requested(node_id);
  const model::ResourceList& reserved = ledger.reserved(node_id);
  const model::ResourceList& request = index_.requests(pod_id);
  double cpu = free_fraction(node.allocatable.cpu_milli,
                             requested.cpu_milli + reserved.cpu_milli + request.cpu_milli);
  double memory =
      free_fraction(node.allocatable.memory, requested.memory + reserved.memory + request.memory);
  score.free_fraction_after = (cpu + memory) / 2;
  return score;
}

TargetChoice Placer::best_target(PodId pod, std::span<const NodeId> candidates,
                                 const Ledger& ledger) const {
  TargetChoice choice;
  for (NodeId node : candidates) {
    if (!feasible(pod, node, ledger)) {
      choice.rejected.emplace_back(node, fits(pod, node, ledger));
      continue;
    }
    TargetScore s = score(pod, node, ledger);
    if (!choice.target || better(s, choice.score)) {
      choice.target = node;
      choice.score = s;
    }
  }
  return choice;
}

}  // namespace loadshift::placement

// The scheduler model's fast path (scheduler_model.h): for a pod whose node totals are known
// before the filters run, every node's total first, then the filters from the best total down;
// the totals kept between predictions of pods that score alike.
#include <algorithm>
#include <optional>

#include "placement/placer.h"
#include "placement/scheduler_model.h"

namespace loadshift::placement {

bool SchedulerModel::totals_known_before_filters(PodId pod) const {
  const model::Pod& p = index_.snapshot().pods[pod];
  // Without the index's own soft taints, a node meets at most loadshift's one: counts 0 or 1,
  // and a feasible node with 1 makes the maximum 1, so 0 -> 100 and 1 -> 0 whatever else is
  // feasible. NodeAffinity without preferred terms and InterPodAffinity / PodTopologySpread
  // without rules score 0 everywhere.
  // System-default spreading is normalised over the feasible nodes: on a cluster small enough
  // for kube-scheduler to score every node (minFeasibleNodesToFind, 100), only scoring every node
  // gives its answer. On a larger one the scheduler scores a sample of them anyway, and the fast
  // path normalises over the nodes that pass the node rules (predict_fast).
  if (default_spreading(pod) && index_.snapshot().nodes.size() <= kMinFeasibleNodesToFind) {
    return false;
  }
  return !any_soft_taint_ && p.node_affinity->preferred.empty() &&
         index_.pod_topology().rules(pod) == nullptr;
}

NodeScore SchedulerModel::fast_score(PodId pod, NodeId node, const Ledger& ledger,
                                     bool volcano) const {
  const Weights w = weights_for(volcano);
  NodeScore s;
  s.node = node;
  const bool without_self = node == index_.node_of(pod) && replaced_after_deletion(pod);
  s.fit = fit_score(pod, node, ledger, without_self);
  s.balanced = balanced_score(pod, node, ledger, without_self);
  s.taint = untolerated_soft_taints(pod, node) == 0 ? kMaxNodeScore : 0;
  if (volcano) {
    s.binpack = binpack_score(pod, node, ledger, without_self);
    s.usage = usage_score(node);
  }
  s.total = w.fit * s.fit + w.balanced * s.balanced + w.taint * s.taint + w.binpack * s.binpack +
            w.usage * s.usage;
  return s;
}

std::string SchedulerModel::totals_key(PodId pod) const {
  if (replaced_after_deletion(pod)) return "";
  for (const FitResource& r : fit_resources_) {
    if (r.kind == FitResource::kOther) return "";
  }
  const model::Pod& p = index_.snapshot().pods[pod];
  const model::ResourceList& requests = index_.requests(pod);
  std::string key;
  for (int64_t n : {static_cast<int64_t>(index_.constraint_class(pod)), pod_nonzero_cpu_[pod],
                    pod_nonzero_memory_[pod], requests.cpu_milli, requests.memory}) {
    key.append(reinterpret_cast<const char*>(&n), sizeof n);
  }
  key += p.scheduler_name;
  return key;
}

void SchedulerModel::complete_totals(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                                     const Placer& placer, bool volcano, KeptTotals& kept) const {
  const size_t node_total = index_.snapshot().nodes.size();
  const bool zoned = profile_.system_default_spreading;  // zone_of_ is filled
  auto score = [&](NodeId node) {
    return placer.node_rules_pass(pod, node) && !usage_refuses(pod, node)
               ? fast_score(pod, node, ledger, volcano).total
               : KeptTotals::kRefused;
  };
  auto count = [&](NodeId node, int64_t total, int sign) {
    if (total == KeptTotals::kRefused) return;
    kept.candidates += sign;
    if (zoned) kept.per_slot[zone_slot(node)] += sign;
  };
  const std::vector<NodeId>& touched = ledger.touched();
  // The counts are kept only for the whole cluster (distinct nodes, all of them).
  const bool whole = nodes.size() == node_total;
  if (kept.ledger != ledger.id() || kept.total.size() != node_total) {
    kept.ledger = ledger.id();
    kept.total.assign(node_total, KeptTotals::kUnset);
    kept.complete = false;
  } else {
    for (size_t i = kept.seen; i < touched.size(); ++i) {
      int64_t& total = kept.total[touched[i]];
      if (total == KeptTotals::kUnset || total == KeptTotals::kRefused) continue;
      if (!kept.complete) {
        total = KeptTotals::kUnset;
        continue;
      }
      // Rescored now, the counts following (a node's candidacy does not depend on the Ledger,
      // but the counts follow the scores whatever they say).
      count(touched[i], total, -1);
      total = score(touched[i]);
      count(touched[i], total, +1);
    }
  }
  kept.seen = touched.size();
  if (kept.complete && whole) return;
  kept.per_slot.assign(zoned ? zone_count_ + 1 : 0, 0);
  kept.candidates = 0;
  for (NodeId node : nodes) {
    int64_t& total = kept.total[node];
    if (total == KeptTotals::kUnset) total = score(node);
    count(node, total, +1);
  }
  kept.complete = whole;
}

Landing SchedulerModel::predict_fast(PodId pod, std::span<const NodeId> nodes, const Ledger& ledger,
                                     NodeId also) const {
  const Placer placer(index_);
  Landing landing;
  landing.volcano = index_.snapshot().pods[pod].scheduler_name == "volcano";
  // Every node that passes the node rules, by total; the other filters run from the top. Totals
  // kept from an earlier pod of the same class are reused but on the nodes the Ledger touched
  // since (KeptTotals).
  KeptTotals fresh;  // without kept totals: this prediction's own
  KeptTotals* kept = &fresh;
  if (std::string key = totals_key(pod); !key.empty()) {
    auto it = totals_.find(key);
    const size_t row = std::max<size_t>(1, index_.snapshot().nodes.size()) * sizeof(int64_t);
    // Past the budget, a new class is scored afresh and not kept; the kept ones stay.
    if (it == totals_.end() && (totals_.size() + 1) * row <= kMaxTotalsBytes) {
      it = totals_.emplace(std::move(key), KeptTotals{}).first;
    }
    if (it != totals_.end()) kept = &it->second;
  }
  complete_totals(pod, nodes, ledger, placer, landing.volcano, *kept);
  const std::vector<int64_t>& kept_totals = kept->total;
  if (kept->candidates == 0) return landing;
  // System-default spreading depends on where the owner's pods are: added to each total here,
  // normalised over the nodes that pass the node rules (the scheduler normalises over the
  // feasible nodes; the difference is the nodes whose resources do not fit).
  std::optional<DefaultSpread> spread;
  if (default_spreading(pod)) {
    spread.emplace(
        *this, pod, kept->per_slot, kept->candidates,
        [&kept_totals](NodeId node) { return kept_totals[node] != KeptTotals::kRefused; }, ledger);
  }
  const int64_t spread_weight = weights_for(landing.volcano).spread;
  auto total_of = [&](NodeId node) {
    return spread ? kept_totals[node] + spread_weight * spread->score(node) : kept_totals[node];
  };
  const int64_t margin_points = margin(pod);
  // One scan finds the top and keeps the nodes within the margin of the top seen so far (a
  // superset of those within the margin of the final top); almost always the top admits the
  // pod, and then the kept nodes are the whole answer. Only when no node at the top does, every
  // node goes to a heap, best first: the first that admits sets the top, and those within the
  // margin of it follow.
  int64_t top = KeptTotals::kRefused;
  near_top_.clear();
  for (NodeId node : nodes) {
    if (kept_totals[node] == KeptTotals::kRefused) continue;
    const int64_t total = total_of(node);
    if (total > top) top = total;
    if (total >= top - margin_points) near_top_.emplace_back(total, node);
  }
  bool found = false;
  bool top_admits = false;
  for (const auto& [total, node] : near_top_) {
    if (total < top - margin_points) continue;
    if (!admits(placer, pod, node, ledger)) continue;
    found = true;
    top_admits = top_admits || total == top;
    landing.best.push_back(node);
  }
  if (top_admits) {
    landing.score = top;
  } else {
    landing.best.clear();
    found = false;
    std::vector<std::pair<int64_t, NodeId>> ranked;
    for (NodeId node : nodes) {
      if (kept_totals[node] != KeptTotals::kRefused) ranked.emplace_back(total_of(node), node);
    }
    auto lower = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::make_heap(ranked.begin(), ranked.end(), lower);
    while (!ranked.empty()) {
      std::pop_heap(ranked.begin(), ranked.end(), lower);
      auto [total, node] = ranked.back();
      ranked.pop_back();
      if (found && total < landing.score - margin_points) break;
      if (!admits(placer, pod, node, ledger)) continue;
      if (!found) landing.score = total;
      found = true;
      landing.best.push_back(node);
    }
  }
  std::sort(landing.best.begin(), landing.best.end());
  auto detail = [&](NodeId node) {
    NodeScore s = fast_score(pod, node, ledger, landing.volcano);
    if (spread) {
      s.spread = spread->score(node);
      s.total += spread_weight * s.spread;
    }
    return s;
  };
  for (NodeId node : landing.best) landing.detail.push_back(detail(node));
  if (also != kNoNode && found &&
      !std::binary_search(landing.best.begin(), landing.best.end(), also) &&
      admits(placer, pod, also, ledger)) {
    landing.detail.push_back(detail(also));
  }
  return landing;
}

}  // namespace loadshift::placement

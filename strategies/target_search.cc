#include "strategies/target_search.h"

#include <algorithm>
#include <map>

namespace loadshift::strategies {
namespace {

constexpr size_t kGroupsShown = 3;
constexpr size_t kNodesShown = 3;

// Why candidates were turned down, grouped by the short form of the reason.
class RejectionSummary {
 public:
  void add(std::string reason, NodeId node) { groups_[std::move(reason)].push_back(node); }

  // A placement verdict: its first failure, up to the first ": " (the detail after it differs
  // per node).
  void add(const placement::Verdict& verdict, NodeId node) {
    std::string reason =
        verdict.failures.empty() ? "no reason given" : verdict.failures.front().reason;
    if (size_t colon = reason.find(": "); colon != std::string::npos) reason.resize(colon);
    add(std::move(reason), node);
  }

  std::string text(const placement::Snapshot& snapshot) const {
    std::vector<const std::pair<const std::string, std::vector<NodeId>>*> order;
    for (const auto& group : groups_) order.push_back(&group);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
      return a->second.size() > b->second.size();
    });
    std::string out = "no target: ";
    for (size_t i = 0; i < order.size() && i < kGroupsShown; ++i) {
      if (i > 0) out += "; ";
      out += order[i]->first + " on ";
      const std::vector<NodeId>& nodes = order[i]->second;
      for (size_t k = 0; k < nodes.size() && k < kNodesShown; ++k) {
        if (k > 0) out += ", ";
        out += snapshot.nodes[nodes[k]].meta.name;
      }
      if (nodes.size() > kNodesShown) {
        out += " and " + std::to_string(nodes.size() - kNodesShown) + " more";
      }
    }
    if (order.size() > kGroupsShown) {
      out += "; " + std::to_string(order.size() - kGroupsShown) + " other reason" +
             (order.size() - kGroupsShown == 1 ? "" : "s");
    }
    return out;
  }

 private:
  std::map<std::string, std::vector<NodeId>> groups_;
};

// The first resource whose watermark the pod would push the node over, or "".
std::string over_watermark(const placement::Node& node, const Percentages& now,
                           const PodAmounts& load, const Percentages& high) {
  for (const auto& [resource, watermark] : high) {
    auto current = now.find(resource);
    double after = (current == now.end() ? 0 : current->second) +
                   percent_of(node, resource, load.amount(resource));
    if (after > watermark) return resource;
  }
  return "";
}

}  // namespace

TargetSearch find_target(const PlanContext& ctx, PodId pod, std::span<const NodeId> candidates,
                         const PredictedUsage& predicted, const std::vector<Percentages>& high,
                         const PodAmounts& load, TargetOrder order,
                         const std::string& no_candidates) {
  TargetSearch out;
  if (candidates.empty()) {
    out.why_not = "no target: " + no_candidates;
    return out;
  }
  std::vector<NodeId> within;
  std::vector<std::pair<NodeId, std::string>> over;  // reasons are built only when needed
  within.reserve(candidates.size());
  for (NodeId node : candidates) {
    std::string resource =
        over_watermark(ctx.snapshot().nodes[node], predicted.of(node), load, high[node]);
    if (resource.empty()) {
      within.push_back(node);
    } else {
      over.emplace_back(node, std::move(resource));
    }
  }
  const placement::Placer& placer = ctx.placer();
  if (order == TargetOrder::kBest) {
    // Placer::best_target's choice (the best score, ties to the earlier candidate) on the fast
    // path; the reasons, which cost strings per node, only when nothing fits.
    std::optional<NodeId> best;
    placement::TargetScore best_score;
    for (NodeId node : within) {
      if (!placer.feasible(pod, node, ctx.ledger())) continue;
      placement::TargetScore score = placer.score(pod, node, ctx.ledger());
      if (!best || placement::better(score, best_score)) {
        best = node;
        best_score = score;
      }
    }
    if (best) {
      out.target = best;
      return out;
    }
  } else {
    for (NodeId node : within) {
      if (placer.feasible(pod, node, ctx.ledger())) {
        out.target = node;
        return out;
      }
    }
  }
  RejectionSummary summary;
  for (const auto& entry : over) {
    summary.add(entry.second + " would exceed targetThresholds", entry.first);
  }
  for (NodeId node : within) summary.add(placer.fits(pod, node, ctx.ledger()), node);
  out.why_not = summary.text(ctx.snapshot());
  return out;
}

}  // namespace loadshift::strategies

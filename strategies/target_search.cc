#include "strategies/target_search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

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

}  // namespace

TargetCaps::TargetCaps(const placement::Snapshot& snapshot, const std::vector<Percentages>& high,
                       const PredictedUsage& predicted) {
  std::set<std::string> named;
  for (const Percentages& caps : high) {
    for (const auto& entry : caps) named.insert(entry.first);
  }
  resources_.assign(named.begin(), named.end());
  const std::vector<std::string>& tracked = predicted.resources();
  for (const std::string& resource : resources_) {
    auto it = std::find(tracked.begin(), tracked.end(), resource);
    tracked_.push_back(it == tracked.end() ? kUntracked
                                           : static_cast<size_t>(it - tracked.begin()));
  }
  cells_.reserve(high.size() * resources_.size());
  for (NodeId node = 0; node < high.size(); ++node) {
    for (const std::string& resource : resources_) {
      auto cap = high[node].find(resource);
      cells_.push_back(
          Cell{cap == high[node].end() ? std::numeric_limits<double>::infinity() : cap->second,
               allocatable_of(snapshot.nodes[node], resource)});
    }
  }
}

std::vector<double> TargetCaps::amounts(const PodAmounts& load) const {
  std::vector<double> out;
  out.reserve(resources_.size());
  for (const std::string& resource : resources_) out.push_back(load.amount(resource));
  return out;
}

const std::string* TargetCaps::exceeded(NodeId node, std::span<const double> amounts,
                                        const PredictedUsage& predicted) const {
  const Cell* row = cells_.data() + static_cast<size_t>(node) * resources_.size();
  for (size_t i = 0; i < resources_.size(); ++i) {
    if (row[i].cap == std::numeric_limits<double>::infinity()) continue;
    double now = tracked_[i] == kUntracked ? 0 : predicted.tracked(node, tracked_[i]);
    // percent_of, with the allocatable looked up once per table.
    double share = row[i].allocatable > 0 ? 100.0 * amounts[i] / row[i].allocatable
                   : amounts[i] <= 0      ? 0
                                          : 1e9;
    if (now + share > row[i].cap) return &resources_[i];
  }
  return nullptr;
}

TargetSearch find_target(const PlanContext& ctx, PodId pod, std::span<const NodeId> candidates,
                         const PredictedUsage& predicted, const TargetCaps& caps,
                         const PodAmounts& load, TargetOrder order,
                         const std::string& no_candidates) {
  TargetSearch out;
  if (candidates.empty()) {
    out.why_not = "no target: " + no_candidates;
    return out;
  }
  std::vector<NodeId> within;
  std::vector<std::pair<NodeId, const std::string*>> over;  // reasons are built only when needed
  within.reserve(candidates.size());
  std::vector<double> amounts = caps.amounts(load);
  for (NodeId node : candidates) {
    if (const std::string* resource = caps.exceeded(node, amounts, predicted)) {
      over.emplace_back(node, resource);
    } else {
      within.push_back(node);
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
    summary.add(*entry.second + " would exceed targetThresholds", entry.first);
  }
  for (NodeId node : within) summary.add(placer.fits(pod, node, ctx.ledger()), node);
  out.why_not = summary.text(ctx.snapshot());
  return out;
}

}  // namespace loadshift::strategies

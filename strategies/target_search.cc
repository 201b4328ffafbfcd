#include "strategies/target_search.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

namespace loadshift::strategies {
namespace {

constexpr size_t kGroupsShown = 3;
constexpr size_t kNodesShown = 3;

// Why a candidate was refused; the texts are built only for the reason shown.
struct Refusal {
  enum Kind { kRule, kOverutilized, kUnknown, kOverCap, kPlacement } kind;
  NodeId node;
  const std::string* resource = nullptr;  // kOverCap: the first resource over its cap
};

// RefusalText::kGrouped: grouped by the short form of the reason, the most common first.
std::string grouped_text(const model::Snapshot& snapshot,
                         const std::map<std::string, std::vector<NodeId>>& groups) {
  std::vector<const std::pair<const std::string, std::vector<NodeId>>*> order;
  for (const auto& group : groups) order.push_back(&group);
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

// `text` up to its first ": " (the detail after it differs per node).
std::string short_form(std::string text) {
  if (size_t colon = text.find(": "); colon != std::string::npos) text.resize(colon);
  return text;
}

// The whole reason a candidate was refused.
std::string full_reason(const PlanContext& ctx, PodId pod, const TargetQuery& query,
                        std::span<const double> amounts, const Refusal& r) {
  switch (r.kind) {
    case Refusal::kRule:
      return query.rule->why(r.node);
    case Refusal::kOverutilized: {
      const std::string& why = ctx.node_state(r.node).why;
      return "overutilized" + (why.empty() ? std::string() : ": " + why);
    }
    case Refusal::kUnknown: {
      auto it = ctx.usage().unknown.find(ctx.snapshot().nodes[r.node].meta.name);
      return "usage unknown: " +
             (it == ctx.usage().unknown.end() ? std::string("no usage data") : it->second);
    }
    case Refusal::kOverCap:
      return query.caps->excess_text(r.node, amounts, *query.usage);
    case Refusal::kPlacement:
      return ctx.placer().fits(pod, r.node, ctx.ledger()).describe();
  }
  return "";
}

// The short form the grouped text counts nodes under.
std::string group_of(const PlanContext& ctx, PodId pod, const TargetQuery& query,
                     const Refusal& r) {
  switch (r.kind) {
    case Refusal::kRule:
      return short_form(query.rule->why(r.node));
    case Refusal::kOverutilized:
      return "overutilized";
    case Refusal::kUnknown:
      return "usage unknown";
    case Refusal::kOverCap:
      return *r.resource + " would exceed targetThresholds";
    case Refusal::kPlacement: {
      placement::Verdict verdict = ctx.placer().fits(pod, r.node, ctx.ledger());
      return verdict.failures.empty() ? "no reason given"
                                      : short_form(verdict.failures.front().reason);
    }
  }
  return "";
}

std::string refusal_text(const PlanContext& ctx, PodId pod, const TargetQuery& query,
                         std::span<const double> amounts, const std::vector<Refusal>& refused) {
  const model::Snapshot& snapshot = ctx.snapshot();
  if (refused.empty()) {  // every candidate was the pod's own node
    return query.text == RefusalText::kGrouped ? "no target: no candidate but the pod's own node"
                                               : "no candidate node but the pod's own";
  }
  if (query.text == RefusalText::kGrouped) {
    std::map<std::string, std::vector<NodeId>> groups;
    for (const Refusal& r : refused) groups[group_of(ctx, pod, query, r)].push_back(r.node);
    return grouped_text(snapshot, groups);
  }
  std::string text = "refused ";
  for (size_t i = 0; i < refused.size() && i < kNodesShown; ++i) {
    if (i > 0) text += ", ";
    text += snapshot.nodes[refused[i].node].meta.name + " (" +
            full_reason(ctx, pod, query, amounts, refused[i]) + ")";
  }
  if (refused.size() > kNodesShown) {
    text += ", and " + std::to_string(refused.size() - kNodesShown) + " more";
  }
  return text;
}

}  // namespace

TargetCaps::TargetCaps(const model::Snapshot& snapshot, const std::vector<Percentages>& high,
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

double TargetCaps::now(NodeId node, size_t column, const PredictedUsage& predicted) const {
  if (tracked_[column] == kUntracked) return 0;
  // Load planned away counts as gone only as far as it surely leaves.
  return predicted.tracked(node, tracked_[column]) + predicted.uncertain(node, tracked_[column]);
}

double TargetCaps::share(const Cell& cell, double amount) {
  // percent_of, with the allocatable looked up once per table.
  return cell.allocatable > 0 ? 100.0 * amount / cell.allocatable : amount <= 0 ? 0 : 1e9;
}

const std::string* TargetCaps::exceeded(NodeId node, std::span<const double> amounts,
                                        const PredictedUsage& predicted) const {
  const Cell* row = cells_.data() + static_cast<size_t>(node) * resources_.size();
  for (size_t i = 0; i < resources_.size(); ++i) {
    if (row[i].cap == std::numeric_limits<double>::infinity()) continue;
    if (now(node, i, predicted) + share(row[i], amounts[i]) > row[i].cap) return &resources_[i];
  }
  return nullptr;
}

std::string TargetCaps::excess_text(NodeId node, std::span<const double> amounts,
                                    const PredictedUsage& predicted) const {
  const Cell* row = cells_.data() + static_cast<size_t>(node) * resources_.size();
  std::string hot, missing;
  for (size_t i = 0; i < resources_.size(); ++i) {
    if (row[i].cap == std::numeric_limits<double>::infinity()) continue;
    const double before = now(node, i, predicted);
    const double added = share(row[i], amounts[i]);
    if (before + added <= row[i].cap) continue;
    if (row[i].allocatable <= 0) {
      missing += (missing.empty() ? "" : ", ") + resources_[i];
      continue;
    }
    // The predicted usage, then what was planned away but may not really leave (counted here).
    const double unsure = tracked_[i] == kUntracked ? 0 : predicted.uncertain(node, tracked_[i]);
    std::string usage = percent_text(before - unsure);
    if (unsure >= 0.05) usage += " (+" + percent_text(unsure) + " planned away, not surely gone)";
    hot += (hot.empty() ? "" : ", ") + resources_[i] + " " + usage + " + " + percent_text(added) +
           " > " + setting_text(row[i].cap);
  }
  if (!missing.empty()) {
    return "usage unknown: node has no allocatable " + missing + " to relate the pod's load to";
  }
  return "too hot: " + hot;
}

TargetSearch find_target(const PlanContext& ctx, PodId pod, const TargetQuery& query) {
  TargetSearch out;
  if (query.candidates.empty()) {
    out.why_not = query.text == RefusalText::kGrouped ? "no target: " + query.no_candidates
                                                      : query.no_candidates;
    return out;
  }
  const placement::Placer& placer = ctx.placer();
  const placement::Ledger& ledger = ctx.ledger();
  const PredictedUsage& usage = *query.usage;
  const NodeId current = ctx.index().node_of(pod);
  const std::vector<double> amounts = query.caps->amounts(*query.load);
  // Why `node` is refused, or nullopt when it passes every check but the placement core's.
  auto refusal = [&](NodeId node) -> std::optional<Refusal> {
    if (query.rule != nullptr && query.rule->refuses(node)) return Refusal{Refusal::kRule, node};
    if (ctx.node_state(node).node_class == NodeClass::kOverutilized) {
      return Refusal{Refusal::kOverutilized, node};
    }
    if (!usage.known(node)) {
      if (query.refuse_unknown) return Refusal{Refusal::kUnknown, node};
    } else if (const std::string* resource = query.caps->exceeded(node, amounts, usage)) {
      return Refusal{Refusal::kOverCap, node, resource};
    }
    if (!placer.feasible(pod, node, ledger)) return Refusal{Refusal::kPlacement, node};
    return std::nullopt;
  };
  // The search counts refusals; their records (and the texts) are made in a second pass over
  // the same candidates, only when nothing passed: the checks are pure, so it refuses the same.
  std::optional<NodeId> best;
  placement::TargetScore best_score;
  size_t passed = 0;
  for (NodeId node : query.candidates) {
    if (query.enough > 0 && passed >= query.enough) break;
    if (node == current) continue;  // not a move
    // refusal(node), written out: this loop runs for every candidate of every pod.
    if ((query.rule != nullptr && query.rule->refuses(node)) ||
        ctx.node_state(node).node_class == NodeClass::kOverutilized ||
        (usage.known(node) ? query.caps->exceeded(node, amounts, usage) != nullptr
                           : query.refuse_unknown) ||
        !placer.feasible(pod, node, ledger)) {
      ++out.refused;
      continue;
    }
    ++passed;
    if (query.order == TargetOrder::kFirstFeasible) {
      best = node;
      break;
    }
    // Placer::best_target's choice: the best score, ties to the earlier candidate.
    placement::TargetScore score = placer.score(pod, node, ledger);
    if (!best || placement::better(score, best_score)) {
      best = node;
      best_score = score;
    }
  }
  if (best) {
    out.target = best;
    return out;
  }
  std::vector<Refusal> refused;
  refused.reserve(out.refused);
  for (NodeId node : query.candidates) {
    if (node == current) continue;
    if (std::optional<Refusal> r = refusal(node)) refused.push_back(*r);
  }
  out.why_not = refusal_text(ctx, pod, query, amounts, refused);
  return out;
}

std::string usage_change_text(const PlanContext& ctx, const PredictedUsage& usage, NodeId node,
                              const PodAmounts& load, const std::vector<std::string>& resources) {
  if (node == placement::kNoNode || !usage.known(node)) return "";
  const model::Node& n = ctx.snapshot().nodes[node];
  std::string out;
  for (const std::string& resource : resources) {
    auto it = usage.of(node).find(resource);
    const double before = it == usage.of(node).end() ? 0 : it->second;
    out += (out.empty() ? "" : ", ") + resource + " " + percent_text(before) + " -> " +
           percent_text(before + percent_of(n, resource, load.amount(resource)));
  }
  return out;
}

std::optional<NodeRule> cooldown_rule(const PlanContext& ctx, PodId pod) {
  if (!ctx.cooldown_may_refuse_return(pod)) return std::nullopt;
  return NodeRule{
      [&ctx, pod](NodeId node) { return ctx.cooldown_return_reason(pod, node).has_value(); },
      [&ctx, pod](NodeId node) { return ctx.cooldown_return_reason(pod, node).value_or(""); }};
}

}  // namespace loadshift::strategies

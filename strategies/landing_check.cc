#include "strategies/landing_check.h"

#include <algorithm>

#include "strategies/watermarks.h"

namespace loadshift::strategies {
namespace {

const placement::NodeScore* detail_of(const placement::Landing& landing, NodeId node) {
  for (const placement::NodeScore& s : landing.detail) {
    if (s.node == node) return &s;
  }
  return nullptr;
}

// " (scheduler score te3 287 (...) vs te8 251 (...))" or, when the target is not feasible for
// the scheduler model, with the best alone.
std::string scores_text(const placement::SchedulerModel& scheduler,
                        const placement::Landing& landing, NodeId chosen, NodeId target) {
  std::string out = "scheduler score " + scheduler.describe(*detail_of(landing, chosen));
  if (const placement::NodeScore* t = detail_of(landing, target);
      t != nullptr && target != chosen) {
    out += " vs " + scheduler.describe(*t);
  }
  if (landing.best.size() > 1) {
    out += "; " + std::to_string(landing.best.size()) + " nodes tie at the top";
  }
  if (landing.volcano) out += "; scored as Volcano";
  return out;
}

}  // namespace

bool landing_predicted(PlanContext& ctx, PodId pod) {
  if (!ctx.options().predict_landing) return false;
  const placement::SchedulerModel& scheduler = ctx.scheduler_model();
  return scheduler.recreated(pod) || scheduler.recreated_in_place(pod);
}

LandingVerdict check_landing(PlanContext& ctx, PodId pod, NodeId source, NodeId witness,
                             const PredictedUsage& predicted, const TargetCaps& caps,
                             const std::vector<bool>& classified, const std::vector<bool>& targets,
                             const PodAmounts& load) {
  LandingVerdict out;
  const placement::SchedulerModel& scheduler = ctx.scheduler_model();
  const model::Snapshot& snapshot = ctx.snapshot();
  auto name = [&](NodeId node) { return snapshot.nodes[node].meta.name; };
  if (scheduler.recreated_in_place(pod)) {
    const model::OwnerReference* owner = snapshot.pods[pod].controller();
    out.problem = "replacement would land back on " + name(source) + ": a " + owner->kind +
                  " recreates its pod on the same node";
    return out;
  }
  if (!scheduler.recreated(pod)) return out;  // nothing comes back: nothing can bounce
  placement::Landing landing = scheduler.predict(pod, ctx.all_nodes(), ctx.ledger(), witness);
  if (landing.best.empty()) {
    out.problem =
        "replacement would not be scheduled: no node admits a new copy of the pod "
        "(the scheduler model; the placement core accepted " +
        name(witness) + ")";
    return out;
  }
  std::vector<double> amounts = caps.amounts(load);
  const bool may_return = ctx.cooldown_may_refuse_return(pod);
  // Each node the scheduler may pick, equally likely: acceptable, or why not.
  std::vector<NodeId> acceptable;
  std::vector<std::pair<NodeId, std::string>> refused;
  for (NodeId node : landing.best) {
    std::string why;
    if (node == source) {
      why = "replacement would land back on " + name(node);
    } else if (ctx.node_state(node).node_class == NodeClass::kOverutilized) {
      why = "replacement would land on hot " + name(node) + " (overutilized)";
    } else if (!predicted.known(node)) {
      why = "replacement would land on " + name(node) + ", whose usage is unknown";
    } else if (!classified[node]) {
      std::string state = ctx.node_state(node).why;
      for (const char* prefix : {"unclassified: ", "unknown: "}) {
        if (state.starts_with(prefix)) state.erase(0, std::string_view(prefix).size());
      }
      why = "replacement would land on " + name(node) + ", which LoadAware did not classify (" +
            (state.empty() ? std::string("out of scope") : state) + ")";
    } else if (const std::string* resource = caps.exceeded(node, amounts, predicted)) {
      why = "replacement would land on " + name(node) + " and push its " + *resource +
            " over targetThresholds";
    } else if (std::optional<std::string> back =
                   may_return ? ctx.cooldown_return_reason(pod, node) : std::nullopt) {
      why = "replacement would land on " + name(node) + ", which its workload left (" + *back + ")";
    }
    if (why.empty()) {
      acceptable.push_back(node);
    } else {
      refused.emplace_back(node, std::move(why));
    }
  }
  const size_t n = landing.best.size();
  const double chance = 100.0 * static_cast<double>(acceptable.size()) / static_cast<double>(n);
  if (acceptable.empty() || chance < ctx.options().min_landing_chance) {
    out.back_on_source = std::any_of(refused.begin(), refused.end(),
                                     [source](const auto& r) { return r.first == source; });
    const auto& [node, why] = refused.front();
    out.problem = why + ": " + scores_text(scheduler, landing, node, witness);
    if (n > 1) {
      out.problem += "; " + std::to_string(acceptable.size()) + " of " + std::to_string(n) +
                     " acceptable, a move needs " + percent_text(ctx.options().min_landing_chance);
    }
    return out;
  }
  // All of them are equally likely: the plan counts the replacement on one of the plugin's own
  // targets when there is one, and among those on the one the placement core prefers, as it
  // chooses a target.
  const placement::Placer& placer = ctx.placer();
  auto preferred = [&targets](NodeId node) { return targets[node]; };
  const bool any_target = std::any_of(acceptable.begin(), acceptable.end(), preferred);
  placement::TargetScore best_score;
  out.landing = placement::kNoNode;
  for (NodeId node : acceptable) {
    if (any_target && !preferred(node)) continue;
    placement::TargetScore score = placer.score(pod, node, ctx.ledger());
    if (out.landing == placement::kNoNode || placement::better(score, best_score)) {
      out.landing = node;
      best_score = score;
    }
  }
  if (n > 1) {
    std::string names;
    for (size_t i = 0; i < acceptable.size() && i < 4; ++i) {
      names += (i == 0 ? "" : i + 1 == acceptable.size() ? " or " : ", ") + name(acceptable[i]);
    }
    if (acceptable.size() > 4) names += " or " + std::to_string(acceptable.size() - 4) + " more";
    out.note = "; lands on " + names + " (" + std::to_string(acceptable.size()) + " of " +
               std::to_string(n) + " top nodes";
    for (size_t i = 0; i < refused.size() && i < 4; ++i) {
      const NodeId node = refused[i].first;
      out.note += std::string("; 1 in ") + std::to_string(n) +
                  (node == source ? " back on " + name(node) : " on " + name(node));
    }
    if (refused.size() > 4) {
      out.note += "; " + std::to_string(refused.size() - 4) + " in " + std::to_string(n) +
                  " on other nodes";
    }
    out.note += ")";
  }
  return out;
}

}  // namespace loadshift::strategies

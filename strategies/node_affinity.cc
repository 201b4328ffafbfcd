// RemovePodsViolatingNodeAffinity (kubernetes-sigs descheduler), with loadshift's targets.
//
// requiredDuringSchedulingIgnoredDuringExecution: a pod that has required node affinity terms and
// whose node no longer satisfies its nodeSelector or required affinity is evicted when some other
// node fits it. As upstream, a pod without required affinity terms is left alone even when only
// its nodeSelector is violated, and a node that fits is needed whatever DefaultEvictor's nodeFit
// says (upstream checks PodFitsAnyNode unconditionally here).
//
// preferredDuringSchedulingIgnoredDuringExecution — "return home": a pod whose current node scores
// S on its preferred node-affinity terms is evicted only to a target that scores strictly more
// than S, fits with the Ledger and is not hot (deschedule_targets.h). Upstream compares S with the
// best score of any node and separately asks whether any node fits (issue #1707: pods loop when
// the best node is full); loadshift asks both of the same node, so a pod on its best-scored node
// never moves and a pod only ever moves up.
//
// Types run in the order the args list them; a pod evicted by one is not looked at again. Pods
// whose node does not violate anything are not recorded; violating pods that stay are skipped
// with a reason.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "placement/predicates.h"
#include "strategies/deschedule_targets.h"
#include "strategies/plugins.h"
#include "strategies/watermarks.h"

namespace loadshift::strategies {
namespace {

const std::string kStrategy = "RemovePodsViolatingNodeAffinity";
constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";

std::string with_usage(const TargetFound& target, const PlanContext& ctx, std::string detail) {
  std::string text = " -> " + ctx.snapshot().nodes[*target.node].meta.name;
  if (!target.usage_after.empty()) {
    detail += detail.empty() ? target.usage_after : "; " + target.usage_after;
  }
  if (!detail.empty()) text += " (" + detail + ")";
  return text;
}

// ---- required ----------------------------------------------------------------------------

void run_required(const policy::NodeAffinityArgs& args, const ProfileScope& scope, PlanContext& ctx,
                  const DescheduleTargets& targets) {
  const model::Snapshot& snapshot = ctx.snapshot();
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    const model::Node& n = snapshot.nodes[node];
    for (PodId pod : ctx.index().pods_on(node)) {
      const model::Pod& p = snapshot.pods[pod];
      if (!p.node_affinity->required || p.node_affinity->required->empty()) continue;
      if (ctx.planned(pod) || !args_select_pod(p, args.namespaces, args.label_selector)) continue;
      placement::Reasons violated;
      placement::check_node_selector(p, n, &violated);
      placement::check_node_affinity(p, n, &violated);
      if (violated.empty()) continue;
      std::vector<std::string> texts;
      for (const placement::Rejection& r : violated) texts.push_back(r.reason);
      const std::string violation = node_with_pool(ctx, node) + " " + join(texts, "; ");
      if (!admit_for_eviction(ctx, scope, pod, kStrategy)) continue;
      TargetFound target = targets.best(pod, targets.candidates());
      if (!target.node) {
        ctx.skip(pod, kStrategy, SkipCode::kNoTarget,
                 "no node fits: " + violation + "; " + target.why_not);
        continue;
      }
      std::string reason = violation + with_usage(target, ctx, "");
      ctx.evict(pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
    }
  }
}

// ---- preferred ---------------------------------------------------------------------------

// A pod's preferred terms as a key: pods of one workload share their scores per node.
std::string preference_key(const model::Pod& pod) {
  std::string key;
  auto add_requirements = [&key](const std::vector<model::NodeSelectorRequirement>& rs) {
    for (const model::NodeSelectorRequirement& r : rs) {
      key += r.key;
      key += '\x1f';
      key += static_cast<char>('0' + static_cast<int>(r.op));
      for (const std::string& v : r.values) {
        key += v;
        key += '\x1f';
      }
      key += '\x1e';
    }
  };
  for (const model::PreferredSchedulingTerm& term : pod.node_affinity->preferred) {
    key += std::to_string(term.weight);
    key += '\x1d';
    add_requirements(term.preference.match_expressions);
    key += '\x1c';
    add_requirements(term.preference.match_fields);
    key += '\x1b';
  }
  return key;
}

// What one set of preferred terms scores on the nodes.
struct PreferenceScores {
  int64_t best_in_scope = 0;           // the highest score of any in-scope node
  std::vector<NodeId> ranked;          // candidates, highest score first (then snapshot order)
  std::vector<int64_t> ranked_scores;  // their scores
};

PreferenceScores score_nodes(const model::Pod& pod, const PlanContext& ctx,
                             const DescheduleTargets& targets) {
  const model::Snapshot& snapshot = ctx.snapshot();
  PreferenceScores scores;
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    scores.best_in_scope = std::max(scores.best_in_scope,
                                    placement::preferred_affinity_score(pod, snapshot.nodes[node]));
  }
  std::vector<std::pair<int64_t, NodeId>> ranked;
  for (NodeId node : targets.candidates()) {
    ranked.emplace_back(placement::preferred_affinity_score(pod, snapshot.nodes[node]), node);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [score, node] : ranked) {
    scores.ranked.push_back(node);
    scores.ranked_scores.push_back(score);
  }
  return scores;
}

// "on te7 (hybrid) but prefers pool inference (weight 100)" when the pod's heaviest pool
// preference does not name the node's pool, else "on te7 (preferred-affinity score 0)".
std::string preference_text(const PlanContext& ctx, const model::Pod& pod, NodeId node,
                            int64_t score) {
  const std::string& pool_key = ctx.index().options().pool_label;
  const model::PreferredSchedulingTerm* best = nullptr;
  const model::NodeSelectorRequirement* pools = nullptr;
  for (const model::PreferredSchedulingTerm& term : pod.node_affinity->preferred) {
    if (best != nullptr && term.weight <= best->weight) continue;
    for (const model::NodeSelectorRequirement& r : term.preference.match_expressions) {
      if (r.key == pool_key && r.op == model::SelectorOperator::kIn && !r.values.empty()) {
        best = &term;
        pools = &r;
        break;
      }
    }
  }
  const std::string* node_pool = ctx.snapshot().nodes[node].meta.labels.find(pool_key);
  if (pools != nullptr &&
      (node_pool == nullptr ||
       std::find(pools->values.begin(), pools->values.end(), *node_pool) == pools->values.end())) {
    return "on " + node_with_pool(ctx, node) + " but prefers pool" +
           (pools->values.size() > 1 ? "s " : " ") + join(pools->values, ", ") + " (weight " +
           std::to_string(best->weight) + ")";
  }
  return "on " + node_with_pool(ctx, node) + " (preferred-affinity score " + std::to_string(score) +
         ")";
}

void run_preferred(const policy::NodeAffinityArgs& args, const ProfileScope& scope,
                   PlanContext& ctx, const DescheduleTargets& targets) {
  const model::Snapshot& snapshot = ctx.snapshot();
  // Scores per distinct set of preferred terms; bounded, since pods with unique terms (say, a
  // hostname each) would otherwise keep a row per pod.
  constexpr size_t kMaxRows = 512;
  std::unordered_map<std::string, PreferenceScores> rows;
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    const model::Node& n = snapshot.nodes[node];
    for (PodId pod : ctx.index().pods_on(node)) {
      const model::Pod& p = snapshot.pods[pod];
      if (p.node_affinity->preferred.empty()) continue;
      if (ctx.planned(pod) || !args_select_pod(p, args.namespaces, args.label_selector)) continue;
      std::string key = preference_key(p);
      auto row = rows.find(key);
      if (row == rows.end()) {
        if (rows.size() >= kMaxRows) rows.clear();
        row = rows.emplace(std::move(key), score_nodes(p, ctx, targets)).first;
      }
      const PreferenceScores& scores = row->second;
      const int64_t here = placement::preferred_affinity_score(p, n);
      if (scores.best_in_scope <= here) continue;  // already on a best-scored node
      const std::string preference = preference_text(ctx, p, node, here);
      if (!admit_for_eviction(ctx, scope, pod, kStrategy)) continue;
      // The candidates scoring more than here, highest score first: the placement core's order
      // leads with the preferred score, so the best of them sits in the highest score level
      // that has a target.
      size_t better = 0;
      while (better < scores.ranked.size() && scores.ranked_scores[better] > here) ++better;
      TargetFound target =
          targets.best(pod, std::span<const NodeId>(scores.ranked.data(), better));
      if (!target.node) {
        std::string detail = target.refused == 0
                                 ? "no in-scope node that nodeFit may target scores more than " +
                                       std::to_string(here)
                                 : target.why_not;
        ctx.skip(pod, kStrategy, SkipCode::kNoTarget,
                 "no better node fits: " + preference + "; " + detail);
        continue;
      }
      const int64_t target_score = placement::preferred_affinity_score(p, snapshot.nodes[*target.node]);
      std::string reason =
          preference + ":" +
          with_usage(target, ctx,
                     "score " + std::to_string(target_score) + " > " + std::to_string(here));
      ctx.evict(pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
    }
  }
}

}  // namespace

void run_node_affinity(const policy::NodeAffinityArgs& args, const ProfileScope& scope,
                       PlanContext& ctx) {
  if (scope.filter == nullptr) {
    ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                               " has no evictability filter; nothing planned for it");
    return;
  }
  DescheduleTargets targets(ctx, scope);
  for (const std::string& type : args.node_affinity_type) {
    if (type == kRequired) {
      run_required(args, scope, ctx, targets);
    } else if (type == kPreferred) {
      run_preferred(args, scope, ctx, targets);
    } else {
      ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                                 ": unknown nodeAffinityType \"" + type + "\"; expected " +
                                 std::string(kRequired) + " or " + std::string(kPreferred) +
                                 "; ignored");
    }
  }
}

}  // namespace loadshift::strategies

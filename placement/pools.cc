#include "placement/pools.h"

#include <algorithm>

#include "placement/predicates.h"

namespace loadshift::placement {
namespace {

bool term_allows_pool(const model::NodeSelectorTerm& term, std::string_view pool_key,
                      const std::string& pool) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const model::NodeSelectorRequirement& r : term.match_expressions) {
    if (r.key == pool_key && !requirement_matches_value(r, &pool)) return false;
  }
  return true;
}

bool tolerates_pool_taint(const model::Pod& pod, std::string_view pool_key, std::string_view pool) {
  model::Taint taint{std::string(pool_key), std::string(pool), model::TaintEffect::kNoSchedule};
  return std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                     [&](const model::Toleration& t) { return tolerates(t, taint); });
}

std::string join(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ", ") + v;
  return out;
}

}  // namespace

bool affinity_allows_pool(const model::Pod& pod, std::string_view pool_key,
                          const std::string& pool) {
  if (!pod.node_affinity->required) return true;
  const auto& terms = *pod.node_affinity->required;
  return std::any_of(terms.begin(), terms.end(), [&](const model::NodeSelectorTerm& term) {
    return term_allows_pool(term, pool_key, pool);
  });
}

PodPools pod_pools(const model::Pod& pod, std::string_view pool_key,
                   std::span<const std::string> known_pools) {
  PodPools pools;
  for (const std::string& pool : known_pools) {
    if (affinity_allows_pool(pod, pool_key, pool) && tolerates_pool_taint(pod, pool_key, pool)) {
      pools.allowed.push_back(pool);
    }
  }
  int32_t best_weight = 0;
  for (const model::PreferredSchedulingTerm& term : pod.node_affinity->preferred) {
    if (term.weight <= best_weight) continue;
    for (const model::NodeSelectorRequirement& r : term.preference.match_expressions) {
      if (r.key == pool_key && r.op == model::SelectorOperator::kIn && !r.values.empty()) {
        best_weight = term.weight;
        pools.preferred = r.values;
        break;
      }
    }
  }
  return pools;
}

bool check_usage_pool(const model::Pod& pod, const model::Node& node, std::string_view pool_key,
                      std::span<const std::string> known_pools, Reasons* out) {
  const std::string* pool = node.meta.labels.find(pool_key);
  if (pool == nullptr) return true;
  bool allowed = affinity_allows_pool(pod, pool_key, *pool);
  for (const model::Taint& taint : node.taints) {
    if (!allowed) break;
    if (taint.key != pool_key || taint.effect == model::TaintEffect::kPreferNoSchedule) continue;
    allowed = std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                          [&](const model::Toleration& t) { return tolerates(t, taint); });
  }
  if (allowed) return true;
  if (out != nullptr) {
    std::vector<std::string> pod_allowed = pod_pools(pod, pool_key, known_pools).allowed;
    std::string reason = "node is in usage pool " + *pool + "; the pod may not run there";
    if (!pod_allowed.empty()) reason += " (its pools: " + join(pod_allowed) + ")";
    out->push_back(Rejection{Rule::kUsagePool, std::move(reason)});
  }
  return false;
}

}  // namespace loadshift::placement

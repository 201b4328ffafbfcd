#include "strategies/deschedule_targets.h"

#include <algorithm>

#include "placement/predicates.h"
#include "strategies/watermarks.h"

namespace loadshift::strategies {
namespace {

double watermark(const NodeState& state, const char* resource) {
  auto it = state.target_thresholds.find(resource);
  return it == state.target_thresholds.end() ? 100.0 : it->second;
}

bool listed(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool args_select_pod(const model::Pod& pod, const policy::Namespaces& namespaces,
                     const std::optional<model::LabelSelector>& label_selector) {
  if (!namespaces.include.empty() && !listed(namespaces.include, pod.meta.namespace_)) return false;
  if (listed(namespaces.exclude, pod.meta.namespace_)) return false;
  return !label_selector || model::matches(*label_selector, pod.meta.labels);
}

std::string selector_text(const std::optional<model::LabelSelector>& selector) {
  if (!selector) return "null (no pod)";
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ",") + part; };
  for (const auto& [key, value] : selector->match_labels.items()) add(key + "=" + value);
  for (const model::LabelSelectorRequirement& r : selector->match_expressions) {
    if (r.op == "Exists") {
      add(r.key);
    } else if (r.op == "DoesNotExist") {
      add("!" + r.key);
    } else {
      std::string values;
      for (const std::string& v : r.values) values += (values.empty() ? "" : ",") + v;
      add(r.key +
          (r.op == "In"      ? " in ("
           : r.op == "NotIn" ? " notin ("
                             : " " + r.op + " (") +
          values + ")");
    }
  }
  return text.empty() ? "{} (every pod)" : text;
}

bool admit_for_eviction(PlanContext& ctx, const ProfileScope& scope, PodId pod,
                        const std::string& strategy) {
  if (std::optional<std::string> why = scope.filter->reject_reason(pod, WorkloadSwitches{})) {
    ctx.skip(pod, strategy, SkipCode::kNotEvictable, std::move(*why));
    return false;
  }
  if (std::optional<Skip> why = ctx.limit_reason(pod, nullptr)) {
    ctx.skip(pod, strategy, std::move(*why));
    return false;
  }
  return true;
}

std::string node_with_pool(const PlanContext& ctx, NodeId node) {
  const model::Node& n = ctx.snapshot().nodes[node];
  const std::string* pool = n.meta.labels.find(ctx.index().options().pool_label);
  return pool ? n.meta.name + " (" + *pool + ")" : n.meta.name;
}

DescheduleTargets::DescheduleTargets(PlanContext& ctx, const ProfileScope& scope)
    : ctx_(ctx), usage_(ctx.predicted(UsageBasis::kMeasured, {"cpu", "memory"})) {
  const metrics::UsageMap& usage = ctx.usage();
  // Nodes known only by their MetricResource carry no cpu or memory: like no usage source at all.
  usage_known_somewhere_ =
      std::any_of(usage.nodes.begin(), usage.nodes.end(),
                  [](const auto& entry) { return entry.second.cpu_memory_measured; }) ||
      (usage.nodes.empty() && !usage.unknown.empty());
  const size_t count = ctx.snapshot().nodes.size();
  std::vector<Percentages> watermarks(count);
  for (NodeId node = 0; node < count; ++node) {
    const NodeState& state = ctx.node_state(node);
    watermarks[node] = {{"cpu", watermark(state, "cpu")}, {"memory", watermark(state, "memory")}};
    if (!ctx.in_scope(node)) continue;
    if (!scope.node_selector.empty() && !ctx.matches_selector(node, scope.node_selector)) continue;
    candidates_.push_back(node);
  }
  caps_ = TargetCaps(ctx.snapshot(), watermarks, usage_);
}

TargetFound DescheduleTargets::best(PodId pod, std::span<const NodeId> nodes,
                                    const NodeRule* rule) const {
  const PodAmounts load = estimated_load(ctx_, pod);
  TargetQuery query;
  query.candidates = nodes;
  query.usage = &usage_;
  query.caps = &caps_;
  query.load = &load;
  query.rule = rule;
  query.refuse_unknown = usage_known_somewhere_;
  query.enough = kFeasibleEnough;
  query.text = RefusalText::kFirstNodes;
  TargetSearch search = find_target(ctx_, pod, query);
  TargetFound out;
  out.node = search.target;
  out.refused = search.refused;
  if (search.target) {
    out.usage_after = usage_change_text(ctx_, usage_, *search.target, load, {"cpu", "memory"});
  } else {
    out.why_not = std::move(search.why_not);
  }
  return out;
}

}  // namespace loadshift::strategies

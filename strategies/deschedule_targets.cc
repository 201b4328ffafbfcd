#include "strategies/deschedule_targets.h"

#include <algorithm>

#include "placement/predicates.h"
#include "strategies/predicted_usage.h"
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

bool args_select_pod(const placement::Pod& pod, const policy::Namespaces& namespaces,
                     const std::optional<placement::LabelSelector>& label_selector) {
  if (!namespaces.include.empty() && !listed(namespaces.include, pod.meta.namespace_)) return false;
  if (listed(namespaces.exclude, pod.meta.namespace_)) return false;
  return !label_selector || placement::matches(*label_selector, pod.meta.labels);
}

std::string selector_text(const std::optional<placement::LabelSelector>& selector) {
  if (!selector) return "null (no pod)";
  std::string text;
  auto add = [&text](const std::string& part) { text += (text.empty() ? "" : ",") + part; };
  for (const auto& [key, value] : selector->match_labels.items()) add(key + "=" + value);
  for (const placement::LabelSelectorRequirement& r : selector->match_expressions) {
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

std::string RefusedNodes::describe() const {
  if (count_ == 0) return "no candidate node";
  std::string text = "refused ";
  for (size_t i = 0; i < kept_.size(); ++i) {
    if (i > 0) text += ", ";
    text += kept_[i];
  }
  if (count_ > kept_.size()) text += ", and " + std::to_string(count_ - kept_.size()) + " more";
  return text;
}

bool admit_for_eviction(PlanContext& ctx, const ProfileScope& scope, PodId pod,
                        const std::string& strategy) {
  if (std::optional<std::string> why = scope.filter->reject_reason(pod, WorkloadSwitches{})) {
    ctx.skip(pod, strategy, std::move(*why));
    return false;
  }
  if (std::optional<std::string> why = ctx.limit_reason(pod, nullptr)) {
    ctx.skip(pod, strategy, std::move(*why));
    return false;
  }
  return true;
}

std::string node_with_pool(const PlanContext& ctx, NodeId node) {
  const placement::Node& n = ctx.snapshot().nodes[node];
  const std::string* pool = n.meta.labels.find(ctx.index().options().pool_label);
  return pool ? n.meta.name + " (" + *pool + ")" : n.meta.name;
}

DescheduleTargets::DescheduleTargets(PlanContext& ctx, const ProfileScope& scope)
    : ctx_(ctx), facts_(ctx.snapshot().nodes.size()), planned_(ctx.snapshot().nodes.size()) {
  const metrics::UsageMap& usage = ctx.usage();
  // Nodes known only by their MetricResource carry no cpu or memory: like no usage source at all.
  usage_known_somewhere_ =
      std::any_of(usage.nodes.begin(), usage.nodes.end(),
                  [](const auto& entry) { return entry.second.cpu_memory_measured; }) ||
      (usage.nodes.empty() && !usage.unknown.empty());
  const size_t count = ctx.snapshot().nodes.size();
  for (NodeId node = 0; node < count; ++node) {
    const placement::Node& n = ctx.snapshot().nodes[node];
    NodeFacts& facts = facts_[node];
    facts.usage = ctx.node_usage(node);
    facts.cpu_base = allocatable_of(n, placement::kCpu);
    facts.memory_base = allocatable_of(n, placement::kMemory);
    facts.cpu_limit = watermark(ctx.node_state(node), "cpu");
    facts.memory_limit = watermark(ctx.node_state(node), "memory");
    if (!ctx.in_scope(node)) continue;
    if (!scope.node_selector.empty() && !ctx.matches_selector(node, scope.node_selector)) continue;
    candidates_.push_back(node);
  }
}

const PodLoad& DescheduleTargets::planned_load(NodeId node) const {
  PlannedLoad& planned = planned_[node];
  const std::vector<PodId>& incoming = ctx_.ledger().incoming(node);
  if (incoming.size() < planned.counted) planned = PlannedLoad{};  // a move was replaced
  for (; planned.counted < incoming.size(); ++planned.counted) {
    PodLoad load = ctx_.pod_load(incoming[planned.counted]);
    planned.load.cpu_milli += load.cpu_milli;
    planned.load.memory_bytes += load.memory_bytes;
  }
  return planned.load;
}

DescheduleTargets::UsageCheck DescheduleTargets::check_usage(const PodLoad& load,
                                                             NodeId node) const {
  UsageCheck check;
  if (ctx_.node_state(node).node_class == NodeClass::kOverutilized) {
    check.status = UsageCheck::kOverutilized;
    return check;
  }
  const NodeFacts& facts = facts_[node];
  if (facts.usage == nullptr) {
    check.status = usage_known_somewhere_ ? UsageCheck::kUnknown : UsageCheck::kNoData;
    return check;
  }
  if (facts.cpu_base <= 0 || facts.memory_base <= 0) {
    check.status = UsageCheck::kNoCapacity;
    return check;
  }
  const PodLoad& planned = planned_load(node);
  check.cpu_now = facts.usage->cpu.percent + 100.0 * planned.cpu_milli / facts.cpu_base;
  check.memory_now = facts.usage->memory.percent + 100.0 * planned.memory_bytes / facts.memory_base;
  check.cpu_pod = 100.0 * load.cpu_milli / facts.cpu_base;
  check.memory_pod = 100.0 * load.memory_bytes / facts.memory_base;
  check.cpu_limit = facts.cpu_limit;
  check.memory_limit = facts.memory_limit;
  check.status = check.cpu_now + check.cpu_pod > check.cpu_limit ||
                         check.memory_now + check.memory_pod > check.memory_limit
                     ? UsageCheck::kHot
                     : UsageCheck::kOk;
  return check;
}

std::string DescheduleTargets::describe_refusal(const UsageCheck& check, NodeId node) const {
  switch (check.status) {
    case UsageCheck::kNoData:
    case UsageCheck::kOk:
      return "";
    case UsageCheck::kOverutilized: {
      const std::string& why = ctx_.node_state(node).why;
      return "overutilized" + (why.empty() ? std::string() : ": " + why);
    }
    case UsageCheck::kUnknown: {
      auto it = ctx_.usage().unknown.find(ctx_.snapshot().nodes[node].meta.name);
      return "usage unknown: " +
             (it == ctx_.usage().unknown.end() ? std::string("no usage data") : it->second);
    }
    case UsageCheck::kNoCapacity:
      return "usage unknown: node has no allocatable cpu or memory to relate the pod's load to";
    case UsageCheck::kHot: {
      std::string hot;
      if (check.cpu_now + check.cpu_pod > check.cpu_limit) {
        hot = "cpu " + percent_text(check.cpu_now) + " + " + percent_text(check.cpu_pod) + " > " +
              setting_text(check.cpu_limit);
      }
      if (check.memory_now + check.memory_pod > check.memory_limit) {
        if (!hot.empty()) hot += ", ";
        hot += "memory " + percent_text(check.memory_now) + " + " + percent_text(check.memory_pod) +
               " > " + setting_text(check.memory_limit);
      }
      return "too hot: " + hot;
    }
  }
  return "";
}

std::string DescheduleTargets::describe_after(const UsageCheck& check) {
  if (check.status != UsageCheck::kOk) return "";
  return "cpu " + percent_text(check.cpu_now) + " -> " +
         percent_text(check.cpu_now + check.cpu_pod) + ", memory " +
         percent_text(check.memory_now) + " -> " +
         percent_text(check.memory_now + check.memory_pod);
}

std::optional<TargetFound> DescheduleTargets::best(PodId pod, std::span<const NodeId> nodes,
                                                   RefusedNodes& refused,
                                                   const NodeRule* rule) const {
  const placement::Placer& placer = ctx_.placer();
  const placement::Ledger& ledger = ctx_.ledger();
  const placement::Snapshot& snapshot = ctx_.snapshot();
  const NodeId current = ctx_.index().node_of(pod);
  const PodLoad load = ctx_.pod_load(pod);
  std::optional<TargetFound> found;
  placement::TargetScore found_score;
  size_t feasible = 0;
  for (NodeId node : nodes) {
    if (feasible >= kFeasibleEnough) break;
    if (node == current) continue;  // not a move
    const std::string& name = snapshot.nodes[node].meta.name;
    if (rule != nullptr && rule->refuses(node)) {
      refused.add(name, [&] { return rule->why(node); });
      continue;
    }
    UsageCheck check = check_usage(load, node);
    if (check.status != UsageCheck::kOk && check.status != UsageCheck::kNoData) {
      refused.add(name, [&] { return describe_refusal(check, node); });
      continue;
    }
    if (!placer.feasible(pod, node, ledger)) {
      refused.add(name, [&] { return placer.fits(pod, node, ledger).describe(); });
      continue;
    }
    ++feasible;
    placement::TargetScore score = placer.score(pod, node, ledger);
    if (!found || placement::better(score, found_score)) {
      found = TargetFound{node, {}};
      found_score = score;
    }
  }
  if (found) found->usage_after = describe_after(check_usage(load, found->node));
  return found;
}

}  // namespace loadshift::strategies

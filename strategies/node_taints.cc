// RemovePodsViolatingNodeTaints (kubernetes-sigs descheduler), with loadshift's targets.
//
// A taint counts when its effect is NoSchedule (or PreferNoSchedule with includePreferNoSchedule),
// it is not in excludedTaints and, when includedTaints is given, it is in includedTaints; both
// lists name a taint by "key" or by "key=value" (the latter only for taints with a value).
// NoExecute taints are the kubelet's business, as upstream. A pod on an in-scope node that does
// not tolerate a counted taint of that node is evicted. The target is the placement core's best
// node that is not hot and has no counted taint the pod does not tolerate (deschedule_targets.h).
// A target must exist whatever DefaultEvictor's nodeFit says, else the pod stays with a reason.
// Upstream evicts without a target when nodeFit is off; loadshift never evicts a pod the
// placement core cannot place (it keeps running where it is; evicted, it would stay Pending).
#include <algorithm>
#include <string>
#include <vector>

#include "placement/predicates.h"
#include "strategies/deschedule_targets.h"
#include "strategies/plugins.h"

namespace loadshift::strategies {
namespace {

const std::string kStrategy = "RemovePodsViolatingNodeTaints";

// "key" or, for a taint with a value, "key=value" in `names`.
bool names_taint(const std::vector<std::string>& names, const model::Taint& taint) {
  for (const std::string& name : names) {
    if (name == taint.key) return true;
    if (!taint.value.empty() && name.size() == taint.key.size() + 1 + taint.value.size() &&
        name.compare(0, taint.key.size(), taint.key) == 0 && name[taint.key.size()] == '=' &&
        name.compare(taint.key.size() + 1, std::string::npos, taint.value) == 0) {
      return true;
    }
  }
  return false;
}

bool counts(const policy::NodeTaintsArgs& args, const model::Taint& taint) {
  const bool effect =
      taint.effect == model::TaintEffect::kNoSchedule ||
      (args.include_prefer_no_schedule && taint.effect == model::TaintEffect::kPreferNoSchedule);
  if (!effect || names_taint(args.excluded_taints, taint)) return false;
  return args.included_taints.empty() || names_taint(args.included_taints, taint);
}

std::string describe(const model::Taint& taint) {
  std::string text = taint.key;
  if (!taint.value.empty()) text += "=" + taint.value;
  text += ":";
  text += model::to_string(taint.effect);
  return text;
}

// The counted taints of `taints` that `pod` does not tolerate.
std::vector<const model::Taint*> untolerated(const model::Pod& pod,
                                             const std::vector<const model::Taint*>& taints) {
  std::vector<const model::Taint*> out;
  for (const model::Taint* taint : taints) {
    bool tolerated = std::any_of(
        pod.tolerations.begin(), pod.tolerations.end(),
        [taint](const model::Toleration& t) { return placement::tolerates(t, *taint); });
    if (!tolerated) out.push_back(taint);
  }
  return out;
}

std::string describe_all(const std::vector<const model::Taint*>& taints) {
  std::string text = taints.size() == 1 ? "taint " : "taints ";
  for (size_t i = 0; i < taints.size(); ++i) {
    if (i > 0) text += ", ";
    text += describe(*taints[i]);
  }
  return text + " not tolerated";
}

}  // namespace

void run_node_taints(const policy::NodeTaintsArgs& args, const ProfileScope& scope,
                     PlanContext& ctx) {
  if (scope.filter == nullptr) {
    ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                               " has no evictability filter; nothing planned for it");
    return;
  }
  const model::Snapshot& snapshot = ctx.snapshot();
  // Counted taints per node, once; `soft` holds the PreferNoSchedule ones among them.
  std::vector<std::vector<const model::Taint*>> counted(snapshot.nodes.size());
  std::vector<std::vector<const model::Taint*>> soft(snapshot.nodes.size());
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    for (const model::Taint& taint : snapshot.nodes[node].taints) {
      if (!counts(args, taint)) continue;
      counted[node].push_back(&taint);
      if (taint.effect == model::TaintEffect::kPreferNoSchedule) soft[node].push_back(&taint);
    }
  }
  DescheduleTargets targets(ctx, scope);
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node) || counted[node].empty()) continue;
    for (PodId pod : ctx.index().pods_on(node)) {
      const model::Pod& p = snapshot.pods[pod];
      if (ctx.planned(pod) || !args_select_pod(p, args.namespaces, args.label_selector)) continue;
      std::vector<const model::Taint*> violated = untolerated(p, counted[node]);
      if (violated.empty()) continue;
      const std::string violation = node_with_pool(ctx, node) + " " + describe_all(violated);
      if (!admit_for_eviction(ctx, scope, pod, kStrategy)) continue;
      // A target with a counted soft taint the pod does not tolerate would only start this
      // again (the placement core itself refuses untolerated NoSchedule taints).
      NodeRule soft_taints{
          [&](NodeId target) { return !untolerated(p, soft[target]).empty(); },
          [&](NodeId target) { return describe_all(untolerated(p, soft[target])); }};
      TargetFound target =
          targets.best(pod, targets.candidates(), &soft_taints);
      if (target.node) {
        std::string reason = violation + " -> " + snapshot.nodes[*target.node].meta.name;
        if (!target.usage_after.empty()) reason += " (" + target.usage_after + ")";
        ctx.evict(pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
      } else {
        // Upstream evicts here when nodeFit is off; loadshift never evicts a pod the placement
        // core cannot place (the pod keeps running on a NoSchedule node; evicted, it would stay
        // Pending).
        ctx.skip(pod, kStrategy, SkipCode::kNoTarget,
                 "no node fits: " + violation + "; " + target.why_not);
      }
    }
  }
}

}  // namespace loadshift::strategies

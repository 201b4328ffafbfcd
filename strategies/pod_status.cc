// The deschedule plugins that judge a pod by its status, with kubernetes-sigs/descheduler's
// selection (descheduler v0.36, research: shared/research/descheduler.md 3.3):
//
// - PodLifeTime: pods older than maxPodLifeTimeSeconds (strictly, from creationTimestamp) whose
//   phase, status.reason or a container's waiting or terminated reason is in `states` (init and
//   ephemeral containers' too when asked), whose owner kinds pass ownerKinds, with a condition
//   that one of `conditions` matches and with a terminated container whose exit code is in
//   `exitCodes` (each when given); oldest first (by creation) across the cluster.
// - RemovePodsHavingTooManyRestarts: pods whose containers' restarts (init containers' too with
//   includingInitContainers) add up to podRestartThreshold or more, in one of `states` (phase or a
//   container's waiting reason) when given; most restarts first.
// - RemoveFailedPods: pods in phase Failed, at least minPodLifetimeSeconds old, with no owner of
//   an excluded kind, with a reason (status.reason or a container's waiting or terminated reason)
//   in `reasons` and a terminated container's exit code in `exitCodes` (each when given); in
//   node order.
//
// All three look at every pod of the in-scope nodes, finished ones included, as upstream does;
// namespaces and labelSelector narrow that, and the profile's evictability filter and the
// policy's limits apply to each pod selected; at maxNoOfPodsToEvictTotal a plugin stops. A finished
// pod (Succeeded or Failed) is evicted without a target: nothing of it runs, and its controller, if
// any, replaces it either way. A running pod needs a target the placement core accepts
// (deschedule_targets.h) whatever nodeFit says: upstream evicts it without one when nodeFit is off;
// loadshift never evicts a pod the placement core cannot place (it keeps running where it is;
// evicted, it would stay Pending).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/rfc3339.h"
#include "strategies/deschedule_targets.h"
#include "strategies/plugins.h"

namespace loadshift::strategies {
namespace {

using model::ContainerStatus;
using model::Pod;

bool contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The pod's age in whole seconds from metadata.creationTimestamp, or nullopt when it has none,
// it is unreadable or it lies in the future (such a pod is never old enough).
std::optional<int64_t> age_seconds(const Pod& pod, std::chrono::system_clock::time_point now) {
  std::optional<std::chrono::system_clock::time_point> created =
      model::parse_rfc3339(pod.meta.creation_timestamp);
  if (!created || *created > now) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(now - *created).count();
}

std::string age_text(int64_t seconds) {
  if (seconds >= 2 * 86400) return std::to_string(seconds / 86400) + "d";
  if (seconds >= 2 * 3600) return std::to_string(seconds / 3600) + "h";
  if (seconds >= 2 * 60) return std::to_string(seconds / 60) + "m";
  return std::to_string(seconds) + "s";
}

// The container statuses a plugin reads: the app containers', then the init containers' when
// `with_init`.
template <typename Visit>
bool any_status(const Pod& pod, bool with_init, Visit&& visit) {
  for (const ContainerStatus& status : pod.container_statuses) {
    if (visit(status)) return true;
  }
  if (!with_init) return false;
  for (const ContainerStatus& status : pod.init_container_statuses) {
    if (visit(status)) return true;
  }
  return false;
}

// The first of the pod's phase, status.reason and its containers' reasons (waiting, and
// terminated when `terminated_too`; ephemeral containers' too when `with_ephemeral`) that is in
// `states`, or "".
std::string matching_state(const Pod& pod, const std::vector<std::string>& states, bool with_init,
                           bool terminated_too, bool with_ephemeral = false) {
  std::string phase(model::to_string(pod.phase));
  if (contains(states, phase)) return "phase " + phase;
  if (!pod.reason.empty() && contains(states, pod.reason)) return "status reason " + pod.reason;
  std::string found;
  auto match = [&](const ContainerStatus& s, std::string_view who) {
    if (!s.waiting_reason.empty() && contains(states, s.waiting_reason)) {
      found = std::string(who) + " waiting with " + s.waiting_reason;
    } else if (terminated_too && s.terminated && !s.terminated_reason.empty() &&
               contains(states, s.terminated_reason)) {
      found = std::string(who) + " terminated with " + s.terminated_reason;
    }
    return !found.empty();
  };
  if (any_status(pod, with_init, [&](const ContainerStatus& s) { return match(s, "a container"); }))
    return found;
  if (with_ephemeral) {
    for (const ContainerStatus& status : pod.ephemeral_container_statuses) {
      if (match(status, "an ephemeral container")) return found;
    }
  }
  return found;
}

// The first of the pod's conditions that one of `filters` matches, as text, or "" (upstream
// v0.36: the filters are ORed; in a filter, every field given must equal the condition's, and
// with minTimeSinceLastTransitionSeconds the condition needs a lastTransitionTime at least that
// long ago, one in the future never matching).
std::string matching_condition(const Pod& pod,
                               const std::vector<policy::PodConditionFilter>& filters,
                               std::chrono::system_clock::time_point now) {
  const int64_t now_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  std::string found;
  for (const policy::PodConditionFilter& filter : filters) {
    pod.conditions.any_of([&](const model::PodConditions::Condition& c) {
      if (!filter.type.empty() && c.type != filter.type) return false;
      if (!filter.status.empty() && c.status != filter.status) return false;
      if (!filter.reason.empty() && c.reason != filter.reason) return false;
      found = "condition " + std::string(c.type) + "=" + std::string(c.status);
      if (!c.reason.empty()) found += " (" + std::string(c.reason) + ")";
      if (filter.min_time_since_last_transition_seconds) {
        if (!c.last_transition_seconds || *c.last_transition_seconds > now_seconds ||
            now_seconds - *c.last_transition_seconds <
                *filter.min_time_since_last_transition_seconds) {
          found.clear();
          return false;
        }
        found += " for " + age_text(now_seconds - *c.last_transition_seconds);
      }
      return true;
    });
    if (!found.empty()) return found;
  }
  return found;
}

// The first terminated container's exit code in `codes`, as text, or "".
std::string matching_exit_code(const Pod& pod, const std::vector<int32_t>& codes, bool with_init) {
  std::string found;
  any_status(pod, with_init, [&](const ContainerStatus& s) {
    if (s.terminated && std::find(codes.begin(), codes.end(), s.exit_code) != codes.end()) {
      found = "exit code " + std::to_string(s.exit_code);
    }
    return !found.empty();
  });
  return found;
}

bool has_owner_kind(const Pod& pod, const std::vector<std::string>& kinds) {
  return std::any_of(pod.owners.begin(), pod.owners.end(),
                     [&](const model::OwnerReference& o) { return contains(kinds, o.kind); });
}

// A pod a plugin selected, with what makes it go first and why it was selected.
struct Selected {
  PodId pod;
  int64_t order;  // smaller goes first
  std::string why;
};

// Every live or finished pod bound to an in-scope node that the namespaces and labelSelector
// select and that no earlier plugin planned, in node order.
template <typename Select>
std::vector<Selected> select_pods(const PlanContext& ctx, const policy::Namespaces& namespaces,
                                  const std::optional<model::LabelSelector>& label_selector,
                                  Select&& select) {
  const model::Snapshot& snapshot = ctx.snapshot();
  std::vector<std::vector<PodId>> by_node(snapshot.nodes.size());
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    NodeId node = ctx.index().node_of(pod);
    if (node != placement::kNoNode && ctx.in_scope(node)) by_node[node].push_back(pod);
  }
  std::vector<Selected> out;
  for (const std::vector<PodId>& pods : by_node) {
    for (PodId pod : pods) {
      const Pod& p = snapshot.pods[pod];
      if (ctx.planned(pod) || !args_select_pod(p, namespaces, label_selector)) continue;
      if (std::optional<Selected> s = select(pod, p)) out.push_back(std::move(*s));
    }
  }
  return out;
}

// Evicts each selected pod in order, or skips it with the reason.
void evict_selected(std::vector<Selected> selected, const std::string& strategy,
                    const ProfileScope& scope, PlanContext& ctx) {
  std::stable_sort(selected.begin(), selected.end(),
                   [](const Selected& a, const Selected& b) { return a.order < b.order; });
  const model::Snapshot& snapshot = ctx.snapshot();
  DescheduleTargets targets(ctx, scope);
  for (size_t i = 0; i < selected.size(); ++i) {
    const Selected& s = selected[i];
    if (ctx.total_limit_reached()) {
      // As upstream, the plugin stops here: the pod it stops at is skipped with the limit (the
      // controller counts the limit once, under the descheduler's metric label), the rest are one
      // note, not a skip each (with a lifetime of a day that can be every pod of the cluster).
      ctx.skip(
          s.pod, strategy,
          ctx.limit_reason(s.pod, nullptr).value_or(Skip{SkipCode::kTotalLimit, "total limit"}));
      if (selected.size() - i > 1) {
        ctx.plan().notes.push_back("profile " + scope.name + ": " + strategy + ": " +
                                   std::to_string(selected.size() - i - 1) +
                                   " more pod(s) selected, not evicted: "
                                   "maxNoOfPodsToEvictTotal reached");
      }
      return;
    }
    if (!admit_for_eviction(ctx, scope, s.pod, strategy)) continue;
    const Pod& p = snapshot.pods[s.pod];
    const std::string where = node_with_pool(ctx, ctx.index().node_of(s.pod));
    if (p.terminated()) {
      ctx.evict(s.pod, placement::kNoNode, scope.name, strategy,
                where + ": " + s.why + "; finished, nothing to place", nullptr);
      continue;
    }
    TargetFound target = targets.best(s.pod, targets.candidates());
    if (!target.node) {
      ctx.skip(s.pod, strategy, SkipCode::kNoTarget,
               "no node fits: " + where + ": " + s.why + "; " + target.why_not);
      continue;
    }
    std::string reason = where + ": " + s.why + " -> " + snapshot.nodes[*target.node].meta.name;
    if (!target.usage_after.empty()) reason += " (" + target.usage_after + ")";
    ctx.evict(s.pod, *target.node, scope.name, strategy, std::move(reason), nullptr);
  }
}

bool has_filter(const ProfileScope& scope, PlanContext& ctx, const std::string& strategy) {
  if (scope.filter != nullptr) return true;
  ctx.plan().notes.push_back("profile " + scope.name + ": " + strategy +
                             " has no evictability filter; nothing planned for it");
  return false;
}

}  // namespace

void run_pod_lifetime(const policy::PodLifeTimeArgs& args, const ProfileScope& scope,
                      PlanContext& ctx) {
  const std::string strategy = "PodLifeTime";
  if (!has_filter(scope, ctx, strategy)) return;
  const auto now = ctx.options().now;
  std::vector<Selected> selected =
      select_pods(ctx, args.namespaces, args.label_selector, [&](PodId pod, const Pod& p) {
        std::optional<Selected> none;
        std::optional<int64_t> age = age_seconds(p, now);
        std::string why;
        if (args.max_pod_life_time_seconds) {
          if (!age || *age <= *args.max_pod_life_time_seconds) return none;
          why = "age " + age_text(*age) + " > maxPodLifeTimeSeconds " +
                std::to_string(*args.max_pod_life_time_seconds);
        }
        auto add = [&why](const std::string& part) { why += (why.empty() ? "" : ", ") + part; };
        if (!args.states.empty()) {
          std::string state = matching_state(p, args.states, args.including_init_containers, true,
                                             args.including_ephemeral_containers);
          if (state.empty()) return none;
          add(state);
        }
        if (!args.owner_kinds.include.empty() && !has_owner_kind(p, args.owner_kinds.include)) {
          return none;
        }
        if (has_owner_kind(p, args.owner_kinds.exclude)) return none;
        if (!args.conditions.empty()) {
          std::string condition = matching_condition(p, args.conditions, now);
          if (condition.empty()) return none;
          add(condition);
        }
        if (!args.exit_codes.empty()) {
          std::string code = matching_exit_code(p, args.exit_codes, args.including_init_containers);
          if (code.empty()) return none;
          add(code);
        }
        // Oldest first; a pod without a readable creation time last.
        return std::optional<Selected>(
            Selected{pod, age ? -*age : std::numeric_limits<int64_t>::max(), why});
      });
  evict_selected(std::move(selected), strategy, scope, ctx);
}

void run_too_many_restarts(const policy::TooManyRestartsArgs& args, const ProfileScope& scope,
                           PlanContext& ctx) {
  const std::string strategy = "RemovePodsHavingTooManyRestarts";
  if (!has_filter(scope, ctx, strategy)) return;
  std::vector<Selected> selected =
      select_pods(ctx, args.namespaces, args.label_selector, [&](PodId pod, const Pod& p) {
        std::optional<Selected> none;
        int64_t restarts = 0;
        any_status(p, args.including_init_containers, [&](const ContainerStatus& s) {
          restarts += s.restart_count;
          return false;
        });
        if (restarts < args.pod_restart_threshold) return none;
        std::string why = std::to_string(restarts) + " restarts >= podRestartThreshold " +
                          std::to_string(args.pod_restart_threshold);
        if (!args.states.empty()) {
          std::string state = matching_state(p, args.states, args.including_init_containers, false);
          if (state.empty()) return none;
          why += ", " + state;
        }
        // Most restarts first.
        return std::optional<Selected>(Selected{pod, -restarts, why});
      });
  evict_selected(std::move(selected), strategy, scope, ctx);
}

void run_failed_pods(const policy::FailedPodsArgs& args, const ProfileScope& scope,
                     PlanContext& ctx) {
  const std::string strategy = "RemoveFailedPods";
  if (!has_filter(scope, ctx, strategy)) return;
  const auto now = ctx.options().now;
  int64_t position = 0;
  std::vector<Selected> selected =
      select_pods(ctx, args.namespaces, args.label_selector, [&](PodId pod, const Pod& p) {
        std::optional<Selected> none;
        if (p.phase != model::PodPhase::kFailed) return none;
        std::optional<int64_t> age = age_seconds(p, now);
        if (args.min_pod_lifetime_seconds > 0 && (!age || *age < args.min_pod_lifetime_seconds)) {
          return none;
        }
        if (has_owner_kind(p, args.exclude_owner_kinds)) return none;
        std::string why = "failed";
        if (!p.reason.empty()) why += " (" + p.reason + ")";
        if (age) why += ", age " + age_text(*age);
        if (!args.reasons.empty()) {
          std::string reason;
          if (!p.reason.empty() && contains(args.reasons, p.reason)) reason = p.reason;
          any_status(p, args.including_init_containers, [&](const ContainerStatus& s) {
            if (reason.empty() && !s.waiting_reason.empty() &&
                contains(args.reasons, s.waiting_reason)) {
              reason = s.waiting_reason;
            }
            if (reason.empty() && s.terminated && !s.terminated_reason.empty() &&
                contains(args.reasons, s.terminated_reason)) {
              reason = s.terminated_reason;
            }
            return !reason.empty();
          });
          if (reason.empty()) return none;
          why += ", reason " + reason;
        }
        if (!args.exit_codes.empty()) {
          std::string code = matching_exit_code(p, args.exit_codes, args.including_init_containers);
          if (code.empty()) return none;
          why += ", " + code;
        }
        return std::optional<Selected>(Selected{pod, position++, why});
      });
  evict_selected(std::move(selected), strategy, scope, ctx);
}

}  // namespace loadshift::strategies

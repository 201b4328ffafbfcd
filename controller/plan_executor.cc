// The checks before each eviction, and the bookkeeping after it.
#include "controller/plan_executor.h"

#include <map>
#include <set>

#include "controller/structured_log.h"

namespace loadshift::controller {
namespace {

using model::Pod;

using strategies::in_flight;
using strategies::rollout_workload;
using Workload = strategies::RolloutWorkload;

// Why `live` (the cache's pod now) is not the pod the plan decided on, or "".
std::string pod_changed(const Pod& planned, const std::optional<Pod>& live,
                        const std::string& node) {
  if (!live) return "pod gone: no longer in the cache";
  if (live->meta.uid != planned.meta.uid) {
    return "pod replaced: the name now belongs to uid " + live->meta.uid;
  }
  if (live->node_name != node) {
    return "pod moved: now on " + (live->node_name.empty() ? "no node" : live->node_name) +
           ", planned from " + node;
  }
  if (live->meta.deleting) return "pod terminating: already being deleted";
  // A plugin may choose a finished pod (RemoveFailedPods, PodLifeTime); a running one that
  // finished since the plan is another pod than the one decided on.
  if (live->terminated() && !planned.terminated()) {
    return "pod finished: phase is no longer Running";
  }
  return "";
}

}  // namespace

PlanExecutor::PlanExecutor(const kube::WatchCache& cache, PodEvictor& evictor,
                           ControllerMetrics& metrics, ExecutorOptions options)
    : cache_(cache), evictor_(evictor), metrics_(metrics), options_(options) {}

ExecutionSummary PlanExecutor::execute(const placement::ClusterIndex& index,
                                       const strategies::Plan& plan,
                                       const EvictPermission& may_evict,
                                       const NodeWrites* node_writes) {
  const model::Snapshot& snap = index.snapshot();
  ExecutionSummary summary;
  // Per workload key: pods in flight in the snapshot (lazily counted), plus this cycle's.
  std::map<std::string, int> workload_in_flight;  // pods in flight, each pod counted once
  std::map<std::string, std::set<std::string>> evicted_owners_toward;  // target -> workload keys
  // In flight besides `self` (evicting a pod that serves nothing takes nothing away).
  auto count_in_flight = [&](const Workload& workload, const Pod& self) {
    auto [it, inserted] = workload_in_flight.try_emplace(workload.key, 0);
    if (inserted) {
      for (const Pod& pod : snap.pods) {
        if (in_flight(pod) && rollout_workload(pod).key == workload.key) ++it->second;
      }
    }
    return it->second - (in_flight(self) ? 1 : 0);
  };

  for (size_t i = 0; i < plan.evictions.size(); ++i) {
    const strategies::EvictionDecision& decision = plan.evictions[i];
    const Pod& pod = snap.pods[decision.pod];
    const std::string node =
        decision.node == placement::kNoNode ? "" : snap.nodes[decision.node].meta.name;
    const std::string target =
        decision.target == placement::kNoNode ? "" : snap.nodes[decision.target].meta.name;
    const Workload workload = rollout_workload(pod);
    auto skip = [&](std::string reason, std::string_view metric_reason) {
      log_line(spdlog::level::info, "eviction skipped",
               {{"pod", pod.key()},
                {"node", node},
                {"target", target},
                {"strategy", decision.strategy},
                {"reason", reason}});
      metrics_.count_skipped_eviction(metric_reason);
      summary.evictions.push_back({i, "skipped", std::move(reason)});
      ++summary.skipped;
    };

    // Drops this eviction and every later one: the replica may not evict any more.
    auto stop_here = [&](const std::string& why_not) {
      summary.stopped = why_not;
      for (size_t rest = i; rest < plan.evictions.size(); ++rest) {
        metrics_.count_skipped_eviction("not_allowed");
        summary.evictions.push_back({rest, "skipped", why_not});
        ++summary.skipped;
      }
      log_line(
          spdlog::level::warn, "evictions stopped",
          {{"reason", why_not}, {"not_carried_out", std::to_string(plan.evictions.size() - i)}});
    };
    if (std::string why_not = may_evict(); !why_not.empty()) {
      stop_here(why_not);
      break;
    }

    if (node_writes != nullptr && !node_writes->refused.empty()) {
      const auto& [tainted, why] = *node_writes->refused.begin();
      skip("soft taint missing: the plan assumed loadshift.io/overutilized on " + tainted +
               " and it could not be put on (" + why +
               "); every landing this cycle was predicted with it",
           "soft_taint_failed");
      continue;
    }

    if (std::string changed =
            pod_changed(pod, cache_.pod(pod.meta.namespace_, pod.meta.name), node);
        !changed.empty()) {
      skip(changed, "pod_changed");
      continue;
    }

    if (!target.empty()) {
      const model::Node& planned_target = snap.nodes[decision.target];
      std::optional<model::Node> live_target = cache_.node(target);
      if (!live_target || live_target->meta.uid != planned_target.meta.uid) {
        skip("target gone: node " + target + " is no longer in the cache", "target_changed");
        continue;
      }
      const std::string* own_patch = nullptr;
      if (node_writes != nullptr) {
        if (auto it = node_writes->patched.find(target); it != node_writes->patched.end()) {
          own_patch = &it->second;
        }
      }
      if (live_target->meta.resource_version != planned_target.meta.resource_version &&
          (own_patch == nullptr || live_target->meta.resource_version != *own_patch)) {
        skip("target changed since the plan: node " + target + " was updated (resourceVersion " +
                 planned_target.meta.resource_version + " -> " +
                 live_target->meta.resource_version + "); the next cycle plans again",
             "target_changed");
        continue;
      }
      std::set<std::string> planned_pods;
      for (placement::PodId id : index.pods_on(decision.target)) {
        planned_pods.insert(snap.pods[id].meta.uid);
      }
      const std::set<std::string>& expected = evicted_owners_toward[target];
      std::string arrived;
      for (const Pod& now : cache_.pods_on_node(target)) {
        if (now.terminated() || planned_pods.count(now.meta.uid) != 0) continue;
        if (expected.count(rollout_workload(now).key) != 0) continue;  // a replacement
        arrived = now.key();
        break;
      }
      if (!arrived.empty()) {
        skip("target changed since the plan: pod " + arrived + " arrived on " + target +
                 "; the next cycle plans again",
             "target_changed");
        continue;
      }
    }

    // A finished pod serves nothing, and its controller has replaced it already (a ReplicaSet
    // counts only active pods): removing it takes no replica away.
    if (options_.max_in_flight_per_workload > 0 && !workload.key.empty() && !pod.terminated()) {
      int busy = count_in_flight(workload, pod);
      if (busy >= options_.max_in_flight_per_workload) {
        skip("workload limit: " + workload.kind + " " + pod.meta.namespace_ + "/" + workload.name +
                 " has " + std::to_string(busy) +
                 " pod(s) in flight (evicted, terminating or not Ready), limit " +
                 std::to_string(options_.max_in_flight_per_workload) +
                 " (--max-in-flight-per-workload)",
             "workload_in_flight");
        continue;
      }
    }

    const auto sent = std::chrono::system_clock::now();
    EvictionOutcome outcome = evictor_.evict(pod, may_evict);
    if (outcome.stopped) {  // the permission went away between two attempts
      stop_here(outcome.detail);
      break;
    }
    const char* result = to_string(outcome.result);
    LogFields fields{{"pod", pod.key()},
                     {"node", node},
                     {"target", target},
                     {"strategy", decision.strategy},
                     {"profile", decision.profile},
                     {"reason", decision.reason}};
    if (!outcome.detail.empty()) fields.emplace_back("detail", outcome.detail);
    switch (outcome.result) {
      case EvictionResult::kEvicted: {
        ++summary.evicted;
        if (!workload.key.empty()) {
          if (!in_flight(pod) && !pod.terminated()) ++workload_in_flight[workload.key];
          if (!target.empty()) evicted_owners_toward[target].insert(workload.key);
          // The replacement is expected where the scheduler model said it lands, too.
          if (decision.landing != placement::kNoNode) {
            evicted_owners_toward[snap.nodes[decision.landing].meta.name].insert(workload.key);
          }
        }
        log_line(spdlog::level::info, "evicted", fields);
        metrics_.count_eviction("success", decision.strategy, decision.profile, pod.meta.namespace_,
                                node, workload.kind, workload.name);
        // A finished pod's removal is no move: its Event names no nodes and says so, so that a
        // restarted controller's cool-down leaves it out (workload_moves.h).
        EventNote note{"Normal", decision.strategy,
                       "pod evicted from node " + node + " by loadshift: " + decision.reason, "",
                       ""};
        if (pod.terminated()) {
          note.finished = true;
        } else {
          note.from_node = node;
          if (decision.placed() != placement::kNoNode) {
            note.to_node = snap.nodes[decision.placed()].meta.name;
          }
        }
        std::string event_error = evictor_.post_event(pod, note);
        if (!event_error.empty()) {
          log_line(spdlog::level::warn, "event not written", {{"error", event_error}});
        }
        break;
      }
      case EvictionResult::kGone:
      case EvictionResult::kReplaced:
        ++summary.skipped;
        log_line(spdlog::level::info, "eviction skipped", fields);
        metrics_.count_skipped_eviction(result);
        break;
      case EvictionResult::kBlockedByPdb:
      case EvictionResult::kFailed:
        ++summary.failed;
        // A request that got no answer may have evicted the pod: its workload counts it.
        if (outcome.maybe_evicted && !workload.key.empty() && !in_flight(pod) &&
            !pod.terminated()) {
          ++workload_in_flight[workload.key];
        }
        log_line(spdlog::level::warn, "eviction failed", fields);
        metrics_.count_eviction("error", decision.strategy, decision.profile, pod.meta.namespace_,
                                node, workload.kind, workload.name);
        if (outcome.result == EvictionResult::kBlockedByPdb) {
          metrics_.count_skipped_eviction("pdb");
        }
        if (options_.failure_events) {
          std::string event_error = evictor_.post_event(
              pod, {"Warning", "EvictionFailed",
                    "pod eviction from node " + node + " by loadshift failed: " + outcome.detail,
                    "", ""});
          if (!event_error.empty()) {
            log_line(spdlog::level::warn, "event not written", {{"error", event_error}});
          }
        }
        break;
    }
    summary.evictions.push_back({i, result, outcome.detail, sent});
  }
  // The plan's own limit skips, under the descheduler's result labels.
  for (const strategies::SkippedPod& skipped : plan.skipped) {
    const char* result = nullptr;
    if (skipped.reason.rfind("total eviction limit reached", 0) == 0) {
      result = "maximum number of evicted pods per a descheduling cycle reached";
    } else if (skipped.reason.rfind("node eviction limit reached", 0) == 0) {
      result = "maximum number of evicted pods per node reached";
    } else if (skipped.reason.rfind("namespace eviction limit reached", 0) == 0) {
      result = "maximum number of evicted pods per namespace reached";
    }
    if (result == nullptr) continue;
    const Pod& pod = snap.pods[skipped.pod];
    const Workload workload = rollout_workload(pod);
    metrics_.count_eviction(
        result, skipped.strategy, "", pod.meta.namespace_,
        skipped.node == placement::kNoNode ? "" : snap.nodes[skipped.node].meta.name, workload.kind,
        workload.name);
  }
  return summary;
}

}  // namespace loadshift::controller

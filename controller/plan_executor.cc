// The loop over the plan, the eviction and the bookkeeping after it; the checks before each
// eviction are eviction_checks.h's.
#include "controller/plan_executor.h"

#include "controller/structured_log.h"

namespace loadshift::controller {
namespace {

using model::Pod;

using strategies::rollout_workload;
using Workload = strategies::RolloutWorkload;

// The watch cache as the checks read it.
class CachedObjects final : public LiveObjects {
 public:
  explicit CachedObjects(const kube::WatchCache& cache) : cache_(cache) {}
  std::optional<Pod> pod(std::string_view namespace_, std::string_view name) const override {
    return cache_.pod(namespace_, name);
  }
  std::optional<model::Node> node(std::string_view name) const override {
    return cache_.node(name);
  }
  std::vector<Pod> pods_on_node(std::string_view node) const override {
    return cache_.pods_on_node(node);
  }

 private:
  const kube::WatchCache& cache_;
};

// The descheduler's result label for a plan skip its metrics count, or nullptr.
const char* plan_limit_result(strategies::SkipCode code) {
  switch (code) {
    case strategies::SkipCode::kTotalLimit:
      return "maximum number of evicted pods per a descheduling cycle reached";
    case strategies::SkipCode::kNodeLimit:
      return "maximum number of evicted pods per node reached";
    case strategies::SkipCode::kNamespaceLimit:
      return "maximum number of evicted pods per namespace reached";
    default:
      return nullptr;
  }
}

std::string node_name(const model::Snapshot& snap, placement::NodeId node) {
  return node == placement::kNoNode ? "" : snap.nodes[node].meta.name;
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
  const CachedObjects live(cache_);
  CycleRecord cycle(snap);
  ExecutionSummary summary;
  for (size_t i = 0; i < plan.evictions.size(); ++i) {
    // Asked before every eviction: when this replica may not evict any more, the rest of the
    // plan is dropped.
    if (std::string why_not = may_evict(); !why_not.empty()) {
      stop(plan, i, why_not, summary);
      break;
    }
    const strategies::EvictionDecision& decision = plan.evictions[i];
    const Pod& pod = snap.pods[decision.pod];
    const std::string node = node_name(snap, decision.node);
    const std::string target = node_name(snap, decision.target);
    const Workload workload = rollout_workload(pod);
    const CheckInput input{
        index,    decision, pod,         node,  target,
        workload, live,     node_writes, cycle, options_.max_in_flight_per_workload};
    if (std::optional<CheckSkip> skip = check_eviction(input)) {
      log_line(spdlog::level::info, "eviction skipped",
               {{"pod", pod.key()},
                {"node", node},
                {"target", target},
                {"strategy", decision.strategy},
                {"reason", skip->reason}});
      metrics_.count_skipped_eviction(to_string(skip->code));
      summary.evictions.push_back({i, "skipped", std::move(skip->reason), skip->code});
      ++summary.skipped;
      continue;
    }
    if (std::optional<std::string> stopped = evict(input, i, may_evict, summary)) {
      stop(plan, i, *stopped, summary);
      break;
    }
  }
  count_plan_limits(snap, plan);
  return summary;
}

void PlanExecutor::stop(const strategies::Plan& plan, size_t from, const std::string& why_not,
                        ExecutionSummary& summary) {
  summary.stopped = why_not;
  for (size_t rest = from; rest < plan.evictions.size(); ++rest) {
    metrics_.count_skipped_eviction(to_string(ExecutorSkip::kNotAllowed));
    summary.evictions.push_back({rest, "skipped", why_not, ExecutorSkip::kNotAllowed});
    ++summary.skipped;
  }
  log_line(
      spdlog::level::warn, "evictions stopped",
      {{"reason", why_not}, {"not_carried_out", std::to_string(plan.evictions.size() - from)}});
}

std::optional<std::string> PlanExecutor::evict(const CheckInput& in, size_t i,
                                               const EvictPermission& may_evict,
                                               ExecutionSummary& summary) {
  const model::Snapshot& snap = in.index.snapshot();
  const strategies::EvictionDecision& decision = in.decision;
  const Pod& pod = in.pod;
  const std::string& node = in.node;
  const Workload& workload = in.workload;
  const auto sent = std::chrono::system_clock::now();
  EvictionOutcome outcome = evictor_.evict(pod, may_evict);
  if (outcome.stopped) return outcome.detail;  // the permission went away between two attempts
  const char* result = to_string(outcome.result);
  LogFields fields{{"pod", pod.key()},
                   {"node", node},
                   {"target", in.target},
                   {"strategy", decision.strategy},
                   {"profile", decision.profile},
                   {"reason", decision.reason}};
  if (!outcome.detail.empty()) fields.emplace_back("detail", outcome.detail);
  std::optional<ExecutorSkip> skipped;
  switch (outcome.result) {
    case EvictionResult::kEvicted: {
      ++summary.evicted;
      // The replacement is expected on the target, and where the scheduler model said it lands.
      in.cycle.evicted(workload, pod, {in.target, node_name(snap, decision.landing)});
      log_line(spdlog::level::info, "evicted", fields);
      metrics_.count_eviction("success", decision.strategy, decision.profile, pod.meta.namespace_,
                              node, workload.kind, workload.name);
      // A finished pod's removal is no move: its Event names no nodes and says so, so that a
      // restarted controller's cool-down leaves it out (workload_moves.h).
      EventNote note{"Normal", decision.strategy,
                     "pod evicted from node " + node + " by loadshift: " + decision.reason, "", ""};
      if (pod.terminated()) {
        note.finished = true;
      } else {
        note.from_node = node;
        note.to_node = node_name(snap, decision.placed());
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
      skipped =
          outcome.result == EvictionResult::kGone ? ExecutorSkip::kGone : ExecutorSkip::kReplaced;
      log_line(spdlog::level::info, "eviction skipped", fields);
      metrics_.count_skipped_eviction(to_string(*skipped));
      break;
    case EvictionResult::kBlockedByPdb:
    case EvictionResult::kFailed:
      ++summary.failed;
      // A request that got no answer may have evicted the pod: its workload counts it.
      if (outcome.maybe_evicted) in.cycle.maybe_evicted(workload, pod);
      log_line(spdlog::level::warn, "eviction failed", fields);
      metrics_.count_eviction("error", decision.strategy, decision.profile, pod.meta.namespace_,
                              node, workload.kind, workload.name);
      if (outcome.result == EvictionResult::kBlockedByPdb) {
        metrics_.count_skipped_eviction(to_string(ExecutorSkip::kPdb));
      }
      if (options_.failure_events) {
        std::string event_error = evictor_.post_event(
            pod,
            {"Warning", "EvictionFailed",
             "pod eviction from node " + node + " by loadshift failed: " + outcome.detail, "", ""});
        if (!event_error.empty()) {
          log_line(spdlog::level::warn, "event not written", {{"error", event_error}});
        }
      }
      break;
  }
  summary.evictions.push_back({i, result, outcome.detail, skipped, sent});
  return std::nullopt;
}

void PlanExecutor::count_plan_limits(const model::Snapshot& snap, const strategies::Plan& plan) {
  for (const strategies::SkippedPod& skipped : plan.skipped) {
    const char* result = plan_limit_result(skipped.code);
    if (result == nullptr) continue;
    const Pod& pod = snap.pods[skipped.pod];
    const Workload workload = rollout_workload(pod);
    metrics_.count_eviction(result, skipped.strategy, "", pod.meta.namespace_,
                            node_name(snap, skipped.node), workload.kind, workload.name);
  }
}

}  // namespace loadshift::controller

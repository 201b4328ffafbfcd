// Carries out a Plan's evictions in order, each one only after the checks of
// eviction_checks.h (pod, target, soft taint, workload in flight) against the watch cache as it
// is now, and after asking, before every single eviction, whether this replica may still evict
// (holds the lease, is not stopping); when it may not, the rest of the plan is dropped.
// A check that fails skips the eviction with its code and reason; the next cycle plans afresh.
// Outcomes go to the log, the metrics and, as the descheduler does, Events on the pods.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/controller_metrics.h"
#include "controller/eviction_checks.h"
#include "controller/pod_evictor.h"
#include "kube/watch_cache.h"
#include "placement/cluster_index.h"
#include "strategies/plan.h"

namespace loadshift::controller {

struct ExecutorOptions {
  int max_in_flight_per_workload = 1;  // --max-in-flight-per-workload; 0: no limit
  bool failure_events = false;         // the policy's evictionFailureEventNotification
};

// What happened to one planned eviction.
struct ExecutedEviction {
  size_t decision = 0;  // index into Plan::evictions
  // "evicted", "blocked_by_pdb", "gone", "replaced", "failed", or "skipped"
  std::string outcome;
  std::string detail;  // the API's message or the skip reason
  std::optional<ExecutorSkip> skip;  // why it was skipped (outcome "skipped", "gone", "replaced")
  // When the eviction request was sent (the move's time for the cool-down); unset when skipped.
  std::chrono::system_clock::time_point sent{};
};

struct ExecutionSummary {
  std::vector<ExecutedEviction> evictions;  // in plan order, as far as the run got
  size_t evicted = 0, failed = 0, skipped = 0;
  std::string stopped;  // why the run ended before the plan did ("" when it went through)
};

// Answers "may this replica evict now?" with "" (yes) or the reason it may not.
using EvictPermission = std::function<std::string()>;

class PlanExecutor {
 public:
  // Every reference must outlive the executor.
  PlanExecutor(const kube::WatchCache& cache, PodEvictor& evictor, ControllerMetrics& metrics,
               ExecutorOptions options);

  // Runs `plan`'s evictions (planned on `index`). `node_writes` (may be null): while it lists
  // any node whose taint was refused, every eviction is skipped ("soft_taint_failed"), and a
  // target at the resourceVersion this cycle's own patch gave it counts as unchanged.
  ExecutionSummary execute(const placement::ClusterIndex& index, const strategies::Plan& plan,
                           const EvictPermission& may_evict,
                           const NodeWrites* node_writes = nullptr);

 private:
  // Sends the eviction the checks let through and records what came of it.
  // nullopt, or why this replica may not evict any more: the permission went away during the
  // request, nothing was recorded.
  std::optional<std::string> evict(const CheckInput& in, size_t decision,
                                   const EvictPermission& may_evict, ExecutionSummary& summary);
  // Drops the evictions from `from` on: this replica may not evict any more.
  void stop(const strategies::Plan& plan, size_t from, const std::string& why_not,
            ExecutionSummary& summary);
  // The plan's own limit skips, counted under the descheduler's result labels.
  void count_plan_limits(const model::Snapshot& snapshot, const strategies::Plan& plan);

  const kube::WatchCache& cache_;
  PodEvictor& evictor_;
  ControllerMetrics& metrics_;
  ExecutorOptions options_;
};

}  // namespace loadshift::controller

// Carries out a Plan's evictions in order, each one only after checking, against the watch
// cache as it is now, that it is still the eviction the plan decided:
//  - this replica may still evict (holds the lease, is not stopping), asked before every single
//    eviction; when it may not, the rest of the plan is dropped;
//  - the pod still exists with the same uid, on the planned node, and is not terminating;
//  - the target node (when the plan names one) still exists unchanged (same uid and
//    resourceVersion: no new taint, label, cordon or condition), and no pod arrived on it since
//    the snapshot other than replacements of pods this cycle evicted toward it: the placement
//    core's verdict was made on exactly what is there (this cycle's own soft-taint patch of the
//    target aside);
//  - with --soft-taint-hot-nodes, the source node got the taint the plan assumed;
//  - the pod's workload (its controlling owner) has fewer than max_in_flight_per_workload pods
//    in flight: terminating, or not Ready (the pod itself aside), or evicted by this cycle.
// Any check that fails skips the eviction with a reason; the next cycle plans afresh. Outcomes
// go to the log, the metrics and, as the descheduler does, Events on the pods.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "controller/controller_metrics.h"
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
  // When the eviction request was sent (the move's time for the cool-down); unset when skipped.
  std::chrono::system_clock::time_point sent{};
};

struct ExecutionSummary {
  std::vector<ExecutedEviction> evictions;  // in plan order, as far as the run got
  size_t evicted = 0, failed = 0, skipped = 0;
  std::string stopped;  // why the run ended before the plan did ("" when it went through)
};

// What this cycle wrote to nodes before its evictions (the soft taint, soft_taint.h).
struct NodeWrites {
  // node name -> the resourceVersion this cycle's own patch of the node as the plan saw it gave
  // the node: a target found at that version has changed only as the plan expected.
  std::map<std::string, std::string> patched;
  // node name -> why the taint the plan assumed on it could not be put on. The plan predicted
  // every landing with it: while any node is here, no pod is evicted this cycle.
  std::map<std::string, std::string> refused;
};

// Answers "may this replica evict now?" with "" (yes) or the reason it may not.
using EvictPermission = std::function<std::string()>;

class PlanExecutor {
 public:
  // Every reference must outlive the executor.
  PlanExecutor(const kube::WatchCache& cache, PodEvictor& evictor, ControllerMetrics& metrics,
               ExecutorOptions options);

  // Runs `plan`'s evictions (planned on `index`). `node_writes` (may be null): the evictions
  // from a node it refuses are skipped (reason "soft_taint_failed"), and a target at the
  // resourceVersion this cycle's own patch gave it counts as unchanged.
  ExecutionSummary execute(const placement::ClusterIndex& index, const strategies::Plan& plan,
                           const EvictPermission& may_evict,
                           const NodeWrites* node_writes = nullptr);

 private:
  const kube::WatchCache& cache_;
  PodEvictor& evictor_;
  ControllerMetrics& metrics_;
  ExecutorOptions options_;
};

}  // namespace loadshift::controller

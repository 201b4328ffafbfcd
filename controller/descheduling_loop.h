// One descheduling cycle, and what the controller knows about the last one (for /readyz):
//
//   policy reload -> standby? -> cache synced, readable and fresh? -> snapshot + index ->
//   usage (the policy's Prometheus; its metricsProviders token read from the Secret) ->
//   make_plan (the same function as `report`, with the workloads still cooling down) -> the soft
//   taints (with --soft-taint-hot-nodes) -> PlanExecutor (or, in dry run, the plan logged as
//   the report prints it, and no write of any kind).
//
// A cycle evicts nothing, and says why (log line, loadshift_cycles_skipped_total{reason},
// /readyz), when this replica is a standby, the cache is not synced or holds objects it could not
// read or has lost contact with the API server, the Secret or the usage fetch failed. A policy
// that turns invalid keeps the previous one (PolicyWatcher). Coverage below the policy's minimum
// is LoadAware's own decision: the plan says so in its notes, and the cycle passes that on.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>

#include "controller/controller_metrics.h"
#include "controller/leader_election.h"
#include "controller/plan_executor.h"
#include "controller/policy_watcher.h"
#include "controller/status_server.h"
#include "kube/api_client.h"
#include "kube/watch_cache.h"
#include "metrics/self_metrics.h"
#include "strategies/plan.h"
#include "usage/usage_sources.h"

namespace loadshift::controller {

struct LoopSettings {
  std::string prometheus_url;  // --prometheus: replaces the policy's address
  bool dry_run = false;
  // The cache is "stale" when a collection has gone this long without an answer (a healthy watch
  // answers at least every watch timeout, 5 min).
  double cache_max_staleness_seconds = 600;
  std::chrono::milliseconds interval{600000};  // for /readyz: "last cycle recent"
  // run's flags over the policy's `loadshift` section, applied anew to every policy reload: the
  // workload cool-down (its moves kept in memory, every eviction the API accepted, and rebuilt
  // from loadshift's Events before the first cycle that plans and each time the replica becomes
  // leader again: workload_moves.h), the in-flight limit the executor checks again, the soft
  // taint (soft_taint.h), landing prediction.
  strategies::PlanOverrides plan;
  // Keep each cycle's plan for the status page (/ and /plan.json); run's --plan-page=false: not.
  bool publish_plan = true;
};

struct CycleOutcome {
  // "evicted" (at least one eviction), "nothing_to_do", "skipped" (an input missing or stale),
  // "standby" (another replica leads).
  std::string result;
  std::string skip_reason;  // a token for the metric: cache_not_synced, usage_fetch_failed, ...
  std::string why;          // for a person
  size_t planned = 0, evicted = 0, failed = 0, skipped = 0;
};

class DeschedulingLoop {
 public:
  // Every reference must outlive the loop; `elector` may be null (no leader election); `stop`
  // ends a cycle's evictions between two of them.
  DeschedulingLoop(kube::ApiClient& client, kube::WatchCache& cache, PolicyWatcher& policy,
                   ControllerMetrics& metrics, metrics::SelfMetrics& self_metrics,
                   LeaderElector* elector, LoopSettings settings, const std::atomic<bool>& stop);

  CycleOutcome run_cycle();

  // For /readyz: ready while the cache is synced and the last cycle (or standby check) is
  // recent; the detail says leader or standby and why the last cycle did nothing.
  Readiness readiness() const;

  // The last plan, for the status page; callable from any thread.
  PublishedPlan published_plan() const;

 private:
  bool may_evict_now(std::string* why) const;
  std::optional<std::string> read_providers_token(const policy::Policy& policy, std::string* error);
  CycleOutcome skipped(std::string reason, std::string why);
  // Reads the cool-down's times back from loadshift's Events (merged into last_moved_); a list
  // that fails is a warning, and the cycle goes on with what this replica remembers.
  void rebuild_moves(std::chrono::seconds window);

  kube::ApiClient& client_;
  kube::WatchCache& cache_;
  PolicyWatcher& policy_;
  ControllerMetrics& metrics_;
  metrics::SelfMetrics& self_metrics_;
  LeaderElector* elector_;
  LoopSettings settings_;
  const std::atomic<bool>& stop_;

  // Only the cycle's thread: when each workload last had a pod evicted, and whether the Events
  // were read since this replica started or last became leader.
  strategies::WorkloadMoves last_moved_;
  bool moves_rebuilt_ = false;
  std::chrono::seconds moves_window_{0};  // the cool-down the moves were last kept for

  mutable std::mutex mutex_;
  std::chrono::steady_clock::time_point last_cycle_end_{};
  CycleOutcome last_;
  bool cycled_ = false;
  PublishedPlan published_{nullptr, "no cycle has planned yet"};
};

}  // namespace loadshift::controller

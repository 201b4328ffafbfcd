// The controller's metrics. The descheduler's names where one exists, so its dashboards keep
// working (descheduler_pods_evicted_total, descheduler_loop_duration_seconds,
// descheduler_strategy_duration_seconds, descheduler_build_info); loadshift's own under
// `loadshift_`. Listed in docs/controller.md. Thread-safe (prometheus-cpp).
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "strategies/plan.h"

namespace loadshift::controller {

class ControllerMetrics {
 public:
  ControllerMetrics(prometheus::Registry& registry, std::string_view version);
  ControllerMetrics(const ControllerMetrics&) = delete;
  ControllerMetrics& operator=(const ControllerMetrics&) = delete;

  // descheduler_pods_evicted_total{result,strategy,profile,namespace,node}; result is "success",
  // "error", or the descheduler's text for a limit. With an owner (kind and name, "" for a bare
  // pod) also loadshift_evictions_by_owner_total{namespace,owner_kind,owner,result}. A "success"
  // or "error" also counts in loadshift_eviction_attempts_total{result}, whose two series exist
  // from the start at 0 (so that increase() over them sees the first one).
  void count_eviction(std::string_view result, std::string_view strategy, std::string_view profile,
                      std::string_view namespace_, std::string_view node,
                      std::string_view owner_kind, std::string_view owner);
  // loadshift_evictions_skipped_total{reason}: a planned eviction not carried out (the pod
  // changed, the target changed, a PDB, a workload limit, the lease, a stop).
  void count_skipped_eviction(std::string_view reason);

  // descheduler_loop_duration_seconds and, per plugin, descheduler_strategy_duration_seconds.
  void observe_cycle(double seconds, const strategies::Plan* plan);
  // loadshift_cycles_total{result="evicted|nothing_to_do|skipped|standby"}, and for "skipped"
  // loadshift_cycles_skipped_total{reason}; loadshift_last_cycle_timestamp_seconds, and unless
  // skipped loadshift_last_successful_cycle_timestamp_seconds (the start time until then).
  void count_cycle(std::string_view result, std::string_view skip_reason = "");
  // loadshift_descheduling_interval_seconds (--descheduling-interval), for the alerts.
  void set_interval(double seconds);

  // Per plan: loadshift_node_class{node,class,pool} (1 for the node's class; pool is the node's
  // usage-pool label value, "" for none), loadshift_nodes{class},
  // loadshift_node_planned_utilization_ratio{node,resource} (the cpu and memory utilisation the
  // plan predicts after its evictions, for nodes classified on measured usage; a node classified
  // on requests has none), and per LoadAware run loadshift_load_aware_coverage_ratio{profile} and
  // loadshift_load_aware_coverage_required_ratio{profile}. Series of nodes and profiles gone
  // from the plan are removed.
  void record_nodes(const placement::ClusterIndex& index, const strategies::Plan& plan);
  // No plan of this replica's stands (it stands by while another leads): the series of
  // record_nodes(), loadshift_usage_node_coverage_ratio, loadshift_soft_tainted_nodes and
  // loadshift_cooling_workloads are removed and loadshift_nodes is 0 for every class, so that
  // only the leader's plan is exported. The next set_coverage(), record_soft_taints() and
  // set_cooling_workloads() bring their series back.
  void forget_plan();
  // loadshift_usage_node_coverage_ratio: nodes with usage data / nodes in scope.
  void set_coverage(double ratio);
  // loadshift_usage_fetch_duration_seconds and loadshift_usage_fetch_errors_total.
  void observe_usage_fetch(double seconds, bool ok);
  // loadshift_leader (1 while this replica holds the lease or runs without election; 0 in
  // dry-run, which never evicts) and loadshift_dry_run (1 with --dry-run).
  void set_leader(bool leader);
  void set_dry_run(bool dry_run);
  // loadshift_cache_objects{kind} and loadshift_cache_seconds_since_contact.
  void record_cache(const model::Snapshot& snapshot, double seconds_since_contact);
  // loadshift_soft_tainted_nodes (nodes carrying loadshift.io/overutilized:PreferNoSchedule after
  // the cycle's changes) and loadshift_soft_taint_changes_total{action="added|removed|failed"}.
  void record_soft_taints(size_t tainted, size_t added, size_t removed, size_t failed);
  // loadshift_cooling_workloads: workloads whose cool-down had not ended at the last plan.
  void set_cooling_workloads(size_t n);

 private:
  prometheus::Family<prometheus::Counter>& evicted_;
  prometheus::Family<prometheus::Counter>& evicted_by_owner_;
  prometheus::Family<prometheus::Counter>& skipped_;
  prometheus::Family<prometheus::Histogram>& loop_duration_;
  prometheus::Family<prometheus::Histogram>& strategy_duration_;
  prometheus::Family<prometheus::Counter>& cycles_;
  prometheus::Family<prometheus::Counter>& cycles_skipped_;
  prometheus::Gauge& last_cycle_;
  prometheus::Gauge& last_success_;
  prometheus::Gauge& interval_;
  prometheus::Family<prometheus::Gauge>& node_class_;
  prometheus::Family<prometheus::Gauge>& nodes_;
  prometheus::Family<prometheus::Gauge>& planned_ratio_;
  prometheus::Family<prometheus::Gauge>& coverage_by_profile_;
  prometheus::Family<prometheus::Gauge>& coverage_required_;
  prometheus::Family<prometheus::Gauge>& coverage_;  // one series, none on a standby
  prometheus::Histogram& fetch_duration_;
  prometheus::Counter& fetch_errors_;
  prometheus::Gauge& leader_;
  prometheus::Gauge& dry_run_;
  prometheus::Counter& attempts_success_;
  prometheus::Counter& attempts_error_;
  prometheus::Family<prometheus::Gauge>& cache_objects_;
  prometheus::Gauge& cache_contact_;
  prometheus::Family<prometheus::Gauge>& soft_tainted_;  // one series, none on a standby
  prometheus::Family<prometheus::Counter>& soft_taint_changes_;
  prometheus::Family<prometheus::Gauge>& cooling_workloads_;  // one series, none on a standby
  std::mutex nodes_mutex_;
  // The labels of every per-plan series now exported, to remove those the next plan lacks.
  std::set<prometheus::Labels> class_series_, planned_series_, coverage_series_, required_series_;
};

}  // namespace loadshift::controller

// The controller's metric families and what each update means.
#include "controller/controller_metrics.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace loadshift::controller {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

prometheus::Histogram::BucketBoundaries loop_buckets() {
  return {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500};
}

std::string label(std::string_view text) {
  return std::string(text);
}

// The classes loadshift_nodes always has a series of.
constexpr const char* kClasses[] = {"unknown", "underutilized", "appropriate", "overutilized",
                                    "unclassified"};

prometheus::Family<prometheus::Counter>& attempts_family(prometheus::Registry& registry) {
  return BuildCounter()
      .Name("loadshift_eviction_attempts_total")
      .Help("Evictions sent to the API server, by result: success or error (refused or no answer)")
      .Register(registry);
}

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Sets `family`'s series to `values` (labels -> value) and removes the ones of `exported` that
// `values` lacks; `exported` becomes the labels of `values`.
void replace_series(prometheus::Family<prometheus::Gauge>& family,
                    const std::map<prometheus::Labels, double>& values,
                    std::set<prometheus::Labels>& exported) {
  for (const prometheus::Labels& labels : exported) {
    if (values.count(labels) == 0) family.Remove(&family.Add(labels));
  }
  exported.clear();
  for (const auto& [labels, value] : values) {
    family.Add(labels).Set(value);
    exported.insert(labels);
  }
}

}  // namespace

ControllerMetrics::ControllerMetrics(prometheus::Registry& registry, std::string_view version)
    : evicted_(BuildCounter()
                   .Name("descheduler_pods_evicted_total")
                   .Help("Pods evicted (or not), by result, strategy, profile, namespace, node")
                   .Register(registry)),
      evicted_by_owner_(BuildCounter()
                            .Name("loadshift_evictions_by_owner_total")
                            .Help("Evictions by the evicted pod's controlling owner and result")
                            .Register(registry)),
      skipped_(BuildCounter()
                   .Name("loadshift_evictions_skipped_total")
                   .Help("Planned evictions not carried out, by reason")
                   .Register(registry)),
      loop_duration_(BuildHistogram()
                         .Name("descheduler_loop_duration_seconds")
                         .Help("Time of one descheduling cycle")
                         .Register(registry)),
      strategy_duration_(BuildHistogram()
                             .Name("descheduler_strategy_duration_seconds")
                             .Help("Time one plugin of one profile took to plan")
                             .Register(registry)),
      cycles_(BuildCounter()
                  .Name("loadshift_cycles_total")
                  .Help("Descheduling cycles by result: evicted, nothing_to_do, skipped")
                  .Register(registry)),
      cycles_skipped_(BuildCounter()
                          .Name("loadshift_cycles_skipped_total")
                          .Help("Cycles that evicted nothing because an input was missing or "
                                "stale, by reason")
                          .Register(registry)),
      last_cycle_(BuildGauge()
                      .Name("loadshift_last_cycle_timestamp_seconds")
                      .Help("Unix time the last cycle ended")
                      .Register(registry)
                      .Add({})),
      last_success_(BuildGauge()
                        .Name("loadshift_last_successful_cycle_timestamp_seconds")
                        .Help("Unix time the last cycle that was not skipped ended (the start "
                              "time before the first)")
                        .Register(registry)
                        .Add({})),
      interval_(BuildGauge()
                    .Name("loadshift_descheduling_interval_seconds")
                    .Help("The time between two cycles (--descheduling-interval)")
                    .Register(registry)
                    .Add({})),
      node_class_(BuildGauge()
                      .Name("loadshift_node_class")
                      .Help("1 for the class the last plan gave the node")
                      .Register(registry)),
      nodes_(BuildGauge()
                 .Name("loadshift_nodes")
                 .Help("Nodes per class in the last plan")
                 .Register(registry)),
      planned_ratio_(BuildGauge()
                         .Name("loadshift_node_planned_utilization_ratio")
                         .Help("Node utilisation (0..1) by resource the last plan predicts after "
                               "its evictions")
                         .Register(registry)),
      coverage_by_profile_(BuildGauge()
                               .Name("loadshift_load_aware_coverage_ratio")
                               .Help("In-scope nodes with usage data (0..1) at the last plan, "
                                     "per LoadAware profile")
                               .Register(registry)),
      coverage_required_(BuildGauge()
                             .Name("loadshift_load_aware_coverage_required_ratio")
                             .Help("The share of in-scope nodes LoadAware needs usage data of "
                                   "before it evicts (minNodeCoverage), per profile")
                             .Register(registry)),
      coverage_(BuildGauge()
                    .Name("loadshift_usage_node_coverage_ratio")
                    .Help("Nodes in scope with usage data in the last fetch, as a ratio")
                    .Register(registry)),
      fetch_duration_(BuildHistogram()
                          .Name("loadshift_usage_fetch_duration_seconds")
                          .Help("Time of one usage fetch (all queries)")
                          .Register(registry)
                          .Add({}, prometheus::Histogram::BucketBoundaries{0.05, 0.1, 0.25, 0.5, 1,
                                                                           2.5, 5, 10, 30})),
      fetch_errors_(BuildCounter()
                        .Name("loadshift_usage_fetch_errors_total")
                        .Help("Usage fetches that failed as a whole")
                        .Register(registry)
                        .Add({})),
      leader_(BuildGauge()
                  .Name("loadshift_leader")
                  .Help("1 while this replica may evict (holds the lease, or no election)")
                  .Register(registry)
                  .Add({})),
      dry_run_(BuildGauge()
                   .Name("loadshift_dry_run")
                   .Help("1 when the controller runs with --dry-run (it plans, never evicts)")
                   .Register(registry)
                   .Add({})),
      attempts_success_(attempts_family(registry).Add({{"result", "success"}})),
      attempts_error_(attempts_family(registry).Add({{"result", "error"}})),
      cache_objects_(BuildGauge()
                         .Name("loadshift_cache_objects")
                         .Help("Objects in the watch cache at the last cycle, by kind")
                         .Register(registry)),
      cache_contact_(BuildGauge()
                         .Name("loadshift_cache_seconds_since_contact")
                         .Help("Longest time any watched collection has gone without an answer")
                         .Register(registry)
                         .Add({})),
      soft_tainted_(BuildGauge()
                        .Name("loadshift_soft_tainted_nodes")
                        .Help("Nodes carrying loadshift.io/overutilized:PreferNoSchedule after "
                              "the last cycle")
                        .Register(registry)),
      soft_taint_changes_(BuildCounter()
                              .Name("loadshift_soft_taint_changes_total")
                              .Help("Soft taints added, removed, or not written (failed)")
                              .Register(registry)),
      cooling_workloads_(BuildGauge()
                             .Name("loadshift_cooling_workloads")
                             .Help("Workloads in their cool-down at the last cycle")
                             .Register(registry)) {
  // From the start at 0, as every single series.
  for (prometheus::Family<prometheus::Gauge>* family :
       {&coverage_, &soft_tainted_, &cooling_workloads_}) {
    family->Add({});
  }
  BuildGauge()
      .Name("descheduler_build_info")
      .Help("Build information")
      .Register(registry)
      .Add({{"AppVersion", label(version)}, {"DeschedulerVersion", label(version)}})
      .Set(1);
  last_success_.Set(unix_now());
}

void ControllerMetrics::count_eviction(std::string_view result, std::string_view strategy,
                                       std::string_view profile, std::string_view namespace_,
                                       std::string_view node, std::string_view owner_kind,
                                       std::string_view owner) {
  evicted_
      .Add({{"result", label(result)},
            {"strategy", label(strategy)},
            {"profile", label(profile)},
            {"namespace", label(namespace_)},
            {"node", label(node)}})
      .Increment();
  if (result == "success") attempts_success_.Increment();
  if (result == "error") attempts_error_.Increment();
  evicted_by_owner_
      .Add({{"namespace", label(namespace_)},
            {"owner_kind", label(owner_kind)},
            {"owner", label(owner)},
            {"result", label(result)}})
      .Increment();
}

void ControllerMetrics::count_skipped_eviction(std::string_view reason) {
  skipped_.Add({{"reason", label(reason)}}).Increment();
}

void ControllerMetrics::observe_cycle(double seconds, const strategies::Plan* plan) {
  loop_duration_.Add({}, loop_buckets()).Observe(seconds);
  if (plan == nullptr) return;
  for (const strategies::PluginRun& run : plan->plugin_runs) {
    strategy_duration_
        .Add({{"strategy", run.plugin}, {"profile", run.profile}},
             prometheus::Histogram::BucketBoundaries{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25,
                                                     50, 100})
        .Observe(run.seconds);
  }
}

void ControllerMetrics::count_cycle(std::string_view result, std::string_view skip_reason) {
  cycles_.Add({{"result", label(result)}}).Increment();
  if (!skip_reason.empty()) cycles_skipped_.Add({{"reason", label(skip_reason)}}).Increment();
  const double now = unix_now();
  last_cycle_.Set(now);
  if (result != "skipped") last_success_.Set(now);
}

void ControllerMetrics::set_interval(double seconds) {
  interval_.Set(seconds);
}

void ControllerMetrics::record_nodes(const placement::ClusterIndex& index,
                                     const strategies::Plan& plan) {
  std::lock_guard<std::mutex> lock(nodes_mutex_);
  std::map<prometheus::Labels, double> classes, planned, coverage, required;
  std::map<std::string, double> per_class;
  for (const strategies::NodeState& state : plan.nodes) {
    if (state.node >= index.snapshot().nodes.size()) continue;
    const std::string& node = index.snapshot().nodes[state.node].meta.name;
    std::string cls = strategies::to_string(state.node_class);
    classes[{{"node", node}, {"class", cls}, {"pool", state.pool}}] = 1;
    per_class[cls] += 1;
    if (state.figures != strategies::Figures::kUsage) continue;  // requests are no utilisation
    if (state.cpu_after) planned[{{"node", node}, {"resource", "cpu"}}] = *state.cpu_after / 100;
    if (state.memory_after) {
      planned[{{"node", node}, {"resource", "memory"}}] = *state.memory_after / 100;
    }
  }
  for (const strategies::UsageCoverage& counted : plan.coverage) {
    // Two LoadAware runs in one profile: the lower coverage is the one that stops evictions.
    prometheus::Labels labels{{"profile", counted.profile}};
    auto [it, fresh] = coverage.emplace(labels, counted.percent() / 100);
    if (!fresh) it->second = std::min(it->second, counted.percent() / 100);
    auto [need, first] = required.emplace(labels, counted.required_percent / 100);
    if (!first) need->second = std::max(need->second, counted.required_percent / 100);
  }
  replace_series(node_class_, classes, class_series_);
  replace_series(planned_ratio_, planned, planned_series_);
  replace_series(coverage_by_profile_, coverage, coverage_series_);
  replace_series(coverage_required_, required, required_series_);
  for (const char* cls : kClasses) nodes_.Add({{"class", cls}}).Set(per_class[cls]);
}

void ControllerMetrics::forget_plan() {
  std::lock_guard<std::mutex> lock(nodes_mutex_);
  replace_series(node_class_, {}, class_series_);
  replace_series(planned_ratio_, {}, planned_series_);
  replace_series(coverage_by_profile_, {}, coverage_series_);
  replace_series(coverage_required_, {}, required_series_);
  for (const char* cls : kClasses) nodes_.Add({{"class", cls}}).Set(0);
  // What the last plan and fetch said of the cluster: the leader's figures, not a standby's.
  for (prometheus::Family<prometheus::Gauge>* family :
       {&coverage_, &soft_tainted_, &cooling_workloads_}) {
    if (family->Has({})) family->Remove(&family->Add({}));
  }
}

void ControllerMetrics::set_coverage(double ratio) {
  coverage_.Add({}).Set(ratio);
}

void ControllerMetrics::observe_usage_fetch(double seconds, bool ok) {
  fetch_duration_.Observe(seconds);
  if (!ok) fetch_errors_.Increment();
}

void ControllerMetrics::set_leader(bool leader) {
  leader_.Set(leader ? 1 : 0);
}

void ControllerMetrics::set_dry_run(bool dry_run) {
  dry_run_.Set(dry_run ? 1 : 0);
}

void ControllerMetrics::record_cache(const model::Snapshot& snapshot,
                                     double seconds_since_contact) {
  auto set = [&](const char* kind, size_t n) {
    cache_objects_.Add({{"kind", kind}}).Set(static_cast<double>(n));
  };
  set("Node", snapshot.nodes.size());
  set("Pod", snapshot.pods.size());
  set("PodDisruptionBudget", snapshot.pdbs.size());
  set("PriorityClass", snapshot.priority_classes.size());
  set("PersistentVolumeClaim", snapshot.persistent_volume_claims.size());
  set("PersistentVolume", snapshot.persistent_volumes.size());
  set("CSINode", snapshot.csi_nodes.size());
  set("Namespace", snapshot.namespaces.size());
  set("HyperNode", snapshot.hyper_nodes.size());
  set("Job", snapshot.jobs.size());
  set("PodGroup", snapshot.pod_groups.size());
  cache_contact_.Set(seconds_since_contact);
}

void ControllerMetrics::record_soft_taints(size_t tainted, size_t added, size_t removed,
                                           size_t failed) {
  soft_tainted_.Add({}).Set(static_cast<double>(tainted));
  for (auto [action, n] :
       {std::pair<const char*, size_t>{"added", added}, {"removed", removed}, {"failed", failed}}) {
    prometheus::Counter& counter = soft_taint_changes_.Add({{"action", action}});
    if (n > 0) counter.Increment(static_cast<double>(n));
  }
}

void ControllerMetrics::set_cooling_workloads(size_t n) {
  cooling_workloads_.Add({}).Set(static_cast<double>(n));
}

}  // namespace loadshift::controller

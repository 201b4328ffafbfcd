// The controller's metric families and what each update means.
#include "controller/controller_metrics.h"

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
      node_class_(BuildGauge()
                      .Name("loadshift_node_class")
                      .Help("1 for the class the last plan gave the node")
                      .Register(registry)),
      nodes_(BuildGauge()
                 .Name("loadshift_nodes")
                 .Help("Nodes per class in the last plan")
                 .Register(registry)),
      coverage_(BuildGauge()
                    .Name("loadshift_usage_node_coverage_ratio")
                    .Help("Nodes in scope with usage data in the last fetch, as a ratio")
                    .Register(registry)
                    .Add({})),
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
                        .Register(registry)
                        .Add({})),
      soft_taint_changes_(BuildCounter()
                              .Name("loadshift_soft_taint_changes_total")
                              .Help("Soft taints added, removed, or not written (failed)")
                              .Register(registry)),
      cooling_workloads_(BuildGauge()
                             .Name("loadshift_cooling_workloads")
                             .Help("Workloads in their cool-down at the last cycle")
                             .Register(registry)
                             .Add({})) {
  BuildGauge()
      .Name("descheduler_build_info")
      .Help("Build information")
      .Register(registry)
      .Add({{"AppVersion", label(version)}, {"DeschedulerVersion", label(version)}})
      .Set(1);
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
  last_cycle_.Set(
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
}

void ControllerMetrics::record_nodes(const placement::ClusterIndex& index,
                                     const strategies::Plan& plan) {
  std::lock_guard<std::mutex> lock(nodes_mutex_);
  std::set<std::pair<std::string, std::string>> now;
  std::map<std::string, double> per_class;
  for (const strategies::NodeState& state : plan.nodes) {
    if (state.node >= index.snapshot().nodes.size()) continue;
    std::string node = index.snapshot().nodes[state.node].meta.name;
    std::string cls = strategies::to_string(state.node_class);
    node_class_.Add({{"node", node}, {"class", cls}}).Set(1);
    now.emplace(std::move(node), cls);
    per_class[cls] += 1;
  }
  for (const auto& [node, cls] : class_gauges_) {
    if (now.count({node, cls}) == 0) {
      node_class_.Remove(&node_class_.Add({{"node", node}, {"class", cls}}));
    }
  }
  class_gauges_ = std::move(now);
  for (const char* cls :
       {"unknown", "underutilized", "appropriate", "overutilized", "unclassified"}) {
    nodes_.Add({{"class", cls}}).Set(per_class[cls]);
  }
}

void ControllerMetrics::set_coverage(double ratio) {
  coverage_.Set(ratio);
}

void ControllerMetrics::observe_usage_fetch(double seconds, bool ok) {
  fetch_duration_.Observe(seconds);
  if (!ok) fetch_errors_.Increment();
}

void ControllerMetrics::set_leader(bool leader) {
  leader_.Set(leader ? 1 : 0);
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
  soft_tainted_.Set(static_cast<double>(tainted));
  for (auto [action, n] :
       {std::pair<const char*, size_t>{"added", added}, {"removed", removed}, {"failed", failed}}) {
    prometheus::Counter& counter = soft_taint_changes_.Add({{"action", action}});
    if (n > 0) counter.Increment(static_cast<double>(n));
  }
}

void ControllerMetrics::set_cooling_workloads(size_t n) {
  cooling_workloads_.Set(static_cast<double>(n));
}

}  // namespace loadshift::controller

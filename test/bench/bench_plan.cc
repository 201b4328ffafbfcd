// Benchmark: one full plan for a synthetic cluster — LoadAware on real usage (the seed's
// watermarks) and LowNodeUtilization 20/20/20 -> 50/50/50 (the peer's configuration) — timing each
// step. Prints figures (plan time per run and the median of five, evictions, peak RSS); asserts
// nothing timed. Planning is single-threaded, so the plan time is one core's.
//
// A third policy is the kubernetes-sigs descheduler Helm chart's default (seven plugins:
// duplicates, restarts, taints, node affinity, inter-pod anti-affinity, topology spread,
// LowNodeUtilization).
//
// usage: bench_plan CLUSTER.json USAGE.json [INTER_POD_PERCENT]
// Make both with ../shared/tools/gen_cluster.py (see scripts/bench.sh). With INTER_POD_PERCENT,
// that share of the workloads gets required anti-affinity and topology spread
// (inter_pod_share.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "cli/snapshot_files.h"
#include "metrics/file_source.h"
#include "placement/cluster_index.h"
#include "policy/loader.h"
#include "strategies/plan.h"
#include "test/bench/bench_clock.h"
#include "test/bench/inter_pod_share.h"

using namespace loadshift;
using loadshift::bench::Clock;
using loadshift::bench::peak_rss_mib;
using loadshift::bench::seconds_since;

namespace {

constexpr const char* kLoadAwarePolicy = R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: load-aware
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true, priorityThreshold: {value: 10000}}
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance: {enabled: [LoadAware]}
)";

constexpr const char* kLowNodeUtilizationPolicy = R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: low-node-utilization
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true}
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20, memory: 20, pods: 20}
      targetThresholds: {cpu: 50, memory: 50, pods: 50}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
)";

// The Helm chart's default policy (chart values of descheduler v0.32), as its ConfigMap holds it.
constexpr const char* kHelmDefaultPolicy = R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: default
  pluginConfig:
  - name: DefaultEvictor
    args:
      podProtections:
        defaultDisabled: [PodsWithLocalStorage]
        extraEnabled: [PodsWithPVC]
  - name: RemoveDuplicates
  - name: RemovePodsHavingTooManyRestarts
    args: {includingInitContainers: true, podRestartThreshold: 100}
  - name: RemovePodsViolatingNodeAffinity
    args: {nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]}
  - name: RemovePodsViolatingNodeTaints
  - name: RemovePodsViolatingInterPodAntiAffinity
  - name: RemovePodsViolatingTopologySpreadConstraint
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20, memory: 20, pods: 20}
      targetThresholds: {cpu: 50, memory: 50, pods: 50}
  plugins:
    balance:
      enabled: [RemoveDuplicates, RemovePodsViolatingTopologySpreadConstraint, LowNodeUtilization]
    deschedule:
      enabled: [RemovePodsHavingTooManyRestarts, RemovePodsViolatingNodeTaints,
                RemovePodsViolatingNodeAffinity, RemovePodsViolatingInterPodAntiAffinity]
)";

int run_policy(const char* label, const char* text, const model::Snapshot& snapshot,
               const metrics::UsageMap& usage, const strategies::PlanOptions& options = {}) {
  policy::LoadResult loaded = policy::load_policy(text, label);
  if (!loaded.ok()) {
    for (const auto& e : loaded.errors) std::cerr << e.to_string() << "\n";
    return 1;
  }
  // Five runs, each on a fresh index as every controller cycle builds one (a warm node-rules
  // memo would flatter the figure); the median is the figure (a shared VM's runs vary by 30%).
  constexpr int kRuns = 5;
  std::vector<double> plan_times;
  for (int run = 0; run < kRuns; ++run) {
    auto start = Clock::now();
    placement::ClusterIndex index(snapshot, strategies::placement_options(*loaded.policy));
    double index_s = seconds_since(start);
    start = Clock::now();
    strategies::Plan plan = strategies::make_plan(index, usage, *loaded.policy, options);
    double plan_s = seconds_since(start);
    plan_times.push_back(plan_s);
    size_t over = 0, under = 0, unknown = 0;
    for (const auto& node : plan.nodes) {
      over += node.node_class == strategies::NodeClass::kOverutilized;
      under += node.node_class == strategies::NodeClass::kUnderutilized;
      unknown += node.node_class == strategies::NodeClass::kUnknown;
    }
    std::printf(
        "%s run %d: index %.3f s, plan %.3f s, %zu evictions, %zu skipped, %zu over, %zu under, "
        "%zu unknown nodes\n",
        label, run + 1, index_s, plan_s, plan.evictions.size(), plan.skipped.size(), over, under,
        unknown);
    if (run == 0) {
      std::map<std::string, size_t> by_strategy;
      for (const auto& e : plan.evictions) ++by_strategy[e.strategy];
      for (const auto& [strategy, count] : by_strategy) {
        std::printf("  %s: %zu evictions\n", strategy.c_str(), count);
      }
    }
  }
  std::sort(plan_times.begin(), plan_times.end());
  std::printf("%s: plan median %.3f s (min %.3f, max %.3f, %d runs)\n", label,
              plan_times[kRuns / 2], plan_times.front(), plan_times.back(), kRuns);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: bench_plan CLUSTER.json USAGE.json [INTER_POD_PERCENT]\n";
    return 2;
  }
  model::Snapshot snapshot;
  auto start = Clock::now();
  model::DecodeSummary summary = cli::read_snapshot_files({argv[1]}, &snapshot);
  if (!summary.ok()) {
    for (const auto& e : summary.errors) std::cerr << e.to_string() << "\n";
    return 1;
  }
  std::printf("decode: %zu nodes, %zu pods in %.3f s\n", snapshot.nodes.size(),
              snapshot.pods.size(), seconds_since(start));
  if (argc > 3) {
    const int percent = std::stoi(argv[3]);
    size_t pods = bench::add_inter_pod_rules(snapshot, percent);
    std::printf("inter-pod rules added to %zu pods (%d%% of the workloads)\n", pods, percent);
  }

  std::vector<metrics::NodeIdentity> nodes;
  for (const auto& node : snapshot.nodes) {
    nodes.push_back({node.meta.name, std::string(node.internal_ip())});
  }
  start = Clock::now();
  metrics::UsageMap usage;
  try {
    usage = metrics::FileSource(argv[2]).fetch(
        nodes, {.sustained_for_ms = {}, .pods = true, .metric_resource_query = {}});
  } catch (const metrics::UsageError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  std::printf("usage: %zu nodes known, %zu unknown, %zu pods in %.3f s\n", usage.nodes.size(),
              usage.unknown.size(), usage.pods.size(), seconds_since(start));

  if (run_policy("LoadAware", kLoadAwarePolicy, snapshot, usage) != 0) return 1;
  // The cost of landing prediction (issue 14): the same plan with the scheduler model off.
  strategies::PlanOptions no_prediction;
  no_prediction.predict_landing = false;
  if (run_policy("LoadAware without landing prediction", kLoadAwarePolicy, snapshot, usage,
                 no_prediction) != 0) {
    return 1;
  }
  if (run_policy("LowNodeUtilization", kLowNodeUtilizationPolicy, snapshot, usage) != 0) return 1;
  if (run_policy("Helm default", kHelmDefaultPolicy, snapshot, usage) != 0) return 1;
  std::printf("peak RSS: %.0f MiB\n", peak_rss_mib());
  return 0;
}

// A small harness for the deschedule plugins' tests: runs one plugin over a Snapshot through a
// real PlanContext and EvictionFilter, and gives the plan back as "pod->target" moves and skip
// reasons by pod name.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "policy/policy.h"
#include "strategies/evictability.h"
#include "strategies/plan_context.h"
#include "strategies/plugins.h"
#include "test/model/builders.h"

namespace loadshift::testing {

using namespace loadshift::placement;

// A pod of a ReplicaSet (bare pods are protected by DefaultEvictor), 1 GiB of memory.
inline Pod workload_pod(const std::string& name, int64_t cpu_milli, const std::string& node,
                        const std::string& ns = "apps") {
  Pod pod = make_pod(name, cpu_milli, int64_t{1} << 30, node);
  pod.meta.namespace_ = ns;
  pod.owners.edit().push_back({"apps/v1", "ReplicaSet", "rs-" + name, "uid-rs-" + name, true});
  return pod;
}

inline void set_usage(metrics::UsageMap& usage, const std::string& node, double cpu,
                      double memory) {
  metrics::NodeUsage u;
  u.cpu.percent = cpu;
  u.memory.percent = memory;
  usage.nodes[node] = u;
}

struct DescheduleSetup {
  Snapshot snapshot;
  metrics::UsageMap usage;
  policy::Policy policy;  // top-level limits and nodeSelector
  policy::DefaultEvictorArgs evictor;
  // Runs after the PlanContext is built, before the plugin (e.g. to classify nodes).
  std::function<void(strategies::PlanContext&)> prepare;
  // The plan's "now" (pod ages, minPodAge); the clock when unset.
  std::optional<std::chrono::system_clock::time_point> now;
};

struct DescheduleOutcome {
  strategies::Plan plan;
  std::vector<std::string> moves;              // "pod->target" ("pod->-" without target), in order
  std::map<std::string, std::string> skips;    // pod -> reason
  std::map<std::string, std::string> reasons;  // evicted pod -> reason
};

inline DescheduleOutcome run_deschedule(
    const DescheduleSetup& setup,
    const std::function<void(const strategies::ProfileScope&, strategies::PlanContext&)>& plugin) {
  placement::ClusterIndex index(setup.snapshot);
  DescheduleOutcome out;
  strategies::PlanOptions options;
  if (setup.now) options.now = *setup.now;
  strategies::PlanContext ctx(index, setup.usage, setup.policy, options, out.plan);
  strategies::EvictionFilter filter(index, setup.evictor, options.now);
  strategies::ProfileScope scope{"test", &filter, setup.evictor.node_fit,
                                 setup.evictor.node_selector};
  if (setup.prepare) setup.prepare(ctx);
  plugin(scope, ctx);
  for (const strategies::EvictionDecision& e : out.plan.evictions) {
    const std::string& pod = setup.snapshot.pods[e.pod].meta.name;
    out.moves.push_back(pod + "->" +
                        (e.target == placement::kNoNode
                             ? std::string("-")
                             : setup.snapshot.nodes[e.target].meta.name));
    out.reasons[pod] = e.reason;
  }
  for (const strategies::SkippedPod& s : out.plan.skipped) {
    out.skips[setup.snapshot.pods[s.pod].meta.name] = s.reason;
  }
  return out;
}

using Moves = std::vector<std::string>;

}  // namespace loadshift::testing

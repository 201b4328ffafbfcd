// Builders for strategy tests: owned pods, Volcano gangs, usage maps, and a PlanFixture that
// holds a Snapshot, its ClusterIndex and a PlanContext together (the index and the context refer
// to the snapshot, so fill the snapshot first, then call build()).
//
//   PlanFixture f;
//   f.snapshot.nodes = {make_node("n1"), make_node("n2")};
//   f.snapshot.pods = {owned_pod("a", "n1")};
//   f.usage = usage_of({{"n1", {90, 50}}, {"n2", {10, 10}}});
//   f.build();
//   f.ctx().evict(f.pod("a"), f.node("n2"), "p", "LoadAware", "why", nullptr);
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "policy/policy.h"
#include "strategies/evictability.h"
#include "strategies/plan.h"
#include "strategies/plan_context.h"
#include "test/model/builders.h"

namespace loadshift::testing {

using namespace loadshift::placement;

// A running pod of namespace `ns` owned (controller) by ReplicaSet `owner`, 1 GiB memory.
inline Pod owned_pod(const std::string& name, const std::string& node, int64_t cpu_milli = 500,
                     const std::string& owner = "web", const std::string& ns = "apps") {
  Pod pod = make_pod(name, cpu_milli, int64_t{1} << 30, node);
  pod.meta.namespace_ = ns;
  pod.meta.uid = "uid-" + ns + "-" + name;
  pod.owners.edit().push_back({"apps/v1", "ReplicaSet", owner, "uid-rs-" + ns + "-" + owner, true});
  return pod;
}

// A running pod of Volcano job `job` (namespace `ns`): the group-name annotation, the
// volcano.sh/job-name label and the vcjob as controller owner, as the vcjob controller sets them.
inline Pod gang_pod(const std::string& name, const std::string& node, const std::string& job,
                    const std::string& ns = "default", int64_t cpu_milli = 500) {
  Pod pod = make_pod(name, cpu_milli, int64_t{1} << 30, node);
  pod.meta.namespace_ = ns;
  pod.meta.uid = "uid-" + ns + "-" + name;
  pod.meta.annotations.set("scheduling.k8s.io/group-name", job);
  pod.meta.annotations.set("volcano.sh/job-name", job);
  pod.meta.labels.set("volcano.sh/job-name", job);
  pod.owners.edit().push_back(
      {"batch.volcano.sh/v1alpha1", "Job", job, "uid-vcjob-" + ns + "-" + job, true});
  return pod;
}

// A vcjob with minAvailable and, optionally, a job-level lifecycle policy (event -> action).
inline VolcanoJob volcano_job(const std::string& name, int32_t min_available,
                              const std::string& ns = "default", const std::string& event = "",
                              const std::string& action = "") {
  VolcanoJob job;
  job.meta.namespace_ = ns;
  job.meta.name = name;
  job.meta.uid = "uid-vcjob-" + ns + "-" + name;
  job.min_available = min_available;
  job.scheduler_name = "volcano";
  if (!action.empty()) job.policies.push_back(LifecyclePolicy{event, {}, action});
  return job;
}

// The PodGroup the vcjob controller makes for job `name` (same name, minMember).
inline PodGroup volcano_pod_group(const std::string& name, int32_t min_member,
                                  const std::string& ns = "default") {
  PodGroup group;
  group.meta.namespace_ = ns;
  group.meta.name = name;
  group.min_member = min_member;
  group.job_name = name;
  group.phase = "Running";
  return group;
}

// node -> {cpu %, memory %}; `unknown`: node -> why.
inline metrics::UsageMap usage_of(
    const std::vector<std::pair<std::string, std::pair<double, double>>>& nodes,
    const std::vector<std::pair<std::string, std::string>>& unknown = {}) {
  metrics::UsageMap usage;
  for (const auto& entry : nodes) {
    metrics::NodeUsage u;
    u.cpu.percent = entry.second.first;
    u.memory.percent = entry.second.second;
    usage.nodes[entry.first] = u;
  }
  for (const auto& entry : unknown) usage.unknown[entry.first] = entry.second;
  return usage;
}

// DefaultEvictor args with upstream's defaults (threshold 2000000000, default protections).
inline policy::DefaultEvictorArgs default_evictor() {
  policy::DefaultEvictorArgs args;
  args.priority_threshold.value = 2000000000;
  return args;
}

// A Snapshot, its index and one PlanContext over them.
struct PlanFixture {
  Snapshot snapshot;
  metrics::UsageMap usage;
  policy::Policy policy;
  strategies::PlanOptions options;
  placement::PlacementOptions placement;
  strategies::Plan plan;
  std::unique_ptr<placement::ClusterIndex> index;
  std::unique_ptr<strategies::PlanContext> context;

  PlanFixture() = default;
  PlanFixture(const PlanFixture&) = delete;
  PlanFixture& operator=(const PlanFixture&) = delete;

  // Builds the index and the context; call again after changing the snapshot (starts a new plan).
  void build() {
    context.reset();
    plan = strategies::Plan{};
    index = std::make_unique<placement::ClusterIndex>(snapshot, placement);
    context = std::make_unique<strategies::PlanContext>(*index, usage, policy, options, plan);
  }
  strategies::PlanContext& ctx() { return *context; }

  // The filter of `args` over this fixture's index, at options.now (build() first).
  strategies::EvictionFilter filter(const policy::DefaultEvictorArgs& args = default_evictor()) {
    return strategies::EvictionFilter(*index, args, options.now);
  }

  PodId pod(const std::string& name) const {
    for (PodId id = 0; id < snapshot.pods.size(); ++id) {
      if (snapshot.pods[id].meta.name == name) return id;
    }
    throw std::invalid_argument("no pod named " + name + " in the fixture");
  }
  NodeId node(const std::string& name) const {
    for (NodeId id = 0; id < snapshot.nodes.size(); ++id) {
      if (snapshot.nodes[id].meta.name == name) return id;
    }
    throw std::invalid_argument("no node named " + name + " in the fixture");
  }
  // The skip reason recorded for pod `name`, or "" when it has none.
  std::string skip_reason(const std::string& name) const {
    for (const strategies::SkippedPod& s : plan.skipped) {
      if (snapshot.pods[s.pod].meta.name == name) return s.reason;
    }
    return "";
  }
  std::optional<strategies::SkipCode> skip_code(const std::string& name) const {
    for (const strategies::SkippedPod& s : plan.skipped) {
      if (snapshot.pods[s.pod].meta.name == name) return s.code;
    }
    return std::nullopt;
  }
};

}  // namespace loadshift::testing

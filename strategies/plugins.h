// The plugins a profile can enable, each adding decisions to the plan through a PlanContext.
// Names are the policy's: LoadAware, LowNodeUtilization, HighNodeUtilization,
// RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints, PodLifeTime,
// RemovePodsHavingTooManyRestarts, RemoveFailedPods, RemoveDuplicates,
// RemovePodsViolatingInterPodAntiAffinity, RemovePodsViolatingTopologySpreadConstraint. Internal
// to strategies/.
#pragma once

#include "policy/policy.h"
#include "strategies/plan_context.h"

namespace loadshift::strategies {

// Balance: Volcano's LoadAware on real usage, with loadshift's pools, sustainedFor, weights and
// limits. docs/strategies.md describes each step; docs/report.md how the plan is shown.
void run_load_aware(const policy::LoadAwareArgs& args, const ProfileScope& scope, PlanContext& ctx);

// LoadAware's node classification alone (steps 1-2: scope, coverage, watermarks per pool,
// sustainedFor): fills ctx.node_state(n) class, watermarks and why for every node. make_plan()
// calls it before the deschedule plugins, so they never send a pod to a node LoadAware calls
// overutilized; run_load_aware() classifies again with the plan so far. Returns false (and adds
// a note) when coverage is below minNodeCoverage; the known nodes are classified either way.
bool classify_load_aware(const policy::LoadAwareArgs& args, PlanContext& ctx);

// Balance: kubernetes-sigs LowNodeUtilization / HighNodeUtilization (requests-based, or
// metricsUtilization from the UsageMap), with the placement core as nodeFit.
void run_low_node_utilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                              PlanContext& ctx);
void run_high_node_utilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                               PlanContext& ctx);

// Deschedule: pods whose node no longer satisfies their required node affinity, or (preferred) that
// have a strictly better preferred node that is not overutilized — "return home" from hybrid.
void run_node_affinity(const policy::NodeAffinityArgs& args, const ProfileScope& scope,
                       PlanContext& ctx);
// Deschedule: pods on nodes with NoSchedule taints they do not tolerate.
void run_node_taints(const policy::NodeTaintsArgs& args, const ProfileScope& scope,
                     PlanContext& ctx);

// Deschedule, by pod status (pod_status.cc says how each selects and orders): pods older than a
// lifetime, pods restarting too often, failed pods. Finished pods go without a target; running
// ones need one.
void run_pod_lifetime(const policy::PodLifeTimeArgs& args, const ProfileScope& scope,
                      PlanContext& ctx);
void run_too_many_restarts(const policy::TooManyRestartsArgs& args, const ProfileScope& scope,
                           PlanContext& ctx);
void run_failed_pods(const policy::FailedPodsArgs& args, const ProfileScope& scope,
                     PlanContext& ctx);

// Balance: copies of one workload (same owner, same images) on one node, spread over the nodes
// they may run on (duplicates.cc).
void run_remove_duplicates(const policy::RemoveDuplicatesArgs& args, const ProfileScope& scope,
                           PlanContext& ctx);

// Deschedule: pods whose own required anti-affinity selects another pod of their topology domain
// (inter_pod_anti_affinity.cc).
void run_inter_pod_anti_affinity(const policy::InterPodAntiAffinityArgs& args,
                                 const ProfileScope& scope, PlanContext& ctx);

// Balance: pods of topology domains over their spread constraint's maxSkew, moved towards the
// ideal average (topology_spread.cc).
void run_topology_spread(const policy::TopologySpreadArgs& args, const ProfileScope& scope,
                         PlanContext& ctx);

}  // namespace loadshift::strategies

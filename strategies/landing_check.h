// Landing check: before a balance plugin evicts a pod toward a cold target, where will the
// scheduler really put the replacement? The placement core proves the pod *may* run on the
// target; kube-scheduler, which ranks nodes by requests and not by real load, may prefer another
// node — the hot source itself, when it is the least requested (ping-pong). The scheduler model
// (placement/scheduler_model.h) predicts it on the cluster as the plan so far leaves it. Internal
// to strategies/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "strategies/predicted_usage.h"
#include "strategies/target_search.h"

namespace loadshift::strategies {

struct LandingVerdict {
  // Where the plan counts the replacement, and so the eviction's target: one of the acceptable
  // nodes the scheduler may pick (check_landing); kNoNode for a pod nothing recreates.
  // Meaningful when `problem` is empty.
  NodeId landing = placement::kNoNode;
  // Why the pod must stay, as a skip reason: "replacement would land back on te3: ...",
  // "replacement would land on hot te2: ...". Empty: the eviction may go ahead.
  std::string problem;
  // The chance when the scheduler may pick among several nodes ("; lands on te5 or te6 (2 of 3 top
  // nodes; 1 in 3 back on te3)"); else empty.
  std::string note;
  // The pod stays because its replacement may land back on `source` by the scores (not because a
  // DaemonSet recreates it there): the soft taint would change that.
  bool back_on_source = false;
};

// Whether check_landing() decides where `pod` lands (the scheduler model predicts it, or refuses
// the pod outright): then the plugin's own target search needs only one acceptable target, as a
// witness that the pod may move at all, not the best one.
bool landing_predicted(PlanContext& ctx, PodId pod);

// Checks every node the scheduler may pick for the replacement of `pod` (those tied at the top
// score, and for Volcano those within the model's known error: SchedulerModel::margin()), each as
// likely as the others. A node is an acceptable landing unless it is `source`, a node classed
// overutilized, a node the plugin did not measure and classify itself (`classified[node]` false:
// no usage data, no allocatable, out of scope), a node that `caps` would see pushed over its
// targetThresholds by `load`, or a node the pod's workload left within the cool-down. The pod
// moves when at least PlanOptions::min_landing_chance percent of them are acceptable ("lands on
// te5 or te6 (2 of 3 top nodes; 1 in 3 back on te3)"), counted on one of them: one of the plugin's
// own targets (`targets[node]`: underutilized, matching its nodeSelectors) when there is one, and
// among those the one the placement core scores best (TargetScore; ties to the earlier node of
// the snapshot). `witness` is a target the plugin's search accepted; the reasons compare its
// scores.
LandingVerdict check_landing(PlanContext& ctx, PodId pod, NodeId source, NodeId witness,
                             const PredictedUsage& predicted, const TargetCaps& caps,
                             const std::vector<bool>& classified, const std::vector<bool>& targets,
                             const PodAmounts& load);

}  // namespace loadshift::strategies

// One predicate per placement rule, as kube-scheduler's Filter plugins decide them.
//
// Every check returns true when the rule passes. On failure it returns false and, when `out` is
// not null, appends a Rejection whose reason a person can read. With `out` null the checks
// allocate nothing, which keeps the hot path (millions of checks per second) cheap.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "model/model.h"
#include "model/resources.h"
#include "placement/gpu.h"
#include "placement/verdict.h"

namespace loadshift::placement {

// Node Ready condition is True and the node is not being deleted.
bool check_node_ready(const model::Node& node, Reasons* out);

// The node is not cordoned, or the pod tolerates node.kubernetes.io/unschedulable:NoSchedule
// (as the NodeUnschedulable plugin allows).
bool check_node_schedulable(const model::Pod& pod, const model::Node& node, Reasons* out);

// What is already taken on a node: requests of its non-terminated pods (pods count included)
// plus what the plan reserved there.
struct NodeLoad {
  const model::ResourceList* requested = nullptr;
  const model::ResourceList* reserved = nullptr;
};

// NodeResourcesFit: for cpu, memory, ephemeral-storage and every extended resource the pod
// requests (> 0), request <= allocatable - requested - reserved; and one more pod fits under
// allocatable pods. Resources that a GPU scheduler extender manages on this node's stack are
// skipped, as kube-scheduler skips ignoredByScheduler resources.
bool check_resources(const model::ResourceList& pod_requests, const model::Node& node,
                     const NodeLoad& load, GpuStack node_stack, Reasons* out);

// True when `toleration` tolerates `taint` (key, operator Equal/Exists, value, effect).
bool tolerates(const model::Toleration& toleration, const model::Taint& taint);

// TaintToleration filter: every NoSchedule and NoExecute taint must be tolerated.
bool check_taints(const model::Pod& pod, const model::Node& node, Reasons* out);

// Number of PreferNoSchedule taints the pod does not tolerate (a score: fewer is better).
int32_t untolerated_prefer_no_schedule(const model::Pod& pod, const model::Node& node);

// spec.nodeSelector: every key=value must be a node label.
bool check_node_selector(const model::Pod& pod, const model::Node& node, Reasons* out);

// One requirement against a node's labels (In, NotIn, Exists, DoesNotExist, Gt, Lt; Gt/Lt
// compare integers and fail when either side is not one). A requirement the scheduler cannot
// parse (placement/node_selector_parsing.h: e.g. an In value that is not a valid label value)
// matches no node, so its whole term matches none, as in the scheduler.
bool requirement_matches(const model::NodeSelectorRequirement& requirement,
                         const model::StringMap& labels);
// The same for one label: `value` is the node's value of requirement.key, or nullptr if absent.
bool requirement_matches_value(const model::NodeSelectorRequirement& requirement,
                               const std::string* value);
// A term: all expressions and fields ANDed; matchFields knows metadata.name (In / NotIn with one
// value). An empty term matches nothing.
bool term_matches(const model::NodeSelectorTerm& term, const model::Node& node);

// Required node affinity: at least one term (ORed) matches. The reason names a term that can
// never match because it does not parse.
bool check_node_affinity(const model::Pod& pod, const model::Node& node, Reasons* out);

// Sum of the weights of the preferred node-affinity terms the node matches.
int64_t preferred_affinity_score(const model::Pod& pod, const model::Node& node);

// NodePorts: none of the pod's host ports is already used on the node (`used_ports` sorted).
bool check_host_ports(const model::Pod& pod, std::span<const int32_t> used_ports, Reasons* out);

}  // namespace loadshift::placement

// Turning the decoded answers of one fetch into a UsageMap (internal to metrics/; pure, so the
// tests check matching and value rules without HTTP).
//
// Rules: a node needs exactly one usable cpu series and exactly one usable memory series, else it
// is unknown with a reason naming the query and the problem (no series, duplicate series, NaN,
// +-Inf, a value outside 0..100). Values within kPercentSlack of the range (counter jitter makes
// `1 - idle rate` dip just below 0) are clamped into it. Sustained min/max and pod usage are
// extras: their problems are warnings and leave the value out. So is MetricResource (the
// metric_resource query, asked by LowNodeUtilization's source Prometheus): a value in 0..1 per
// known node, stored times 100; a missing, NaN, +-Inf or out-of-range sample leaves the node's
// metric_resource unset with a warning naming the node and the problem, and a failed query is one
// warning.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "metrics/node_matcher.h"
#include "metrics/prometheus_response.h"
#include "metrics/usage.h"

namespace loadshift::metrics {

inline constexpr double kPercentSlack = 0.5;

// One query of a fetch and what came of it.
struct QueryAnswer {
  std::string name;    // cpu, memory, cpu_min, ..., pod_memory, metric_resource
  std::string promql;  // as sent
  std::optional<InstantResult> result;  // empty: the query failed
  std::string failure;                  // why, when it failed
};

struct FetchAnswers {
  QueryAnswer cpu, memory;
  std::optional<QueryAnswer> cpu_min, cpu_max, memory_min, memory_max;  // sustainedFor asked
  std::optional<QueryAnswer> pod_cpu, pod_memory;                       // pod usage asked
  std::optional<QueryAnswer> metric_resource;  // UsageRequest::metric_resource_query asked
};

struct AssembledUsage {
  UsageMap usage;
  // (query, reason) once per problem kind per query, for loadshift_usage_query_errors_total.
  std::vector<std::pair<std::string, std::string>> errors;
};

// Why a node query's answer cannot be used for any node ("" when it can): the failure, or a
// scalar result (a scalar has no labels to match to nodes).
std::string node_query_problem(const QueryAnswer& answer, const std::string& node_label);

// Precondition: node_query_problem() is "" for answers.cpu and answers.memory.
// `evaluation_time` (unix seconds) gives the samples' age.
AssembledUsage assemble_usage(std::span<const NodeIdentity> nodes, const FetchAnswers& answers,
                              const NodeMatcher& matcher, double evaluation_time);

// A fetch that asked only for MetricResource (UsageRequest::node_usage false): a node is known
// when exactly one finite metric_resource sample in 0..1 matches it (NodeUsage::metric_resource
// = value * 100, cpu_memory_measured false), else unknown with the reason.
// Precondition: node_query_problem() is "" for `answer`.
AssembledUsage assemble_metric_only(std::span<const NodeIdentity> nodes, const QueryAnswer& answer,
                                    const NodeMatcher& matcher, double evaluation_time);

}  // namespace loadshift::metrics

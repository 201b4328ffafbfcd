// What the commands that plan from files (report, simulate) read first: the policy, the snapshot
// files, the node usage. Each function writes every problem to `err`, naming the flag or file.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "metrics/usage.h"
#include "model/model.h"
#include "placement/cluster_index.h"
#include "policy/policy.h"
#include "strategies/plan.h"
#include "usage/usage_sources.h"

namespace loadshift::cli {

// A duration flag: Go's syntax ("30s", "10m", "1h30m") or "0". False after writing to `err` what
// `flag` expected.
bool parse_flag_duration(const std::string& flag, const std::string& text,
                         std::chrono::milliseconds* out, std::ostream& err);

// The plan flags as overrides of the policy's `loadshift` section. False after writing to `err`
// what a flag expected (a duration in whole seconds, a count >= 0).
bool parse_plan_flags(const PlanFlags& flags, strategies::PlanOverrides* out, std::ostream& err);

// Loads the policy file; warnings go to `err`. Empty after writing its errors to `err`.
std::optional<policy::Policy> load_policy(const std::string& file, std::ostream& err);

// Reads the snapshot files into `snapshot`; false after writing the decode errors to `err`.
bool read_snapshot(const std::vector<std::string>& files, model::Snapshot* snapshot,
                   std::ostream& err);

// Fetches the usage of the snapshot's nodes from the source `flags` and the policy name. Without
// any source, a UsageMap that says so (usage_without_source). Empty after writing to `err` why
// the source could not answer.
std::optional<metrics::UsageMap> fetch_usage(const usage::UsageFlags& flags,
                                             const policy::Policy& policy,
                                             const model::Snapshot& snapshot, std::ostream& err);

// What `report` and `explain` plan from: the inputs read as ReportOptions say (policy, snapshot
// files or the live cluster, usage, --at, the plan flags) and the plan made on them. Not movable:
// the index refers to the snapshot.
struct PlannedCluster {
  policy::Policy policy;
  model::Snapshot snapshot;
  std::unique_ptr<placement::ClusterIndex> index;
  metrics::UsageMap usage;
  policy::PlanSettings settings;  // the policy's loadshift section with the flags over it
  // Live: the workloads' recent moves from loadshift's Events (the cool-down's memory); from
  // files: none.
  strategies::WorkloadMoves moves;
  strategies::PlanOptions options;
  strategies::Plan plan;
  PlannedCluster() = default;
  PlannedCluster(const PlannedCluster&) = delete;
  PlannedCluster& operator=(const PlannedCluster&) = delete;
};

// Reads the inputs and makes the plan (report_command.cc). False after writing to `err` every
// problem with the flags or the inputs, each naming the flag or file.
bool plan_cluster(const ReportOptions& options, PlannedCluster* cluster, std::ostream& err);

}  // namespace loadshift::cli

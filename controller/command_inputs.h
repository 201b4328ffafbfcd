// What the commands that plan from files (report, simulate) read first: the policy, the snapshot
// files, the node usage. Each function writes every problem to `err`, naming the flag or file.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "controller/commands.h"
#include "controller/usage_sources.h"
#include "metrics/usage.h"
#include "placement/model.h"
#include "policy/policy.h"
#include "strategies/plan.h"

namespace loadshift::controller {

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
bool read_snapshot(const std::vector<std::string>& files, placement::Snapshot* snapshot,
                   std::ostream& err);

// Fetches the usage of the snapshot's nodes from the source `flags` and the policy name. Without
// any source, a UsageMap that says so (usage_without_source). Empty after writing to `err` why
// the source could not answer.
std::optional<metrics::UsageMap> fetch_usage(const UsageFlags& flags, const policy::Policy& policy,
                                             const placement::Snapshot& snapshot,
                                             std::ostream& err);

}  // namespace loadshift::controller

// Watermarks: how the balance plugins (LoadAware, LowNodeUtilization, HighNodeUtilization) sort a
// node into underutilized / appropriate / overutilized from its usage per resource, and the words
// they use to say so. Pure functions over percentages. Internal to strategies/.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy.h"
#include "strategies/plan.h"

namespace loadshift::strategies {

using policy::Percentages;

// The watermarks one node is classified against, percent per resource.
struct Watermarks {
  Percentages low;   // thresholds: underutilized when every resource is at or under these
  Percentages high;  // targetThresholds: overutilized when any resource is over (empty: never)
};

// Deviation mode (useDeviationThresholds): low = mean - low, high = mean + high per resource,
// clamped to 0..100. A resource missing from `mean` has mean 0.
Watermarks around_mean(const Watermarks& deviation, const Percentages& mean);

// The mean per resource over `usages` (each resource over the usages that have it); empty when
// `usages` is.
Percentages mean_of(std::span<const Percentages* const> usages);

// The lowest and highest value a resource took over the sustain period (LoadAware sustainedFor).
struct SustainedRange {
  std::optional<double> min, max;
};
using SustainedUsage = std::map<std::string, SustainedRange, std::less<>>;

struct Classification {
  NodeClass node_class = NodeClass::kAppropriate;
  std::string why;  // "cpu 92.0% > 80%", "cpu 21.0% <= 30%, memory 10.0% <= 30%", ...
};

// Classifies a node whose usage is `usage` (percent; it must hold every resource of `w`, a
// missing one reads as 0).
//  - underutilized: `schedulable` and every resource of w.low at or under it;
//  - overutilized: some resource of w.high over it;
//  - appropriate otherwise.
// With `sustained` (sustainedFor, lasting `period` such as "15m"), a resource counts as over only
// when its lowest value over the period is over too, and as under only when its highest value is
// under too. Resources that `sustained` does not list (pods) need no history. A node that would
// be over or under but lacks the history is appropriate, its why starting "no sustained data".
Classification classify(const Percentages& usage, const Watermarks& w, bool schedulable,
                        const SustainedUsage* sustained = nullptr, std::string_view period = "");

// The resources of `high` that `usage` is over, each with how far (percentage points).
Percentages excess_over(const Percentages& usage, const Percentages& high);

// How loaded a node is against its high watermarks, for ordering sources: the sum over the
// resources of `high` of weight * usage / high (weight 1 for a resource `weights` lacks; a
// watermark under 1% counts as 1%). Normalised per resource, so bytes never outweigh cores.
double weighted_load(const Percentages& usage, const Percentages& high,
                     const std::map<std::string, double>& weights);

// "92.0%": a measured or predicted percentage.
std::string percent_text(double percent);
// "80%" or "82.5%": a configured percentage (no trailing ".0").
std::string setting_text(double percent);
// "1 node", "3 nodes".
std::string nodes_text(size_t count);
// The parts joined by `separator`: "a, b, c".
std::string join(const std::vector<std::string>& parts, std::string_view separator = ", ");

}  // namespace loadshift::strategies

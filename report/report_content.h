// The dry-run report's content: a Plan resolved into names and numbers (node, pool, pod names,
// percentages, watermarks, skip groups, summary counts), so the table, JSON and Markdown writers
// render the same facts the same way. Public through plan_view.h (what the controller keeps of
// a cycle); report.h is the face for one-shot writing.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "strategies/plan.h"

namespace loadshift::report {

// One resource of one node: usage now, predicted after the plan, and the node's watermarks.
struct ResourceCell {
  std::optional<double> before;  // percent; empty: unknown
  std::optional<double> after;   // percent; empty: unknown (after = before when the plan did not
                                 // predict a change but the usage is known)
  std::optional<double> low;     // thresholds (underutilized at or below)
  std::optional<double> high;    // targetThresholds (overutilized above)
};

struct NodeRow {
  std::string name;
  std::string pool;  // empty: the node has no usage-pool label
  strategies::NodeClass node_class = strategies::NodeClass::kUnknown;
  // What cpu and memory hold (usage or requested percent), or kMetric: the class came from
  // `metric` (LowNodeUtilization's MetricResource) and cpu and memory are empty.
  strategies::Figures figures = strategies::Figures::kUsage;
  ResourceCell cpu, memory;
  ResourceCell metric;  // before only (pods carry no MetricResource); empty unless kMetric
};

struct EvictionRow {
  std::string namespace_, pod, node;
  std::string target;  // empty: no target (a finished pod: nothing is placed)
  std::string strategy, reason;
  // Where the scheduler model predicts the replacement lands, when it differs from `target`.
  std::string landing = {};
};

struct SkipRow {
  std::string namespace_, pod, node;
  std::string strategy, reason;
};

// Skipped pods sharing the short phrase of their reason (the text before the first ": ").
struct SkipGroup {
  std::string phrase;
  std::vector<size_t> rows;  // indexes into ReportContent::skipped, in plan order
};

struct ReportSummary {
  size_t evictions = 0;
  size_t overutilized = 0, underutilized = 0, appropriate = 0, unknown = 0, unclassified = 0;
};

struct ReportContent {
  std::vector<NodeRow> nodes;  // snapshot order
  std::vector<EvictionRow> evictions;
  std::vector<SkipRow> skipped;
  std::vector<SkipGroup> skip_groups;  // largest group first, then by phrase
  // The plan's notes, how many pods no plugin looked at, then the usage source's warnings and why
  // each unknown node is unknown.
  std::vector<std::string> notes;
  ReportSummary summary;
  std::string usage_origin;  // UsageMap::origin, may be empty
  std::string at;            // the evaluation time as RFC 3339, may be empty
};

// Resolves `plan` (made over `index`) into names. `at` is shown as is.
ReportContent build_report_content(const placement::ClusterIndex& index,
                                   const strategies::Plan& plan, const metrics::UsageMap& usage,
                                   std::string at = {});

// "namespace excluded" for "namespace excluded: default is in evictableNamespaces.exclude"; the
// whole reason when it has no ": ".
std::string_view reason_phrase(std::string_view reason);
// The text after the first ": ", or empty.
std::string_view reason_detail(std::string_view reason);

// "3 evictions; 1 overutilized, 4 underutilized, 0 unknown nodes", then "; 8 unclassified" when
// some are.
std::string summary_line(const ReportSummary& summary);

// "92.0%", or "unknown" when empty.
std::string format_percent(const std::optional<double>& percent);

}  // namespace loadshift::report

// The dry-run report: a Plan written for a person (an aligned table, coloured only on a
// terminal), for a program (JSON, a stable contract documented in docs/report.md), for a pull
// request or wiki page (GitHub Markdown) or for a browser (one self-contained HTML page,
// report_html.h). All show the same content: the node table with usage before and after the plan,
// the evictions, the skipped pods grouped by reason, the notes and a summary line (JSON leaves out
// the notes: its keys are exactly the contract's).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "strategies/plan.h"

namespace loadshift::report {

enum class ReportFormat { kTable, kJson, kMarkdown, kHtml };

// "table" | "json" | "markdown" | "html" -> the format; anything else -> nullopt.
std::optional<ReportFormat> parse_report_format(std::string_view name);

struct ReportStyle {
  // ANSI colours in the table (the caller sets it only when stdout is a terminal). JSON and
  // Markdown never carry colours.
  bool colour = false;
  // The evaluation time to show in the table and Markdown headers (RFC 3339); empty: none.
  std::string at;
  // HTML: the program and version to name in the page ("loadshift 0.1.0"); empty: none.
  std::string generator = {};
};

// Writes the report of `plan` (made by strategies::make_plan over `index` and `usage`) to `out`.
void write_report(const placement::ClusterIndex& index, const strategies::Plan& plan,
                  const metrics::UsageMap& usage, ReportFormat format, const ReportStyle& style,
                  std::ostream& out);

// The JSON document of the contract:
//   {"nodes":[{"name","pool","cpu","memory","class","cpuAfter","memoryAfter","figures",
//              "metricResource"}],
//    "evictions":[{"namespace","pod","node","target","strategy","reason"}],
//    "skipped":[{"namespace","pod","node","strategy","reason"}],
//    "summary":{"evictions","overutilized","underutilized","unknown","unclassified"}}
// "figures" says what cpu and memory are (usage, requests; MetricResource: they are null and
// metricResource holds the figure).
// Keys in the contract's order. Percentages are numbers rounded to two decimals; an unknown one is
// null, as are a missing pool and a missing target.
nlohmann::ordered_json report_json(const placement::ClusterIndex& index,
                                   const strategies::Plan& plan);

}  // namespace loadshift::report

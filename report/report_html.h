// The report as one self-contained HTML page: no network, no external asset (a Content Security
// Policy forbids both), light and dark, printable, usable by keyboard. A node map grouped by usage
// pool and by HyperNode with each node coloured by usage before and after the plan and its
// watermarks, the evictions drawn from source to target (and predicted landing) and listed with
// their reasons, the skipped pods grouped by reason and filtered by namespace, node and strategy,
// the notes and the summary; a simulation adds its chart per cycle and every move, explain adds
// the pod's plugins, per-node verdicts and landing. The page draws itself from one JSON document
// embedded in it (page_data; docs/report.md#html), so it holds each fact once.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

#include "report/plan_view.h"

namespace loadshift::report {

struct HtmlPage {
  std::string title = "loadshift report";
  std::string generator;  // "loadshift 0.1.0"; empty: not shown
  std::string status;     // a line under the title (the controller: its cycle); empty: none
  // `loadshift simulate --output json`'s document with its "moves" and "watermarks", or null.
  nlohmann::ordered_json simulation = nullptr;
  // `loadshift explain --output json`'s document, or null.
  nlohmann::ordered_json explain = nullptr;
};

// The document the page draws: {"format": 1, "kind": "report" | "simulation" | "explain",
// "title", "generator", "status", "at", "usageOrigin", "report": the JSON contract
// (plan_view_json), "summaryLine" (the table's last line), "notes", "watermarkSets": [[cpu low, cpu high, memory low, memory high]]
// (percent or null), "nodeWatermarks": per node an index into watermarkSets, "domains": [{"name",
// "tier"}], "nodeDomains": per node indexes into domains, highest tier first, "simulation",
// "explain"}.
nlohmann::ordered_json page_data(const PlanView& view, const HtmlPage& page);

// Writes the page. Text from the cluster is data, never markup: the document is embedded with
// every '<' escaped and the script writes it into the page as text.
void write_report_html(const PlanView& view, const HtmlPage& page, std::ostream& out);

}  // namespace loadshift::report

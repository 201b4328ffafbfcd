#include "report/report.h"

#include <cmath>

#include "report/plan_view.h"
#include "report/report_html.h"
#include "report/report_writers.h"

namespace loadshift::report {
namespace {

nlohmann::ordered_json percent_json(const std::optional<double>& percent) {
  if (!percent || !std::isfinite(*percent)) return nullptr;
  return std::round(*percent * 100.0) / 100.0;
}

nlohmann::ordered_json name_or_null(const std::string& name) {
  if (name.empty()) return nullptr;
  return name;
}

}  // namespace

std::optional<ReportFormat> parse_report_format(std::string_view name) {
  if (name == "table") return ReportFormat::kTable;
  if (name == "json") return ReportFormat::kJson;
  if (name == "markdown") return ReportFormat::kMarkdown;
  if (name == "html") return ReportFormat::kHtml;
  return std::nullopt;
}

nlohmann::ordered_json report_content_json(const ReportContent& content) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
  for (const NodeRow& row : content.nodes) {
    nodes.push_back({{"name", row.name},
                     {"pool", name_or_null(row.pool)},
                     {"cpu", percent_json(row.cpu.before)},
                     {"memory", percent_json(row.memory.before)},
                     {"class", strategies::to_string(row.node_class)},
                     {"cpuAfter", percent_json(row.cpu.after)},
                     {"memoryAfter", percent_json(row.memory.after)},
                     {"figures", strategies::to_string(row.figures)},
                     {"metricResource", percent_json(row.metric.before)}});
  }
  nlohmann::ordered_json evictions = nlohmann::ordered_json::array();
  for (const EvictionRow& row : content.evictions) {
    evictions.push_back({{"namespace", row.namespace_},
                         {"pod", row.pod},
                         {"node", row.node},
                         {"target", name_or_null(row.target)},
                         {"landing", name_or_null(row.landing)},
                         {"strategy", row.strategy},
                         {"reason", row.reason}});
  }
  nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
  for (const SkipRow& row : content.skipped) {
    skipped.push_back({{"namespace", row.namespace_},
                       {"pod", row.pod},
                       {"node", name_or_null(row.node)},
                       {"strategy", row.strategy},
                       {"reason", row.reason}});
  }
  return {{"nodes", std::move(nodes)},
          {"evictions", std::move(evictions)},
          {"skipped", std::move(skipped)},
          {"summary",
           {{"evictions", content.summary.evictions},
            {"overutilized", content.summary.overutilized},
            {"underutilized", content.summary.underutilized},
            {"unknown", content.summary.unknown},
            {"unclassified", content.summary.unclassified}}}};
}

nlohmann::ordered_json report_json(const placement::ClusterIndex& index,
                                   const strategies::Plan& plan) {
  return report_content_json(build_report_content(index, plan, metrics::UsageMap{}));
}

void write_report(const placement::ClusterIndex& index, const strategies::Plan& plan,
                  const metrics::UsageMap& usage, ReportFormat format, const ReportStyle& style,
                  std::ostream& out) {
  if (format == ReportFormat::kHtml) {
    HtmlPage page;
    page.generator = style.generator;
    write_report_html(make_plan_view(index, plan, usage, style.at), page, out);
    return;
  }
  ReportContent content = build_report_content(index, plan, usage, style.at);
  switch (format) {
    case ReportFormat::kHtml:
      return;  // above
    case ReportFormat::kTable:
      write_report_table(content, style.colour, out);
      return;
    case ReportFormat::kMarkdown:
      write_report_markdown(content, out);
      return;
    case ReportFormat::kJson:
      // Inputs are checked for UTF-8 where they enter; replace rather than throw if one slips by.
      out << report_content_json(content).dump(2, ' ', false,
                                               nlohmann::json::error_handler_t::replace)
          << "\n";
      return;
  }
}

}  // namespace loadshift::report

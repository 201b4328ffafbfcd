// The report as GitHub-flavoured Markdown: the same sections as the table, every pod listed.
#include <string>

#include "report/report_writers.h"

namespace loadshift::report {
namespace {

// A table cell: `|` escaped, line breaks flattened, empty shown as "-".
std::string cell(std::string_view text) {
  if (text.empty()) return "-";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(std::string_view text) {
  return text.empty() ? "-" : "`" + cell(text) + "`";
}

std::string watermarks(const ResourceCell& c) {
  if (!c.low && !c.high) return "-";
  auto mark = [](const std::optional<double>& v) {
    return v ? format_percent(v) : std::string("-");
  };
  return mark(c.low) + " / " + mark(c.high);
}

void write_nodes(const ReportContent& content, std::ostream& out) {
  out << "## Nodes\n\n"
      << "| Node | Pool | Class | Figures | CPU | CPU after | Memory | Memory after | "
         "MetricResource | Watermarks cpu | Watermarks memory | Watermarks MetricResource |\n"
      << "|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n";
  for (const NodeRow& row : content.nodes) {
    out << "| " << cell(row.name) << " | " << cell(row.pool) << " | "
        << strategies::to_string(row.node_class) << " | " << strategies::to_string(row.figures)
        << " | " << format_percent(row.cpu.before) << " | " << format_percent(row.cpu.after)
        << " | " << format_percent(row.memory.before) << " | " << format_percent(row.memory.after)
        << " | " << format_percent(row.metric.before) << " | " << watermarks(row.cpu) << " | "
        << watermarks(row.memory) << " | " << watermarks(row.metric) << " |\n";
  }
  out << "\nFigures say what the percentages are: real usage, requested percent of allocatable, "
         "or LowNodeUtilization's MetricResource. Watermarks are thresholds / targetThresholds: "
         "underutilized at or below the first, overutilized above the second.\n";
}

void write_evictions(const ReportContent& content, std::ostream& out) {
  out << "\n## Evictions (" << content.evictions.size() << ")\n\n";
  if (content.evictions.empty()) {
    out << "None.\n";
    return;
  }
  out << "| Pod | From | To | Strategy | Reason |\n|---|---|---|---|---|\n";
  for (const EvictionRow& row : content.evictions) {
    out << "| " << code(row.namespace_ + "/" + row.pod) << " | " << cell(row.node) << " | "
        << (row.target.empty() ? std::string("(no target)") : cell(row.target))
        << (row.landing.empty() ? std::string() : " (scheduler: " + cell(row.landing) + ")")
        << " | " << cell(row.strategy) << " | " << cell(row.reason) << " |\n";
  }
}

void write_skipped(const ReportContent& content, std::ostream& out) {
  out << "\n## Skipped pods (" << content.skipped.size() << ")\n";
  if (content.skipped.empty()) {
    out << "\nNone.\n";
    return;
  }
  for (const SkipGroup& group : content.skip_groups) {
    out << "\n### " << cell(group.phrase) << " (" << group.rows.size() << ")\n\n"
        << "| Pod | Node | Strategy | Detail |\n|---|---|---|---|\n";
    for (size_t i : group.rows) {
      const SkipRow& row = content.skipped[i];
      out << "| " << code(row.namespace_ + "/" + row.pod) << " | " << cell(row.node) << " | "
          << cell(row.strategy) << " | " << cell(reason_detail(row.reason)) << " |\n";
    }
  }
}

}  // namespace

void write_report_markdown(const ReportContent& content, std::ostream& out) {
  out << "# loadshift dry-run report\n\n";
  if (!content.at.empty()) out << "Evaluated at " << content.at << ".";
  if (!content.usage_origin.empty()) {
    out << (content.at.empty() ? "" : " ") << "Usage: " << cell(content.usage_origin) << ".";
  }
  if (!content.at.empty() || !content.usage_origin.empty()) out << "\n\n";
  out << "**" << summary_line(content.summary) << "**\n\n";
  write_nodes(content, out);
  write_evictions(content, out);
  write_skipped(content, out);
  if (!content.notes.empty()) {
    out << "\n## Notes\n\n";
    for (const std::string& note : content.notes) out << "- " << cell(note) << "\n";
  }
}

}  // namespace loadshift::report

// The table, Markdown and JSON renderings of a ReportContent. Internal to report/; report.h is
// the public face.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "report/report_content.h"

namespace loadshift::report {

// Aligned text for a terminal, within 100 columns for short node names; ANSI colours only when
// `colour` is set.
void write_report_table(const ReportContent& content, bool colour, std::ostream& out);

// GitHub-flavoured Markdown: headings, tables (cells escaped), the summary in bold.
void write_report_markdown(const ReportContent& content, std::ostream& out);

// The JSON contract of report.h.
nlohmann::ordered_json report_content_json(const ReportContent& content);

}  // namespace loadshift::report

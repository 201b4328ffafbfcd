// The HTML page's template, stylesheet and script (report/html/), compiled in by CMake from the
// files (generated/report/html_assets.cc in the build tree). Internal to report/.
#pragma once

#include <string_view>

namespace loadshift::report {

// report/html/report.html: holds the markers /*@CSS@*/, /*@DATA@*/ and /*@JS@*/ once each.
extern const std::string_view kReportHtmlTemplate;
extern const std::string_view kReportCss;  // report/html/report.css
extern const std::string_view kReportJs;   // report/html/report.js

}  // namespace loadshift::report

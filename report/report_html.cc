#include "report/report_html.h"

#include <cmath>
#include <map>
#include <optional>

#include <openssl/evp.h>

#include "report/html_assets.h"
#include "report/report_writers.h"

namespace loadshift::report {
namespace {

nlohmann::ordered_json percent_or_null(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return std::round(*v * 100.0) / 100.0;
}

// The watermarks of each node (cpu, memory and MetricResource, low and high), as a table of the
// distinct sets and an index per node (a policy has a handful of sets; 5,000 nodes repeat them).
// Sets are told apart by what the page shows: the rounded figures, a missing or non-finite one as
// null.
void add_watermarks(const ReportContent& content, nlohmann::ordered_json* data) {
  std::map<std::string, size_t> index;
  nlohmann::ordered_json sets = nlohmann::ordered_json::array();
  nlohmann::ordered_json per_node = nlohmann::ordered_json::array();
  for (const NodeRow& row : content.nodes) {
    nlohmann::ordered_json set = {
        percent_or_null(row.cpu.low),    percent_or_null(row.cpu.high),
        percent_or_null(row.memory.low), percent_or_null(row.memory.high),
        percent_or_null(row.metric.low), percent_or_null(row.metric.high)};
    auto [it, added] = index.emplace(set.dump(), sets.size());
    if (added) sets.push_back(std::move(set));
    per_node.push_back(it->second);
  }
  (*data)["watermarkSets"] = std::move(sets);
  (*data)["nodeWatermarks"] = std::move(per_node);
}

// The script's hash as a Content Security Policy source ("sha256-" and the base64 digest): the
// page runs that script and no other, whatever text ended up in it.
std::string script_hash_source(std::string_view script) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(script.data(), script.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    return "none";  // (quoted by the template) no script runs: the noscript text says why
  }
  std::string base64(4 * ((length + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(base64.data()), digest,
                                      static_cast<int>(length));
  base64.resize(static_cast<size_t>(written));
  return "sha256-" + base64;
}

// Replaces `marker` (once) in `text` by `with`.
void put(std::string* text, std::string_view marker, std::string_view with) {
  const size_t at = text->find(marker);
  if (at != std::string::npos) text->replace(at, marker.size(), with);
}

}  // namespace

nlohmann::ordered_json page_data(const PlanView& view, const HtmlPage& page) {
  const ReportContent& content = view.content;
  nlohmann::ordered_json data;
  data["format"] = 1;
  data["kind"] = !page.explain.is_null()      ? "explain"
                 : !page.simulation.is_null() ? "simulation"
                                              : "report";
  data["title"] = page.title;
  data["generator"] = page.generator;
  data["status"] = page.status;
  data["at"] = content.at;
  data["usageOrigin"] = content.usage_origin;
  data["report"] = report_content_json(content);
  data["summaryLine"] = summary_line(content.summary);  // the table's last line, word for word
  data["notes"] = content.notes;
  add_watermarks(content, &data);
  nlohmann::ordered_json domains = nlohmann::ordered_json::array();
  for (const TopologyDomain& d : view.domains)
    domains.push_back({{"name", d.name}, {"tier", d.tier}});
  data["domains"] = std::move(domains);
  data["nodeDomains"] = view.node_domains;
  data["simulation"] = page.simulation;
  data["explain"] = page.explain;
  return data;
}

void write_report_html(const PlanView& view, const HtmlPage& page, std::ostream& out) {
  // Inputs are checked for UTF-8 where they enter; replace rather than throw if one slips by.
  const std::string json =
      page_data(view, page).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // '<' only occurs inside JSON strings: as \u003c it cannot end the script element.
  std::string data;
  data.reserve(json.size() + json.size() / 64);
  for (char c : json) {
    if (c == '<') {
      data += "\\u003c";
    } else {
      data += c;
    }
  }
  static const std::string script_source = script_hash_source(kReportJs);
  std::string html(kReportHtmlTemplate);
  put(&html, "/*@SCRIPT_HASH@*/", script_source);
  put(&html, "/*@CSS@*/", kReportCss);
  put(&html, "/*@JS@*/", kReportJs);
  // Last: the data could hold the other markers' text.
  put(&html, "/*@DATA@*/", data);
  out << html;
}

}  // namespace loadshift::report

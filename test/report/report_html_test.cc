// The HTML report (report/report_html.h): one self-contained page holding the plan's document
// once; text from the cluster can never become markup; the document says what the page draws.
// (What the page shows in a browser: test/report/html_report_test.mjs.)
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "model/decode.h"
#include "report/html_assets.h"
#include "report/plan_view.h"
#include "report/report.h"
#include "report/report_html.h"
#include "report_fixture.h"

using namespace loadshift;
using namespace loadshift::report;
using loadshift::testing::ReportFixture;

namespace {

std::string render(const PlanView& view, const HtmlPage& page = {}) {
  std::ostringstream out;
  write_report_html(view, page, out);
  return out.str();
}

// The text of the page's <script id="loadshift-data">.
std::string embedded(const std::string& html) {
  const std::string open = R"(<script type="application/json" id="loadshift-data">)";
  const size_t from = html.find(open);
  const size_t to = html.find("</script>", from);
  REQUIRE(from != std::string::npos);
  REQUIRE(to != std::string::npos);
  return html.substr(from + open.size(), to - from - open.size());
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("report html: the assets fit the template", "[report][html]") {
  const std::string html(kReportHtmlTemplate);
  for (const char* marker : {"/*@CSS@*/", "/*@JS@*/", "/*@DATA@*/"}) {
    INFO(marker);
    CHECK(count(html, marker) == 1);
  }
  // The script and the stylesheet are inlined: neither may end its element early.
  CHECK(std::string(kReportJs).find("</script") == std::string::npos);
  CHECK(std::string(kReportCss).find("</style") == std::string::npos);
  // No network: a Content Security Policy that allows nothing but the inline parts, and of
  // scripts only the page's own (by its hash).
  CHECK(html.find("default-src 'none'") != std::string::npos);
  CHECK(html.find("script-src '/*@SCRIPT_HASH@*/'") != std::string::npos);
  CHECK(html.find("<script>/*@JS@*/</script>") != std::string::npos);
}

TEST_CASE("report html: one page, the document embedded once and equal to page_data",
          "[report][html]") {
  ReportFixture f;
  metrics::UsageMap usage;
  usage.origin = "file usage.json";
  PlanView view = make_plan_view(*f.index, f.plan, usage, "2026-11-22T04:00:00Z");
  HtmlPage page;
  page.generator = "loadshift 9.9.9";
  const std::string html = render(view, page);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("/*@") == std::string::npos);  // every marker replaced
  CHECK(html.find("'unsafe-inline'; img-src") == std::string::npos);
  CHECK(html.find("script-src 'sha256-") != std::string::npos);
  CHECK(count(html, "id=\"loadshift-data\"") == 1);
  nlohmann::ordered_json data = nlohmann::ordered_json::parse(embedded(html));
  CHECK(data == page_data(view, page));
  CHECK(data["format"] == 1);
  CHECK(data["kind"] == "report");
  CHECK(data["generator"] == "loadshift 9.9.9");
  CHECK(data["at"] == "2026-11-22T04:00:00Z");
  CHECK(data["usageOrigin"] == "file usage.json");
  CHECK(data["summaryLine"] == "2 evictions; 1 overutilized, 1 underutilized, 1 unknown node");
  // The contract, as `report --output json` prints it.
  CHECK(data["report"] == report_json(*f.index, f.plan));
  CHECK(data["report"]["evictions"].size() == 2);
  CHECK(data["report"]["skipped"][0]["strategy"] == "LoadAware");
  CHECK(data["notes"][0] == "LoadAware: n1 is still over its targetThresholds after the plan");
  // n1 and n2 share their watermarks, n3 has none: two sets.
  REQUIRE(data["watermarkSets"].size() == 2);
  CHECK(data["nodeWatermarks"] == nlohmann::ordered_json::array({0, 0, 1}));
  CHECK(data["watermarkSets"][0] ==
        nlohmann::ordered_json::array({30, 80, 30, 85, nullptr, nullptr}));
  CHECK(data["watermarkSets"][1] ==
        nlohmann::ordered_json::array({nullptr, nullptr, nullptr, nullptr, nullptr, nullptr}));
  CHECK(data["domains"].empty());  // no HyperNodes
  CHECK(data["simulation"].is_null());
  CHECK(data["explain"].is_null());

  page.explain = {{"pod", "load-test/web-1"}};
  CHECK(page_data(view, page)["kind"] == "explain");
  page.explain = nullptr;
  page.simulation = {{"cycles", 3}};
  CHECK(page_data(view, page)["kind"] == "simulation");
}

TEST_CASE("report html: text from the cluster stays text", "[report][html]") {
  ReportFixture f;
  f.plan.evictions[0].reason = "</script><script>alert(1)</script> <!-- & \"quoted\"";
  f.plan.notes.push_back("</SCRIPT ><img src=x onerror=alert(2)>");
  PlanView view = make_plan_view(*f.index, f.plan, metrics::UsageMap{}, "");
  const std::string html = render(view);
  CHECK(html.find("alert(1)</script>") == std::string::npos);
  CHECK(html.find("<img src=x") == std::string::npos);
  CHECK(html.find("<!-- &") == std::string::npos);
  // The script element ends where the page means it to: the document parses, and its strings
  // are the original text.
  nlohmann::json data = nlohmann::json::parse(embedded(html));
  CHECK(data["report"]["evictions"][0]["reason"] == f.plan.evictions[0].reason);
  CHECK(data["notes"].back() == "</SCRIPT ><img src=x onerror=alert(2)>");
}

TEST_CASE("report html: each node's HyperNodes, highest tier first, one per tier",
          "[report][html]") {
  model::Snapshot snapshot;
  model::DecodeSummary summary = model::decode_yaml(R"(
apiVersion: v1
kind: Node
metadata: {name: a}
---
apiVersion: v1
kind: Node
metadata: {name: b}
---
apiVersion: v1
kind: Node
metadata: {name: c}
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: rack-1}
spec:
  tier: 1
  members: [{type: Node, selector: {exactMatch: {name: a}}}, {type: Node, selector: {exactMatch: {name: b}}}]
---
apiVersion: topology.volcano.sh/v1alpha1
kind: HyperNode
metadata: {name: spine-1}
spec:
  tier: 2
  members: [{type: HyperNode, selector: {exactMatch: {name: rack-1}}}]
)",
                                                    &snapshot);
  REQUIRE(summary.ok());
  placement::ClusterIndex index(snapshot);
  strategies::Plan plan;
  for (placement::NodeId n = 0; n < 3; ++n) {
    strategies::NodeState s;
    s.node = n;
    plan.nodes.push_back(s);
  }
  PlanView view = make_plan_view(index, plan, metrics::UsageMap{}, "");
  REQUIRE(view.domains.size() == 2);
  auto names = [&](placement::NodeId node) {
    std::vector<std::string> out;
    for (uint32_t d : view.node_domains[node]) out.push_back(view.domains[d].name);
    return out;
  };
  CHECK(names(0) == std::vector<std::string>{"spine-1", "rack-1"});
  CHECK(names(1) == std::vector<std::string>{"spine-1", "rack-1"});
  CHECK(names(2).empty());  // only under Volcano's virtual root, which is not shown
  nlohmann::ordered_json data = page_data(view, HtmlPage{});
  CHECK(data["domains"][1]["tier"] == 2);
}

TEST_CASE("report html: watermark sets are told apart by what is shown; a NaN one is null",
          "[report][html]") {
  ReportFixture f;
  f.plan.nodes[2].thresholds = {{"cpu", std::nan("")}};
  f.plan.nodes[2].target_thresholds = {{"cpu", 80.001}};  // shown as 80, as n1's
  PlanView view = make_plan_view(*f.index, f.plan, metrics::UsageMap{}, "");
  nlohmann::ordered_json data = page_data(view, HtmlPage{});
  REQUIRE(data["watermarkSets"].size() == 2);
  CHECK(data["watermarkSets"][1] ==
        nlohmann::ordered_json::array({nullptr, 80, nullptr, nullptr, nullptr, nullptr}));
  CHECK(data["nodeWatermarks"] == nlohmann::ordered_json::array({0, 0, 1}));
}

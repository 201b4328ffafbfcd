// The report writers on a hand-built Plan: the JSON contract, the table's bars and grouping, no
// ANSI without a terminal, the Markdown tables.
#include <catch2/catch.hpp>

#include <sstream>

#include "report/report.h"
#include "report/report_content.h"
#include "report/report_writers.h"
#include "report_fixture.h"

using namespace loadshift::report;
using loadshift::testing::ReportFixture;

namespace {

std::string render(const ReportFixture& f, ReportFormat format, bool colour = false) {
  loadshift::metrics::UsageMap usage;
  usage.origin = "file usage.json";
  usage.unknown.emplace("n3", "not in usage.json");
  usage.warnings.push_back("usage.json names node n9, which is not in the snapshot");
  std::ostringstream out;
  write_report(*f.index, f.plan, usage, format, ReportStyle{colour, "2026-11-22T04:00:00Z"}, out);
  return out.str();
}

std::vector<std::string> keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> names;
  for (const auto& item : object.items()) names.push_back(item.key());
  return names;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("report json: exactly the contract's keys, in its order", "[report]") {
  ReportFixture f;
  nlohmann::ordered_json doc = report_json(*f.index, f.plan);
  CHECK(keys(doc) == Names{"nodes", "evictions", "skipped", "summary"});
  REQUIRE(doc["nodes"].size() == 3);
  for (const auto& node : doc["nodes"]) {
    CHECK(keys(node) == Names{"name", "pool", "cpu", "memory", "class", "cpuAfter", "memoryAfter",
                              "figures", "metricResource"});
  }
  REQUIRE(doc["evictions"].size() == 2);
  for (const auto& e : doc["evictions"]) {
    CHECK(keys(e) == Names{"namespace", "pod", "node", "target", "landing", "strategy", "reason"});
  }
  REQUIRE(doc["skipped"].size() == 3);
  for (const auto& s : doc["skipped"]) {
    CHECK(keys(s) == Names{"namespace", "pod", "node", "strategy", "reason"});
  }
  CHECK(keys(doc["summary"]) ==
        Names{"evictions", "overutilized", "underutilized", "unknown", "unclassified"});
}

TEST_CASE("report json: values, nulls for unknown usage, no pool and no target", "[report]") {
  ReportFixture f;
  nlohmann::ordered_json doc = report_json(*f.index, f.plan);
  const auto& n1 = doc["nodes"][0];
  CHECK(n1["name"] == "n1");
  CHECK(n1["pool"] == "training");
  CHECK(n1["class"] == "overutilized");
  CHECK(n1["cpu"] == 92.0);
  CHECK(n1["cpuAfter"] == 61.0);
  CHECK(n1["memory"] == 70.0);
  CHECK(n1["memoryAfter"] == 65.0);  // rounded to two decimals
  CHECK(doc["nodes"][1]["class"] == "underutilized");
  const auto& n3 = doc["nodes"][2];
  CHECK(n3["class"] == "unknown");
  CHECK(n3["pool"].is_null());
  CHECK(n3["cpu"].is_null());
  CHECK(n3["memory"].is_null());
  CHECK(n3["cpuAfter"].is_null());
  CHECK(n3["memoryAfter"].is_null());

  const auto& e0 = doc["evictions"][0];
  CHECK(e0["namespace"] == "load-test");
  CHECK(e0["pod"] == "web-1");
  CHECK(e0["node"] == "n1");
  CHECK(e0["target"] == "n2");
  CHECK(e0["strategy"] == "LoadAware");
  CHECK(e0["reason"] == f.plan.evictions[0].reason);
  CHECK(doc["evictions"][1]["target"].is_null());

  CHECK(doc["skipped"][0]["pod"] == "job-0");
  CHECK(doc["skipped"][0]["node"] == "n1");
  CHECK(doc["skipped"][0]["reason"] ==
        "namespace excluded: default is in evictableNamespaces.exclude");
  CHECK(doc["summary"] == nlohmann::ordered_json{{"evictions", 2},
                                                 {"overutilized", 1},
                                                 {"underutilized", 1},
                                                 {"unknown", 1},
                                                 {"unclassified", 0}});
}

TEST_CASE("report json: the written document parses and equals report_json", "[report]") {
  ReportFixture f;
  nlohmann::ordered_json written = nlohmann::ordered_json::parse(render(f, ReportFormat::kJson));
  CHECK(written == report_json(*f.index, f.plan));
}

TEST_CASE("report table: bars show before -> after against the watermarks", "[report]") {
  ReportFixture f;
  std::string text = render(f, ReportFormat::kTable);
  // n1 cpu 92 -> 61: 6 cells kept, 3 moved away, watermarks after cells 3 (30%) and 8 (80%).
  CHECK_THAT(text, Catch::Contains("92.0% -> 61.0% [###|###--|-.]"));
  // memory 70 -> 65: 7 cells before and after (65.004 rounds up); watermark 85% after cell 9.
  CHECK_THAT(text, Catch::Contains("70.0% -> 65.0% [###|####..|.]"));
  // n2 cpu 20 -> 31: one cell moved in; memory unchanged shows one number.
  CHECK_THAT(text, Catch::Contains("20.0% -> 31.0% [##+|.....|..]"));
  CHECK_THAT(text, Catch::Contains("25.0%          [###|......|.]"));
  CHECK_THAT(text, Catch::Contains("  n3    -          unknown        unknown"));
  CHECK_THAT(text, Catch::Contains("n1    training   overutilized"));
  CHECK_THAT(text, Catch::Contains("at 2026-11-22T04:00:00Z; usage: file usage.json"));
}

TEST_CASE("report table: evictions, skips grouped by phrase, notes, summary", "[report]") {
  ReportFixture f;
  std::string text = render(f, ReportFormat::kTable);
  CHECK_THAT(text, Catch::Contains("Evictions (2)"));
  CHECK_THAT(text, Catch::Contains("load-test/web-1  n1 -> n2           LoadAware"));
  CHECK_THAT(text,
             Catch::Contains("apps/tainted     n3 -> (no target)  RemovePodsViolatingNodeTaints"));
  CHECK_THAT(text, Catch::Contains("      " + f.plan.evictions[0].reason));

  // The larger group first, with its count; each pod under its group with node and detail.
  size_t excluded = text.find("  namespace excluded (2)\n");
  size_t ownerless = text.find("  ownerless pod (1)\n");
  REQUIRE(excluded != std::string::npos);
  REQUIRE(ownerless != std::string::npos);
  CHECK(excluded < ownerless);
  size_t job0 = text.find("    default/job-0  n1  default is in evictableNamespaces.exclude\n");
  size_t job1 = text.find("    default/job-1  n2  default is in evictableNamespaces.exclude\n");
  size_t bare = text.find("    load-test/bare  n1  no ownerReferences\n");
  CHECK((excluded < job0 && job0 < ownerless));
  CHECK((excluded < job1 && job1 < ownerless));
  CHECK(ownerless < bare);
  CHECK(bare != std::string::npos);

  CHECK_THAT(text, Catch::Contains("Notes\n  - LoadAware: n1 is still over"));
  CHECK(text.find("not candidates") == std::string::npos);  // the plan lists all five pods
  CHECK_THAT(
      text, Catch::Contains("  - usage: usage.json names node n9, which is not in the snapshot\n"));
  CHECK_THAT(text, Catch::Contains("  - usage: 1 node has no usage data (not in usage.json); "
                                   "plugins that read usage use it neither as source nor as "
                                   "target: n3\n"));
  CHECK_THAT(text,
             Catch::EndsWith("\n2 evictions; 1 overutilized, 1 underutilized, 1 unknown node\n"));
}

TEST_CASE("report table: ANSI colours only when asked (stdout a terminal)", "[report]") {
  ReportFixture f;
  std::string plain = render(f, ReportFormat::kTable, false);
  CHECK(plain.find('\x1b') == std::string::npos);
  std::string coloured = render(f, ReportFormat::kTable, true);
  CHECK_THAT(coloured, Catch::Contains("\x1b[31moverutilized\x1b[0m"));
  CHECK_THAT(coloured, Catch::Contains("\x1b[32munderutilized\x1b[0m"));
  // Colours do not move the columns: without the escape codes the text is the plain one.
  std::string stripped;
  for (size_t i = 0; i < coloured.size(); ++i) {
    if (coloured[i] == '\x1b') {
      i = coloured.find('m', i);
      continue;
    }
    stripped += coloured[i];
  }
  CHECK(stripped == plain);
  // JSON and Markdown never carry colours.
  CHECK(render(f, ReportFormat::kJson, true).find('\x1b') == std::string::npos);
  CHECK(render(f, ReportFormat::kMarkdown, true).find('\x1b') == std::string::npos);
}

TEST_CASE("report table: lines fit in 100 columns for short names", "[report]") {
  ReportFixture f;
  std::istringstream lines(render(f, ReportFormat::kTable));
  std::string line;
  bool in_nodes = false;
  while (std::getline(lines, line)) {
    if (line.rfind("Nodes", 0) == 0) in_nodes = true;
    if (line.rfind("Evictions", 0) == 0) in_nodes = false;
    if (in_nodes) CHECK(line.size() <= 100);
  }
}

TEST_CASE("report table: an empty plan says none and still summarizes", "[report]") {
  ReportFixture f;
  f.plan.evictions.clear();
  f.plan.skipped.clear();
  f.plan.notes.clear();
  std::ostringstream out;
  write_report(*f.index, f.plan, {}, ReportFormat::kTable, {}, out);
  CHECK_THAT(out.str(), Catch::Contains("Evictions (0)\n  none\n"));
  CHECK_THAT(out.str(), Catch::Contains("Skipped pods (0), by reason\n  none\n"));
  // Every pod of the snapshot is accounted for: those the plan does not list are counted.
  CHECK_THAT(out.str(),
             Catch::Contains("Notes\n  - 5 other pods were not candidates of any plugin and stay "
                             "where they are\n"));
  CHECK_THAT(out.str(), Catch::EndsWith("0 evictions; 1 overutilized, 1 underutilized, 1 unknown "
                                        "node\n"));
}

TEST_CASE("report markdown: tables, escaped cells, groups, summary", "[report]") {
  ReportFixture f;
  std::string md = render(f, ReportFormat::kMarkdown);
  CHECK_THAT(md, Catch::StartsWith("# loadshift dry-run report\n"));
  CHECK_THAT(md,
             Catch::Contains("**2 evictions; 1 overutilized, 1 underutilized, 1 unknown node**"));
  CHECK_THAT(md, Catch::Contains("| Node | Pool | Class | Figures | CPU | CPU after | Memory | "
                                 "Memory after | MetricResource |"));
  CHECK_THAT(md, Catch::Contains("| n1 | training | overutilized | usage | 92.0% | 61.0% | 70.0% | "
                                 "65.0% | unknown | 30.0% / 80.0% | 30.0% / 85.0% | - |"));
  CHECK_THAT(md, Catch::Contains("| n3 | - | unknown | usage | unknown | unknown | unknown | "
                                 "unknown | unknown | - | - | - |"));
  CHECK_THAT(md, Catch::Contains("## Evictions (2)"));
  CHECK_THAT(md, Catch::Contains("| `load-test/web-1` | n1 | n2 | LoadAware |"));
  // A `|` in a reason is escaped so the row keeps its cells.
  CHECK_THAT(md, Catch::Contains("n3 has taint a=b:NoSchedule \\| not tolerated |"));
  CHECK_THAT(md, Catch::Contains("### namespace excluded (2)"));
  CHECK_THAT(md, Catch::Contains("| `default/job-1` | n2 | LoadAware | default is in "
                                 "evictableNamespaces.exclude |"));
  CHECK_THAT(md, Catch::Contains("### ownerless pod (1)"));
  CHECK_THAT(md, Catch::Contains("## Notes\n\n- LoadAware: n1 is still over"));
}

TEST_CASE("report content: reason phrase and detail, summary wording", "[report]") {
  CHECK(reason_phrase("priority at or above threshold: 20000 >= 10000") ==
        "priority at or above threshold");
  CHECK(reason_detail("priority at or above threshold: 20000 >= 10000") == "20000 >= 10000");
  CHECK(reason_phrase("no target") == "no target");
  CHECK(reason_detail("no target").empty());
  CHECK(reason_phrase("a: b: c") == "a");
  CHECK(reason_detail("a: b: c") == "b: c");
  ReportSummary s;
  s.evictions = 3;
  s.overutilized = 1;
  s.underutilized = 4;
  CHECK(summary_line(s) == "3 evictions; 1 overutilized, 4 underutilized, 0 unknown nodes");
  CHECK(parse_report_format("json") == ReportFormat::kJson);
  CHECK(parse_report_format("markdown") == ReportFormat::kMarkdown);
  CHECK(parse_report_format("table") == ReportFormat::kTable);
  CHECK_FALSE(parse_report_format("yaml"));
}

TEST_CASE("report table: more than twenty pods in a group are counted, not listed", "[report]") {
  ReportFixture f;
  f.plan.skipped.clear();
  for (int i = 0; i < 23; ++i)
    f.plan.skipped.push_back(
        {1, 0, "LoadAware", loadshift::strategies::SkipCode::kNotEvictable, "same reason: x"});
  std::ostringstream out;
  write_report(*f.index, f.plan, {}, ReportFormat::kTable, {}, out);
  CHECK_THAT(out.str(), Catch::Contains("  same reason (23)\n"));
  CHECK_THAT(out.str(),
             Catch::Contains("    ... and 3 more (--output json or markdown lists every pod)\n"));
  // JSON lists every one.
  CHECK(report_json(*f.index, f.plan)["skipped"].size() == 23);
}

TEST_CASE("report table: column headers say what the figures are", "[report]") {
  using loadshift::strategies::Figures;
  using loadshift::strategies::NodeClass;
  auto row = [](const char* name, Figures figures, std::optional<double> cpu,
                std::optional<double> metric) {
    NodeRow r;
    r.name = name;
    r.node_class = NodeClass::kAppropriate;
    r.figures = figures;
    r.cpu.before = r.memory.before = cpu;
    r.metric.before = metric;
    return r;
  };
  auto table = [](std::vector<NodeRow> rows) {
    ReportContent content;
    content.nodes = std::move(rows);
    std::ostringstream out;
    loadshift::report::write_report_table(content, false, out);
    return out.str();
  };
  std::string usage = table({row("a", Figures::kUsage, 40, {}), row("b", Figures::kUsage, 50, {})});
  CHECK_THAT(usage, Catch::Contains("CPU USAGE"));
  CHECK_THAT(usage, !Catch::Contains("FIGURES"));
  std::string requests = table({row("a", Figures::kRequests, 40, {})});
  CHECK_THAT(requests, Catch::Contains("CPU REQUESTED"));
  // Rows that differ: one FIGURES column, plain CPU and MEMORY headers, and the metric column.
  std::string mixed =
      table({row("a", Figures::kUsage, 40, {}), row("b", Figures::kRequests, 10, {}),
             row("c", Figures::kMetric, {}, 70)});
  CHECK_THAT(mixed, Catch::Contains("FIGURES"));
  CHECK_THAT(mixed, Catch::Contains("METRICRESOURCE"));
  CHECK_THAT(mixed, Catch::Contains("  CPU "));
  CHECK_THAT(mixed, !Catch::Contains("CPU USAGE"));
  CHECK_THAT(mixed, Catch::Contains("requests"));
  // Only MetricResource: no CPU or MEMORY column at all.
  std::string metric = table({row("c", Figures::kMetric, {}, 70)});
  CHECK_THAT(metric, Catch::Contains("METRICRESOURCE"));
  CHECK_THAT(metric, !Catch::Contains("CPU"));
}

TEST_CASE("report: a predicted landing other than the target is shown in every format",
          "[report]") {
  ReportFixture f;
  f.plan.evictions[0].landing = 2;  // the scheduler model says n3, the core chose n2
  nlohmann::ordered_json doc = report_json(*f.index, f.plan);
  CHECK(doc["evictions"][0]["target"] == "n2");
  CHECK(doc["evictions"][0]["landing"] == "n3");
  CHECK(doc["evictions"][1]["landing"].is_null());
  CHECK_THAT(render(f, ReportFormat::kTable), Catch::Contains("n1 -> n2 (scheduler: n3)"));
  CHECK_THAT(render(f, ReportFormat::kMarkdown), Catch::Contains("n2 (scheduler: n3)"));
  // A landing equal to the target is not repeated.
  f.plan.evictions[0].landing = 1;
  CHECK(report_json(*f.index, f.plan)["evictions"][0]["landing"].is_null());
}

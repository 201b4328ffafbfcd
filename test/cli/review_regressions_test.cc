// Regressions found in the review of the report commit: each case shows one bug, now fixed.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <variant>

#include "cli/commands.h"
#include "model/rfc3339.h"
#include "policy/loader.h"
#include "report/report_writers.h"
#include "usage/usage_sources.h"

using namespace loadshift;
using namespace loadshift::cli;
using namespace loadshift::report;
using namespace loadshift::usage;

// --at years that std::chrono::system_clock (int64 nanoseconds since 1970) cannot hold overflowed
// and came back as another instant: 9999-12-31T23:59:59Z became 1816-03-30T05:56:07Z, and
// Prometheus was asked about 1816 without a word.
TEST_CASE("review: --at outside the clock's range is refused, not wrapped", "[review][report]") {
  CHECK_FALSE(model::parse_rfc3339("0001-01-01T00:00:00Z").has_value());
  CHECK_FALSE(model::parse_rfc3339("9999-12-31T23:59:59Z").has_value());
  REQUIRE(model::parse_rfc3339("2261-12-31T23:59:59Z").has_value());
  CHECK(model::format_rfc3339(*model::parse_rfc3339("2261-12-31T23:59:59Z")) ==
        "2261-12-31T23:59:59Z");
  REQUIRE(model::parse_rfc3339("1678-01-01T00:00:00Z").has_value());
  CHECK(model::format_rfc3339(*model::parse_rfc3339("1678-01-01T00:00:00Z")) ==
        "1678-01-01T00:00:00Z");

  ReportOptions options;
  options.policy_file = "unused.yaml";
  options.snapshot_files = {"unused.json"};
  options.at = "9999-12-31T23:59:59Z";
  std::ostringstream out, err;
  CHECK(run_report(options, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("--at: expected an RFC 3339 time"));
}

// Fixed: the usage fetch asks for the sustain window of the first LoadAware only, but every
// LoadAware classified with its own sustainedFor: a second profile with sustainedFor 30m read
// minima over 2m as "hot for 30m". The loader now refuses LoadAware plugins that disagree on what
// the one fetch should ask for.
TEST_CASE("review: every LoadAware's sustainedFor is what the fetch asks for",
          "[review][report]") {
  policy::LoadResult loaded = policy::load_policy(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: quick
  pluginConfig:
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
      sustainedFor: 2m
  plugins:
    balance: {enabled: [LoadAware]}
- name: patient
  pluginConfig:
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
      sustainedFor: 30m
  plugins:
    balance: {enabled: [LoadAware]}
)",
                                                  "two-load-aware.yaml");
  REQUIRE(loaded.errors.size() == 1);
  CHECK_THAT(loaded.errors.front().to_string(),
             Catch::Contains("profiles[1].pluginConfig[0].args.sustainedFor: differs from "
                             "profiles[0].pluginConfig[0].args.sustainedFor"));
}

// The evictions table sized its FROM -> TO column from the moves only: with short node names
// ("n1 -> n3" is 8 characters, the header 10) the header ran into the next one
// ("FROM -> TOSTRATEGY") and the rows' STRATEGY column started before the header's.
TEST_CASE("review: the evictions table keeps its columns with short node names",
          "[review][report]") {
  ReportContent content;
  content.evictions.push_back({"d", "a", "n1", "n3", "LoadAware", "why"});
  std::ostringstream out;
  write_report_table(content, false, out);
  const std::string text = out.str();
  const size_t header = text.find("FROM -> TO");
  REQUIRE(header != std::string::npos);
  CHECK(text.compare(header, 12, "FROM -> TO  ") == 0);
  const size_t header_line = text.rfind('\n', header) + 1;
  const size_t row = text.find("d/a");
  REQUIRE(row != std::string::npos);
  const size_t row_line = text.rfind('\n', row) + 1;
  CHECK(text.find("STRATEGY", header_line) - header_line ==
        text.find("LoadAware", row_line) - row_line);
}

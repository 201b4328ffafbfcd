// LowNodeUtilization's MetricResource (metricsUtilization source Prometheus) through the metrics
// sources: PrometheusSource sends the query only when asked, matches it to nodes like cpu, keeps
// values in 0..1 as percent and leaves the others unset with a warning; a failure of that query
// alone is a warning. FileSource reads "metricResource" percent per node.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "metrics/file_source.h"
#include "metrics/prometheus_source.h"
#include "test/metrics/fake_prometheus.h"

using namespace loadshift::metrics;
using loadshift::testing::FakePrometheus;
using loadshift::testing::FakeRequest;
using loadshift::testing::FakeResponse;
using loadshift::testing::vector_body;

namespace {

constexpr double kEvaluation = 1700000000;
const char* const kQuery = "node_load_ratio";

const std::vector<NodeIdentity> kNodes = {
    {"node-0", "10.0.0.1"}, {"node-1", "10.0.0.2"}, {"node-2", "10.0.0.3"}, {"node-3", "10.0.0.4"}};

PrometheusSettings settings_for(const FakePrometheus& server) {
  PrometheusSettings s;
  s.address = server.url();
  s.cpu_query = "cpu_percent";
  s.memory_query = "memory_percent";
  s.timeout_ms = 3000;
  s.evaluation_time = std::chrono::system_clock::time_point(
      std::chrono::seconds(static_cast<int64_t>(kEvaluation)));
  return s;
}

// cpu 30 and memory 40 for every node; the MetricResource query: node-0 0.42, node-1 1.5,
// node-2 NaN, nothing for node-3, and one series for a node nobody asked about.
FakeResponse answer(const FakeRequest& request) {
  std::string q = request.form("query");
  std::vector<std::pair<std::map<std::string, std::string>, std::string>> samples;
  if (q == kQuery) {
    samples = {{{{"instance", "node-0"}}, "0.42"},
               {{{"instance", "10.0.0.2:9100"}}, "1.5"},
               {{{"instance", "node-2"}}, "NaN"},
               {{{"instance", "ghost"}}, "0.5"}};
  } else {
    for (const auto& node : kNodes) {
      samples.push_back({{{"instance", node.name}}, q == "cpu_percent" ? "30" : "40"});
    }
  }
  return {200, vector_body(samples, kEvaluation)};
}

size_t count_queries(const FakePrometheus& server, const std::string& query) {
  size_t n = 0;
  for (const auto& r : server.requests()) n += r.form("query") == query;
  return n;
}

bool warned(const UsageMap& usage, const std::string& text) {
  for (const auto& w : usage.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("the MetricResource query is sent only when asked", "[http]") {
  FakePrometheus server;
  server.set_handler(answer);
  PrometheusSource source(settings_for(server));
  UsageMap usage = source.fetch(kNodes, {});
  CHECK(source.requests_sent() == 2);
  CHECK(count_queries(server, kQuery) == 0);
  REQUIRE(usage.nodes.size() == 4);
  CHECK_FALSE(usage.nodes.at("node-0").metric_resource);

  UsageRequest request;
  request.metric_resource_query = kQuery;
  usage = source.fetch(kNodes, request);
  CHECK(source.requests_sent() == 5);
  CHECK(count_queries(server, kQuery) == 1);
  REQUIRE(usage.nodes.size() == 4);  // MetricResource problems make no node unknown
  CHECK(usage.unknown.empty());
  REQUIRE(usage.nodes.at("node-0").metric_resource);
  CHECK(*usage.nodes.at("node-0").metric_resource == Approx(42));
  CHECK_FALSE(usage.nodes.at("node-1").metric_resource);
  CHECK(warned(usage, "metric_resource query: node node-1: value 1.5 is outside 0..1"));
  CHECK_FALSE(usage.nodes.at("node-2").metric_resource);
  CHECK(warned(usage, "metric_resource query: node node-2: value NaN is not a number"));
  CHECK_FALSE(usage.nodes.at("node-3").metric_resource);
  CHECK(warned(usage, "metric_resource query: no series for 1 node(s) with data (e.g. node-3)"));
  CHECK(warned(usage, "metric_resource query: 1 series match no node"));
  CHECK(usage.nodes.at("node-0").cpu.percent == 30);
}

TEST_CASE("a failed MetricResource query is a warning, not a failed fetch", "[http]") {
  FakePrometheus server;
  server.set_handler([](const FakeRequest& r) {
    if (r.form("query") == kQuery) {
      return FakeResponse{
          400, R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})"};
    }
    return answer(r);
  });
  PrometheusSource source(settings_for(server));
  UsageRequest request;
  request.metric_resource_query = kQuery;
  UsageMap usage = source.fetch(kNodes, request);
  REQUIRE(usage.nodes.size() == 4);
  for (const auto& entry : usage.nodes) CHECK_FALSE(entry.second.metric_resource);
  CHECK(warned(usage, "metric_resource query `node_load_ratio`"));
  CHECK(warned(usage, "parse error at char 5"));
  CHECK(warned(usage, "no node has a MetricResource value"));
}

TEST_CASE("a usage file may carry metricResource percent per node", "[file]") {
  const std::vector<NodeIdentity> nodes = {{"te1", ""}, {"te2", ""}};
  UsageMap usage = parse_usage_json(R"({"nodes": {
      "te1": {"cpu": 10, "memory": 20, "metricResource": 87.5},
      "te2": {"cpu": 10, "memory": 20}}})",
                                    "usage.json", nodes);
  REQUIRE(usage.nodes.size() == 2);
  CHECK(usage.nodes.at("te1").metric_resource == 87.5);
  CHECK_FALSE(usage.nodes.at("te2").metric_resource);

  for (const char* bad :
       {R"({"nodes": {"te1": {"cpu": 1, "memory": 1, "metricResource": 0.5e3}}})",
        R"({"nodes": {"te1": {"cpu": 1, "memory": 1, "metricResource": "x"}}})"}) {
    try {
      parse_usage_json(bad, "usage.json", nodes);
      FAIL("expected UsageError for " << bad);
    } catch (const UsageError& e) {
      CHECK_THAT(e.what(), Catch::Contains("nodes.te1.metricResource"));
    }
  }
}

TEST_CASE("a MetricResource-only fetch sends that query alone and knows nodes by it", "[http]") {
  FakePrometheus server;
  server.set_handler(answer);
  PrometheusSource source(settings_for(server));
  UsageRequest request;
  request.node_usage = false;
  request.pods = true;                      // ignored without node usage
  request.sustained_for_ms = 600000;        // likewise
  request.metric_resource_query = kQuery;
  UsageMap usage = source.fetch(kNodes, request);
  CHECK(source.requests_sent() == 1);
  CHECK(count_queries(server, kQuery) == 1);
  CHECK(count_queries(server, "cpu_percent") == 0);
  CHECK(count_queries(server, "memory_percent") == 0);
  // node-0 0.42: known by it alone; cpu and memory were not measured.
  REQUIRE(usage.nodes.size() == 1);
  const NodeUsage& known = usage.nodes.at("node-0");
  REQUIRE(known.metric_resource);
  CHECK(*known.metric_resource == Approx(42));
  CHECK_FALSE(known.cpu_memory_measured);
  // The others are unknown, each with its reason, never idle.
  REQUIRE(usage.unknown.size() == 3);
  CHECK_THAT(usage.unknown.at("node-1"), Catch::Contains("value 1.5 is outside 0..1"));
  CHECK_THAT(usage.unknown.at("node-2"), Catch::Contains("value NaN is not a number"));
  CHECK_THAT(usage.unknown.at("node-3"), Catch::Contains("no metric_resource series"));
  CHECK(warned(usage, "metric_resource query: 1 series match no node"));

  SECTION("its failure is the fetch's failure") {
    FakePrometheus broken;
    broken.set_handler([](const FakeRequest&) {
      return FakeResponse{
          400, R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})"};
    });
    PrometheusSource failing(settings_for(broken));
    CHECK_THROWS_WITH(failing.fetch(kNodes, request),
                      Catch::Contains("metric_resource query `node_load_ratio`") &&
                          Catch::Contains("parse error at char 5"));
  }
  SECTION("nothing asked is an error, not an empty answer") {
    UsageRequest nothing;
    nothing.node_usage = false;
    CHECK_THROWS_WITH(source.fetch(kNodes, nothing), Catch::Contains("nothing to fetch"));
  }
}

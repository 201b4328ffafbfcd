// PrometheusSource over HTTP against the in-test fake Prometheus: requests per fetch, what is sent
// (form, time, headers, token), retries, timeouts, refused connections, error bodies.
#include <unistd.h>

#include <prometheus/registry.h>
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "metrics/prometheus_source.h"
#include "metrics/self_metrics.h"
#include "test/metrics/fake_prometheus.h"
#include "test/metrics/metric_lookup.h"

using namespace loadshift::metrics;
using loadshift::testing::FakePrometheus;
using loadshift::testing::FakeRequest;
using loadshift::testing::FakeResponse;
using loadshift::testing::vector_body;
using Clock = std::chrono::steady_clock;

namespace {

constexpr double kEvaluation = 1700000000;  // 2023-11-14T22:13:20Z

std::vector<NodeIdentity> make_nodes(int count) {
  std::vector<NodeIdentity> nodes;
  for (int i = 0; i < count; ++i) {
    nodes.push_back({"node-" + std::to_string(i),
                     "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1)});
  }
  return nodes;
}

PrometheusSettings settings_for(const FakePrometheus& server) {
  PrometheusSettings s;
  s.address = server.url();
  s.cpu_query = "cpu_percent[{{window}}]";
  s.memory_query = "memory_percent[{{window}}]";
  s.pod_cpu_query = "pod_cpu[{{window}}]";
  s.pod_memory_query = "pod_memory[{{window}}]";
  s.timeout_ms = 3000;
  s.evaluation_time = std::chrono::system_clock::time_point(
      std::chrono::seconds(static_cast<int64_t>(kEvaluation)));
  return s;
}

// Answers every node query with one series per node (instance = IP:9100): cpu = 10 + i % 80,
// memory = 50; min/max subqueries 5 below / above; pod queries two pods.
FakeResponse healthy(const FakeRequest& request, const std::vector<NodeIdentity>& nodes) {
  std::string q = request.form("query");
  if (q.rfind("pod_", 0) == 0) {
    bool cpu = q.rfind("pod_cpu", 0) == 0;
    return {200, vector_body({{{{"namespace", "default"}, {"pod", "web-1"}}, cpu ? "250" : "1000"},
                              {{{"namespace", "ml"}, {"pod", "train-0"}}, cpu ? "4000" : "2000"}},
                             kEvaluation)};
  }
  double shift = q.rfind("min_over_time", 0) == 0 ? -5 : q.rfind("max_over_time", 0) == 0 ? 5 : 0;
  bool cpu = q.find("cpu_percent") != std::string::npos;
  std::vector<std::pair<std::map<std::string, std::string>, std::string>> samples;
  for (size_t i = 0; i < nodes.size(); ++i) {
    double value = (cpu ? 10.0 + static_cast<double>(i % 80) : 50.0) + shift;
    samples.push_back(
        {{{"instance", nodes[i].internal_ip + ":9100"}, {"job", "node"}}, std::to_string(value)});
  }
  return {200, vector_body(samples, kEvaluation)};
}

size_t count_queries(const FakePrometheus& server, const std::string& prefix) {
  size_t n = 0;
  for (const auto& r : server.requests()) n += r.form("query").rfind(prefix, 0) == 0;
  return n;
}

std::string fetch_error(PrometheusSource& source, const std::vector<NodeIdentity>& nodes,
                        UsageRequest request = {}) {
  try {
    source.fetch(nodes, request);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected UsageError");
  return "";
}

double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = "/tmp/loadshift-metrics-test-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("one request per resource, whatever the number of nodes", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(1000);
  server.set_handler([&](const FakeRequest& r) { return healthy(r, nodes); });
  PrometheusSource source(settings_for(server));
  UsageMap usage = source.fetch(nodes, {});
  CHECK(source.requests_sent() == 2);
  CHECK(server.request_count() == 2);
  REQUIRE(usage.nodes.size() == 1000);
  CHECK(usage.unknown.empty());
  CHECK(usage.nodes.at("node-7").cpu.percent == 17);
  CHECK(usage.nodes.at("node-7").memory.percent == 50);
  CHECK(usage.nodes.at("node-7").age_seconds == 0);
  CHECK(usage.origin == "prometheus " + server.url() + " at 2023-11-14T22:13:20Z");

  usage = source.fetch(nodes, {});
  CHECK(source.requests_sent() == 4);
}

TEST_CASE("sustained and pod queries are one request each", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(50);
  server.set_handler([&](const FakeRequest& r) { return healthy(r, nodes); });
  PrometheusSource source(settings_for(server));
  UsageMap usage =
      source.fetch(nodes, {.sustained_for_ms = 600000, .pods = true, .metric_resource_query = {}});
  CHECK(source.requests_sent() == 8);
  CHECK(count_queries(server, "min_over_time((cpu_percent[5m])[10m:30s])") == 1);
  CHECK(count_queries(server, "max_over_time((memory_percent[5m])[10m:30s])") == 1);
  const NodeUsage& node = usage.nodes.at("node-3");
  CHECK(node.cpu.percent == 13);
  CHECK(node.cpu.sustained_min == 8.0);
  CHECK(node.cpu.sustained_max == 18.0);
  CHECK(node.memory.sustained_min == 45.0);
  CHECK(node.memory.sustained_max == 55.0);
  REQUIRE(usage.pods.size() == 2);
  CHECK(usage.pods.at("ml/train-0").cpu_milli == 4000);
  CHECK(usage.pods.at("default/web-1").memory_bytes == 1000);
  CHECK(usage.warnings.empty());
}

TEST_CASE("the request is a form POST with query, time and timeout", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(2);
  server.set_handler([&](const FakeRequest& r) { return healthy(r, nodes); });
  PrometheusSettings s = settings_for(server);
  s.address = server.url() + "/prom/";  // path prefix and trailing slash
  s.cpu_query.clear();                  // the built-in default
  s.window_ms = 120000;
  PrometheusSource source(s);
  UsageMap usage = source.fetch(nodes, {});
  REQUIRE(server.request_count() == 2);
  std::vector<std::string> queries;
  for (const FakeRequest& r : server.requests()) {
    CHECK(r.method == "POST");
    CHECK(r.target == "/prom/api/v1/query");
    CHECK(r.header("content-type") == "application/x-www-form-urlencoded");
    CHECK(r.form("time") == "1700000000.000");
    std::string timeout = r.form("timeout");
    CHECK_FALSE(timeout.empty());
    CHECK(timeout.find_first_not_of("0123456789hms") == std::string::npos);
    queries.push_back(r.form("query"));
  }
  std::string cpu = render_query(default_query(Query::kCpu), 120000, 30000);
  CHECK((queries[0] == cpu || queries[1] == cpu));
  // The fake server's cpu answers need "cpu_percent" in the query: default-query answers are all
  // memory-shaped here, which is fine for this test of what is sent.
  CHECK(usage.nodes.size() == 2);
}

TEST_CASE("a non-instance node label changes the default cpu grouping", "[http]") {
  FakePrometheus server;
  server.set_handler([](const FakeRequest& r) {
    return FakeResponse{
        200, vector_body({{{{"node", "a"}},
                           r.form("query").find("cpu") != std::string::npos ? "12" : "34"}})};
  });
  PrometheusSettings s = settings_for(server);
  s.cpu_query.clear();
  s.node_label = "node";
  s.node_match = NodeMatchMode::kName;
  PrometheusSource source(s);
  std::vector<NodeIdentity> nodes = {{"a", "10.0.0.1"}};
  UsageMap usage = source.fetch(nodes, {});
  CHECK(count_queries(server, "100 * (1 - avg by (node) (rate(node_cpu_seconds_total") == 1);
  CHECK(usage.nodes.at("a").cpu.percent == 12);
  CHECK(usage.nodes.at("a").memory.percent == 34);
}

TEST_CASE("bearer token (re-read at each fetch) and extra headers are sent", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(1);
  server.set_handler([&](const FakeRequest& r) { return healthy(r, nodes); });
  PrometheusSettings s = settings_for(server);
  std::string token = write_temp("token", "first-token\n");
  s.bearer_token_file = token;
  s.headers = {{"X-Scope-OrgID", "tenant-a"}};
  PrometheusSource source(s);
  source.fetch(nodes, {});
  std::ofstream(token) << "rotated-token";
  source.fetch(nodes, {});
  auto requests = server.requests();
  REQUIRE(requests.size() == 4);
  size_t first = 0, rotated = 0;
  for (const auto& r : requests) {
    CHECK(r.header("x-scope-orgid") == "tenant-a");
    first += r.header("authorization") == "Bearer first-token";
    rotated += r.header("authorization") == "Bearer rotated-token";
  }
  CHECK(first == 2);
  CHECK(rotated == 2);

  std::remove(token.c_str());
  std::string error = fetch_error(source, nodes);
  CHECK_THAT(error, Catch::Contains("bearer token file " + token + ": cannot read"));
  CHECK(server.request_count() == 4);  // nothing sent without the token
}

TEST_CASE("429 then 200: the query is retried and the fetch succeeds", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(3);
  std::atomic<int> cpu_calls{0};
  server.set_handler([&](const FakeRequest& r) {
    if (r.form("query").find("cpu") != std::string::npos && cpu_calls++ == 0) {
      return FakeResponse{429, "slow down", "text/plain"};
    }
    return healthy(r, nodes);
  });
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  PrometheusSource source(settings_for(server), &self);
  UsageMap usage = source.fetch(nodes, {});
  CHECK(usage.nodes.size() == 3);
  CHECK(source.requests_sent() == 3);
  CHECK(cpu_calls == 2);
  CHECK(loadshift::testing::counter_value(*registry, "loadshift_usage_query_errors_total",
                                          {{"query", "cpu"}, {"reason", "http_4xx"}}) == 1);
  CHECK(loadshift::testing::histogram_count(*registry, "loadshift_usage_query_duration_seconds",
                                            {{"query", "cpu"}}) == 1);
  CHECK(loadshift::testing::gauge_value(*registry, "loadshift_usage_nodes",
                                        {{"state", "covered"}}) == 3);
}

TEST_CASE("HTTP 500 is retried with backoff inside the timeout, then fails the fetch", "[http]") {
  FakePrometheus server;
  server.set_handler([](const FakeRequest&) {
    return FakeResponse{500, "internal server error", "text/plain"};
  });
  PrometheusSettings s = settings_for(server);
  s.timeout_ms = 1000;
  PrometheusSource source(s);
  auto start = Clock::now();
  std::string error = fetch_error(source, make_nodes(2));
  double ms = elapsed_ms(start);
  CHECK(ms < 2500);
  CHECK_THAT(error, Catch::StartsWith("prometheus " + server.url() +
                                      "/api/v1/query: cpu query "
                                      "`cpu_percent[5m]`: HTTP 500: internal server error ("));
  CHECK_THAT(error, Catch::Contains("attempts within the 1000 ms timeout") &&
                        Catch::Contains("memory query `memory_percent[5m]`: HTTP 500"));
  // Attempts at about 0, 100, 300 and 700 ms for each of the two queries.
  CHECK(count_queries(server, "cpu") >= 3);
  CHECK(count_queries(server, "cpu") <= 5);
}

TEST_CASE("HTTP 400 with Prometheus' error body is not retried and is quoted", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(2);
  server.set_handler([&](const FakeRequest& r) {
    if (r.form("query").find("cpu") != std::string::npos) {
      return FakeResponse{
          400,
          R"({"status":"error","errorType":"bad_data","error":"1:13: parse error: unexpected right bracket"})"};
    }
    return healthy(r, nodes);
  });
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  PrometheusSource source(settings_for(server), &self);
  std::string error = fetch_error(source, nodes);
  CHECK(error == "prometheus " + server.url() +
                     "/api/v1/query: cpu query `cpu_percent[5m]`: HTTP 400: bad_data: 1:13: parse "
                     "error: unexpected right bracket");
  CHECK(count_queries(server, "cpu") == 1);
  CHECK(loadshift::testing::counter_value(*registry, "loadshift_usage_query_errors_total",
                                          {{"query", "cpu"}, {"reason", "prometheus_error"}}) == 1);
  // A failed fetch leaves no node covered.
  CHECK(loadshift::testing::gauge_value(*registry, "loadshift_usage_nodes",
                                        {{"state", "covered"}}) == 0);
  CHECK(loadshift::testing::gauge_value(*registry, "loadshift_usage_nodes",
                                        {{"state", "unknown"}}) == 2);
}

TEST_CASE("a server that never answers is bounded by the timeout", "[http]") {
  FakePrometheus server;
  server.set_handler([](const FakeRequest&) { return FakeResponse{200, "", "", true}; });
  PrometheusSettings s = settings_for(server);
  s.timeout_ms = 300;
  PrometheusSource source(s);
  auto start = Clock::now();
  std::string error = fetch_error(source, make_nodes(2));
  double ms = elapsed_ms(start);
  CHECK(ms >= 250);
  CHECK(ms < 1500);
  CHECK_THAT(error, Catch::Contains("cpu query `cpu_percent[5m]`: timeout: 127.0.0.1:"));
  CHECK_THAT(error, Catch::Contains("Operation timed out after"));
  CHECK(source.requests_sent() == 2);
}

TEST_CASE("a refused connection is retried until the timeout, then named", "[http]") {
  int port = FakePrometheus::closed_port();
  PrometheusSettings s;
  s.address = "http://127.0.0.1:" + std::to_string(port);
  s.timeout_ms = 400;
  auto registry = std::make_shared<prometheus::Registry>();
  SelfMetrics self(registry);
  PrometheusSource source(s, &self);
  auto start = Clock::now();
  std::string error = fetch_error(source, make_nodes(2));
  double ms = elapsed_ms(start);
  CHECK(ms < 1500);
  CHECK_THAT(error, Catch::StartsWith("prometheus http://127.0.0.1:" + std::to_string(port) +
                                      "/api/v1/query: cpu query `100 * (1 - avg by (instance)"));
  CHECK_THAT(error, Catch::Contains("Failed to connect to 127.0.0.1 port " + std::to_string(port)));
  CHECK(source.requests_sent() > 2);  // retried
  CHECK(loadshift::testing::counter_value(*registry, "loadshift_usage_query_errors_total",
                                          {{"query", "memory"}, {"reason", "connect"}}) >= 2);
}

TEST_CASE("matrix, scalar and malformed answers fail the fetch with a clear error", "[http]") {
  FakePrometheus server;
  std::string body;
  server.set_handler([&](const FakeRequest&) { return FakeResponse{200, body}; });
  PrometheusSource source(settings_for(server));
  auto nodes = make_nodes(1);

  body = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";
  CHECK_THAT(fetch_error(source, nodes),
             Catch::Contains("cpu query `cpu_percent[5m]`: expected an instant vector or scalar, "
                             "got matrix: use an instant query, e.g. wrap range selectors in "
                             "avg_over_time"));
  body = R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"5"]}})";
  CHECK_THAT(fetch_error(source, nodes),
             Catch::Contains("cpu query `cpu_percent[5m]`: the query returned a scalar, which has "
                             "no labels to match to nodes"));
  size_t before = server.request_count();
  body = "{\"status\":\"success\",\"data\":";
  CHECK_THAT(fetch_error(source, nodes), Catch::Contains("response is not JSON"));
  CHECK(server.request_count() - before == 2);  // not retried
}

TEST_CASE("only the failing resource is named", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(1);
  server.set_handler([&](const FakeRequest& r) {
    if (r.form("query").find("memory") != std::string::npos) {
      return FakeResponse{
          422,
          R"({"status":"error","errorType":"execution","error":"many-to-many matching not allowed"})"};
    }
    return healthy(r, nodes);
  });
  PrometheusSource source(settings_for(server));
  std::string error = fetch_error(source, nodes);
  CHECK_THAT(error, Catch::Contains("memory query `memory_percent[5m]`: HTTP 422: execution: "
                                    "many-to-many matching not allowed"));
  CHECK_THAT(error, !Catch::Contains("cpu query"));
}

TEST_CASE("pod and sustained query failures are warnings only", "[http]") {
  FakePrometheus server;
  auto nodes = make_nodes(2);
  server.set_handler([&](const FakeRequest& r) {
    std::string q = r.form("query");
    if (q.rfind("pod_memory", 0) == 0) return FakeResponse{404, "404 page not found", "text/plain"};
    if (q.rfind("max_over_time((cpu", 0) == 0) {
      return FakeResponse{400,
                          R"({"status":"error","errorType":"bad_data","error":"bad subquery"})"};
    }
    return healthy(r, nodes);
  });
  PrometheusSource source(settings_for(server));
  UsageMap usage =
      source.fetch(nodes, {.sustained_for_ms = 600000, .pods = true, .metric_resource_query = {}});
  CHECK(usage.nodes.size() == 2);
  CHECK(usage.pods.empty());
  CHECK_FALSE(usage.nodes.at("node-0").cpu.sustained_max);
  CHECK(usage.nodes.at("node-0").cpu.sustained_min == 5.0);
  REQUIRE(usage.warnings.size() == 2);
  CHECK(usage.warnings[0] ==
        "cpu_max query: HTTP 400: bad_data: bad subquery; no node has this sustained value");
  CHECK(usage.warnings[1] ==
        "pod_memory query failed: HTTP 404: 404 page not found; strategies use pod requests "
        "instead");
}

TEST_CASE("Prometheus warnings and unknown nodes come back with the usage", "[http]") {
  FakePrometheus server;
  server.set_handler([](const FakeRequest& r) {
    std::string body = vector_body({{{{"instance", "a"}}, "10"}, {{{"instance", "zz"}}, "10"}});
    if (r.form("query").find("cpu") != std::string::npos) {
      body.insert(1,
                  R"("warnings":["PromQL warning: encountered a mix of histograms and floats"],)");
    }
    return FakeResponse{200, body};
  });
  PrometheusSource source(settings_for(server));
  std::vector<NodeIdentity> nodes = {{"a", ""}, {"b", ""}};
  UsageMap usage = source.fetch(nodes, {});
  CHECK(usage.nodes.count("a"));
  CHECK(usage.unknown.at("b") ==
        "no cpu series for label instance (expected name b or InternalIP (node has none)); no "
        "memory series for label instance (expected name b or InternalIP (node has none))");
  CHECK(std::find(usage.warnings.begin(), usage.warnings.end(),
                  "cpu query: Prometheus warning: PromQL warning: encountered a mix of histograms "
                  "and floats") != usage.warnings.end());
  CHECK(std::find(usage.warnings.begin(), usage.warnings.end(),
                  "memory query: 1 series match no node by label instance (e.g. \"zz\")") !=
        usage.warnings.end());
}

TEST_CASE("settings that can never work are refused at construction", "[http]") {
  PrometheusSettings s;
  s.address = "prometheus:9090";
  CHECK_THROWS_WITH(PrometheusSource(s), Catch::Contains("expected an http:// or https:// URL"));
  s.address = "http://prometheus:9090";
  s.node_label = "node-name";
  CHECK_THROWS_WITH(PrometheusSource(s),
                    Catch::Contains("\"node-name\" is not a Prometheus label"));
  s.node_label = "instance";
  s.memory_query = "x[{{range}}]";
  CHECK_THROWS_WITH(PrometheusSource(s), Catch::Contains("unknown placeholder {{range}}"));
  s.memory_query.clear();
  s.window_ms = 0;
  CHECK_THROWS_AS(PrometheusSource(s), std::invalid_argument);
  s.window_ms = 300000;
  s.headers = {{"Bad Header", "x"}};
  CHECK_THROWS_AS(PrometheusSource(s), std::invalid_argument);
  s.headers = {{"X-Ok", "line\r\nInjected: 1"}};
  CHECK_THROWS_AS(PrometheusSource(s), std::invalid_argument);
  s.headers.clear();
  CHECK_NOTHROW(PrometheusSource(s));
}

TEST_CASE("TLS settings reach the client: a bad CA file fails without retries", "[http]") {
  FakePrometheus server;
  PrometheusSettings s;
  s.address = "https://127.0.0.1:" + std::to_string(server.port());
  s.ca_file = "/nonexistent/loadshift-ca.pem";
  s.timeout_ms = 3000;
  PrometheusSource source(s);
  auto start = Clock::now();
  std::string error = fetch_error(source, make_nodes(1));
  CHECK(elapsed_ms(start) < 2000);
  CHECK_THAT(error, Catch::Contains("/nonexistent/loadshift-ca.pem"));
  CHECK(source.requests_sent() == 2);  // a certificate problem is not retried
}

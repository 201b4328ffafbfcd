// PrometheusSource against a REAL Prometheus: deterministic node_exporter and cAdvisor series are
// imported with promtool, one server is started for the whole binary, and every answer is checked
// against the value the data's formula gives (test/prometheus/node_series.h).
//
// When prometheus cannot be started the tests fail, unless LOADSHIFT_ALLOW_NO_PROMETHEUS=1, in
// which case they print "SKIPPED: prometheus could not be started: <why>" (ctest marks the test
// Skipped on that line).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "metrics/prometheus_source.h"
#include "test/prometheus/node_series.h"
#include "test/prometheus/prometheus_server.h"

using namespace loadshift::metrics;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

// The fixed evaluation time: 2025-01-01T11:45:00Z, on the 15 s grid and on 30 s / 1 m steps.
constexpr int64_t kEval = 1735731900;
constexpr int64_t kHistory = 3 * 3600;  // samples from kEval - 3h to kEval
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

CpuIdle constant_idle(double idle) {
  return CpuIdle{idle, {}};
}

NodeSeries node(std::string instance, std::vector<CpuIdle> cpus, double total, double available) {
  NodeSeries n;
  n.instance = std::move(instance);
  n.cpus = std::move(cpus);
  n.memory_total_bytes = total;
  n.memory_available_bytes = available;
  n.first = kEval - kHistory;
  n.last = kEval;
  return n;
}

// The data set. Expected figures (cpu% by window, memory%) follow from the formulas:
//   node-a     steady: cpus idle 70% and 80%                 cpu 25 at any window, memory 25
//   node-b     idle 80%, then 10% over the last minute       cpu 90 (1m), 34 (5m), 22.33 (30m)
//   node-c     idle 60%, then 15% over the last 15 minutes   cpu 85 (1m..15m), 62.5 (30m)
//   worker-5   instance 10.0.0.5:9100, idle 50%               cpu 50, memory 60
//   node-stale series stop 2 h before the evaluation time    unknown
//   node-new   idle 5%, series start 150 s before evaluation cpu 95 (5m), no sustained figures
SeriesSet make_data() {
  SeriesSet set;
  set.nodes.push_back(
      node("node-a", {constant_idle(0.7), constant_idle(0.8)}, 16 * kGiB, 12 * kGiB));
  CpuIdle spike{0.8, {{kEval - 60, 0.1}}};
  set.nodes.push_back(node("node-b", {spike, spike}, 32 * kGiB, 8 * kGiB));
  CpuIdle hot{0.6, {{kEval - 900, 0.15}}};
  set.nodes.push_back(node("node-c", {hot, hot}, 8 * kGiB, 2 * kGiB));
  set.nodes.push_back(node("10.0.0.5:9100", {constant_idle(0.5), constant_idle(0.5)}, 10e9, 4e9));
  NodeSeries stale = node("node-stale", {constant_idle(0.9)}, 4 * kGiB, 3 * kGiB);
  stale.last = kEval - 2 * 3600;
  set.nodes.push_back(stale);
  NodeSeries fresh = node("node-new", {constant_idle(0.05)}, 4 * kGiB, 1 * kGiB);
  fresh.first = kEval - 150;
  set.nodes.push_back(fresh);

  set.pods.push_back(
      PodSeries{"default",
                "web-1",
                "node-a",
                {{"app", 0.25, 200.0 * 1024 * 1024}, {"sidecar", 0.05, 50.0 * 1024 * 1024}},
                kEval - kHistory,
                kEval});
  set.pods.push_back(
      PodSeries{"batch", "job-7", "node-c", {{"worker", 1.5, 1 * kGiB}}, kEval - kHistory, kEval});
  // A pod deleted long ago: its series stop 2 h before the evaluation time.
  set.pods.push_back(PodSeries{"default",
                               "old-0",
                               "node-a",
                               {{"app", 0.5, 100.0 * 1024 * 1024}},
                               kEval - kHistory,
                               kEval - 2 * 3600});
  return set;
}

const SeriesSet& data() {
  static const SeriesSet set = make_data();
  return set;
}

const NodeSeries& series_of(std::string_view instance) {
  for (const NodeSeries& n : data().nodes) {
    if (n.instance == instance) return n;
  }
  throw std::logic_error("no series for " + std::string(instance));
}

struct SharedServer {
  std::unique_ptr<TempDir> dir;
  std::unique_ptr<PrometheusServer> server;
  std::string failure;
};

SharedServer& shared() {
  static SharedServer shared = [] {
    SharedServer s;
    try {
      s.dir = std::make_unique<TempDir>("loadshift-prometheus-test");
      write_openmetrics(data(), s.dir->path() / "series.om");
      s.server = PrometheusServer::start(s.dir->path(), s.dir->path() / "series.om");
    } catch (const std::exception& e) {
      s.failure = e.what();
    }
    return s;
  }();
  return shared;
}

bool skipping_allowed() {
  const char* allow = std::getenv("LOADSHIFT_ALLOW_NO_PROMETHEUS");
  return allow != nullptr && std::string(allow) == "1";
}

// The running server's address; nullopt only when it could not be started and
// LOADSHIFT_ALLOW_NO_PROMETHEUS=1 (the skip is printed). Otherwise the test fails loudly.
std::optional<std::string> server_address() {
  SharedServer& s = shared();
  if (s.server) return s.server->address();
  if (skipping_allowed()) {
    static bool printed = false;
    if (!printed) {
      std::printf("SKIPPED: prometheus could not be started: %s\n", s.failure.c_str());
      std::fflush(stdout);
      printed = true;
    }
    return std::nullopt;
  }
  FAIL("prometheus could not be started: " << s.failure
                                           << "\n(install it with scripts/setup.sh; set "
                                              "LOADSHIFT_ALLOW_NO_PROMETHEUS=1 to skip instead)");
  return std::nullopt;
}

PrometheusSettings settings_for(const std::string& address) {
  PrometheusSettings settings;
  settings.address = address;
  settings.evaluation_time = std::chrono::system_clock::time_point(std::chrono::seconds(kEval));
  return settings;
}

const std::vector<NodeIdentity> kNodes = {
    {"node-a", "10.0.0.1"},   {"node-b", "10.0.0.2"},     {"node-c", "10.0.0.3"},
    {"worker-5", "10.0.0.5"}, {"node-stale", "10.0.0.9"}, {"node-missing", "10.0.0.10"},
    {"node-new", "10.0.0.11"},
};

double rel(double expected) {
  return std::max(1e-9, std::abs(expected) * 1e-6);
}

#define CHECK_CLOSE(actual, expected) CHECK((actual) == Approx(expected).margin(rel(expected)))

// Lowest and highest value of the cpu expression with `window` over the subquery's steps
// (multiples of `step` in [t - period, t]).
std::pair<double, double> sustained_cpu(const NodeSeries& n, int64_t t, int64_t period,
                                        int64_t step, int64_t window) {
  double lo = 1e300, hi = -1e300;
  for (int64_t at = t - period; at <= t; at += step) {
    double v = expected_cpu_percent(n, at, window);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {lo, hi};
}

}  // namespace

TEST_CASE("the data formulas give the figures the tests rely on") {
  // Independent of Prometheus: the generator's expectations match the hand-computed figures.
  CHECK_CLOSE(expected_cpu_percent(series_of("node-a"), kEval, 300), 25.0);
  CHECK_CLOSE(expected_cpu_percent(series_of("node-b"), kEval, 60), 90.0);
  CHECK_CLOSE(expected_cpu_percent(series_of("node-b"), kEval, 300), 34.0);
  CHECK_CLOSE(expected_cpu_percent(series_of("node-b"), kEval, 1800), 100.0 * (1 - 1398.0 / 1800));
  CHECK_CLOSE(expected_cpu_percent(series_of("node-c"), kEval, 1800), 62.5);
  CHECK_CLOSE(expected_memory_percent(series_of("node-b")), 75.0);
  CHECK_CLOSE(expected_memory_percent(series_of("10.0.0.5:9100")), 60.0);
}

TEST_CASE("real Prometheus: exact utilisation per node at the evaluation time (default queries)") {
  auto address = server_address();
  if (!address) return;
  PrometheusSource source(settings_for(*address));
  UsageMap usage = source.fetch(kNodes, UsageRequest{});

  CHECK(source.requests_sent() == 2);  // one query per resource, whatever the number of nodes
  REQUIRE(usage.nodes.size() == 5);
  const std::vector<std::pair<std::string, std::string>> matched = {{"node-a", "node-a"},
                                                                    {"node-b", "node-b"},
                                                                    {"node-c", "node-c"},
                                                                    {"worker-5", "10.0.0.5:9100"}};
  for (const auto& [name, instance] : matched) {
    INFO("node " << name);
    const NodeUsage* u = usage.find(name);
    REQUIRE(u != nullptr);
    CHECK_CLOSE(u->cpu.percent, expected_cpu_percent(series_of(instance), kEval, 300));
    CHECK_CLOSE(u->memory.percent, expected_memory_percent(series_of(instance)));
    CHECK(u->age_seconds < 1.0);
    CHECK_FALSE(u->cpu.sustained_min.has_value());  // not asked for
  }
  CHECK_CLOSE(usage.find("node-a")->cpu.percent, 25.0);
  CHECK_CLOSE(usage.find("node-b")->cpu.percent, 34.0);
  CHECK_CLOSE(usage.find("node-c")->cpu.percent, 85.0);
  CHECK_CLOSE(usage.find("worker-5")->cpu.percent, 50.0);
  CHECK_CLOSE(usage.find("node-c")->memory.percent, 75.0);

  // Series that stopped 2 h ago, and a node with no series at all: unknown, never idle.
  REQUIRE(usage.unknown.size() == 2);
  CHECK_FALSE(usage.unknown.at("node-stale").empty());
  CHECK_FALSE(usage.unknown.at("node-missing").empty());
  CHECK(usage.find("node-stale") == nullptr);
  CHECK(usage.coverage_percent() == Approx(100.0 * 5 / 7));
  CHECK(usage.pods.empty());  // not asked for
  CHECK_THAT(usage.origin, Contains(*address));
}

TEST_CASE("real Prometheus: a short spike shows in a 1m window and is smoothed away in 30m") {
  auto address = server_address();
  if (!address) return;
  PrometheusSettings settings = settings_for(*address);

  settings.window_ms = 60000;
  UsageMap one_minute = PrometheusSource(settings).fetch(kNodes, UsageRequest{});
  settings.window_ms = 1800000;
  UsageMap half_hour = PrometheusSource(settings).fetch(kNodes, UsageRequest{});

  REQUIRE(one_minute.find("node-b") != nullptr);
  REQUIRE(half_hour.find("node-b") != nullptr);
  CHECK_CLOSE(one_minute.find("node-b")->cpu.percent, 90.0);
  CHECK_CLOSE(half_hour.find("node-b")->cpu.percent, 100.0 * (1 - 1398.0 / 1800));  // 22.33
  CHECK_CLOSE(half_hour.find("node-b")->cpu.percent,
              expected_cpu_percent(series_of("node-b"), kEval, 1800));
  // The steady node reads the same at any window; the 15-minute heat is halved over 30 minutes.
  CHECK_CLOSE(one_minute.find("node-a")->cpu.percent, 25.0);
  CHECK_CLOSE(half_hour.find("node-a")->cpu.percent, 25.0);
  CHECK_CLOSE(one_minute.find("node-c")->cpu.percent, 85.0);
  CHECK_CLOSE(half_hour.find("node-c")->cpu.percent, 62.5);
  // Memory is constant, so averaging over any window gives the same figure.
  CHECK_CLOSE(one_minute.find("node-b")->memory.percent, 75.0);
  CHECK_CLOSE(half_hour.find("node-b")->memory.percent, 75.0);
}

TEST_CASE("real Prometheus: sustainedFor tells hot for 10 minutes from one spike") {
  auto address = server_address();
  if (!address) return;
  PrometheusSettings settings = settings_for(*address);
  settings.window_ms = 60000;
  settings.step_ms = 30000;
  PrometheusSource source(settings);
  UsageRequest request;
  request.sustained_for_ms = 600000;
  UsageMap usage = source.fetch(kNodes, request);

  const NodeUsage* spike = usage.find("node-b");
  const NodeUsage* hot = usage.find("node-c");
  REQUIRE(spike != nullptr);
  REQUIRE(hot != nullptr);
  REQUIRE(spike->cpu.sustained_min.has_value());
  REQUIRE(spike->cpu.sustained_max.has_value());
  REQUIRE(hot->cpu.sustained_min.has_value());
  REQUIRE(hot->cpu.sustained_max.has_value());

  // Hot for 15 minutes: even the lowest 1m value of the last 10 minutes is 85%.
  CHECK_CLOSE(*hot->cpu.sustained_min, 85.0);
  CHECK_CLOSE(*hot->cpu.sustained_max, 85.0);
  // One spike: 90% now, but 20% for most of the period.
  CHECK_CLOSE(spike->cpu.percent, 90.0);
  CHECK_CLOSE(*spike->cpu.sustained_min, 20.0);
  CHECK_CLOSE(*spike->cpu.sustained_max, 90.0);
  for (const char* instance : {"node-b", "node-c"}) {
    auto [lo, hi] = sustained_cpu(series_of(instance), kEval, 600, 30, 60);
    const NodeUsage* u = usage.find(instance);
    CHECK_CLOSE(*u->cpu.sustained_min, lo);
    CHECK_CLOSE(*u->cpu.sustained_max, hi);
  }
  // Constant memory: min == max == the windowed value.
  REQUIRE(hot->memory.sustained_min.has_value());
  REQUIRE(hot->memory.sustained_max.has_value());
  CHECK_CLOSE(*hot->memory.sustained_min, 75.0);
  CHECK_CLOSE(*hot->memory.sustained_max, 75.0);
  // Still one query per figure for all nodes: cpu, memory, and min and max of each.
  CHECK(source.requests_sent() == 6);
  CHECK(usage.unknown.count("node-stale") == 1);
  // 150 s of history at 95%: hot now, but not known to be hot for 10 minutes.
  const NodeUsage* fresh = usage.find("node-new");
  REQUIRE(fresh != nullptr);
  CHECK_CLOSE(fresh->cpu.percent, 95.0);
  CHECK_FALSE(fresh->cpu.sustained_min.has_value());
  CHECK_FALSE(fresh->cpu.sustained_max.has_value());
  CHECK_FALSE(fresh->memory.sustained_min.has_value());
}

TEST_CASE(
    "real Prometheus: nodeMatch by InternalIP strips the port of instance=\"10.0.0.5:9100\"") {
  auto address = server_address();
  if (!address) return;
  PrometheusSettings settings = settings_for(*address);
  const std::vector<NodeIdentity> nodes = {{"worker-5", "10.0.0.5"}, {"node-a", "10.0.0.1"}};

  settings.node_match = NodeMatchMode::kInternalIp;
  UsageMap by_ip = PrometheusSource(settings).fetch(nodes, UsageRequest{});
  REQUIRE(by_ip.find("worker-5") != nullptr);
  CHECK_CLOSE(by_ip.find("worker-5")->cpu.percent, 50.0);
  CHECK_CLOSE(by_ip.find("worker-5")->memory.percent, 60.0);
  // node-a's series say instance="node-a", which is not its IP: unknown in this mode.
  CHECK(by_ip.unknown.count("node-a") == 1);

  settings.node_match = NodeMatchMode::kName;
  UsageMap by_name = PrometheusSource(settings).fetch(nodes, UsageRequest{});
  CHECK(by_name.unknown.count("worker-5") == 1);
  REQUIRE(by_name.find("node-a") != nullptr);
  CHECK_CLOSE(by_name.find("node-a")->cpu.percent, 25.0);
}

TEST_CASE("real Prometheus: pod usage from cAdvisor series") {
  auto address = server_address();
  if (!address) return;
  PrometheusSource source(settings_for(*address));
  UsageRequest request;
  request.pods = true;
  UsageMap usage = source.fetch(kNodes, request);

  CHECK(source.requests_sent() == 4);
  REQUIRE(usage.pods.count("default/web-1") == 1);
  REQUIRE(usage.pods.count("batch/job-7") == 1);
  CHECK_CLOSE(usage.pods.at("default/web-1").cpu_milli, 300.0);
  CHECK_CLOSE(usage.pods.at("default/web-1").memory_bytes, 250.0 * 1024 * 1024);
  CHECK_CLOSE(usage.pods.at("batch/job-7").cpu_milli, 1500.0);
  CHECK_CLOSE(usage.pods.at("batch/job-7").memory_bytes, kGiB);
  CHECK(usage.pods.count("default/old-0") == 0);  // its series stopped 2 h ago
  CHECK(usage.pods.size() == 2);
  REQUIRE(usage.find("node-a") != nullptr);
  CHECK_CLOSE(usage.find("node-a")->cpu.percent, 25.0);
}

TEST_CASE("real Prometheus: a PromQL syntax error names the query and Prometheus' complaint") {
  auto address = server_address();
  if (!address) return;
  PrometheusSettings settings = settings_for(*address);
  // The `}` of the selector is missing.
  settings.cpu_query =
      R"(100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"[{{window}}]))))";
  PrometheusSource source(settings);
  CHECK_THROWS_AS(source.fetch(kNodes, UsageRequest{}), UsageError);
  CHECK_THROWS_WITH(source.fetch(kNodes, UsageRequest{}),
                    Contains("cpu query") && Contains("HTTP 400") && Contains("bad_data") &&
                        Contains("parse error") && Contains(*address));
  // bad_data is not retried: one request per query per fetch (cpu and memory, two fetches).
  CHECK(source.requests_sent() == 4);
}

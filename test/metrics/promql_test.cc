// PromQL templates: defaults, placeholder rendering and errors, durations, sustain subqueries.
#include <catch2/catch.hpp>

#include "metrics/prometheus_source.h"
#include "metrics/promql_text.h"

using namespace loadshift::metrics;

TEST_CASE("durations are written the Prometheus way", "[promql]") {
  CHECK(prometheus_duration(300000) == "5m");
  CHECK(prometheus_duration(90000) == "1m30s");
  CHECK(prometheus_duration(1500) == "1500ms");
  CHECK(prometheus_duration(30000) == "30s");
  CHECK(prometheus_duration(3600000) == "1h");
  CHECK(prometheus_duration(5400000) == "1h30m");
  CHECK(prometheus_duration(3661000) == "1h1m1s");
  CHECK(prometheus_duration(1) == "1ms");
  CHECK_THROWS_AS(prometheus_duration(0), std::invalid_argument);
  CHECK_THROWS_AS(prometheus_duration(-5), std::invalid_argument);
}

TEST_CASE("render_query replaces {{window}} and {{step}}", "[promql]") {
  CHECK(render_query("rate(x[{{window}}])", 300000, 30000) == "rate(x[5m])");
  CHECK(render_query("max_over_time(y[{{window}}:{{step}}]) + z[{{window}}]", 600000, 15000) ==
        "max_over_time(y[10m:15s]) + z[10m]");
  CHECK(render_query("up", 300000, 30000) == "up");
  CHECK(render_query("", 300000, 30000) == "");
}

TEST_CASE("render_query names any other placeholder", "[promql]") {
  try {
    render_query("rate(x[{{windw}}])", 300000, 30000);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("unknown placeholder {{windw}}") &&
                             Catch::Contains("only {{window}} and {{step}}"));
  }
  try {
    render_query("rate(x[{{window])", 300000, 30000);
    FAIL("expected std::invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK_THAT(e.what(), Catch::Contains("unterminated placeholder"));
  }
  CHECK_THROWS_WITH(render_query("x[{{ window }}]", 1000, 1000),
                    Catch::Contains("unknown placeholder {{ window }}"));
}

TEST_CASE("default queries read node_exporter and cAdvisor", "[promql]") {
  std::string cpu = render_query(default_query(Query::kCpu), 300000, 30000);
  CHECK(cpu == "100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode=\"idle\"}[5m])))");
  std::string memory = render_query(default_query(Query::kMemory), 120000, 30000);
  CHECK(memory ==
        "100 * (1 - avg_over_time(node_memory_MemAvailable_bytes[2m]) / "
        "node_memory_MemTotal_bytes)");
  // The memory expression aggregates nothing away, so the node label survives.
  CHECK(memory.find(" by ") == std::string::npos);
  CHECK(memory.find("without") == std::string::npos);
  CHECK(std::string(default_query(Query::kPodCpu)) ==
        "sum by (namespace, pod) (rate(container_cpu_usage_seconds_total"
        "{container!=\"\",container!=\"POD\"}[{{window}}])) * 1000");
  CHECK(std::string(default_query(Query::kPodMemory)) ==
        "sum by (namespace, pod) (avg_over_time(container_memory_working_set_bytes"
        "{container!=\"\",container!=\"POD\"}[{{window}}]))");
}

TEST_CASE("the default cpu query groups by the configured node label", "[promql]") {
  CHECK(default_query(Query::kCpu, "instance") == std::string(default_query(Query::kCpu)));
  std::string by_node = default_query(Query::kCpu, "node");
  CHECK(by_node.find("avg by (node) (") != std::string::npos);
  CHECK(by_node.find("instance") == std::string::npos);
  CHECK(default_query(Query::kMemory, "node") == std::string(default_query(Query::kMemory)));
  CHECK(default_query(Query::kPodCpu, "node") == std::string(default_query(Query::kPodCpu)));
  CHECK_THROWS_WITH(default_query(Query::kCpu, "bad-label"),
                    Catch::Contains("\"bad-label\" is not a Prometheus label name"));
}

TEST_CASE("sustained_query wraps the expression in a subquery", "[promql]") {
  CHECK(sustained_query("100 * up", "min", 600000, 30000) ==
        "min_over_time((100 * up)[10m:30s]) and (count_over_time((100 * up)[10m:30s]) >= 20)");
  CHECK(sustained_query("x", "max", 90000, 1500) ==
        "max_over_time((x)[1m30s:1500ms]) and (count_over_time((x)[1m30s:1500ms]) >= 60)");
  // A period shorter than the step still needs one value.
  CHECK(sustained_query("x", "min", 10000, 30000) ==
        "min_over_time((x)[10s:30s]) and (count_over_time((x)[10s:30s]) >= 1)");
  CHECK_THROWS_AS(sustained_query("x", "avg", 600000, 30000), std::invalid_argument);
  CHECK_THROWS_AS(sustained_query("x", "min", 0, 30000), std::invalid_argument);
}

TEST_CASE("label names follow Prometheus' grammar", "[promql]") {
  CHECK(is_label_name("instance"));
  CHECK(is_label_name("_node1"));
  CHECK_FALSE(is_label_name(""));
  CHECK_FALSE(is_label_name("1node"));
  CHECK_FALSE(is_label_name("node-name"));
  CHECK_FALSE(is_label_name("a) or vector(1"));
}

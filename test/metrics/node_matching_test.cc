// Matching series to nodes and turning answers into a UsageMap, without HTTP.
#include <catch2/catch.hpp>
#include <limits>

#include "metrics/node_matcher.h"
#include "metrics/usage_assembly.h"

using namespace loadshift::metrics;

namespace {

Sample sample(std::string instance, double value, double timestamp = 1000) {
  Sample s;
  if (!instance.empty()) s.labels["instance"] = std::move(instance);
  s.labels["job"] = "node";
  s.value = value;
  s.timestamp = timestamp;
  return s;
}

QueryAnswer answer(std::string name, std::vector<Sample> samples) {
  QueryAnswer a;
  a.name = std::move(name);
  a.promql = "q";
  a.result = InstantResult{};
  a.result->samples = std::move(samples);
  return a;
}

const std::vector<NodeIdentity> kNodes = {
    {"te1", "10.0.0.1"}, {"te2", "10.0.0.2"}, {"te3", "fd00::3"}, {"te4", ""}};

bool has_warning(const UsageMap& usage, const std::string& text) {
  for (const auto& w : usage.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

bool has_error(const AssembledUsage& a, const std::string& query, const std::string& reason) {
  for (const auto& e : a.errors) {
    if (e.first == query && e.second == reason) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("strip_port removes a port from IPv4, IPv6 and host names", "[matching]") {
  CHECK(strip_port("10.0.0.1:9100") == "10.0.0.1");
  CHECK(strip_port("10.0.0.1") == "10.0.0.1");
  CHECK(strip_port("[::1]:9100") == "::1");
  CHECK(strip_port("[fd00::3]") == "fd00::3");
  CHECK(strip_port("fd00::3") == "fd00::3");
  CHECK(strip_port("te1:9100") == "te1");
  CHECK(strip_port("te1") == "te1");
  CHECK(strip_port("te1:http") == "te1:http");
  CHECK(strip_port("[::1]x") == "[::1]x");
  CHECK(strip_port("") == "");
}

TEST_CASE("auto matching tries the node name first, then the InternalIP", "[matching]") {
  NodeMatcher m(kNodes, "instance", NodeMatchMode::kAuto);
  CHECK(m.find("te1") == 0u);
  CHECK(m.find("te2:9100") == 1u);
  CHECK(m.find("10.0.0.2:9100") == 1u);
  CHECK(m.find("10.0.0.1") == 0u);
  CHECK(m.find("[fd00::3]:9100") == 2u);
  CHECK(m.find("[fd00:0:0::0003]:9100") == 2u);  // IPv6 compared in canonical form
  CHECK(m.find("fd00::3") == 2u);
  CHECK_FALSE(m.find("10.0.0.9:9100"));
  CHECK_FALSE(m.find("te9"));
  CHECK_FALSE(m.find(""));
}

TEST_CASE("name-only and IP-only matching ignore the other key", "[matching]") {
  NodeMatcher by_name(kNodes, "instance", NodeMatchMode::kName);
  CHECK(by_name.find("te1") == 0u);
  CHECK_FALSE(by_name.find("10.0.0.1:9100"));
  NodeMatcher by_ip(kNodes, "instance", NodeMatchMode::kInternalIp);
  CHECK(by_ip.find("10.0.0.1:9100") == 0u);
  CHECK_FALSE(by_ip.find("te1"));
  // Name first: a node named like another node's IP wins by name.
  std::vector<NodeIdentity> tricky = {{"a", "10.0.0.7"}, {"10.0.0.7", "10.0.0.8"}};
  NodeMatcher auto_match(tricky, "instance", NodeMatchMode::kAuto);
  CHECK(auto_match.find("10.0.0.7:9100") == 1u);
}

TEST_CASE("an InternalIP shared by two nodes matches neither and is reported", "[matching]") {
  std::vector<NodeIdentity> nodes = {{"a", "10.0.0.5"}, {"b", "10.0.0.5"}, {"c", "10.0.0.6"}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kAuto);
  CHECK_FALSE(m.find("10.0.0.5:9100"));
  CHECK(m.find("10.0.0.6:9100") == 2u);
  REQUIRE(m.shared_ip_warnings().size() == 1);
  CHECK_THAT(m.shared_ip_warnings()[0], Catch::Contains("10.0.0.5 is shared by nodes a and b"));
}

TEST_CASE("each node gets its cpu and memory series", "[assembly]") {
  NodeMatcher m(kNodes, "instance", NodeMatchMode::kAuto);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("te1", 35.5, 995), sample("10.0.0.2:9100", 80),
                               sample("[fd00::3]:9100", 10), sample("te4", 0)});
  answers.memory = answer("memory", {sample("te1", 40), sample("10.0.0.2:9100", 60),
                                     sample("[fd00::3]:9100", 20), sample("te4", 100)});
  AssembledUsage a = assemble_usage(kNodes, answers, m, 1000);
  REQUIRE(a.usage.nodes.size() == 4);
  CHECK(a.usage.unknown.empty());
  CHECK(a.usage.nodes.at("te1").cpu.percent == 35.5);
  CHECK(a.usage.nodes.at("te1").memory.percent == 40);
  CHECK(a.usage.nodes.at("te1").age_seconds == 5);
  CHECK(a.usage.nodes.at("te2").cpu.percent == 80);
  CHECK(a.usage.nodes.at("te3").memory.percent == 20);
  CHECK(a.usage.nodes.at("te4").memory.percent == 100);
  CHECK_FALSE(a.usage.nodes.at("te1").cpu.sustained_min);
  CHECK(a.usage.warnings.empty());
  CHECK(a.errors.empty());
  CHECK(a.usage.coverage_percent() == 100);
}

TEST_CASE("a node with no series is unknown, never idle", "[assembly]") {
  NodeMatcher m(kNodes, "instance", NodeMatchMode::kAuto);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("te1", 35), sample("te2", 20), sample("te3", 1)});
  answers.memory = answer("memory", {sample("te1", 40), sample("te3", 1), sample("te4", 5)});
  AssembledUsage a = assemble_usage(kNodes, answers, m, 1000);
  CHECK(a.usage.nodes.size() == 2);
  CHECK(a.usage.find("te2") == nullptr);
  CHECK(a.usage.unknown.at("te2") ==
        "no memory series for label instance (expected name te2 or InternalIP 10.0.0.2)");
  CHECK(a.usage.unknown.at("te4") ==
        "no cpu series for label instance (expected name te4 or InternalIP (node has none))");
  CHECK(a.usage.coverage_percent() == 50);
}

TEST_CASE("two series for one node make it unknown and count an error", "[assembly]") {
  NodeMatcher m(kNodes, "instance", NodeMatchMode::kAuto);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("te1", 35), sample("10.0.0.1:9100", 36), sample("te2", 1)});
  answers.memory = answer("memory", {sample("te1", 40), sample("te2", 1)});
  AssembledUsage a = assemble_usage(std::span(kNodes).first(2), answers, m, 1000);
  REQUIRE(a.usage.unknown.count("te1"));
  CHECK_THAT(a.usage.unknown.at("te1"),
             Catch::StartsWith("duplicate series in the cpu query (2 match this node: ") &&
                 Catch::Contains("instance=\"te1\"") && Catch::Contains("10.0.0.1:9100"));
  CHECK(a.usage.nodes.count("te2"));
  CHECK(has_error(a, "cpu", "duplicate"));
}

TEST_CASE("series that match no node become one summary warning", "[assembly]") {
  NodeMatcher m(kNodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  std::vector<Sample> cpu = {sample("te1", 1)};
  for (int i = 0; i < 500; ++i) cpu.push_back(sample("stray" + std::to_string(i), 1));
  cpu.push_back(sample("", 1));  // no instance label at all
  answers.cpu = answer("cpu", cpu);
  answers.memory = answer("memory", {sample("te1", 1)});
  AssembledUsage a = assemble_usage(std::span(kNodes).first(1), answers, m, 1000);
  CHECK(a.usage.nodes.count("te1"));
  REQUIRE(a.usage.warnings.size() == 2);
  CHECK(a.usage.warnings[0] ==
        "cpu query: 500 series match no node by label instance (e.g. \"stray0\", \"stray1\", "
        "\"stray2\")");
  CHECK(a.usage.warnings[1] == "cpu query: 1 series have no label instance (e.g. {job=\"node\"})");
  CHECK(has_error(a, "cpu", "unmatched"));
  CHECK(a.errors.size() == 1);  // once per query and reason
}

TEST_CASE("NaN, infinities and values outside 0..100 make a node unknown", "[assembly]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<NodeIdentity> nodes = {{"a", ""}, {"b", ""}, {"c", ""},
                                     {"d", ""}, {"e", ""}, {"f", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("a", nan), sample("b", inf), sample("c", 130),
                               sample("d", -0.3), sample("e", 100.4), sample("f", 50)});
  answers.memory = answer("memory", {sample("a", 1), sample("b", 1), sample("c", 1), sample("d", 1),
                                     sample("e", 1), sample("f", -inf)});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  CHECK(a.usage.unknown.at("a") == "cpu query returned NaN for {instance=\"a\", job=\"node\"}");
  CHECK(a.usage.unknown.at("b") == "cpu query returned +Inf for {instance=\"b\", job=\"node\"}");
  CHECK(a.usage.unknown.at("c") ==
        "cpu query returned 130 for {instance=\"c\", job=\"node\"}, outside 0..100");
  CHECK(a.usage.unknown.at("f") == "memory query returned -Inf for {instance=\"f\", job=\"node\"}");
  // Counter jitter just outside the range is clamped.
  CHECK(a.usage.nodes.at("d").cpu.percent == 0);
  CHECK(a.usage.nodes.at("e").cpu.percent == 100);
  CHECK(has_error(a, "cpu", "bad_value"));
  CHECK(has_error(a, "memory", "bad_value"));
}

TEST_CASE("both problems of a node are named", "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {});
  answers.memory = answer("memory", {sample("a", 101)});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  CHECK(a.usage.unknown.at("a") ==
        "no cpu series for label instance (expected name a); memory query returned 101 for "
        "{instance=\"a\", job=\"node\"}, outside 0..100");
}

TEST_CASE("a custom node label is used for matching", "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}};
  NodeMatcher m(nodes, "node", NodeMatchMode::kName);
  Sample s;
  s.labels = {{"node", "a"}, {"instance", "10.1.1.1:9100"}};
  s.value = 12;
  FetchAnswers answers;
  answers.cpu = answer("cpu", {s});
  answers.memory = answer("memory", {s});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  CHECK(a.usage.nodes.at("a").cpu.percent == 12);
}

TEST_CASE("a scalar or a failed answer cannot serve nodes", "[assembly]") {
  QueryAnswer scalar = answer("cpu", {sample("", 3)});
  scalar.result->scalar = true;
  CHECK_THAT(node_query_problem(scalar, "instance"),
             Catch::StartsWith("the query returned a scalar, which has no labels to match to "
                               "nodes") &&
                 Catch::Contains("avg by (instance)"));
  QueryAnswer failed;
  failed.name = "cpu";
  failed.failure = "HTTP 503: unavailable";
  CHECK(node_query_problem(failed, "instance") == "HTTP 503: unavailable");
  CHECK(node_query_problem(answer("cpu", {}), "instance").empty());
}

TEST_CASE("Prometheus warnings reach the UsageMap", "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("a", 1)});
  answers.cpu.result->warnings = {"partial response: store unavailable"};
  answers.memory = answer("memory", {sample("a", 1)});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  CHECK(a.usage.nodes.count("a"));
  CHECK(has_warning(a.usage, "cpu query: Prometheus warning: partial response: store unavailable"));
}

TEST_CASE("sustained minimum and maximum fill known nodes; their problems are warnings",
          "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}, {"b", ""}, {"c", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("a", 85), sample("b", 50), sample("c", 10)});
  answers.memory = answer("memory", {sample("a", 40), sample("b", 50), sample("c", 10)});
  answers.cpu_min = answer("cpu_min", {sample("a", 81), sample("b", 20)});
  answers.cpu_max = answer("cpu_max", {sample("a", 97), sample("b", 140), sample("c", 12)});
  answers.memory_min =
      answer("memory_min", {sample("a", 30), sample("b", 1), sample("b", 2), sample("c", 5)});
  answers.memory_max = QueryAnswer{"memory_max", "q", std::nullopt, "HTTP 503: overloaded"};
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  REQUIRE(a.usage.nodes.size() == 3);
  const NodeUsage& node_a = a.usage.nodes.at("a");
  CHECK(node_a.cpu.sustained_min == 81.0);
  CHECK(node_a.cpu.sustained_max == 97.0);
  CHECK(node_a.memory.sustained_min == 30.0);
  CHECK_FALSE(node_a.memory.sustained_max);
  CHECK_FALSE(a.usage.nodes.at("b").cpu.sustained_max);     // 140 is not a percent
  CHECK_FALSE(a.usage.nodes.at("b").memory.sustained_min);  // duplicate
  CHECK_FALSE(a.usage.nodes.at("c").cpu.sustained_min);     // no series
  CHECK(has_warning(a.usage, "cpu_min query: no series for 1 node(s) with data (e.g. c)"));
  CHECK(has_warning(a.usage, "cpu_max query: 1 unusable value(s): cpu_max query returned 140"));
  CHECK(has_warning(a.usage, "memory_min query: duplicate series for 1 node(s) (e.g. b)"));
  CHECK(has_warning(a.usage, "memory_max query: HTTP 503: overloaded; no node has this sustained"));
  CHECK(has_error(a, "memory_min", "duplicate"));
}

TEST_CASE("pod usage keyed namespace/pod; problems fall back to requests", "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  auto pod = [](std::string ns, std::string name, double value) {
    Sample s;
    s.labels = {{"namespace", ns}, {"pod", name}};
    s.value = value;
    return s;
  };
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("a", 1)});
  answers.memory = answer("memory", {sample("a", 1)});
  Sample unlabeled;
  unlabeled.value = 3;
  answers.pod_cpu =
      answer("pod_cpu", {pod("default", "web-1", 250), pod("default", "web-2", -1),
                         pod("ml", "train-0", 4000), pod("ml", "train-0", 10),
                         pod("x", "only-cpu", 5), unlabeled, pod("ml", "train-0", 7)});
  answers.pod_memory = answer("pod_memory", {pod("default", "web-1", 268435456),
                                             pod("default", "web-2", 1), pod("ml", "train-0", 1)});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  REQUIRE(a.usage.pods.size() == 1);
  CHECK(a.usage.pods.at("default/web-1").cpu_milli == 250);
  CHECK(a.usage.pods.at("default/web-1").memory_bytes == 268435456);
  CHECK(has_warning(a.usage, "pod_cpu query: 1 series lack the namespace or pod label"));
  CHECK(has_warning(a.usage, "pod_cpu query: 1 unusable value(s) (-1 for default/web-2)"));
  CHECK(has_warning(a.usage, "pod_cpu query: 1 pod(s) with duplicate series (e.g. ml/train-0)"));
  CHECK(has_warning(a.usage, "pod usage: 1 pod(s) have a cpu series but no memory series and 2"));

  FetchAnswers failed = answers;
  failed.pod_memory = QueryAnswer{"pod_memory", "q", std::nullopt, "timed out after 10 ms"};
  AssembledUsage b = assemble_usage(nodes, failed, m, 1000);
  CHECK(b.usage.pods.empty());
  CHECK(b.usage.nodes.count("a"));
  CHECK(has_warning(b.usage,
                    "pod_memory query failed: timed out after 10 ms; strategies use pod "
                    "requests instead"));
}

TEST_CASE("a node named twice is reported once", "[assembly]") {
  std::vector<NodeIdentity> nodes = {{"a", ""}, {"a", ""}};
  NodeMatcher m(nodes, "instance", NodeMatchMode::kName);
  FetchAnswers answers;
  answers.cpu = answer("cpu", {sample("a", 5)});
  answers.memory = answer("memory", {sample("a", 6)});
  AssembledUsage a = assemble_usage(nodes, answers, m, 1000);
  CHECK(a.usage.nodes.size() == 1);
  CHECK(a.usage.unknown.empty());
}

// `loadshift report` as run_report() sees it: every kind of bad input exits 2 with a message that
// names the flag or file and what was expected; the bundled example makes a plan.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cli/commands.h"
#include "metrics/file_source.h"
#include "model/rfc3339.h"
#include "policy/loader.h"
#include "usage/usage_sources.h"

using namespace loadshift::cli;
using namespace loadshift::usage;
namespace fs = std::filesystem;

namespace {

const std::string kSeedPolicy =
    LOADSHIFT_SOURCE_DIR "/test/data/shared/seed-examples/05-load-aware-policy.yaml";
const std::string kCluster = LOADSHIFT_SOURCE_DIR "/examples/seed-cluster/cluster.yaml";
const std::string kUsage = LOADSHIFT_SOURCE_DIR "/examples/seed-cluster/usage.json";

struct Run {
  int code = 0;
  std::string out, err;
};

Run report(const ReportOptions& options) {
  std::ostringstream out, err;
  Run run;
  run.code = run_report(options, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

ReportOptions example_options() {
  ReportOptions options;
  options.policy_file = kSeedPolicy;
  options.snapshot_files = {kCluster};
  options.usage_file = kUsage;
  options.at = "2026-11-22T04:00:00Z";
  return options;
}

// A file in a fresh temporary directory, removed with the object.
struct TempFile {
  fs::path dir, path;
  TempFile(const std::string& name, const std::string& text) {
    dir = fs::temp_directory_path() /
          ("loadshift-report-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

loadshift::policy::Policy load(const std::string& text) {
  loadshift::policy::LoadResult result = loadshift::policy::load_policy(text, "test.yaml");
  for (const auto& e : result.errors) FAIL_CHECK(e.to_string());
  REQUIRE(result.ok());
  return *result.policy;
}

}  // namespace

TEST_CASE("report: a bad --at exits 2 naming the flag and the format", "[report]") {
  ReportOptions options = example_options();
  options.at = "yesterday";
  Run run = report(options);
  CHECK(run.code == 2);
  CHECK(run.out.empty());
  CHECK_THAT(run.err, Catch::Contains("--at: expected an RFC 3339 time such as "
                                      "2026-11-22T04:00:00Z"));
  CHECK_THAT(run.err, Catch::Contains("found \"yesterday\""));
}

TEST_CASE("report: --usage and --prometheus exclude each other", "[report]") {
  ReportOptions options = example_options();
  options.prometheus_url = "http://prometheus:9090";
  Run run = report(options);
  CHECK(run.code == 2);
  CHECK_THAT(run.err, Catch::Contains("--usage and --prometheus exclude each other"));
}

TEST_CASE("report: without --snapshot it reads the live cluster, and says why it cannot",
          "[report]") {
  ReportOptions options = example_options();
  options.snapshot_files.clear();
  options.kube.kubeconfig = "/nonexistent/kubeconfig";
  Run run = report(options);
  CHECK(run.code == 2);
  CHECK(run.out.empty());
  CHECK_THAT(run.err, Catch::Contains("error: --kubeconfig /nonexistent/kubeconfig: no such file"));
  // Bad rate limits are flag errors, said before anything is read.
  options.kube.qps = -1;
  options.kube.burst = 0;
  Run bad = report(options);
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--kube-api-qps: expected a number >= 0"));
  CHECK_THAT(bad.err, Catch::Contains("--kube-api-burst: expected an integer >= 1"));
}

TEST_CASE("report: a missing or invalid policy exits 2 naming the file", "[report]") {
  SECTION("no --policy") {
    ReportOptions options = example_options();
    options.policy_file.clear();
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--policy: required"));
  }
  SECTION("a file that does not exist") {
    ReportOptions options = example_options();
    options.policy_file = "/nonexistent/policy.yaml";
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("/nonexistent/policy.yaml"));
    CHECK(run.out.empty());
  }
  SECTION("an invalid policy: every error with its position") {
    ReportOptions options = example_options();
    options.policy_file = LOADSHIFT_SOURCE_DIR "/examples/policies/invalid-policy.yaml";
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("invalid-policy.yaml:15:7:"));
    CHECK_THAT(run.err, Catch::Contains("invalid-policy.yaml: 6 errors"));
  }
}

TEST_CASE("report: other bad flags and files exit 2 with what was expected", "[report]") {
  SECTION("--output") {
    ReportOptions options = example_options();
    options.output = "yaml";
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--output: expected table, json, markdown or html, found "
                                        "\"yaml\""));
  }
  SECTION("--prometheus that is not an http(s) URL") {
    ReportOptions options = example_options();
    options.usage_file.clear();
    options.prometheus_url = "ftp://prometheus";
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--prometheus: expected an http(s) URL"));
  }
  SECTION("every flag problem at once") {
    ReportOptions options;
    options.at = "2026-13-01T00:00:00Z";
    options.output = "xml";
    options.kube.burst = 0;  // no --snapshot: the live cluster's flags are checked too
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("--policy"));
    CHECK_THAT(run.err, Catch::Contains("--kube-api-burst"));
    CHECK_THAT(run.err, Catch::Contains("--at"));
    CHECK_THAT(run.err, Catch::Contains("--output"));
  }
  SECTION("a snapshot file that does not exist") {
    ReportOptions options = example_options();
    options.snapshot_files = {"/nonexistent/cluster.json"};
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("/nonexistent/cluster.json"));
  }
  SECTION("a usage file that is not usage JSON") {
    TempFile usage("usage.json", R"({"nodes": {"te3": {"cpu": "hot"}}})");
    ReportOptions options = example_options();
    options.usage_file = usage.path.string();
    Run run = report(options);
    CHECK(run.code == 2);
    CHECK_THAT(run.err, Catch::Contains("error: --usage: " + usage.path.string() + ": "));
    CHECK(run.out.empty());
  }
}

TEST_CASE("report: the bundled example makes a plan (exit 0) in every format", "[report]") {
  ReportOptions options = example_options();
  for (const char* format : {"table", "json", "markdown"}) {
    options.output = format;
    Run run = report(options);
    INFO(format << "\n" << run.err);
    CHECK(run.code == 0);
    CHECK_FALSE(run.out.empty());
  }
  options.output = "json";
  nlohmann::json doc = nlohmann::json::parse(report(options).out);
  REQUIRE(doc["nodes"].size() == 8);
  CHECK(doc["nodes"][2]["name"] == "te3");
  CHECK(doc["nodes"][2]["class"] == "overutilized");
  CHECK(doc["nodes"][2]["cpu"] == 92.0);
}

TEST_CASE("report time: RFC 3339 in, RFC 3339 out", "[report]") {
  using std::chrono::system_clock;
  auto at = loadshift::model::parse_rfc3339("2026-11-22T04:00:00Z");
  REQUIRE(at);
  CHECK(loadshift::model::format_rfc3339(*at) == "2026-11-22T04:00:00Z");
  CHECK(loadshift::model::parse_rfc3339("2026-11-22T06:00:00+02:00") == at);
  CHECK(loadshift::model::parse_rfc3339("2026-11-21T23:30:00-04:30") == at);
  CHECK(loadshift::model::parse_rfc3339("2026-11-22t04:00:00z") == at);
  auto fraction = loadshift::model::parse_rfc3339("2026-11-22T04:00:00.250Z");
  REQUIRE(fraction);
  CHECK(*fraction - *at == std::chrono::milliseconds(250));
  CHECK(system_clock::to_time_t(*loadshift::model::parse_rfc3339("1970-01-01T00:00:00Z")) == 0);
  for (const char* bad :
       {"", "2026-11-22", "2026-11-22T04:00:00", "2026-02-30T00:00:00Z", "2026-11-22T24:00:00Z",
        "2026-11-22T04:60:00Z", "2026-11-22T04:00:00.Z", "2026-11-22T04:00:00+0200",
        "2026-11-22T04:00:00Z ", "22/11/2026", "2026-11-22X04:00:00Z"}) {
    INFO(bad);
    CHECK_FALSE(loadshift::model::parse_rfc3339(bad));
  }
}

TEST_CASE("usage sources: the policy's LoadAware metrics become PrometheusSettings", "[report]") {
  loadshift::policy::Policy policy = load(R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: LoadAware
    args:
      metrics:
        type: Prometheus
        address: http://prom.monitoring:9090
        window: 2m
        step: 15s
        timeout: 20s
        nodeLabel: node
        nodeMatch: name
        headers: {X-Scope-OrgID: team-a}
        queries:
          cpu: 'avg_over_time(cpu[{{window}}])'
      sustainedFor: 10m
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance:
      enabled: [LoadAware]
)");
  const auto* load_aware = first_load_aware(policy);
  REQUIRE(load_aware != nullptr);
  auto at = loadshift::model::parse_rfc3339("2026-11-22T04:00:00Z");
  loadshift::metrics::PrometheusSettings s = prometheus_settings(load_aware->metrics, at);
  CHECK(s.address == "http://prom.monitoring:9090");
  CHECK(s.window_ms == 120000);
  CHECK(s.step_ms == 15000);
  CHECK(s.timeout_ms == 20000);
  CHECK(s.cpu_query == "avg_over_time(cpu[{{window}}])");
  CHECK(s.memory_query.empty());
  CHECK(s.node_label == "node");
  CHECK(s.node_match == loadshift::metrics::NodeMatchMode::kName);
  CHECK(s.headers == std::map<std::string, std::string>{{"X-Scope-OrgID", "team-a"}});
  CHECK(s.evaluation_time == at);

  loadshift::metrics::UsageRequest request = usage_request(load_aware);
  CHECK(request.pods);
  CHECK(request.sustained_for_ms == 600000);
  CHECK_FALSE(usage_request(nullptr).sustained_for_ms);

  std::string why;
  UsageFlags flags;
  auto source = make_usage_source(flags, policy, &why);
  CHECK(dynamic_cast<loadshift::metrics::PrometheusSource*>(source.get()) != nullptr);
  CHECK(why.empty());
  flags.usage_file = "usage.json";
  source = make_usage_source(flags, policy, &why);
  CHECK(dynamic_cast<loadshift::metrics::FileSource*>(source.get()) != nullptr);
}

TEST_CASE("usage sources: no LoadAware and no flag is said, never a silent default", "[report]") {
  loadshift::policy::Policy policy = load(R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: taints
  plugins:
    deschedule:
      enabled: [RemovePodsViolatingNodeTaints]
)");
  CHECK(first_load_aware(policy) == nullptr);
  std::string why;
  CHECK(make_usage_source(UsageFlags{}, policy, &why) == nullptr);
  CHECK_THAT(why, Catch::Contains("no usage source"));
  UsageFlags flags;
  flags.prometheus_url = "http://prom:9090";
  CHECK(dynamic_cast<loadshift::metrics::PrometheusSource*>(
            make_usage_source(flags, policy, &why).get()) != nullptr);

  loadshift::metrics::UsageMap usage = usage_without_source(why);
  CHECK(usage.nodes.empty());
  CHECK(usage.unknown.empty());
  CHECK(usage.warnings == std::vector<std::string>{why});
  CHECK(usage.origin == "none");
}

TEST_CASE("usage sources: node identities are the snapshot's names and InternalIPs", "[report]") {
  loadshift::model::Snapshot snapshot;
  loadshift::model::Node a, b;
  a.meta.name = "a";
  a.addresses = {{"Hostname", "a"}, {"InternalIP", "10.0.0.1"}};
  b.meta.name = "b";
  snapshot.nodes = {a, b};
  auto nodes = node_identities(snapshot);
  REQUIRE(nodes.size() == 2);
  CHECK(nodes[0].name == "a");
  CHECK(nodes[0].internal_ip == "10.0.0.1");
  CHECK(nodes[1].name == "b");
  CHECK(nodes[1].internal_ip.empty());
}

TEST_CASE("report: a policy without LoadAware and no usage flag still plans, and says so",
          "[report]") {
  TempFile policy("taints.yaml", R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: taints
  plugins:
    deschedule:
      enabled: [RemovePodsViolatingNodeTaints]
)");
  ReportOptions options = example_options();
  options.policy_file = policy.path.string();
  options.usage_file.clear();
  // Every pod of the ReplicaSet at once (by default one pod of a workload is in flight at a time).
  options.plan.max_in_flight_per_workload = 0;
  Run run = report(options);
  INFO(run.err);
  CHECK(run.code == 0);
  CHECK_THAT(run.out,
             Catch::Contains("usage: no usage source: the policy has no LoadAware plugin"));
  // Without any usage source the taint plugin still works on placement facts alone.
  CHECK_THAT(run.out, Catch::Contains("te7 -> te8  RemovePodsViolatingNodeTaints"));
  // No usage source at all: nothing is unknown (deschedule plugins then place on facts alone),
  // and nothing is classified.
  CHECK_THAT(run.out, Catch::Contains("0 overutilized, 0 underutilized, 0 unknown nodes; 8 "
                                      "unclassified"));
  // With usage for every node and no plugin that classifies: unclassified, not unknown.
  options.usage_file = example_options().usage_file;
  Run with_usage = report(options);
  INFO(with_usage.err);
  CHECK(with_usage.code == 0);
  CHECK_THAT(with_usage.out, Catch::Contains("0 overutilized, 0 underutilized, 0 unknown nodes; 8 "
                                             "unclassified"));
  CHECK_THAT(with_usage.out, Catch::Contains("te1   training   unclassified"));
}

TEST_CASE("report: the node table shows the figures each class was computed from", "[report]") {
  SECTION("LowNodeUtilization on requests: requested percent, labelled so") {
    TempFile policy("lnu.yaml", R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20, memory: 20}, targetThresholds: {cpu: 50, memory: 50}}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
)");
    ReportOptions options = example_options();
    options.policy_file = policy.path.string();
    Run run = report(options);
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("CPU REQUESTED"));
    // te3 runs at 92% real cpu but requests 7.8% of it: underutilized on requests, shown as such.
    CHECK_THAT(run.out, Catch::Contains("te3   training   underutilized  7.8%"));
    CHECK_THAT(run.out, !Catch::Contains("92.0%"));
    // The GPU pod's hint is one this plugin's args can follow.
    CHECK_THAT(run.out, Catch::Contains("this plugin never moves GPU pods"));
    CHECK_THAT(run.out, !Catch::Contains("set gpu.evictGpuPods"));
  }
  SECTION("LowNodeUtilization on MetricResource: the metric alone, no moving after-values") {
    TempFile policy("metric.yaml", R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
  prometheus: {url: "http://prometheus:9090"}
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {MetricResource: 20}
      targetThresholds: {MetricResource: 50}
      metricsUtilization: {source: Prometheus, prometheus: {query: "node_ratio"}}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
)");
    TempFile usage("usage.json", R"({"nodes": {
  "te1": {"cpu": 45, "memory": 50, "metricResource": 10},
  "te2": {"cpu": 55, "memory": 60, "metricResource": 10},
  "te3": {"cpu": 92, "memory": 70, "metricResource": 70},
  "te4": {"cpu": 25, "memory": 28, "metricResource": 10},
  "te5": {"cpu": 20, "memory": 25, "metricResource": 10},
  "te6": {"cpu": 12, "memory": 18, "metricResource": 10},
  "te7": {"cpu": 48, "memory": 40, "metricResource": 10},
  "te8": {"cpu": 15, "memory": 22, "metricResource": 10}}})");
    ReportOptions options = example_options();
    options.policy_file = policy.path.string();
    options.usage_file = usage.path.string();
    Run run = report(options);
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("  NODE  POOL       CLASS          METRICRESOURCE\n"));
    CHECK_THAT(run.out, Catch::Contains("te3   training   overutilized   70.0% "));
    CHECK_THAT(run.out, !Catch::Contains("->  "));
    CHECK_THAT(run.out, !Catch::Contains("% -> "));
    // The skip group's heading matches its lines.
    CHECK_THAT(run.out, Catch::Contains("at most 1 pod per overutilized node per run ("));
  }
  SECTION("requested figures move with every plugin's evictions, deschedule ones too") {
    TempFile policy("both.yaml", R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20, memory: 20}, targetThresholds: {cpu: 50, memory: 50}}
  plugins:
    deschedule:
      enabled: [RemovePodsViolatingNodeTaints]
    balance:
      enabled: [LowNodeUtilization]
)");
    ReportOptions options = example_options();
    options.policy_file = policy.path.string();
    options.plan.max_in_flight_per_workload = 0;  // both pods of the ReplicaSet in one plan
    Run run = report(options);
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("te3 -> te8  RemovePodsViolatingNodeTaints"));
    // te3 and te8 were touched only by the taint plugin: their requested percent still moves.
    CHECK_THAT(run.out, Catch::Contains("te3   training   underutilized  7.8% -> 5.9%"));
    CHECK_THAT(run.out, Catch::Contains("te8   hybrid     underutilized  0.0% -> 2.8%"));
  }
  SECTION("a policy nodeSelector that matches no node says so") {
    TempFile policy("nowhere.yaml", R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: "pool=nowhere"
profiles:
- name: p
  pluginConfig:
  - name: LoadAware
    args:
      metrics: {type: prometheus, address: "http://p:9090"}
      thresholds: {cpu: 30}
      targetThresholds: {cpu: 80}
  plugins:
    balance:
      enabled: [LoadAware]
)");
    ReportOptions options = example_options();
    options.policy_file = policy.path.string();
    Run run = report(options);
    INFO(run.out << run.err);
    CHECK(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("policy nodeSelector \"pool=nowhere\" matches none of the "
                                        "8 nodes: nothing is planned"));
    CHECK_THAT(run.out, Catch::Contains("0 unknown nodes; 8 unclassified"));
  }
}

// Usage sources for LowNodeUtilization's metricsUtilization source Prometheus: the request carries
// its query, a policy without LoadAware fetches from metricsProviders' Prometheus, and what the
// report must say about the server and the token.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "metrics/file_source.h"
#include "policy/loader.h"
#include "test/metrics/fake_prometheus.h"
#include "usage/usage_sources.h"

using namespace loadshift::cli;
using namespace loadshift::usage;

namespace {

loadshift::policy::Policy load(const std::string& text) {
  loadshift::policy::LoadResult result = loadshift::policy::load_policy(text, "test.yaml");
  for (const auto& e : result.errors) FAIL_CHECK(e.to_string());
  REQUIRE(result.ok());
  return *result.policy;
}

const char* const kProviders = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
  prometheus:
    url: http://prom.providers:9090
    authToken:
      secretReference: {namespace: kube-system, name: prom-token}
)";

const char* const kLowNodeUtilization = R"(profiles:
- name: balance
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {MetricResource: 20}
      targetThresholds: {MetricResource: 70}
      metricsUtilization:
        source: Prometheus
        prometheus:
          query: instance:node_cpu:rate:sum
  plugins:
    balance:
      enabled: [LowNodeUtilization]
)";

// Files in a fresh temporary directory, removed with the object.
struct TempDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("loadshift-usage-sources-test-" + std::to_string(std::random_device{}()));
  TempDir() { std::filesystem::create_directories(dir); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::filesystem::path path = dir / name;
    std::ofstream(path) << text;
    return path.string();
  }
};

bool has_warning(const std::vector<std::string>& warnings, const std::string& text) {
  for (const auto& w : warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("usage sources: LowNodeUtilization's Prometheus query goes into the request",
          "[report]") {
  loadshift::policy::Policy policy = load(std::string(kProviders) + kLowNodeUtilization);
  const auto* lnu = first_prometheus_low_node_utilization(policy);
  REQUIRE(lnu != nullptr);
  loadshift::metrics::UsageRequest request = usage_request(first_load_aware(policy), lnu);
  CHECK(request.metric_resource_query == "instance:node_cpu:rate:sum");
  CHECK(request.pods);
  CHECK(usage_request(nullptr).metric_resource_query.empty());

  // A requests-based LowNodeUtilization asks nothing more.
  loadshift::policy::Policy plain = load(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: balance
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {cpu: 20}
      targetThresholds: {cpu: 70}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
)");
  CHECK(first_prometheus_low_node_utilization(plain) == nullptr);
}

TEST_CASE("usage sources: without LoadAware, metricsProviders' Prometheus is the source",
          "[report]") {
  loadshift::policy::Policy policy = load(std::string(kProviders) + kLowNodeUtilization);
  REQUIRE(first_load_aware(policy) == nullptr);
  std::string why;
  auto source = make_usage_source(UsageFlags{}, policy, &why);
  CHECK(dynamic_cast<loadshift::metrics::PrometheusSource*>(source.get()) != nullptr);
  CHECK(why.empty());

  std::vector<std::string> warnings = usage_source_warnings(UsageFlags{}, policy);
  CHECK(has_warning(warnings, "authToken secretReference kube-system/prom-token is not used"));
  CHECK_FALSE(has_warning(warnings, "MetricResource query went to"));

  UsageFlags flags;
  flags.prometheus_url = "http://elsewhere:9090";
  CHECK(has_warning(usage_source_warnings(flags, policy),
                    "MetricResource query went to http://elsewhere:9090 (--prometheus), not to "
                    "the metricsProviders prometheus url http://prom.providers:9090"));
  flags = UsageFlags{};
  flags.usage_file = "usage.json";
  CHECK(usage_source_warnings(flags, policy).empty());
}

TEST_CASE("usage sources: a LoadAware address wins over metricsProviders', with a warning",
          "[report]") {
  loadshift::policy::Policy policy =
      load(std::string(kProviders) + kLowNodeUtilization + R"(- name: load
  pluginConfig:
  - name: LoadAware
    args:
      metrics:
        type: Prometheus
        address: http://prom.loadaware:9090
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance:
      enabled: [LoadAware]
)");
  REQUIRE(first_load_aware(policy) != nullptr);
  std::string why;
  auto source = make_usage_source(UsageFlags{}, policy, &why);
  CHECK(dynamic_cast<loadshift::metrics::PrometheusSource*>(source.get()) != nullptr);
  CHECK(has_warning(usage_source_warnings(UsageFlags{}, policy),
                    "LowNodeUtilization's MetricResource query went to "
                    "http://prom.loadaware:9090 (LoadAware's metrics block), not to the "
                    "metricsProviders prometheus url http://prom.providers:9090"));
}

namespace {

const char* const kSmallCluster = R"(apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  conditions: [{type: Ready, status: "True"}]
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
status:
  conditions: [{type: Ready, status: "True"}]
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
status:
  conditions: [{type: Ready, status: "True"}]
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-a
  namespace: apps
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}]
spec: {nodeName: n1, containers: [{name: main, image: nginx, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata:
  name: web-b
  namespace: apps
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u1, controller: true}]
spec: {nodeName: n1, containers: [{name: main, image: nginx, resources: {requests: {cpu: "1"}}}]}
status: {phase: Running}
)";

}  // namespace

TEST_CASE("report: LowNodeUtilization with source Prometheus end to end over metricsProviders",
          "[report]") {
  loadshift::testing::FakePrometheus server;
  server.set_handler([](const loadshift::testing::FakeRequest& r) {
    std::string q = r.form("query");
    if (q == "instance:node_cpu:rate:sum") {
      // n1 hot, n2 idle, n3 out of range: unknown for LowNodeUtilization.
      return loadshift::testing::FakeResponse{
          200, loadshift::testing::vector_body({{{{"instance", "n1"}}, "0.9"},
                                                {{{"instance", "n2"}}, "0.05"},
                                                {{{"instance", "n3"}}, "7"}})};
    }
    if (q.find("pod") != std::string::npos || q.find("container") != std::string::npos) {
      return loadshift::testing::FakeResponse{200, loadshift::testing::vector_body({})};
    }
    return loadshift::testing::FakeResponse{
        200, loadshift::testing::vector_body({{{{"instance", "n1"}}, "30"},
                                              {{{"instance", "n2"}}, "30"},
                                              {{{"instance", "n3"}}, "30"}})};
  });
  std::string policy_text = std::string(kProviders) + kLowNodeUtilization;
  policy_text.replace(policy_text.find("http://prom.providers:9090"),
                      std::string("http://prom.providers:9090").size(), server.url());
  TempDir dir;
  ReportOptions options;
  options.policy_file = dir.write("policy.yaml", policy_text);
  options.snapshot_files = {dir.write("cluster.yaml", kSmallCluster)};
  options.at = "2026-11-22T04:00:00Z";
  options.output = "markdown";
  std::ostringstream out, err;
  int code = run_report(options, out, err);
  INFO(err.str());
  REQUIRE(code == 0);
  size_t asked = 0;
  for (const auto& request : server.requests()) {
    asked += request.form("query") == "instance:node_cpu:rate:sum";
  }
  CHECK(asked == 1);
  // The policy reads nothing else: no node_exporter or cAdvisor query was sent.
  CHECK(server.requests().size() == 1);
  std::string text = out.str();
  INFO(text);
  CHECK_THAT(text, Catch::Contains("n1 MetricResource 90.0% > 70%: evict apps/web-a -> n2"));
  CHECK_THAT(text, Catch::Contains("at most 1 pod per overutilized node"));
  CHECK_THAT(text, Catch::Contains("(metric_resource value 7 is outside 0..1); plugins that read "
                                   "usage use it neither as source nor as target: n3"));
  // The node table shows the metric the classes came from, nothing moving after it.
  CHECK_THAT(text, Catch::Contains("| n1 | - | overutilized | MetricResource | unknown | unknown | "
                                   "unknown | unknown | 90.0% |"));
  CHECK_THAT(text, Catch::Contains("kube-system/prom-token is not used"));
}

TEST_CASE("usage request: node queries only when the policy reads node usage", "[usage]") {
  // LowNodeUtilization on MetricResource alone: only its query, no node_exporter or cAdvisor.
  loadshift::metrics::UsageRequest alone =
      usage_request(load(std::string(kProviders) + kLowNodeUtilization));
  CHECK_FALSE(alone.node_usage);
  CHECK_FALSE(alone.pods);
  CHECK(alone.metric_resource_query == "instance:node_cpu:rate:sum");

  // A deschedule plugin beside it keeps targets off hot nodes with cpu and memory: asked.
  std::string with_taints = std::string(kProviders) + kLowNodeUtilization;
  with_taints.replace(with_taints.find("      enabled: [LowNodeUtilization]\n"),
                      std::string("      enabled: [LowNodeUtilization]\n").size(),
                      "      enabled: [LowNodeUtilization]\n    deschedule:\n      enabled: "
                      "[RemovePodsViolatingNodeTaints]\n");
  loadshift::metrics::UsageRequest both = usage_request(load(with_taints));
  CHECK(both.node_usage);
  CHECK(both.pods);
  CHECK(both.metric_resource_query == "instance:node_cpu:rate:sum");

  // No MetricResource: node usage as before (a source always has something to ask).
  loadshift::metrics::UsageRequest plain = usage_request(load(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: LowNodeUtilization
    args: {thresholds: {cpu: 20}, targetThresholds: {cpu: 50}}
  plugins:
    balance:
      enabled: [LowNodeUtilization]
)"));
  CHECK(plain.node_usage);
  CHECK(plain.metric_resource_query.empty());
}

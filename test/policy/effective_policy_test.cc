// The effective policy: written back as YAML it loads into an equal Policy, writing that again
// gives the same text, and the summary shows what will run.
#include <catch2/catch.hpp>

#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

// parse -> write -> parse -> write: equal policies, identical text.
void check_round_trip(const std::string& text) {
  Policy first = load_valid(text);
  std::string written = write_policy_yaml(first);
  INFO(written);
  Loaded again = load_text(written);
  CHECK(again.errors == Strings{});
  CHECK(again.warnings == Strings{});
  REQUIRE(again.result.ok());
  CHECK(*again.result.policy == first);
  CHECK(write_policy_yaml(*again.result.policy) == written);
}

}  // namespace

TEST_CASE("the effective policy round-trips", "[policy][effective]") {
  SECTION("the seed policy") {
    check_round_trip(
        read_file(std::string(LOADSHIFT_SHARED_DIR) + "/seed-examples/05-load-aware-policy.yaml"));
  }
  SECTION("the loadshift extensions example") {
    check_round_trip(read_file(std::string(LOADSHIFT_SOURCE_DIR) +
                               "/examples/policies/loadshift-extensions.yaml"));
  }
  SECTION("every top-level field and DefaultEvictor field") {
    check_round_trip(R"yaml(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: "kubernetes.io/os=linux,node-role.kubernetes.io/control-plane notin (true)"
maxNoOfPodsToEvictPerNode: 1
maxNoOfPodsToEvictPerNamespace: 0
maxNoOfPodsToEvictTotal: 4294967295
evictionFailureEventNotification: true
gracePeriodSeconds: 0
metricsProviders:
- source: KubernetesMetrics
- source: Prometheus
  prometheus:
    url: "https://[::1]:9090/prom"
    authToken: {secretReference: {namespace: "true", name: "10"}}
profiles:
- name: "null"
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeSelector: "a"
      labelSelector: {}
      namespaceLabelSelector:
        matchLabels: {"yes": "no"}
        matchExpressions: [{key: k, operator: Exists}]
      priorityThreshold: {name: "2000"}
      minReplicas: 3
      minPodAge: 1h30m
      noEvictionPolicy: Mandatory
      podProtections:
        defaultDisabled: [SystemCriticalPods]
        extraEnabled: [PodsWithPVC]
        config: {PodsWithPVC: {protectedStorageClasses: [{name: x}]}}
  - name: HighNodeUtilization
    args: {thresholds: {cpu: 20.25, memory: 0.1}}
  plugins:
    balance: {enabled: [HighNodeUtilization]}
- name: second
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
)yaml");
  }
  SECTION("kubernetes-sigs plugins with a Prometheus metrics source") {
    check_round_trip(R"yaml(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
metricsProviders:
- source: Prometheus
  prometheus: {url: "http://prometheus:9090"}
profiles:
- name: sigs
  pluginConfig:
  - name: LowNodeUtilization
    args:
      thresholds: {MetricResource: 20}
      targetThresholds: {MetricResource: 70}
      metricsUtilization: {source: Prometheus, prometheus: {query: "instance:cpu:ratio"}}
      evictableNamespaces: {exclude: [kube-system]}
      evictionLimits: {node: 2}
  - name: RemovePodsViolatingNodeAffinity
    args:
      nodeAffinityType: [requiredDuringSchedulingIgnoredDuringExecution]
      namespaces: {include: [apps]}
      labelSelector: {matchLabels: {tier: web}}
  - name: RemovePodsViolatingNodeTaints
    args: {includedTaints: ["dedicated=gpu"], includePreferNoSchedule: true}
  plugins:
    balance: {enabled: [LowNodeUtilization]}
    deschedule:
      enabled: [RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints]
)yaml");
  }
  SECTION("no profiles at all") {
    Policy empty = load_valid("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n");
    Loaded again = load_text(write_policy_yaml(empty));
    REQUIRE(again.result.ok());
    CHECK(*again.result.policy == empty);
  }
}

TEST_CASE("the effective policy spells every default out", "[policy][effective]") {
  Policy policy = load_valid(
      "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n"
      "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n");
  std::string written = write_policy_yaml(policy);
  CHECK_THAT(written, Catch::Contains("- name: DefaultEvictor\n        args:\n"
                                      "          nodeSelector: \"\"\n"
                                      "          priorityThreshold:\n"
                                      "            value: 2000000000\n"
                                      "          nodeFit: false\n"));
  CHECK_THAT(written, Catch::Contains("      preevictionfilter:\n        enabled:\n"
                                      "          - DefaultEvictor\n"));
}

TEST_CASE("the summary shows limits, plugins per extension point and key args",
          "[policy][effective]") {
  Policy policy = load_valid(
      read_file(std::string(LOADSHIFT_SHARED_DIR) + "/seed-examples/05-load-aware-policy.yaml"));
  std::string summary = summarize_policy(policy);
  CHECK_THAT(summary, Catch::StartsWith("DeschedulerPolicy descheduler/v1alpha2, 1 profile\n"
                                        "  nodes: all nodes\n"
                                        "  eviction limits: per node unlimited, per namespace "
                                        "unlimited, total unlimited\n"));
  CHECK_THAT(summary, Catch::Contains("profile \"kube-system\"\n"
                                      "  deschedule:        none\n"
                                      "  balance:           LoadAware\n"
                                      "  filter:            DefaultEvictor\n"
                                      "  preEvictionFilter: DefaultEvictor, LoadAware\n"));
  CHECK_THAT(summary, Catch::Contains("DefaultEvictor: priorityThreshold 10000, nodeFit yes"));
  CHECK_THAT(summary, Catch::Contains("PodsWithPVC"));
  CHECK_THAT(summary, Catch::Contains("LoadAware: thresholds cpu 30%, memory 30%; "
                                      "targetThresholds cpu 80%, memory 85%"));
  // The seed's metrics block is Volcano's {type, address}: Volcano's 2m window.
  CHECK_THAT(summary, Catch::Contains("window 2m, step 30s"));
  CHECK_THAT(summary, Catch::Contains("excluded namespaces default"));
}

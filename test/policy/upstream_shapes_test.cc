// Policies as kubernetes-sigs/descheduler users write them: the README's examples, the default
// ConfigMap of kubernetes/base and the Helm chart's default policy.
#include <catch2/catch.hpp>

#include "policy/effective_policy.h"
#include "policy/plugin_schemas.h"
#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

// The README's v1alpha2 examples combined: top-level limits and a Prometheus provider, the
// DefaultEvictor with its podProtections lists left empty (only comments under them), and the
// LowNodeUtilization, RemovePodsViolatingNodeAffinity and RemovePodsViolatingNodeTaints sections.
const std::string kReadmePolicy = R"(apiVersion: "descheduler/v1alpha2"
kind: "DeschedulerPolicy"
nodeSelector: "node=node1" # you don't need to set this, if not set all will be processed
maxNoOfPodsToEvictPerNode: 5000 # you don't need to set this, unlimited if not set
maxNoOfPodsToEvictPerNamespace: 5000 # you don't need to set this, unlimited if not set
maxNoOfPodsToEvictTotal: 5000 # you don't need to set this, unlimited if not set
gracePeriodSeconds: 60 # you don't need to set this, 0 if not set
metricsProviders:
- source: Prometheus
  prometheus:
    url: http://prometheus-kube-prometheus-prometheus.prom.svc.cluster.local
    authToken:
      secretReference:
        namespace: "kube-system"
        name: "authtoken"
profiles:
  - name: ProfileName
    pluginConfig:
    - name: "DefaultEvictor"
      args:
        podProtections:
          defaultDisabled:
            #- "PodsWithLocalStorage"
            #- "SystemCriticalPods"
          extraEnabled:
            #- "PodsWithPVC"
          config: {}
        nodeFit: true
        minReplicas: 2
    - name: "LowNodeUtilization"
      args:
        thresholds:
          "cpu" : 20
          "memory": 20
          "pods": 20
        targetThresholds:
          "cpu" : 50
          "memory": 50
          "pods": 50
    - name: "RemovePodsViolatingNodeAffinity"
      args:
        nodeAffinityType:
        - "requiredDuringSchedulingIgnoredDuringExecution"
    - name: "RemovePodsViolatingNodeTaints"
      args:
        excludedTaints:
        - dedicated=special-user # exclude taints with key "dedicated" and value "special-user"
        - reserved # exclude all taints with key "reserved"
    plugins:
      balance:
        enabled:
          - "LowNodeUtilization"
      deschedule:
        enabled:
          - "RemovePodsViolatingNodeAffinity"
          - "RemovePodsViolatingNodeTaints"
      # DefaultEvictor is enabled for both `filter` and `preEvictionFilter`
      # filter:
      #   enabled:
      #     - "DefaultEvictor"
      # preEvictionFilter:
      #   enabled:
      #     - "DefaultEvictor"
)";

// The Helm chart's default policy as `helm template` renders it into the ConfigMap (toYaml sorts
// the keys, so `args` comes before `name`).
const std::string kHelmConfigMap = R"(---
# Source: descheduler/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: descheduler
  namespace: kube-system
  labels:
    app.kubernetes.io/name: descheduler
data:
  policy.yaml: |
    apiVersion: "descheduler/v1alpha2"
    kind: "DeschedulerPolicy"
    profiles:
    - name: default
      pluginConfig:
      - args:
          podProtections:
            defaultDisabled:
            - PodsWithLocalStorage
            extraEnabled:
            - PodsWithPVC
        name: DefaultEvictor
      - name: RemoveDuplicates
      - args:
          includingInitContainers: true
          podRestartThreshold: 100
        name: RemovePodsHavingTooManyRestarts
      - args:
          nodeAffinityType:
          - requiredDuringSchedulingIgnoredDuringExecution
        name: RemovePodsViolatingNodeAffinity
      - name: RemovePodsViolatingNodeTaints
      - name: RemovePodsViolatingInterPodAntiAffinity
      - name: RemovePodsViolatingTopologySpreadConstraint
      - args:
          targetThresholds:
            cpu: 50
            memory: 50
            pods: 50
          thresholds:
            cpu: 20
            memory: 20
            pods: 20
        name: LowNodeUtilization
      plugins:
        balance:
          enabled:
          - RemoveDuplicates
          - RemovePodsViolatingTopologySpreadConstraint
          - LowNodeUtilization
        deschedule:
          enabled:
          - RemovePodsHavingTooManyRestarts
          - RemovePodsViolatingNodeTaints
          - RemovePodsViolatingNodeAffinity
          - RemovePodsViolatingInterPodAntiAffinity
)";

}  // namespace

TEST_CASE("the README's policy loads with every field", "[policy][upstream]") {
  Loaded loaded = load_text(kReadmePolicy);
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings == Strings{});
  REQUIRE(loaded.result.ok());
  const Policy& policy = *loaded.result.policy;
  CHECK(policy.node_selector == "node=node1");
  CHECK(policy.max_pods_to_evict_per_node == 5000u);
  CHECK(policy.max_pods_to_evict_per_namespace == 5000u);
  CHECK(policy.max_pods_to_evict_total == 5000u);
  CHECK(policy.grace_period_seconds == 60);
  CHECK_FALSE(policy.metrics_providers.kubernetes_metrics);
  REQUIRE(policy.metrics_providers.prometheus);
  CHECK(policy.metrics_providers.prometheus->url ==
        "http://prometheus-kube-prometheus-prometheus.prom.svc.cluster.local");
  CHECK(policy.metrics_providers.prometheus->auth_secret_namespace == "kube-system");
  CHECK(policy.metrics_providers.prometheus->auth_secret_name == "authtoken");

  REQUIRE(policy.profiles.size() == 1);
  const Profile& profile = policy.profiles[0];
  CHECK(profile.plugins.balance.enabled == Strings{"LowNodeUtilization"});
  CHECK(profile.plugins.deschedule.enabled ==
        Strings{"RemovePodsViolatingNodeAffinity", "RemovePodsViolatingNodeTaints"});
  CHECK(profile.plugins.filter.enabled == Strings{"DefaultEvictor"});
  CHECK(profile.plugins.pre_eviction_filter.enabled == Strings{"DefaultEvictor"});

  const auto& evictor = std::get<DefaultEvictorArgs>(profile.config("DefaultEvictor")->args);
  CHECK(evictor.node_fit);
  CHECK(evictor.min_replicas == 2);
  CHECK(evictor.protections == PodProtections{});
  CHECK(evictor.priority_threshold.value == 2000000000);

  const auto& lnu = std::get<NodeUtilizationArgs>(profile.config("LowNodeUtilization")->args);
  CHECK(lnu.thresholds == Percentages{{"cpu", 20}, {"memory", 20}, {"pods", 20}});
  CHECK(lnu.target_thresholds == Percentages{{"cpu", 50}, {"memory", 50}, {"pods", 50}});
  const auto& affinity =
      std::get<NodeAffinityArgs>(profile.config("RemovePodsViolatingNodeAffinity")->args);
  CHECK(affinity.node_affinity_type == Strings{"requiredDuringSchedulingIgnoredDuringExecution"});
  const auto& taints =
      std::get<NodeTaintsArgs>(profile.config("RemovePodsViolatingNodeTaints")->args);
  CHECK(taints.excluded_taints == Strings{"dedicated=special-user", "reserved"});
}

TEST_CASE("kubernetes/base's default ConfigMap loads, every plugin with its defaults",
          "[policy][upstream]") {
  Loaded loaded = load_text(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: descheduler-policy-configmap
  namespace: kube-system
data:
  policy.yaml: |
    apiVersion: "descheduler/v1alpha2"
    kind: "DeschedulerPolicy"
    profiles:
      - name: default
        pluginConfig:
        - name: "DefaultEvictor"
          args:
            podProtections:
              defaultDisabled:
                - "PodsWithLocalStorage"
              extraEnabled:
                - "PodsWithPVC"
        - name: "RemovePodsViolatingInterPodAntiAffinity"
        - name: "RemoveDuplicates"
        - name: "LowNodeUtilization"
          args:
            thresholds:
              "cpu" : 20
              "memory": 20
              "pods": 20
            targetThresholds:
              "cpu" : 50
              "memory": 50
              "pods": 50
        plugins:
          balance:
            enabled:
              - "RemoveDuplicates"
              - "LowNodeUtilization"
          deschedule:
            enabled:
              - "RemovePodsViolatingInterPodAntiAffinity"
)");
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings == Strings{});
  REQUIRE(loaded.result.ok());
  const Profile& profile = loaded.result.policy->profiles.at(0);
  CHECK(profile.plugins.balance.enabled == Strings{"RemoveDuplicates", "LowNodeUtilization"});
  CHECK(profile.plugins.deschedule.enabled == Strings{"RemovePodsViolatingInterPodAntiAffinity"});
  // Both named without args: their defaults.
  CHECK(std::get<InterPodAntiAffinityArgs>(
            profile.config("RemovePodsViolatingInterPodAntiAffinity")->args) ==
        InterPodAntiAffinityArgs{});
  CHECK(std::get<RemoveDuplicatesArgs>(profile.config("RemoveDuplicates")->args) ==
        RemoveDuplicatesArgs{});
  const auto& evictor = std::get<DefaultEvictorArgs>(profile.config("DefaultEvictor")->args);
  CHECK_FALSE(evictor.protections.local_storage);
  CHECK(evictor.protections.with_pvc);
}

TEST_CASE("the Helm chart's default policy loads, every plugin with its args",
          "[policy][upstream]") {
  Loaded loaded = load_text(kHelmConfigMap);
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings == Strings{});
  REQUIRE(loaded.result.ok());
  const Profile& profile = loaded.result.policy->profiles.at(0);
  CHECK(profile.name == "default");
  CHECK(profile.plugins.balance.enabled == Strings{"RemoveDuplicates",
                                                   "RemovePodsViolatingTopologySpreadConstraint",
                                                   "LowNodeUtilization"});
  CHECK(profile.plugins.deschedule.enabled ==
        Strings{"RemovePodsHavingTooManyRestarts", "RemovePodsViolatingNodeTaints",
                "RemovePodsViolatingNodeAffinity", "RemovePodsViolatingInterPodAntiAffinity"});
  const auto& evictor = std::get<DefaultEvictorArgs>(profile.config("DefaultEvictor")->args);
  PodProtections expected;
  expected.local_storage = false;
  expected.with_pvc = true;
  CHECK(evictor.protections == expected);
  const auto& restarts =
      std::get<TooManyRestartsArgs>(profile.config("RemovePodsHavingTooManyRestarts")->args);
  CHECK(restarts.pod_restart_threshold == 100);
  CHECK(restarts.including_init_containers);
  // The plugins with a pluginConfig without args: their defaults (the spread plugin balances
  // DoNotSchedule constraints only, to nodes of domains below the ideal average).
  CHECK(std::get<NodeTaintsArgs>(profile.config("RemovePodsViolatingNodeTaints")->args) ==
        std::get<NodeTaintsArgs>(default_node_taints_args()));
  CHECK(std::get<RemoveDuplicatesArgs>(profile.config("RemoveDuplicates")->args) ==
        RemoveDuplicatesArgs{});
  CHECK(std::get<InterPodAntiAffinityArgs>(
            profile.config("RemovePodsViolatingInterPodAntiAffinity")->args) ==
        InterPodAntiAffinityArgs{});
  const auto& spread = std::get<TopologySpreadArgs>(
      profile.config("RemovePodsViolatingTopologySpreadConstraint")->args);
  CHECK(spread.constraints == std::vector<loadshift::model::UnsatisfiableAction>{
                                  loadshift::model::UnsatisfiableAction::kDoNotSchedule});
  CHECK(spread.topology_balance_node_fit);
  CHECK(spread == TopologySpreadArgs{});
  const auto& lnu = std::get<NodeUtilizationArgs>(profile.config("LowNodeUtilization")->args);
  CHECK(lnu.thresholds == Percentages{{"cpu", 20}, {"memory", 20}, {"pods", 20}});
  // `loadshift validate` says what each runs.
  std::string summary = summarize_policy(*loaded.result.policy);
  CHECK_THAT(summary, Catch::Contains("    RemovePodsViolatingInterPodAntiAffinity: pods whose "
                                      "required anti-affinity matches a pod of their domain; all "
                                      "namespaces\n"));
  CHECK_THAT(summary, Catch::Contains("    RemovePodsViolatingTopologySpreadConstraint: "
                                      "constraints DoNotSchedule, targets in domains below the "
                                      "ideal average; all namespaces\n"));
}

// Every class of policy error, with its exact message and position, and all errors of a file
// reported together in document order.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

const std::string kHead = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n";

Strings errors_of(const std::string& text) {
  return load_text(text).errors;
}

}  // namespace

TEST_CASE("YAML syntax errors are one error at yaml-cpp's mark", "[policy][errors]") {
  CHECK(errors_of(kHead + "profiles: [\n") ==
        Strings{"4:1: invalid YAML: end of sequence flow not found"});
  CHECK(errors_of(kHead + "nodeSelector: a\n  b: c\n") ==
        Strings{"4:4: invalid YAML: illegal map value"});
}

TEST_CASE("a file must hold one policy document", "[policy][errors]") {
  CHECK(errors_of("") == Strings{"0:0: the file is empty; expected a DeschedulerPolicy "
                                 "(apiVersion: descheduler/v1alpha2) or a ConfigMap holding one "
                                 "in data[\"policy.yaml\"]"});
  CHECK(errors_of(kHead + "---\n" + kHead) ==
        Strings{"3:1: expected one document, found 2; a policy file holds one DeschedulerPolicy "
                "or one ConfigMap"});
  // yaml-cpp alone would loop forever (allocating) on a comma after a top-level JSON object.
  CHECK(errors_of("{\"apiVersion\": \"descheduler/v1alpha2\"},\n") ==
        Strings{"1:39: invalid YAML: unexpected \",\" after the end of the document"});
  CHECK(errors_of("- a\n") == Strings{"1:1: expected a mapping, found a list"});
}

TEST_CASE("apiVersion and kind", "[policy][errors]") {
  CHECK(errors_of("kind: DeschedulerPolicy\n") ==
        Strings{"1:1: apiVersion: required field is missing"});
  CHECK(errors_of("apiVersion: descheduler/v1beta1\nkind: DeschedulerPolicy\n") ==
        Strings{"1:13: apiVersion: expected descheduler/v1alpha2, found \"descheduler/v1beta1\""});
  // Not a policy at all: one error, not one per field of the Deployment.
  CHECK(errors_of("apiVersion: apps/v1\nkind: Deployment\nspec: {}\n") ==
        Strings{"2:7: kind: expected DeschedulerPolicy (or a ConfigMap holding one in "
                "data[\"policy.yaml\"]), found \"Deployment\""});
}

TEST_CASE("descheduler/v1alpha1 is one error explaining the conversion", "[policy][errors]") {
  Strings errors = errors_of(R"(apiVersion: "descheduler/v1alpha1"
kind: "DeschedulerPolicy"
strategies:
  "RemoveDuplicates":
     enabled: true
)");
  REQUIRE(errors.size() == 1);
  CHECK(
      errors[0] ==
      "1:13: apiVersion: descheduler/v1alpha1 is not supported (kubernetes-sigs/descheduler "
      "removed it in v0.31); convert the file to apiVersion: descheduler/v1alpha2: every entry "
      "of `strategies` becomes a plugin of a profile, its `params` go to "
      "profiles[].pluginConfig[] as {name: <strategy>, args: {...}} and its name is listed "
      "under profiles[].plugins.<deschedule or balance>.enabled; evictor options "
      "(evictLocalStoragePods, ignorePvcPods, nodeFit, priorityThreshold, ...) move to the args "
      "of DefaultEvictor. See "
      "https://github.com/kubernetes-sigs/descheduler#policy-default-evictor-and-strategy-plugins");
}

TEST_CASE("unknown fields are errors with a did-you-mean", "[policy][errors]") {
  CHECK(errors_of(kHead + "maxNoOfPodsToEvictPerNod: 3\nprofile: []\nfoo: 1\n") ==
        Strings{"3:1: maxNoOfPodsToEvictPerNod: unknown field \"maxNoOfPodsToEvictPerNod\" (did "
                "you mean \"maxNoOfPodsToEvictPerNode\"?)",
                "4:1: profile: unknown field \"profile\" (did you mean \"profiles\"?)",
                "5:1: foo: unknown field \"foo\""});
  CHECK(errors_of(kHead + "profiles:\n- name: p\n  plugin:\n    balance: {}\n") ==
        Strings{"5:3: profiles[0].plugin: unknown field \"plugin\" (did you mean \"plugins\"?)"});
  CHECK(errors_of(kHead + "profiles:\n- name: p\n  plugins:\n    balance: {enable: []}\n") ==
        Strings{"6:15: profiles[0].plugins.balance.enable: unknown field \"enable\" (did you "
                "mean \"enabled\"?)"});
  // Upstream ignores DefaultEvictor args at the top level; loadshift says where they belong.
  CHECK(errors_of(kHead + "ignorePvcPods: true\n") ==
        Strings{"3:16: ignorePvcPods: unknown field \"ignorePvcPods\": it is an arg of "
                "DefaultEvictor; move it to profiles[].pluginConfig[] {name: DefaultEvictor, "
                "args: {ignorePvcPods: ...}} (kubernetes-sigs/descheduler silently ignores it "
                "here)"});
  CHECK(errors_of(kHead + "nodeSelector: a=b\nnodeSelector: c=d\n") ==
        Strings{"4:1: nodeSelector: field \"nodeSelector\" is given twice"});
}

TEST_CASE("wrong types name what was expected and what was found", "[policy][errors]") {
  CHECK(errors_of(kHead + "maxNoOfPodsToEvictPerNode: \"10\"\nmaxNoOfPodsToEvictTotal: -1\n"
                          "evictionFailureEventNotification: yes\ngracePeriodSeconds: 1.5\n"
                          "profiles: {}\n") ==
        Strings{"3:28: maxNoOfPodsToEvictPerNode: expected an integer in 0..4294967295, found the "
                "string \"10\"",
                "4:26: maxNoOfPodsToEvictTotal: expected an integer in 0..4294967295, found the "
                "number -1",
                "5:35: evictionFailureEventNotification: expected true or false, found the string "
                "\"yes\"",
                "6:21: gracePeriodSeconds: expected an integer in 0..9223372036854775807, found "
                "the number 1.5",
                "7:11: profiles: expected a list, found a mapping"});
}

TEST_CASE("top-level nodeSelector is checked as a label selector", "[policy][errors]") {
  CHECK(errors_of(kHead + "nodeSelector: \"a=b,,c\"\n") ==
        Strings{"3:15: nodeSelector: expected a label selector: empty requirement in \"a=b,,c\""});
  CHECK(errors_of(kHead + "nodeSelector: \"zone in (a b\"\n") ==
        Strings{"3:15: nodeSelector: expected a label selector: cannot parse requirement \"zone "
                "in (a b\" (expected key, !key, key=value, key!=value, key in (a,b) or key notin "
                "(a,b))"});
}

TEST_CASE("metrics providers", "[policy][errors]") {
  SECTION("bad URLs") {
    CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n  prometheus:\n"
                            "    url: ftp://prom:9090\n") ==
          Strings{"6:10: metricsProviders[0].prometheus.url: expected an http(s) URL such as "
                  "https://prometheus.monitoring.svc:9090, found \"ftp://prom:9090\": the scheme "
                  "must be http or https, found \"ftp\""});
    CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n  prometheus:\n"
                            "    url: http://prom:99999\n") ==
          Strings{"6:10: metricsProviders[0].prometheus.url: expected an http(s) URL such as "
                  "https://prometheus.monitoring.svc:9090, found \"http://prom:99999\": port "
                  "99999 is not in 1..65535"});
    CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n  prometheus:\n"
                            "    url: \"http:///api\"\n") ==
          Strings{"6:10: metricsProviders[0].prometheus.url: expected an http(s) URL such as "
                  "https://prometheus.monitoring.svc:9090, found \"http:///api\": no host"});
  }
  SECTION("each source at most once") {
    CHECK(errors_of(kHead + "metricsProviders:\n- source: KubernetesMetrics\n"
                            "- source: KubernetesMetrics\n") ==
          Strings{"5:11: metricsProviders[1].source: metrics provider KubernetesMetrics is given "
                  "twice; give each source at most once"});
  }
  SECTION("required fields and unknown sources") {
    CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n- source: Prometheus\n"
                            "  prometheus:\n    authToken:\n      secretReference: {name: t}\n"
                            "- source: Metrics\n- {}\n") ==
          Strings{"4:3: metricsProviders[0].prometheus: required field is missing",
                  "5:11: metricsProviders[1].source: metrics provider Prometheus is given twice; "
                  "give each source at most once",
                  "9:11: metricsProviders[2].source: expected one of KubernetesMetrics, "
                  "Prometheus, found \"Metrics\"",
                  "10:3: metricsProviders[3].source: required field is missing"});
    CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n  prometheus:\n"
                            "    authToken:\n      secretReference: {name: t}\n") ==
          Strings{"6:5: metricsProviders[0].prometheus.url: required field is missing",
                  "7:24: metricsProviders[0].prometheus.authToken.secretReference.namespace: "
                  "required field is missing"});
  }
  SECTION("the deprecated metricsCollector") {
    Loaded both = load_text(kHead +
                            "metricsCollector:\n  enabled: true\nmetricsProviders:\n"
                            "- source: KubernetesMetrics\n");
    CHECK(both.errors ==
          Strings{"4:3: metricsCollector: metricsCollector.enabled and a KubernetesMetrics "
                  "metrics provider cannot both be set; metricsCollector is deprecated, keep "
                  "only metricsProviders: [{source: KubernetesMetrics}]"});
    Loaded alone = load_text(kHead + "metricsCollector:\n  enabled: true\n");
    CHECK(alone.errors == Strings{});
    CHECK(alone.warnings ==
          Strings{"1:1: profiles: no profiles: loadshift will evict nothing",
                  "4:3: metricsCollector: deprecated since kubernetes-sigs/descheduler v0.33; "
                  "use metricsProviders: [{source: KubernetesMetrics}]"});
    REQUIRE(alone.result.ok());
    CHECK(alone.result.policy->metrics_providers.kubernetes_metrics);
  }
}

TEST_CASE("profiles need unique names", "[policy][errors]") {
  CHECK(errors_of(kHead + "profiles:\n- name: a\n- name: a\n- plugins: {}\n- name: \"\"\n") ==
        Strings{"5:9: profiles[1].name: duplicate profile name \"a\" (also profiles[0]); profile "
                "names must be unique",
                "6:3: profiles[2].name: required field is missing",
                "7:9: profiles[3].name: must not be empty"});
}

TEST_CASE("plugin names resolve against the registry", "[policy][errors]") {
  CHECK(errors_of(policy_with_profile("  plugins:\n    balance:\n      enabled:\n"
                                      "      - LoadAwere\n      - loadaware\n"
                                      "      - Descheduler\n")) ==
        Strings{"8:9: profiles[0].plugins.balance.enabled[0]: unknown plugin \"LoadAwere\" (did "
                "you mean \"LoadAware\"?)",
                "9:9: profiles[0].plugins.balance.enabled[1]: unknown plugin \"loadaware\" (did "
                "you mean \"LoadAware\"?)",
                "10:9: profiles[0].plugins.balance.enabled[2]: unknown plugin \"Descheduler\" "
                "(available: DefaultEvictor, LoadAware, LowNodeUtilization, HighNodeUtilization, "
                "RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints, PodLifeTime, "
                "RemovePodsHavingTooManyRestarts, RemoveFailedPods, RemoveDuplicates, "
                "RemovePodsViolatingInterPodAntiAffinity, "
                "RemovePodsViolatingTopologySpreadConstraint)"});
  // Every plugin of kubernetes-sigs/descheduler is implemented: none is "not implemented yet".
  CHECK(upstream_only_plugins().empty());
  CHECK(errors_of(policy_with_profile("  pluginConfig:\n  - name: "
                                      "RemovePodsViolatingInterPodAntiAffinity\n"
                                      "    args: {}\n  - name: "
                                      "RemovePodsViolatingTopologySpreadConstraint\n")) ==
        Strings{});
  CHECK(errors_of(policy_with_profile("  plugins:\n    balance:\n      enabled:\n"
                                      "      - RemovePodsViolatingTopologySpreadConstraints\n")) ==
        Strings{"8:9: profiles[0].plugins.balance.enabled[0]: unknown plugin "
                "\"RemovePodsViolatingTopologySpreadConstraints\" (did you mean "
                "\"RemovePodsViolatingTopologySpreadConstraint\"?)"});
}

TEST_CASE("an enabled plugin must implement its extension point", "[policy][errors]") {
  CHECK(errors_of(policy_with_profile(
            "  plugins:\n    deschedule:\n      enabled: [LowNodeUtilization]\n"
            "    filter:\n      enabled: [RemovePodsViolatingNodeTaints]\n"
            "    balance:\n      enabled: [DefaultEvictor, LowNodeUtilization]\n")) ==
        Strings{"7:17: profiles[0].plugins.deschedule.enabled[0]: plugin LowNodeUtilization does "
                "not implement the deschedule extension point (it implements balance)",
                "9:17: profiles[0].plugins.filter.enabled[0]: plugin "
                "RemovePodsViolatingNodeTaints does not implement the filter extension point (it "
                "implements deschedule)",
                "11:17: profiles[0].plugins.balance.enabled[0]: plugin DefaultEvictor does not "
                "implement the balance extension point (it implements filter, preEvictionFilter)",
                "11:33: profiles[0].plugins.balance.enabled[1]: plugin LowNodeUtilization is "
                "enabled but has no pluginConfig; its args thresholds and targetThresholds are "
                "required"});
  CHECK(errors_of(policy_with_profile(
            "  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints, "
            "RemovePodsViolatingNodeTaints]\n")) ==
        Strings{"7:48: profiles[0].plugins.deschedule.enabled[1]: plugin "
                "RemovePodsViolatingNodeTaints is enabled twice at deschedule"});
}

TEST_CASE("pluginConfig entries", "[policy][errors]") {
  CHECK(errors_of(policy_with_profile(
            "  pluginConfig:\n  - name: RemovePodsViolatingNodeTaints\n"
            "  - name: RemovePodsViolatingNodeTaints\n  - name: LoadAware\n  - args: {}\n"
            "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n"
            "    balance: {enabled: [LoadAware]}\n")) ==
        Strings{"7:11: profiles[0].pluginConfig[1].name: duplicate pluginConfig for "
                "RemovePodsViolatingNodeTaints; give each plugin one entry",
                "8:5: profiles[0].pluginConfig[2]: pluginConfig for LoadAware has no args; its "
                "args thresholds and targetThresholds are required",
                "9:5: profiles[0].pluginConfig[3].name: required field is missing"});
}

TEST_CASE("both spellings of preevictionfilter at once are an error", "[policy][errors]") {
  CHECK(errors_of(policy_with_profile("  plugins:\n    preevictionfilter: {enabled: []}\n"
                                      "    preEvictionFilter: {enabled: []}\n")) ==
        Strings{"7:24: profiles[0].plugins.preEvictionFilter: preevictionfilter and "
                "preEvictionFilter are the same extension point; give only one"});
}

TEST_CASE("all errors of a file are reported together, in document order", "[policy][errors]") {
  Loaded loaded = load_text(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
nodeSelector: "=x"
metricsProviders:
- source: Prometheus
  prometheus: {url: "prometheus:9090"}
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args:
      nodeFitt: true
      priorityThreshold: {value: 1, name: high}
      evictLocalStoragePods: true
      podProtections:
        extraEnabled: [PodsWithPVC]
  plugins:
    deschedule:
      enabled: [LoadAware, RemoveDuplicates]
    sort:
      enabled: [Foo]
extra: 1
)");
  CHECK(loaded.errors ==
        Strings{
            "3:15: nodeSelector: expected a label selector: cannot parse requirement \"=x\" "
            "(expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b))",
            "6:21: metricsProviders[0].prometheus.url: expected an http(s) URL such as "
            "https://prometheus.monitoring.svc:9090, found \"prometheus:9090\": it has no scheme "
            "(http:// or https://)",
            "12:7: profiles[0].pluginConfig[0].args.nodeFitt: unknown field \"nodeFitt\" (did you "
            "mean \"nodeFit\"?)",
            "13:26: profiles[0].pluginConfig[0].args.priorityThreshold: set value or name, not "
            "both (found value 1 and name \"high\")",
            "16:9: profiles[0].pluginConfig[0].args.podProtections: cannot be combined with the "
            "deprecated evictLocalStoragePods: true (= defaultDisabled: [PodsWithLocalStorage]); "
            "move those settings into podProtections",
            "19:17: profiles[0].plugins.deschedule.enabled[0]: plugin LoadAware does not "
            "implement the deschedule extension point (it implements balance, preEvictionFilter)",
            "19:28: profiles[0].plugins.deschedule.enabled[1]: plugin RemoveDuplicates does "
            "not implement the deschedule extension point (it implements balance)",
            "22:1: extra: unknown field \"extra\"",
        });
  CHECK(loaded.warnings ==
        Strings{"14:30: profiles[0].pluginConfig[0].args.evictLocalStoragePods: deprecated since "
                "kubernetes-sigs/descheduler v0.34; use podProtections.defaultDisabled: "
                "[PodsWithLocalStorage] instead (not for Volcano's descheduler: it reads only "
                "the boolean)",
                // No "no plugin is enabled" next to the errors about the enabled plugins.
                "21:7: profiles[0].plugins.sort: has no effect: kubernetes-sigs/descheduler parses "
                "it but never uses it"});
  CHECK_FALSE(loaded.result.ok());
}

TEST_CASE("LowNodeUtilization's metrics source needs its top-level metrics provider",
          "[policy][errors]") {
  const std::string profile = R"(profiles:
- name: p
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
    balance: {enabled: [LowNodeUtilization]}
)";
  CHECK(errors_of(kHead + profile) ==
        Strings{"11:17: profiles[0].pluginConfig[0].args.metricsUtilization.source: Prometheus "
                "usage needs the metrics provider {source: Prometheus, prometheus: {url: ...}} "
                "under metricsProviders at the top of the policy"});
  CHECK(errors_of(kHead + "metricsProviders:\n- source: Prometheus\n  prometheus:\n" +
                  "    url: http://prometheus:9090\n" + profile) == Strings{});
}

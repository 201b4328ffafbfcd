// The loader's document handling: ConfigMap wrapper and its positions, JSON, the extension
// points with their alias, implicit plugins and the warnings for fields without effect.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

const std::string kLoadAwareConfig =
    "  - name: LoadAware\n"
    "    args:\n"
    "      metrics: {type: Prometheus, address: \"http://prom:9090\"}\n"
    "      thresholds: {cpu: 30}\n"
    "      targetThresholds: {cpu: 80}\n";

}  // namespace

TEST_CASE("positions inside a ConfigMap's policy.yaml point into the ConfigMap file",
          "[policy][configmap]") {
  Loaded loaded = load_text(R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: loadshift
data:
  policy.yaml: |
      apiVersion: descheduler/v1alpha2
      kind: DeschedulerPolicy
      maxNoOfPodsToEvictTotal: many
)");
  CHECK(loaded.errors == Strings{"9:32: maxNoOfPodsToEvictTotal: expected an integer in "
                                 "0..4294967295, found the string \"many\""});
  // A syntax error inside the embedded text, too.
  Loaded broken = load_text("kind: ConfigMap\ndata:\n  policy.yaml: |\n    a: [\n");
  CHECK(broken.errors == Strings{"5:5: invalid YAML: end of sequence flow not found"});
}

TEST_CASE("the ConfigMap wrapper itself is checked", "[policy][configmap]") {
  CHECK(load_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  config.yaml: x\n").errors ==
        Strings{"4:3: data: the ConfigMap has no key policy.yaml (found config.yaml)"});
  CHECK(load_text("apiVersion: v1\nkind: ConfigMap\n").errors ==
        Strings{"1:1: data: required field is missing"});
  CHECK(load_text("kind: ConfigMap\ndata:\n  policy.yaml: \"  \"\n").errors ==
        Strings{"3:16: data.policy.yaml: the policy is empty"});
  CHECK(load_text("kind: ConfigMap\ndata:\n  policy.yaml: {a: 1}\n").errors ==
        Strings{"3:16: data.policy.yaml: expected a string, found a mapping"});
  CHECK(load_text("kind: ConfigMap\nspec: {}\ndata:\n  policy.yaml: \"a\"\n").errors.at(0) ==
        "2:1: spec: unknown field \"spec\"");
  Loaded extra = load_text(
      "kind: ConfigMap\ndata:\n  other: x\n  policy.yaml: |\n"
      "    apiVersion: descheduler/v1alpha2\n    kind: DeschedulerPolicy\n    profiles: []\n");
  CHECK(extra.errors == Strings{});
  CHECK(extra.warnings ==
        Strings{"3:10: data.other: ignored: loadshift reads the policy from data[\"policy.yaml\"] "
                "only",
                "7:15: profiles: no profiles: loadshift will evict nothing"});
}

TEST_CASE("JSON policies load like YAML ones", "[policy][json]") {
  Policy policy = load_valid(R"({
  "apiVersion": "descheduler/v1alpha2",
  "kind": "DeschedulerPolicy",
  "maxNoOfPodsToEvictPerNode": 3,
  "profiles": [{
    "name": "json",
    "pluginConfig": [
      {"name": "DefaultEvictor", "args": {"nodeFit": true, "priorityThreshold": {"value": 100}}},
      {"name": "LowNodeUtilization",
       "args": {"thresholds": {"cpu": 20.5}, "targetThresholds": {"cpu": 50}}}
    ],
    "plugins": {"balance": {"enabled": ["LowNodeUtilization"]}}
  }]
})");
  CHECK(policy.max_pods_to_evict_per_node == 3u);
  const Profile& profile = policy.profiles.at(0);
  CHECK(std::get<DefaultEvictorArgs>(profile.config("DefaultEvictor")->args).node_fit);
  CHECK(std::get<NodeUtilizationArgs>(profile.config("LowNodeUtilization")->args).thresholds ==
        Percentages{{"cpu", 20.5}});

  // JSON keeps its types: a quoted number is a string.
  Loaded quoted = load_text(
      R"({"apiVersion": "descheduler/v1alpha2", "kind": "DeschedulerPolicy",
 "maxNoOfPodsToEvictTotal": "3"})");
  CHECK(quoted.errors == Strings{"2:29: maxNoOfPodsToEvictTotal: expected an integer in "
                                 "0..4294967295, found the string \"3\""});

  // A ConfigMap from `kubectl get -o json`: the policy is one JSON string.
  Policy wrapped = load_valid(
      R"({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "p"},
 "data": {"policy.yaml": "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: a\n  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n"}})");
  CHECK(wrapped.profiles.at(0).plugins.deschedule.enabled ==
        Strings{"RemovePodsViolatingNodeTaints"});
}

TEST_CASE(
    "DefaultEvictor and LoadAware's preEvictionFilter are implicit, as upstream and "
    "Volcano make them",
    "[policy][plugins]") {
  Policy policy = load_valid(policy_with_profile(
      "  plugins:\n    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n"));
  const Profile& profile = policy.profiles.at(0);
  CHECK(profile.plugins.filter.enabled == Strings{"DefaultEvictor"});
  CHECK(profile.plugins.pre_eviction_filter.enabled == Strings{"DefaultEvictor"});
  REQUIRE(profile.plugin_config.size() == 2);
  CHECK(profile.plugin_config[0].name == "DefaultEvictor");
  CHECK(std::get<DefaultEvictorArgs>(profile.plugin_config[0].args) ==
        std::get<DefaultEvictorArgs>(default_default_evictor_args()));
  CHECK(profile.plugin_config[1].name == "RemovePodsViolatingNodeTaints");

  Policy explicit_filters = load_valid(policy_with_profile(
      "  pluginConfig:\n" + kLoadAwareConfig +
      "  plugins:\n    balance: {enabled: [LoadAware]}\n    filter: {enabled: [DefaultEvictor]}\n"
      "    preevictionfilter: {enabled: [LoadAware, DefaultEvictor]}\n"));
  const Profile& p = explicit_filters.profiles.at(0);
  CHECK(p.plugins.filter.enabled == Strings{"DefaultEvictor"});
  CHECK(p.plugins.pre_eviction_filter.enabled == Strings{"LoadAware", "DefaultEvictor"});
}

TEST_CASE("preEvictionFilter is accepted as an alias of preevictionfilter", "[policy][plugins]") {
  Loaded loaded =
      load_text(policy_with_profile("  pluginConfig:\n" + kLoadAwareConfig +
                                    "  plugins:\n    balance: {enabled: [LoadAware]}\n"
                                    "    preEvictionFilter:\n      enabled: [LoadAware]\n"));
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings == Strings{});
  REQUIRE(loaded.result.ok());
  CHECK(loaded.result.policy->profiles.at(0).plugins.pre_eviction_filter.enabled ==
        Strings{"DefaultEvictor", "LoadAware"});
  // Its plugins are checked like any other extension point's.
  CHECK(load_text(policy_with_profile("  plugins:\n    preEvictionFilter:\n"
                                      "      enabled: [RemovePodsViolatingNodeTaints]\n"))
            .errors == Strings{"7:17: profiles[0].plugins.preEvictionFilter.enabled[0]: plugin "
                               "RemovePodsViolatingNodeTaints does not implement the "
                               "preEvictionFilter extension point (it implements deschedule)"});
}

TEST_CASE("sort, presort and disabled are accepted with a warning that they have no effect",
          "[policy][plugins]") {
  Loaded loaded = load_text(
      policy_with_profile("  plugins:\n"
                          "    sort:\n      enabled: [Anything]\n"
                          "    presort:\n      enabled: [Anything]\n"
                          "    deschedule:\n      enabled: [RemovePodsViolatingNodeTaints]\n"
                          "      disabled: [RemovePodsViolatingNodeAffinity]\n"
                          "    filter:\n      disabled: [\"*\"]\n"));
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings ==
        Strings{"7:7: profiles[0].plugins.sort: has no effect: kubernetes-sigs/descheduler "
                "parses it but never uses it",
                "9:7: profiles[0].plugins.presort: has no effect: kubernetes-sigs/descheduler "
                "parses it but never uses it",
                "12:17: profiles[0].plugins.deschedule.disabled: has no effect: no plugin is "
                "enabled by default, so there is nothing to disable (kubernetes-sigs/descheduler "
                "parses it but never uses it)",
                "14:17: profiles[0].plugins.filter.disabled: has no effect: no plugin is enabled "
                "by default, so there is nothing to disable (kubernetes-sigs/descheduler parses "
                "it but never uses it)"});
  REQUIRE(loaded.result.ok());
  CHECK(loaded.result.policy->profiles.at(0).plugins.deschedule.enabled ==
        Strings{"RemovePodsViolatingNodeTaints"});
  // Typos inside them are still errors.
  CHECK(load_text(policy_with_profile("  plugins:\n    sort: {enabld: []}\n")).errors ==
        Strings{"6:12: profiles[0].plugins.sort.enabld: unknown field \"enabld\" (did you mean "
                "\"enabled\"?)"});
}

TEST_CASE("a pluginConfig of a plugin that is not enabled is dropped with a warning",
          "[policy][plugins]") {
  Loaded loaded = load_text(policy_with_profile(
      "  pluginConfig:\n  - name: RemovePodsViolatingNodeTaints\n" + kLoadAwareConfig +
      "  plugins:\n    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}\n"));
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings ==
        Strings{"7:11: profiles[0].pluginConfig[1].name: plugin LoadAware has a pluginConfig but "
                "is not enabled; it has no effect (enable it under plugins.balance.enabled)"});
  REQUIRE(loaded.result.ok());
  CHECK(loaded.result.policy->profiles.at(0).config("LoadAware") == nullptr);
}

TEST_CASE("a policy with profiles but nothing to run loads with warnings", "[policy][plugins]") {
  Loaded loaded = load_text(policy_with_profile("  pluginConfig: []\n"));
  CHECK(loaded.errors == Strings{});
  CHECK(loaded.warnings == Strings{"4:3: profiles[0].plugins: no deschedule or balance plugin is "
                                   "enabled; this profile evicts nothing"});
}

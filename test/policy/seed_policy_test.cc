// The seed policy (Volcano's LoadAware ConfigMap,
// ../shared/seed-examples/05-load-aware-policy.yaml) loads unchanged, and every field it yields is
// what Volcano users expect.
#include <catch2/catch.hpp>

#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

const std::string kSeedPath =
    std::string(LOADSHIFT_SHARED_DIR) + "/seed-examples/05-load-aware-policy.yaml";

}  // namespace

TEST_CASE("the seed policy loads from its ConfigMap verbatim", "[policy][seed]") {
  Loaded loaded = load_text(read_file(kSeedPath));
  CHECK(loaded.errors == Strings{});
  // The only remark: Volcano's ignorePvcPods is upstream's deprecated spelling. Its position
  // points into the ConfigMap file (line 17, the value after "ignorePvcPods: ").
  CHECK(loaded.warnings ==
        Strings{"17:26: profiles[0].pluginConfig[0].args.ignorePvcPods: deprecated since "
                "kubernetes-sigs/descheduler v0.34; use podProtections.extraEnabled: "
                "[PodsWithPVC] instead (not for Volcano's descheduler: it reads only the "
                "boolean)"});
  REQUIRE(loaded.result.ok());
  const Policy& policy = *loaded.result.policy;

  // Top level: nothing set, so every default.
  CHECK(policy.node_selector.empty());
  CHECK_FALSE(policy.max_pods_to_evict_per_node);
  CHECK_FALSE(policy.max_pods_to_evict_per_namespace);
  CHECK_FALSE(policy.max_pods_to_evict_total);
  CHECK_FALSE(policy.eviction_failure_event_notification);
  CHECK_FALSE(policy.grace_period_seconds);
  CHECK_FALSE(policy.metrics_providers.kubernetes_metrics);
  CHECK_FALSE(policy.metrics_providers.prometheus);

  REQUIRE(policy.profiles.size() == 1);
  const Profile& profile = policy.profiles[0];
  CHECK(profile.name == "kube-system");
  CHECK(profile.plugins.deschedule.enabled == Strings{});
  CHECK(profile.plugins.balance.enabled == Strings{"LoadAware"});
  // DefaultEvictor is implicit in both filters; Volcano adds LoadAware's nodeFit check.
  CHECK(profile.plugins.filter.enabled == Strings{"DefaultEvictor"});
  CHECK(profile.plugins.pre_eviction_filter.enabled == Strings{"DefaultEvictor", "LoadAware"});
  REQUIRE(profile.plugin_config.size() == 2);
  CHECK(profile.plugin_config[0].name == "DefaultEvictor");
  CHECK(profile.plugin_config[1].name == "LoadAware");

  const auto& evictor = std::get<DefaultEvictorArgs>(profile.config("DefaultEvictor")->args);
  CHECK(evictor.node_fit);
  CHECK(evictor.priority_threshold.value == 10000);
  CHECK(evictor.priority_threshold.name.empty());
  CHECK(evictor.node_selector.empty());
  CHECK_FALSE(evictor.label_selector);
  CHECK_FALSE(evictor.namespace_label_selector);
  CHECK(evictor.min_replicas == 0);
  CHECK_FALSE(evictor.min_pod_age);
  CHECK(evictor.no_eviction_policy == NoEvictionPolicy::kPreferred);
  PodProtections protections;  // the defaults, plus ignorePvcPods: true
  protections.with_pvc = true;
  CHECK(evictor.protections == protections);

  const auto& load_aware = std::get<LoadAwareArgs>(profile.config("LoadAware")->args);
  CHECK(load_aware.metrics.type == "Prometheus");
  CHECK(load_aware.metrics.address == "http://prometheus-server.kube-system.svc.cluster.local:80");
  CHECK(load_aware.thresholds == Percentages{{"cpu", 30}, {"memory", 30}});
  CHECK(load_aware.target_thresholds == Percentages{{"cpu", 80}, {"memory", 85}});
  CHECK(load_aware.excluded_namespaces == Strings{"default"});
  CHECK_FALSE(load_aware.use_deviation_thresholds);
  CHECK(load_aware.number_of_nodes == 0);
  CHECK_FALSE(load_aware.node_fit);
  CHECK_FALSE(load_aware.sustained_for);
  CHECK(load_aware.node_pools.empty());
}

TEST_CASE("the seed policy loads from the file the controller mounts", "[policy][seed]") {
  LoadResult result = load_policy_file(kSeedPath);
  REQUIRE(result.ok());
  CHECK(result.policy->profiles.at(0).name == "kube-system");

  LoadResult missing = load_policy_file("/nonexistent/policy.yaml");
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0].to_string() ==
        "/nonexistent/policy.yaml: cannot read the file: No such file or directory");
}

// EvictionFilter: loadshift's Volcano-gang and GPU rules, and the order in which every rule is
// asked (the first failing rule gives the reason).
#include <catch2/catch.hpp>

#include <string>

#include "test/strategies/evictability_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;

TEST_CASE("volcano.sh/preemptable false on the pod or its PodGroup", "[evictability][gang]") {
  CHECK(OnePod(with_annotation(plain(), "volcano.sh/preemptable", "false")).reason() ==
        "not preemptable: volcano.sh/preemptable=false on the pod");
  CHECK(OnePod(with_annotation(plain(), "volcano.sh/preemptable", "true")).reason() == "");
  CHECK(OnePod(with_annotation(plain(), "volcano.sh/preemptable", "maybe")).reason() ==
        "not preemptable: volcano.sh/preemptable=maybe on the pod (not a boolean; Volcano reads "
        "it as false)");
  Pod labelled = plain();
  labelled.meta.labels.set("volcano.sh/preemptable", "0");
  CHECK(OnePod(labelled).reason() == "not preemptable: volcano.sh/preemptable=0 on the pod");
  // The annotation is read first.
  CHECK(OnePod(with_annotation(labelled, "volcano.sh/preemptable", "true")).reason() == "");

  OnePod f(gang_pod("w0", "n1", "train"), {gang_pod("w1", "n2", "train")});
  f.snapshot.jobs = {volcano_job("train", 1)};
  f.snapshot.pod_groups = {volcano_pod_group("train", 1)};
  f.build();
  CHECK(f.reason() == "");
  f.snapshot.pod_groups[0].meta.labels.set("volcano.sh/preemptable", "false");
  f.build();
  CHECK(f.reason() ==
        "not preemptable: volcano.sh/preemptable=false on PodGroup default/train");
}

TEST_CASE("Volcano jobs that restart on eviction", "[evictability][gang]") {
  OnePod f(gang_pod("w0", "n1", "train"), {gang_pod("w1", "n2", "train")});
  f.snapshot.jobs = {volcano_job("train", 1, "default", "PodEvicted", "RestartJob")};
  f.snapshot.pod_groups = {volcano_pod_group("train", 1)};
  f.build();
  const std::string restart =
      "Volcano job restarts on eviction: job default/train policy PodEvicted -> RestartJob (set "
      "gang.evictGangPods to allow)";
  CHECK(f.reason() == restart);
  CHECK(f.reason(default_evictor(), WorkloadSwitches{}) ==
        "Volcano job restarts on eviction: job default/train policy PodEvicted -> RestartJob (this "
        "plugin never moves Volcano jobs that restart; only LoadAware's gang.evictGangPods allows "
        "it)");

  WorkloadSwitches allow;
  allow.evict_gang_pods = true;
  CHECK(f.reason(default_evictor(), allow) == "");
  WorkloadSwitches ignore;
  ignore.respect_restart_policies = false;
  CHECK(f.reason(default_evictor(), ignore) == "");

  SECTION("AnyEvent, a list of events and task policies count too") {
    f.snapshot.jobs[0].policies = {LifecyclePolicy{"*", {}, "RestartJob"}};
    f.build();
    CHECK(f.reason() ==
          "Volcano job restarts on eviction: job default/train policy AnyEvent (*) -> RestartJob "
          "(set gang.evictGangPods to allow)");
    f.snapshot.jobs[0].policies = {LifecyclePolicy{"", {"PodFailed", "PodEvicted"}, "RestartTask"}};
    f.build();
    CHECK(f.reason() ==
          "Volcano job restarts on eviction: job default/train policy PodEvicted -> RestartTask "
          "(set gang.evictGangPods to allow)");
    f.snapshot.jobs[0].policies = {};
    f.snapshot.jobs[0].task_policies = {LifecyclePolicy{"PodEvicted", {}, "RestartJob"}};
    f.build();
    CHECK(f.reason() ==
          "Volcano job restarts on eviction: job default/train task policy PodEvicted -> "
          "RestartJob (set gang.evictGangPods to allow)");
  }
  SECTION("other events and actions do not") {
    f.snapshot.jobs[0].policies = {LifecyclePolicy{"PodFailed", {}, "RestartJob"},
                                   LifecyclePolicy{"PodEvicted", {}, "SyncJob"}};
    f.build();
    CHECK(f.reason() == "");
  }
}

TEST_CASE("GPU pods stay unless gpu.evictGpuPods", "[evictability][gpu]") {
  Pod gpu = plain();
  gpu.containers.edit()[0].requests.set("nvidia.com/gpu", 1);
  OnePod f(gpu);
  CHECK(f.reason() == "GPU pod: requests nvidia.com/gpu (set gpu.evictGpuPods to allow)");
  WorkloadSwitches allow;
  allow.evict_gpu_pods = true;
  CHECK(f.reason(default_evictor(), allow) == "");
  WorkloadSwitches other_vendors = OnePod::load_aware_switches();
  other_vendors.gpu_vendor_prefixes = {"example.com/"};
  // Not a vendor prefix any more, but the GPU index still sees an NVIDIA demand.
  CHECK(f.reason(default_evictor(), other_vendors) ==
        "GPU pod: requests nvidia.com/gpu (set gpu.evictGpuPods to allow)");

  Pod accel = plain();
  accel.containers.edit()[0].requests.set("example.com/accel", 2);
  CHECK(OnePod(accel).reason() == "");
  CHECK(OnePod(accel).reason(default_evictor(), other_vendors) ==
        "GPU pod: requests example.com/accel (set gpu.evictGpuPods to allow)");

  // Other plugins' args have no such switch: the hint says which plugin has it.
  CHECK(f.reason(default_evictor(), WorkloadSwitches{}) ==
        "GPU pod: requests nvidia.com/gpu (this plugin never moves GPU pods; only LoadAware's "
        "gpu.evictGpuPods allows it)");

  CHECK(strategies::is_gpu_resource("metax-tech.com/gpu", strategies::default_gpu_vendor_prefixes()));
  CHECK(strategies::is_gpu_resource("huawei.com/Ascend910", strategies::default_gpu_vendor_prefixes()));
  CHECK_FALSE(strategies::is_gpu_resource("cpu", strategies::default_gpu_vendor_prefixes()));
  CHECK_FALSE(strategies::is_gpu_resource("example.com/gpu", {"", "nvidia.com/"}));
}

TEST_CASE("rules are asked in upstream's order", "[evictability][order]") {
  policy::DefaultEvictorArgs args = default_evictor();
  args.priority_threshold.value = 1000;
  args.protections.with_pvc = true;
  args.protections.without_pdb = true;
  args.protections.with_resource_claims = true;
  args.min_replicas = 3;
  args.min_pod_age = policy::Duration{300000, "5m"};
  args.no_eviction_policy = policy::NoEvictionPolicy::kMandatory;
  args.namespace_label_selector =
      LabelSelector{labels({{"kubernetes.io/metadata.name", "nowhere"}}), {}};

  // Start with a pod failing every rule, then fix them one at a time: each fix reveals the next.
  Pod pod = make_pod("p", 100, 1 << 20, "n1");
  pod.meta.annotations.set("descheduler.alpha.kubernetes.io/prefer-no-eviction", "");
  pod.meta.annotations.set("kubernetes.io/config.mirror", "x");
  pod.meta.deleting = true;
  pod.priority = 5000;
  pod.volumes = {volume("scratch", kVolumeEmptyDir), volume("data", kVolumePersistentClaim, "data")};
  pod.owners.edit().push_back({"apps/v1", "DaemonSet", "ds", "uid-ds", true});
  pod.start_time = "2026-11-22T03:59:00Z";
  pod.meta.annotations.set("volcano.sh/preemptable", "false");
  pod.containers.edit()[0].requests.set("nvidia.com/gpu", 1);
  pod.has_resource_claims = true;
  args.label_selector = LabelSelector{labels({{"app", "x"}}), {}};

  std::vector<std::string> phrases;
  auto phrase = [&](const Pod& p) {
    std::string r = OnePod(p).reason(args);
    phrases.push_back(r.substr(0, r.find(':')));
  };
  phrase(pod);
  pod.meta.annotations = labels({{"kubernetes.io/config.mirror", "x"},
                                    {"volcano.sh/preemptable", "false"}});
  phrase(pod);
  pod.meta.annotations = labels({{"volcano.sh/preemptable", "false"}});
  phrase(pod);
  pod.meta.deleting = false;
  phrase(pod);
  pod.priority = 10;
  Pod bare = pod;
  bare.owners.edit().clear();
  phrase(bare);
  phrase(pod);
  pod.volumes.erase(pod.volumes.begin());
  phrase(pod);
  pod.owners = {{"apps/v1", "ReplicaSet", "web", "uid-rs", true}};
  phrase(pod);
  pod.volumes.clear();
  phrase(pod);
  {
    PodDisruptionBudget pdb;
    pdb.meta.namespace_ = "default";
    pdb.selector = LabelSelector{};  // empty: selects every pod of its namespace
    OnePod f(pod);
    f.snapshot.pdbs = {pdb};
    f.build();
    std::string r = f.reason(args);
    phrases.push_back(r.substr(0, r.find(':')));
  }
  args.protections.without_pdb = false;
  args.protections.with_resource_claims = false;
  phrase(pod);
  pod.meta.labels.set("app", "x");
  phrase(pod);
  args.min_replicas = 0;
  phrase(pod);
  pod.start_time = "2026-11-22T03:00:00Z";
  phrase(pod);
  args.namespace_label_selector.reset();
  phrase(pod);
  pod.has_resource_claims = false;
  phrase(pod);
  pod.meta.annotations = StringMap{};
  phrase(pod);
  pod.containers.edit()[0].requests = ResourceList{};
  phrase(pod);

  CHECK(phrases == std::vector<std::string>{
                       "prefer-no-eviction", "mirror pod", "terminating",
                       "priority at or above threshold", "no owner", "local storage",
                       "DaemonSet pod", "PVC pod", "no PodDisruptionBudget", "resource claims",
                       "label selector does not match", "minReplicas", "younger than minPodAge",
                       "namespace not selected", "unmovable", "not preemptable", "GPU pod", ""});
}

// EvictionFilter: each DefaultEvictor rule, loadshift's placement, Volcano and GPU rules, and the
// order in which they are asked (the first failing rule gives the reason).
#include <catch2/catch.hpp>

#include <string>

#include "strategies/evictability.h"
#include "placement/rfc3339.h"
#include "test/strategies/plan_fixture.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using strategies::WorkloadSwitches;

// A two-node cluster whose first pod is `pod` (on n1), at 2026-11-22T04:00:00Z.
struct OnePod : PlanFixture {
  explicit OnePod(Pod pod, std::vector<Pod> others = {}) {
    snapshot.nodes = {make_node("n1"), make_node("n2")};
    snapshot.pods.push_back(std::move(pod));
    for (Pod& other : others) snapshot.pods.push_back(std::move(other));
    options.now = *placement::parse_rfc3339("2026-11-22T04:00:00Z");
    build();
  }
  // The reason the first pod is refused under `args`, or "" when it may be evicted.
  std::string reason(const policy::DefaultEvictorArgs& args = default_evictor(),
                     const WorkloadSwitches& switches = {}) {
    std::optional<std::string> r = filter(args).reject_reason(0, switches);
    return r ? *r : "";
  }
};

// A label set from pairs.
StringMap labels(std::vector<std::pair<std::string, std::string>> pairs) {
  return StringMap(std::move(pairs));
}

Pod plain() { return owned_pod("p", "n1"); }

Pod with_annotation(Pod pod, const std::string& key, const std::string& value = "") {
  pod.meta.annotations.set(key, value);
  return pod;
}

Volume volume(const std::string& name, VolumeKind kind, const std::string& claim = "") {
  Volume v;
  v.name = name;
  v.kind = kind;
  v.claim_name = claim;
  return v;
}

}  // namespace

TEST_CASE("a plain ReplicaSet pod may be evicted", "[evictability]") {
  OnePod f(plain());
  CHECK(f.reason() == "");
  CHECK(f.filter().priority_threshold() == 2000000000);
}

TEST_CASE("the evict annotation overrides protections but not the later rules",
          "[evictability][order]") {
  Pod bare = make_pod("bare", 100, 1 << 20, "n1");  // no owner
  bare.volumes.push_back(volume("scratch", kVolumeEmptyDir));
  bare.priority = 2000001000;
  bare.meta.deleting = true;
  bare.meta.annotations.set("kubernetes.io/config.mirror", "x");
  SECTION("without it the first protection in order answers") {
    OnePod f(bare);
    CHECK(f.reason() == "mirror pod: annotation kubernetes.io/config.mirror");
  }
  SECTION("with it, even \"false\", every DefaultEvictor protection is skipped") {
    OnePod f(with_annotation(bare, "descheduler.alpha.kubernetes.io/evict", "false"));
    policy::DefaultEvictorArgs args = default_evictor();
    args.no_eviction_policy = policy::NoEvictionPolicy::kMandatory;
    args.protections.without_pdb = true;
    args.min_pod_age = policy::Duration{600000, "10m"};
    args.min_replicas = 5;
    args.label_selector = placement::LabelSelector{labels({{"app", "x"}}), {}};
    CHECK(f.reason(args) == "");
    SECTION("but not the namespace rule") {
      args.namespace_label_selector = placement::LabelSelector{
          labels({{"kubernetes.io/metadata.name", "other"}}), {}};
      CHECK(f.reason(args) ==
            "namespace not selected: namespace default does not match namespaceLabelSelector");
    }
  }
  SECTION("nor the placement, Volcano and GPU rules") {
    Pod pod = with_annotation(plain(), "descheduler.alpha.kubernetes.io/evict");
    Pod dra = pod;
    dra.has_resource_claims = true;
    CHECK(OnePod(dra).reason().rfind("unmovable: uses DRA resource claims", 0) == 0);
    CHECK(OnePod(with_annotation(pod, "volcano.sh/preemptable", "false")).reason() ==
          "not preemptable: volcano.sh/preemptable=false on the pod");
    Pod gpu = pod;
    gpu.containers[0].requests.set("nvidia.com/gpu", 1);
    CHECK(OnePod(gpu).reason() ==
          "GPU pod: requests nvidia.com/gpu (set gpu.evictGpuPods to allow)");
  }
}

TEST_CASE("prefer-no-eviction refuses only under noEvictionPolicy Mandatory",
          "[evictability]") {
  OnePod f(with_annotation(plain(), "descheduler.alpha.kubernetes.io/prefer-no-eviction"));
  policy::DefaultEvictorArgs args = default_evictor();
  CHECK(f.reason(args) == "");
  args.no_eviction_policy = policy::NoEvictionPolicy::kMandatory;
  CHECK(f.reason(args) ==
        "prefer-no-eviction: annotation descheduler.alpha.kubernetes.io/prefer-no-eviction under "
        "noEvictionPolicy Mandatory");
}

TEST_CASE("mirror, static and terminating pods stay", "[evictability]") {
  CHECK(OnePod(with_annotation(plain(), "kubernetes.io/config.mirror", "abc")).reason() ==
        "mirror pod: annotation kubernetes.io/config.mirror");
  CHECK(OnePod(with_annotation(plain(), "kubernetes.io/config.source", "file")).reason() ==
        "static pod: kubernetes.io/config.source=file");
  CHECK(OnePod(with_annotation(plain(), "kubernetes.io/config.source", "api")).reason() == "");
  Pod deleting = plain();
  deleting.meta.deleting = true;
  CHECK(OnePod(deleting).reason() == "terminating: deletionTimestamp is set");
}

TEST_CASE("priority: system-critical and priorityThreshold", "[evictability][priority]") {
  Pod high = plain();
  high.priority = 100000;
  high.priority_class_name = "high-priority";
  policy::DefaultEvictorArgs args = default_evictor();
  args.priority_threshold.value = 10000;

  CHECK(OnePod(high).reason(args) ==
        "priority at or above threshold: 100000 >= 10000 (priorityClass high-priority)");
  Pod at = plain();
  at.priority = 10000;
  CHECK(OnePod(at).reason(args) == "priority at or above threshold: 10000 >= 10000");
  Pod below = plain();
  below.priority = 9999;
  CHECK(OnePod(below).reason(args) == "");

  Pod critical = plain();
  critical.priority = 2000001000;
  critical.priority_class_name = "system-node-critical";
  CHECK(OnePod(critical).reason() ==
        "system-critical pod: priority 2000001000 >= 2000000000 (priorityClass "
        "system-node-critical)");

  SECTION("evictSystemCriticalPods drops both checks, as upstream") {
    args.protections.system_critical = false;
    CHECK(OnePod(high).reason(args) == "");
    CHECK(OnePod(critical).reason(args) == "");
  }
}

TEST_CASE("a pod's priority comes from spec, its class, or the global default",
          "[evictability][priority]") {
  Snapshot snapshot;
  snapshot.priority_classes = {{"high-priority", 100000, false, ""}};
  Pod pod = plain();
  CHECK(strategies::pod_priority(snapshot, pod) == 0);
  pod.priority_class_name = "high-priority";
  CHECK(strategies::pod_priority(snapshot, pod) == 100000);
  pod.priority = 5;
  CHECK(strategies::pod_priority(snapshot, pod) == 5);
  Pod unnamed = plain();
  snapshot.priority_classes.push_back({"default", 1000, true, ""});
  CHECK(strategies::pod_priority(snapshot, unnamed) == 1000);

  SECTION("the threshold applies to a priority read from the class") {
    Pod by_class = plain();
    by_class.priority_class_name = "high-priority";
    OnePod f(by_class);
    f.snapshot.priority_classes = {{"high-priority", 100000, false, ""}};
    f.build();
    policy::DefaultEvictorArgs args = default_evictor();
    args.priority_threshold.value = 10000;
    CHECK(f.reason(args) ==
          "priority at or above threshold: 100000 >= 10000 (priorityClass high-priority)");
  }
}

TEST_CASE("priorityThreshold by name resolves against the snapshot, never guesses",
          "[evictability][priority]") {
  Pod pod = plain();
  pod.priority = 500;
  OnePod f(pod);
  f.snapshot.priority_classes = {{"medium", 500, false, ""}};
  f.build();
  policy::DefaultEvictorArgs args = default_evictor();
  args.priority_threshold = policy::PriorityThreshold{std::nullopt, "medium"};
  CHECK(f.filter(args).priority_threshold() == 500);
  CHECK(f.reason(args) ==
        "priority at or above threshold: 500 >= 500 (threshold priorityClass medium)");

  args.priority_threshold.name = "missing";
  Pod low = plain();
  low.priority = 0;
  OnePod g(low);
  CHECK(g.reason(args) ==
        "priority threshold class missing not found: no PriorityClass of that name in the "
        "snapshot, so no pod is known to be below the threshold");
}

TEST_CASE("ownerless pods: FailedBarePods", "[evictability]") {
  Pod bare = make_pod("bare", 100, 1 << 20, "n1");
  CHECK(OnePod(bare).reason() == "no owner: bare pod");
  policy::DefaultEvictorArgs args = default_evictor();
  args.protections.failed_bare = false;
  CHECK(OnePod(bare).reason(args) ==
        "no owner: bare pod in phase Running (only Failed bare pods may be evicted)");
  bare.phase = PodPhase::kFailed;
  CHECK(OnePod(bare).reason(args) == "");
}

TEST_CASE("local storage, DaemonSet and PVC pods", "[evictability]") {
  Pod empty_dir = plain();
  empty_dir.volumes = {volume("data", kVolumePersistentClaim, "data"),
                       volume("scratch", kVolumeEmptyDir)};
  CHECK(OnePod(empty_dir).reason() == "local storage: emptyDir volume scratch");
  Pod host_path = plain();
  host_path.volumes = {volume("logs", kVolumeHostPath)};
  CHECK(OnePod(host_path).reason() == "local storage: hostPath volume logs");
  policy::DefaultEvictorArgs args = default_evictor();
  args.protections.local_storage = false;
  CHECK(OnePod(empty_dir).reason(args) == "");

  Pod daemon = make_pod("agent", 100, 1 << 20, "n1");
  daemon.meta.namespace_ = "kube-system";
  daemon.owners.push_back({"apps/v1", "DaemonSet", "x", "uid-ds", true});
  CHECK(OnePod(daemon).reason() == "DaemonSet pod: owned by DaemonSet kube-system/x");
  args.protections.daemon_set = false;
  CHECK(OnePod(daemon).reason(args) == "");

  Pod pvc = plain();
  pvc.volumes = {volume("data", kVolumePersistentClaim, "data")};
  CHECK(OnePod(pvc).reason() == "");  // PodsWithPVC is an extra protection
  args.protections.with_pvc = true;
  CHECK(OnePod(pvc).reason(args) == "PVC pod: claim data");
  args.protections.protected_storage_classes = {"local-path"};
  CHECK(OnePod(pvc).reason(args) ==
        "PVC pod: claim data (its storage class is unknown: the snapshot holds no "
        "PersistentVolumeClaims)");
}

TEST_CASE("pods without a PodDisruptionBudget (PodsWithoutPDB)", "[evictability]") {
  Pod pod = plain();
  pod.meta.labels.set("app", "web");
  policy::DefaultEvictorArgs args = default_evictor();
  CHECK(OnePod(pod).reason(args) == "");
  args.protections.without_pdb = true;
  OnePod f(pod);
  CHECK(f.reason(args) == "no PodDisruptionBudget: none in namespace apps selects the pod");

  PodDisruptionBudget other_ns;
  other_ns.meta.namespace_ = "default";
  other_ns.meta.name = "web";
  other_ns.selector = LabelSelector{labels({{"app", "web"}}), {}};
  PodDisruptionBudget null_selector;
  null_selector.meta.namespace_ = "apps";
  null_selector.meta.name = "nothing";
  f.snapshot.pdbs = {other_ns, null_selector};
  f.build();
  CHECK(f.reason(args) == "no PodDisruptionBudget: none in namespace apps selects the pod");

  PodDisruptionBudget matching = other_ns;
  matching.meta.namespace_ = "apps";
  f.snapshot.pdbs.push_back(matching);
  f.build();
  CHECK(f.reason(args) == "");
}

TEST_CASE("labelSelector, minReplicas and minPodAge", "[evictability]") {
  policy::DefaultEvictorArgs args = default_evictor();
  Pod pod = plain();
  pod.meta.labels.set("tier", "batch");
  pod.start_time = "2026-11-22T03:57:00Z";  // 3 minutes before now

  args.label_selector = LabelSelector{labels({{"tier", "web"}}), {}};
  CHECK(OnePod(pod).reason(args) ==
        "label selector does not match: the pod's labels are not selected by DefaultEvictor "
        "labelSelector");
  args.label_selector = LabelSelector{labels({{"tier", "batch"}}), {}};
  CHECK(OnePod(pod).reason(args) == "");

  args.min_replicas = 2;
  CHECK(OnePod(pod).reason(args) == "minReplicas: owner ReplicaSet web has 1 < 2");
  Pod sibling = owned_pod("q", "n2");
  CHECK(OnePod(pod, {sibling}).reason(args) == "");
  Pod two_owners = pod;
  two_owners.owners.push_back({"v1", "Thing", "t", "uid-t", false});
  CHECK(OnePod(two_owners).reason(args) == "");  // upstream skips the check for several owners
  args.min_replicas = 0;

  args.min_pod_age = policy::Duration{300000, "5m"};
  CHECK(OnePod(pod).reason(args) == "younger than minPodAge: 3m < 5m");
  pod.start_time = "2026-11-22T03:54:30Z";
  CHECK(OnePod(pod).reason(args) == "");
  pod.start_time = "2026-11-22T05:54:30+02:00";  // 5m30s ago, with an offset
  CHECK(OnePod(pod).reason(args) == "");
  pod.start_time = "2026-11-22T03:58:30.5Z";
  CHECK(OnePod(pod).reason(args) == "younger than minPodAge: 1m29s < 5m");
  pod.start_time = "";
  CHECK(OnePod(pod).reason(args) ==
        "younger than minPodAge: no status.startTime (the pod has not started)");
  pod.start_time = "yesterday";
  CHECK(OnePod(pod).reason(args) ==
        "unreadable start time: status.startTime \"yesterday\" is not an RFC 3339 time");
}

TEST_CASE("namespaceLabelSelector uses the name label every namespace has, never guesses",
          "[evictability]") {
  policy::DefaultEvictorArgs args = default_evictor();
  args.namespace_label_selector = LabelSelector{
      {}, {{"kubernetes.io/metadata.name", "In", {"apps", "batch"}}}};
  CHECK(OnePod(plain()).reason(args) == "");
  Pod elsewhere = owned_pod("p", "n1", 500, "web", "kube-system");
  CHECK(OnePod(elsewhere).reason(args) ==
        "namespace not selected: namespace kube-system does not match namespaceLabelSelector");
  args.namespace_label_selector = LabelSelector{labels({{"team", "a"}}), {}};
  CHECK(OnePod(plain()).reason(args) ==
        "namespace labels unknown: namespaceLabelSelector needs labels of namespace apps other "
        "than kubernetes.io/metadata.name, and the snapshot holds no Namespace objects");
}

TEST_CASE("pods the placement core will not move", "[evictability]") {
  Pod dra = plain();
  dra.has_resource_claims = true;
  OnePod f(dra);
  REQUIRE(f.index->unmovable_reason(0));
  CHECK(f.reason() == "unmovable: " + *f.index->unmovable_reason(0));
  policy::DefaultEvictorArgs args = default_evictor();
  args.protections.with_resource_claims = true;
  CHECK(f.reason(args) == "resource claims: the pod has spec.resourceClaims");
}

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
  gpu.containers[0].requests.set("nvidia.com/gpu", 1);
  OnePod f(gpu);
  CHECK(f.reason() == "GPU pod: requests nvidia.com/gpu (set gpu.evictGpuPods to allow)");
  WorkloadSwitches allow;
  allow.evict_gpu_pods = true;
  CHECK(f.reason(default_evictor(), allow) == "");
  WorkloadSwitches other_vendors;
  other_vendors.gpu_vendor_prefixes = {"example.com/"};
  // Not a vendor prefix any more, but the GPU index still sees an NVIDIA demand.
  CHECK(f.reason(default_evictor(), other_vendors) ==
        "GPU pod: requests nvidia.com/gpu (set gpu.evictGpuPods to allow)");

  Pod accel = plain();
  accel.containers[0].requests.set("example.com/accel", 2);
  CHECK(OnePod(accel).reason() == "");
  CHECK(OnePod(accel).reason(default_evictor(), other_vendors) ==
        "GPU pod: requests example.com/accel (set gpu.evictGpuPods to allow)");

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
  pod.owners.push_back({"apps/v1", "DaemonSet", "ds", "uid-ds", true});
  pod.start_time = "2026-11-22T03:59:00Z";
  pod.meta.annotations.set("volcano.sh/preemptable", "false");
  pod.containers[0].requests.set("nvidia.com/gpu", 1);
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
  bare.owners.clear();
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
  pod.containers[0].requests = ResourceList{};
  phrase(pod);

  CHECK(phrases == std::vector<std::string>{
                       "prefer-no-eviction", "mirror pod", "terminating",
                       "priority at or above threshold", "no owner", "local storage",
                       "DaemonSet pod", "PVC pod", "no PodDisruptionBudget", "resource claims",
                       "label selector does not match", "minReplicas", "younger than minPodAge",
                       "namespace not selected", "unmovable", "not preemptable", "GPU pod", ""});
}

// EvictionFilter: each DefaultEvictor rule (the first failing rule gives the reason). Volcano, GPU
// and rule order: evictability_workload_test.cc.
#include <catch2/catch.hpp>

#include <string>

#include "test/strategies/evictability_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;

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
    args.label_selector = model::LabelSelector{labels({{"app", "x"}}), {}};
    CHECK(f.reason(args) == "");
    SECTION("but not the namespace rule") {
      args.namespace_label_selector =
          model::LabelSelector{labels({{"kubernetes.io/metadata.name", "other"}}), {}};
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
    gpu.containers.edit()[0].requests.set("nvidia.com/gpu", 1);
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
  daemon.owners.edit().push_back({"apps/v1", "DaemonSet", "x", "uid-ds", true});
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
  two_owners.owners.edit().push_back({"v1", "Thing", "t", "uid-t", false});
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

TEST_CASE("namespaceLabelSelector: the Namespaces' labels, else the name label, never a guess",
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

  // With the cluster's Namespaces (the controller reads them), their labels decide.
  model::Namespace apps, batch;
  apps.meta.name = "apps";
  apps.meta.labels = labels({{"team", "a"}});
  batch.meta.name = "batch";
  batch.meta.labels = labels({{"team", "b"}});
  CHECK(OnePod(plain(), {}, {apps, batch}).reason(args) == "");
  Pod in_batch = owned_pod("p", "n1", 500, "web", "batch");
  CHECK(OnePod(in_batch, {}, {apps, batch}).reason(args) ==
        "namespace not selected: namespace batch does not match namespaceLabelSelector");
  CHECK(OnePod(in_batch, {}, {apps}).reason(args) ==
        "namespace labels unknown: namespace batch is not among the snapshot's Namespaces");
  // {} selects every namespace: no constraint at all (as upstream), known or not.
  args.namespace_label_selector = LabelSelector{};
  CHECK(OnePod(in_batch, {}, {apps}).reason(args) == "");
  CHECK(OnePod(in_batch).reason(args) == "");
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

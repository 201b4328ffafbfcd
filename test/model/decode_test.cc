// Decoding single Kubernetes objects into the model, field by field.
#include <catch2/catch.hpp>

#include <string>

#include "decode_helpers.h"
#include "model/decode.h"

using namespace loadshift::model;
using loadshift::testing::decode_clean;

namespace {

constexpr std::string_view kNode = R"({
  "kind": "Node",
  "apiVersion": "v1",
  "metadata": {
    "name": "te1",
    "uid": "0b5f3c2e-1",
    "creationTimestamp": "2025-03-11T09:00:00Z",
    "deletionTimestamp": "2025-06-01T00:00:00Z",
    "resourceVersion": "123",
    "labels": {"kubernetes.io/hostname": "te1", "maip.mxsf.io/node.usage": "training"},
    "annotations": {
      "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"v1\"}",
      "node.alpha.kubernetes.io/ttl": "0",
      "escaped": "a\"b\\c\u00e9\n"
    },
    "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {"f:allocatable": {}}}}]
  },
  "spec": {
    "podCIDR": "10.64.0.0/24",
    "unschedulable": true,
    "taints": [
      {"key": "maip.mxsf.io/node.usage", "value": "training", "effect": "NoSchedule"},
      {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2025-06-01T00:00:00Z"},
      {"key": "soft", "effect": "PreferNoSchedule"}
    ]
  },
  "status": {
    "allocatable": {
      "cpu": "32", "memory": "134217728Ki", "pods": "110", "example.com/widgets": "1e3",
      "ephemeral-storage": "0.5", "nvidia.com/gpu": 8
    },
    "capacity": {"cpu": "500m", "memory": 1024, "hugepages-2Mi": "0"},
    "conditions": [
      {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory", "message": "ok"},
      {"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": null}
    ],
    "addresses": [{"type": "Hostname", "address": "te1"}, {"type": "InternalIP", "address": "10.0.0.1"}],
    "nodeInfo": {"kubeletVersion": "v1.30.4"}
  }
})";

}  // namespace

TEST_CASE("a single Node is decoded field by field", "[decode]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(kNode, &snapshot);
  REQUIRE(summary.ok());
  CHECK(summary.objects == 1);
  REQUIRE(snapshot.nodes.size() == 1);
  const Node& node = snapshot.nodes[0];
  CHECK(node.meta.name == "te1");
  CHECK(node.meta.namespace_.empty());
  CHECK(node.meta.uid == "0b5f3c2e-1");
  CHECK(node.meta.creation_timestamp == "2025-03-11T09:00:00Z");
  CHECK(node.meta.deleting);
  REQUIRE(node.meta.labels.size() == 2);
  CHECK(*node.meta.labels.find("maip.mxsf.io/node.usage") == "training");
  // The last-applied annotation is dropped; escapes are decoded.
  REQUIRE(node.meta.annotations.size() == 2);
  CHECK_FALSE(node.meta.annotations.contains("kubectl.kubernetes.io/last-applied-configuration"));
  CHECK(*node.meta.annotations.find("node.alpha.kubernetes.io/ttl") == "0");
  CHECK(*node.meta.annotations.find("escaped") == "a\"b\\c\xc3\xa9\n");

  CHECK(node.unschedulable);
  REQUIRE(node.taints.size() == 3);
  CHECK(node.taints[0].key == "maip.mxsf.io/node.usage");
  CHECK(node.taints[0].value == "training");
  CHECK(node.taints[0].effect == TaintEffect::kNoSchedule);
  CHECK(node.taints[1].value.empty());
  CHECK(node.taints[1].effect == TaintEffect::kNoExecute);
  CHECK(node.taints[2].effect == TaintEffect::kPreferNoSchedule);

  // Quantities are exact: cpu in millicores, the rest in units, rounded up.
  CHECK(node.allocatable.cpu_milli == 32000);
  CHECK(node.allocatable.memory == int64_t{134217728} * 1024);
  CHECK(node.allocatable.pods == 110);
  CHECK(node.allocatable.get("example.com/widgets") == 1000);
  CHECK(node.allocatable.ephemeral_storage == 1);
  CHECK(node.allocatable.get("nvidia.com/gpu") == 8);
  CHECK(node.capacity.cpu_milli == 500);
  CHECK(node.capacity.memory == 1024);
  CHECK(node.capacity.scalars().size() == 1);
  CHECK(node.capacity.get("hugepages-2Mi") == 0);

  REQUIRE(node.conditions.size() == 2);
  CHECK(node.conditions[0].type == "MemoryPressure");
  CHECK(node.conditions[0].status == "False");
  CHECK(node.conditions[0].reason == "KubeletHasSufficientMemory");
  REQUIRE(node.condition("Ready") != nullptr);
  CHECK(node.condition("Ready")->status == "True");
  REQUIRE(node.addresses.size() == 2);
  CHECK(node.addresses[0].type == "Hostname");
  CHECK(node.internal_ip() == "10.0.0.1");
}

TEST_CASE("a single Pod is decoded field by field", "[decode]") {
  Snapshot snapshot = decode_clean(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {
      "name": "web-1", "namespace": "shop", "uid": "u-1",
      "labels": {"app": "web"},
      "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5f", "uid": "rs-1", "controller": true, "blockOwnerDeletion": true},
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "cfg", "uid": "cm-1"}
      ]
    },
    "spec": {
      "nodeName": "te1",
      "priority": 1000,
      "priorityClassName": "low-priority",
      "restartPolicy": "Always",
      "initContainers": [
        {"name": "setup", "resources": {"requests": {"cpu": "2"}}, "ports": [{"containerPort": 1, "hostPort": 7000}]},
        {"name": "proxy", "ports": [{"containerPort": 2, "hostPort": 7100}], "restartPolicy": "Always", "resources": {"requests": {"memory": "64Mi"}}}
      ],
      "containers": [
        {"name": "app", "image": "web:1",
         "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "1"}, "limits": {"cpu": 1, "memory": "2Gi"}},
         "ports": [{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}, {"containerPort": 9090}, {"containerPort": 53, "hostPort": 0}]},
        {"name": "sidecar", "restartPolicy": "Always"}
      ],
      "overhead": {"cpu": "250m", "memory": "120Mi"},
      "nodeSelector": {"disktype": "ssd"},
      "affinity": {
        "nodeAffinity": {
          "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a", "b"]},
                                  {"key": "gpu", "operator": "DoesNotExist"}],
             "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["te9"]}]},
            {"matchExpressions": [{"key": "cores", "operator": "Gt", "values": ["8"]}]}
          ]},
          "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "preference": {"matchExpressions": [{"key": "zone", "operator": "Exists"}]}},
            {"weight": 5, "preference": {"matchExpressions": [{"key": "cores", "operator": "Lt", "values": ["64"]}]}}
          ]
        },
        "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "zone"}],
                        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}, {"weight": 2}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "a"}, {"topologyKey": "b"}],
                            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 3}]}
      },
      "tolerations": [
        {"key": "pool", "value": "training", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
        {"operator": "Exists", "effect": ""}
      ],
      "volumes": [
        {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}},
        {"name": "scratch", "emptyDir": {}},
        {"name": "host", "hostPath": {"path": "/var/log"}},
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
        {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}},
        {"name": "token", "projected": {"sources": []}}
      ],
      "resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-claim"}]
    },
    "status": {"phase": "Running", "qosClass": "Burstable", "startTime": "2025-06-04T00:00:00Z",
               "containerStatuses": [{"name": "app", "ready": true}]}
  })");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  CHECK(pod.key() == "shop/web-1");
  CHECK(pod.meta.uid == "u-1");
  CHECK_FALSE(pod.meta.deleting);
  REQUIRE(pod.owners.size() == 2);
  REQUIRE(pod.controller() != nullptr);
  CHECK(pod.controller()->kind == "ReplicaSet");
  CHECK(pod.controller()->name == "web-5f");
  CHECK(pod.controller()->api_version == "apps/v1");
  CHECK(pod.controller()->uid == "rs-1");
  CHECK_FALSE(pod.owners[1].controller);
  CHECK(pod.node_name == "te1");
  CHECK(pod.phase == PodPhase::kRunning);
  CHECK(pod.priority == 1000);
  CHECK(pod.priority_class_name == "low-priority");
  CHECK(pod.scheduler_name == "default-scheduler");
  CHECK(pod.qos_class == "Burstable");
  CHECK(pod.start_time == "2025-06-04T00:00:00Z");
  CHECK(pod.restart_policy == "Always");

  REQUIRE(pod.init_containers.size() == 2);
  CHECK(pod.init_containers[0].name == "setup");
  CHECK(pod.init_containers[0].requests.cpu_milli == 2000);
  CHECK_FALSE(pod.init_containers[0].restart_always);
  CHECK(pod.init_containers[1].restart_always);
  CHECK(pod.init_containers[1].requests.memory == 64 << 20);
  REQUIRE(pod.containers.size() == 2);
  const Container& app = pod.containers[0];
  CHECK(app.name == "app");
  CHECK(app.requests.cpu_milli == 500);
  CHECK(app.requests.memory == int64_t{1} << 30);
  CHECK(app.requests.get("nvidia.com/gpu") == 1);
  CHECK(app.limits.cpu_milli == 1000);
  CHECK(app.limits.memory == int64_t{2} << 30);
  CHECK_FALSE(pod.containers[1].restart_always);  // restartPolicy only counts on init containers
  // Host ports of a plain init container are free again once it ends; a sidecar's are not.
  CHECK(pod.host_ports == std::vector<int32_t>{7100, 8080});
  CHECK(pod.overhead.cpu_milli == 250);
  CHECK(pod.overhead.memory == 120 << 20);
  CHECK(*pod.node_selector.find("disktype") == "ssd");

  const NodeAffinity& affinity = pod.node_affinity;
  REQUIRE(affinity.required.has_value());
  REQUIRE(affinity.required->size() == 2);
  const NodeSelectorTerm& first = (*affinity.required)[0];
  REQUIRE(first.match_expressions.size() == 2);
  CHECK(first.match_expressions[0].key == "pool");
  CHECK(first.match_expressions[0].op == SelectorOperator::kIn);
  CHECK(first.match_expressions[0].values == std::vector<std::string>{"a", "b"});
  CHECK(first.match_expressions[1].op == SelectorOperator::kDoesNotExist);
  CHECK(first.match_expressions[1].values.empty());
  REQUIRE(first.match_fields.size() == 1);
  CHECK(first.match_fields[0].key == "metadata.name");
  CHECK(first.match_fields[0].op == SelectorOperator::kNotIn);
  CHECK((*affinity.required)[1].match_expressions[0].op == SelectorOperator::kGt);
  REQUIRE(affinity.preferred.size() == 2);
  CHECK(affinity.preferred[0].weight == 100);
  CHECK(affinity.preferred[0].preference.match_expressions[0].op == SelectorOperator::kExists);
  CHECK(affinity.preferred[1].weight == 5);
  CHECK(affinity.preferred[1].preference.match_expressions[0].op == SelectorOperator::kLt);
  CHECK(pod.pod_affinity.required.size() == 1);
  CHECK(pod.pod_anti_affinity.required.size() == 2);
  CHECK(pod.pod_affinity.preferred.size() + pod.pod_anti_affinity.preferred.size() == 3);

  REQUIRE(pod.tolerations.size() == 3);
  CHECK(pod.tolerations[0].key == "pool");
  CHECK(pod.tolerations[0].op == TolerationOperator::kEqual);
  CHECK(pod.tolerations[0].value == "training");
  CHECK(pod.tolerations[0].effect == TaintEffect::kNoSchedule);
  CHECK_FALSE(pod.tolerations[0].toleration_seconds.has_value());
  CHECK(pod.tolerations[1].op == TolerationOperator::kExists);
  CHECK(pod.tolerations[1].effect == TaintEffect::kNoExecute);
  CHECK(pod.tolerations[1].toleration_seconds == 300);
  CHECK(pod.tolerations[2].key.empty());
  CHECK(pod.tolerations[2].op == TolerationOperator::kExists);
  CHECK_FALSE(pod.tolerations[2].effect.has_value());

  REQUIRE(pod.volumes.size() == 6);
  CHECK(pod.volumes[0].name == "cache");
  CHECK(pod.volumes[0].kind == kVolumeEmptyDir);
  CHECK(pod.volumes[0].memory_medium);
  CHECK(pod.volumes[1].kind == kVolumeEmptyDir);
  CHECK_FALSE(pod.volumes[1].memory_medium);
  CHECK(pod.volumes[2].kind == kVolumeHostPath);
  CHECK(pod.volumes[3].kind == kVolumePersistentClaim);
  CHECK(pod.volumes[3].claim_name == "data-web-1");
  CHECK(pod.volumes[4].kind == kVolumeEphemeral);
  CHECK(pod.volumes[5].kind == kVolumeOther);
  CHECK(pod.has_resource_claims);
}

TEST_CASE("a Pod without optional fields gets the defaults", "[decode]") {
  Snapshot snapshot = decode_clean(R"({"kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "bare"},
    "spec": {"containers": [{"name": "c"}], "affinity": {"nodeAffinity": null}},
    "status": {}})");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  CHECK(pod.meta.namespace_ == "default");
  CHECK(pod.scheduler_name == "default-scheduler");
  CHECK(pod.phase == PodPhase::kPending);
  CHECK_FALSE(pod.priority.has_value());
  CHECK_FALSE(pod.node_affinity->required.has_value());
  CHECK(pod.node_affinity->preferred.empty());
  CHECK_FALSE(pod.has_resource_claims);
  CHECK(pod.host_ports.empty());
  CHECK(pod.owners.empty());
  CHECK(pod.controller() == nullptr);
}

TEST_CASE("required node affinity with no terms is kept apart from no requirement", "[decode]") {
  Snapshot snapshot = decode_clean(R"({"kind": "PodList", "apiVersion": "v1", "items": [
    {"metadata": {"name": "empty-list"}, "spec": {"schedulerName": "volcano", "affinity": {"nodeAffinity":
      {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}}}},
    {"metadata": {"name": "no-terms"}, "spec": {"affinity": {"nodeAffinity":
      {"requiredDuringSchedulingIgnoredDuringExecution": {}}}}},
    {"metadata": {"name": "null-required"}, "spec": {"affinity": {"nodeAffinity":
      {"requiredDuringSchedulingIgnoredDuringExecution": null}}}}
  ]})");
  REQUIRE(snapshot.pods.size() == 3);
  REQUIRE(snapshot.pods[0].node_affinity->required.has_value());
  CHECK(snapshot.pods[0].node_affinity->required->empty());
  CHECK(snapshot.pods[0].scheduler_name == "volcano");
  REQUIRE(snapshot.pods[1].node_affinity->required.has_value());
  CHECK(snapshot.pods[1].node_affinity->required->empty());
  CHECK_FALSE(snapshot.pods[2].node_affinity->required.has_value());
}

TEST_CASE("a Pod's status reason and container statuses are decoded", "[decode]") {
  Snapshot snapshot = decode_clean(R"({"kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "job-1", "namespace": "batch"},
    "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
    "status": {"phase": "Failed", "reason": "OutOfcpu",
      "initContainerStatuses": [
        {"name": "init", "restartCount": 2,
         "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}],
      "containerStatuses": [
        {"name": "a", "restartCount": 7,
         "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}},
         "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}},
        {"name": "b", "restartCount": 0, "state": {"running": {"startedAt": "2025-06-04T00:00:00Z"},
                                                   "terminated": null}}]}})");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  CHECK(pod.phase == PodPhase::kFailed);
  CHECK(pod.reason == "OutOfcpu");
  REQUIRE(pod.init_container_statuses.size() == 1);
  CHECK(pod.init_container_statuses[0].restart_count == 2);
  CHECK(pod.init_container_statuses[0].terminated);
  CHECK(pod.init_container_statuses[0].exit_code == 0);
  CHECK(pod.init_container_statuses[0].terminated_reason == "Completed");
  REQUIRE(pod.container_statuses.size() == 2);
  CHECK(pod.container_statuses[0].restart_count == 7);
  CHECK(pod.container_statuses[0].waiting_reason == "CrashLoopBackOff");
  CHECK_FALSE(pod.container_statuses[0].terminated);  // lastState is not the state
  CHECK(pod.container_statuses[0].exit_code == 0);
  CHECK(pod.container_statuses[1] == ContainerStatus{});

  CHECK_FALSE(decode_json(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "x"},
    "status": {"containerStatuses": [{"restartCount": "many"}]}})",
                          &snapshot)
                  .errors.empty());
}

TEST_CASE("a Pod's conditions and ephemeral container statuses are decoded", "[decode]") {
  Snapshot snapshot = decode_clean(R"({"kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": "done-1", "namespace": "batch"},
    "spec": {"containers": [{"name": "a"}]},
    "status": {"phase": "Succeeded",
      "conditions": [
        {"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": null,
         "lastTransitionTime": "2026-11-22T04:00:00Z"},
        {"type": "Ready", "status": "False", "reason": "PodCompleted",
         "lastTransitionTime": "2026-11-22T06:30:00.5+02:00"},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": null}],
      "ephemeralContainerStatuses": [
        {"name": "debugger", "restartCount": 0,
         "state": {"waiting": {"reason": "ImagePullBackOff"}}}]}})");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  using Condition = PodConditions::Condition;
  const int64_t at_4 = 1795320000;  // 2026-11-22T04:00:00Z
  CHECK(pod.conditions.list() ==
        std::vector<Condition>{{"PodReadyToStartContainers", "False", "", at_4},
                               {"Ready", "False", "PodCompleted", at_4 + 1800},
                               {"PodScheduled", "True", "", std::nullopt}});
  REQUIRE(pod.ready.has_value());
  CHECK_FALSE(*pod.ready);
  REQUIRE(pod.ephemeral_container_statuses.size() == 1);
  CHECK(pod.ephemeral_container_statuses[0].waiting_reason == "ImagePullBackOff");
  CHECK(pod.container_statuses.empty());

  // A time that cannot be read counts as none: the pod stays readable.
  Snapshot odd = decode_clean(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "x"},
    "status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "yesterday"},
      {"type": "PodScheduled", "status": "True", "lastTransitionTime": "9999-12-31T23:59:59Z"}]}})");
  REQUIRE(odd.pods.size() == 1);
  CHECK(odd.pods[0].conditions.list() ==
        std::vector<Condition>{{"Ready", "True", "", std::nullopt},
                               {"PodScheduled", "True", "", std::nullopt}});
  CHECK(odd.pods[0].ready == true);
}

TEST_CASE("a Namespace's labels are decoded", "[decode]") {
  Snapshot snapshot = decode_clean(R"({"kind": "NamespaceList", "apiVersion": "v1", "items": [
    {"metadata": {"name": "team-a", "labels": {"team": "a",
      "kubernetes.io/metadata.name": "team-a"}}, "spec": {"finalizers": ["kubernetes"]},
     "status": {"phase": "Active"}}]})");
  REQUIRE(snapshot.namespaces.size() == 1);
  CHECK(snapshot.namespaces[0].meta.name == "team-a");
  CHECK(snapshot.namespaces[0].meta.namespace_.empty());  // cluster-scoped
  REQUIRE(snapshot.namespaces[0].meta.labels.find("team") != nullptr);
  CHECK(*snapshot.namespaces[0].meta.labels.find("team") == "a");
}

TEST_CASE("the summary counts every object the snapshot holds, of every kind", "[decode]") {
  // fuzz_decode checks summary.objects against object_count(); a kind the count
  // left out (Namespace, here) made it abort on valid input.
  Snapshot snapshot;
  DecodeSummary summary = decode_json(R"({"kind": "List", "apiVersion": "v1", "items": [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}},
    {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"}, "spec": {}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n1"},
     "spec": {"drivers": []}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]})",
                                      &snapshot);
  CHECK(summary.errors.empty());
  CHECK(summary.objects == 4);
  CHECK(object_count(snapshot) == summary.objects);
}

TEST_CASE("PodConditions keeps every condition in order, any length", "[decode]") {
  PodConditions conditions;
  CHECK(conditions.empty());
  CHECK(conditions.list().empty());
  const std::string long_reason(70000, 'r');
  using Condition = PodConditions::Condition;
  std::vector<Condition> added = {{"Ready", "True", "", -5},
                                  {"", "", "", std::nullopt},
                                  {"DisruptionTarget", "True", long_reason, 0},
                                  {"x", "Unknown", "why", int64_t{1} << 40}};
  for (const Condition& c : added) conditions.add(c);
  CHECK_FALSE(conditions.empty());
  CHECK(conditions.list() == added);
  int seen = 0;
  CHECK(conditions.any_of([&](const Condition& c) {
    ++seen;
    return c.type == "DisruptionTarget";
  }));
  CHECK(seen == 3);
  CHECK_FALSE(conditions.any_of([](const Condition& c) { return c.type == "Missing"; }));
  PodConditions copy = conditions;
  CHECK(copy == conditions);
}

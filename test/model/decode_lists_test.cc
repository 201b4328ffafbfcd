// Decoding lists of every shape (v1 List, typed lists, kind before or after the items) and
// streaming them in chunks of any size.
#include <catch2/catch.hpp>

#include <string>

#include "decode_helpers.h"
#include "model/decode.h"
#include "snapshot_text.h"

using namespace loadshift::model;
using loadshift::testing::decode_clean;
using loadshift::testing::decode_in_chunks;
using loadshift::testing::SnapshotText;

namespace {

// As `kubectl get ... -o json` prints a v1 List: keys sorted, so "items" comes before "kind".
constexpr std::string_view kMixedList = R"({
  "apiVersion": "v1",
  "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "te1"},
     "status": {"allocatable": {"cpu": "8"}}},
    {"apiVersion": "v1", "data": {"k": "v"}, "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "x"}},
    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "k8s-job", "namespace": "x"},
     "spec": {"template": {}}},
    {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
     "metadata": {"name": "train", "namespace": "ml"},
     "spec": {"minAvailable": 4, "schedulerName": "volcano", "queue": "research",
              "networkTopology": {"highestTierAllowed": 1},
              "policies": [{"event": "PodEvicted", "action": "RestartJob"},
                           {"events": ["PodFailed", "Unknown"], "action": "AbortJob"}],
              "tasks": [
                {"name": "ps", "replicas": 1, "policies": [{"event": "TaskCompleted", "action": "CompleteJob"}]},
                {"name": "worker", "replicas": 3, "policies": [{"event": "TaskCompleted", "action": "CompleteJob"},
                                                               {"event": "PodEvicted", "action": "RestartTask"}]}
              ]},
     "status": {"state": {"phase": "Running"}}},
    {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
     "metadata": {"name": "train-pg", "namespace": "ml",
                  "ownerReferences": [{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "train", "uid": "j1", "controller": true}]},
     "spec": {"minMember": 4, "queue": "research", "networkTopology": {"mode": "soft", "highestTierName": "spine"}},
     "status": {"phase": "Running", "running": 3}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
     "spec": {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"},
              "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["canary"]}]}},
     "status": {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 4}},
    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "shop"},
     "spec": {"maxUnavailable": 1, "selector": null}},
    {"apiVersion": "scheduling.k8s.io/v1", "description": "low", "globalDefault": true, "kind": "PriorityClass",
     "metadata": {"name": "low-priority"}, "preemptionPolicy": "Never", "value": 1000},
    {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode", "metadata": {"name": "rack-1"},
     "spec": {"tier": 1, "tierName": "rack", "members": [
       {"type": "Node", "selector": {"exactMatch": {"name": "te1"}}},
       {"type": "Node", "selector": {"regexMatch": {"pattern": "^te[2-4]$"}}},
       {"type": "Node", "selector": {"labelMatch": {"matchLabels": {"rack": "1"},
         "matchExpressions": [{"key": "gpu", "operator": "Exists"}]}}},
       {"type": "HyperNode", "selector": {"exactMatch": {"name": "rack-0"}}}]}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": {}}
  ],
  "kind": "List",
  "metadata": {"resourceVersion": ""}
})";

}  // namespace

TEST_CASE("a v1 List with mixed kinds reads the kinds it knows and counts the others", "[decode]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(kMixedList, &snapshot);
  REQUIRE(summary.ok());
  CHECK(summary.objects == 8);
  CHECK(summary.skipped == std::map<std::string, size_t>{{"ConfigMap", 1}, {"Job (batch/v1)", 1}});
  REQUIRE(snapshot.nodes.size() == 1);
  CHECK(snapshot.nodes[0].allocatable.cpu_milli == 8000);
  REQUIRE(snapshot.pods.size() == 1);

  REQUIRE(snapshot.jobs.size() == 1);
  const VolcanoJob& job = snapshot.jobs[0];
  CHECK(job.meta.namespace_ == "ml");
  CHECK(job.meta.name == "train");
  CHECK(job.min_available == 4);
  CHECK(job.scheduler_name == "volcano");
  CHECK(job.queue == "research");
  REQUIRE(job.network_topology.has_value());
  CHECK(job.network_topology->mode == TopologyMode::kHard);  // the default
  CHECK(job.network_topology->highest_tier_allowed == 1);
  REQUIRE(job.policies.size() == 2);
  CHECK(job.policies[0].event == "PodEvicted");
  CHECK(job.policies[0].action == "RestartJob");
  CHECK(job.policies[1].event.empty());
  CHECK(job.policies[1].events == std::vector<std::string>{"PodFailed", "Unknown"});
  REQUIRE(job.task_policies.size() == 2);  // the union: the repeated policy counted once
  CHECK(job.task_policies[0].event == "TaskCompleted");
  CHECK(job.task_policies[0].action == "CompleteJob");
  CHECK(job.task_policies[1].action == "RestartTask");

  REQUIRE(snapshot.pod_groups.size() == 1);
  const PodGroup& group = snapshot.pod_groups[0];
  CHECK(group.meta.name == "train-pg");
  CHECK(group.min_member == 4);
  CHECK(group.job_name == "train");
  CHECK(group.phase == "Running");
  CHECK(group.running == 3);
  REQUIRE(group.network_topology.has_value());
  CHECK(group.network_topology->mode == TopologyMode::kSoft);
  CHECK_FALSE(group.network_topology->highest_tier_allowed.has_value());
  CHECK(group.network_topology->highest_tier_name == "spine");

  REQUIRE(snapshot.pdbs.size() == 2);
  const PodDisruptionBudget& web = snapshot.pdbs[0];
  CHECK(web.meta.namespace_ == "shop");
  REQUIRE(web.min_available.has_value());
  CHECK(web.min_available->value == 50);
  CHECK(web.min_available->percent);
  CHECK_FALSE(web.max_unavailable.has_value());
  REQUIRE(web.selector.has_value());
  CHECK(*web.selector->match_labels.find("app") == "web");
  REQUIRE(web.selector->match_expressions.size() == 1);
  CHECK(web.selector->match_expressions[0].op == "NotIn");
  CHECK(web.selector->match_expressions[0].values == std::vector<std::string>{"canary"});
  CHECK(web.disruptions_allowed == 1);
  CHECK(web.current_healthy == 3);
  CHECK(web.desired_healthy == 2);
  CHECK(web.expected_pods == 4);
  const PodDisruptionBudget& db = snapshot.pdbs[1];
  CHECK_FALSE(db.selector.has_value());
  REQUIRE(db.max_unavailable.has_value());
  CHECK(db.max_unavailable->value == 1);
  CHECK_FALSE(db.max_unavailable->percent);

  REQUIRE(snapshot.priority_classes.size() == 1);
  const PriorityClass& priority_class = snapshot.priority_classes[0];
  CHECK(priority_class.name == "low-priority");
  CHECK(priority_class.value == 1000);
  CHECK(priority_class.global_default);
  CHECK(priority_class.preemption_policy == "Never");

  REQUIRE(snapshot.hyper_nodes.size() == 1);
  const HyperNode& rack = snapshot.hyper_nodes[0];
  CHECK(rack.meta.name == "rack-1");
  CHECK(rack.meta.namespace_.empty());
  CHECK(rack.tier == 1);
  CHECK(rack.tier_name == "rack");
  REQUIRE(rack.members.size() == 4);
  CHECK(rack.members[0].type == HyperNodeMemberType::kNode);
  CHECK(rack.members[0].exact_name == "te1");
  CHECK(rack.members[1].regex == "^te[2-4]$");
  REQUIRE(rack.members[2].label_match.has_value());
  CHECK(*rack.members[2].label_match->match_labels.find("rack") == "1");
  CHECK(rack.members[2].label_match->match_expressions[0].op == "Exists");
  CHECK_FALSE(rack.members[0].label_match.has_value());
  CHECK(rack.members[3].type == HyperNodeMemberType::kHyperNode);
  CHECK(rack.members[3].exact_name == "rack-0");
}

TEST_CASE("a typed list gives its kind to items that carry none", "[decode]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(R"({"kind": "PodList", "apiVersion": "v1",
    "metadata": {"resourceVersion": "77"},
    "items": [
      {"metadata": {"name": "a", "namespace": "n"}, "spec": {"nodeName": "te1"}},
      {"metadata": {"name": "b", "namespace": "n"}, "spec": {"nodeName": "te2"}, "status": {"phase": "Succeeded"}}
    ]})",
                                      &snapshot);
  REQUIRE(summary.ok());
  CHECK(summary.objects == 2);
  REQUIRE(snapshot.pods.size() == 2);
  CHECK(snapshot.pods[0].key() == "n/a");
  CHECK(snapshot.pods[0].node_name == "te1");
  CHECK(snapshot.pods[1].phase == PodPhase::kSucceeded);
}

TEST_CASE("typed lists of Volcano Jobs are read only from batch.volcano.sh", "[decode]") {
  Snapshot snapshot;
  DecodeSummary volcano =
      decode_json(R"({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "JobList",
    "items": [{"metadata": {"name": "j", "namespace": "n"}, "spec": {"minAvailable": 2}}]})",
                  &snapshot);
  REQUIRE(volcano.ok());
  REQUIRE(snapshot.jobs.size() == 1);
  CHECK(snapshot.jobs[0].min_available == 2);
  DecodeSummary batch = decode_json(R"({"apiVersion": "batch/v1", "kind": "JobList",
    "items": [{"metadata": {"name": "j"}}, {"metadata": {"name": "k"}}]})",
                                    &snapshot);
  REQUIRE(batch.ok());
  CHECK(batch.objects == 0);
  CHECK(batch.skipped == std::map<std::string, size_t>{{"Job (batch/v1)", 2}});
  CHECK(snapshot.jobs.size() == 1);
}

TEST_CASE("a list whose kind comes after kindless items names the first such item", "[decode]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(R"({"apiVersion": "v1",
    "items": [{"metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "b"}}],
    "kind": "PodList"})",
                                      &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].object == "items[0]");
  CHECK(summary.errors[0].path == "kind");
  CHECK_THAT(summary.errors[0].message,
             Catch::Contains("list's kind was not seen before its items"));
  CHECK(summary.objects == 1);
  REQUIRE(snapshot.pods.size() == 1);
  CHECK(snapshot.pods[0].meta.name == "b");
}

TEST_CASE("an empty list and a list with null items decode to nothing", "[decode]") {
  Snapshot snapshot;
  DecodeSummary empty = decode_json(R"({"apiVersion":"v1","items":[],"kind":"List"})", &snapshot);
  CHECK(empty.ok());
  CHECK(empty.objects == 0);
  CHECK(empty.skipped.empty());
  DecodeSummary null_items = decode_json(R"({"kind":"NodeList","items":null})", &snapshot);
  CHECK(null_items.ok());
  CHECK(null_items.skipped.empty());
  CHECK(SnapshotText::of(snapshot).empty());
}

TEST_CASE("members before kind are read as well as those after it", "[decode]") {
  // A PriorityClass as kubectl sorts it: globalDefault and description come before kind.
  Snapshot sorted = decode_clean(R"({"apiVersion": "scheduling.k8s.io/v1", "description": "x",
    "globalDefault": true, "kind": "PriorityClass", "metadata": {"name": "pc"}, "value": 7})");
  Snapshot kind_last =
      decode_clean(R"({"value": 7, "metadata": {"name": "pc"}, "globalDefault": true,
    "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass"})");
  Snapshot no_api_version = decode_clean(R"({"value": 7, "metadata": {"name": "pc"},
    "globalDefault": true, "kind": "PriorityClass"})");
  CHECK(SnapshotText::of(sorted) == "PriorityClass pc value=7 default=1 preemption=\n");
  CHECK(SnapshotText::of(kind_last) == SnapshotText::of(sorted));
  CHECK(SnapshotText::of(no_api_version) == SnapshotText::of(sorted));
}

TEST_CASE("any split into chunks gives the same snapshot as one piece", "[decode]") {
  std::string json = std::string(kMixedList);
  Snapshot whole = decode_clean(json);
  const std::string expected = SnapshotText::of(whole);
  REQUIRE(expected.size() > 500);
  for (size_t chunk : {1, 2, 3, 7, 16, 17, 64, 1000}) {
    Snapshot pieces;
    DecodeSummary summary = decode_in_chunks(json, chunk, &pieces);
    INFO("chunk " << chunk);
    CHECK(summary.ok());
    CHECK(summary.objects == 8);
    CHECK(SnapshotText::of(pieces) == expected);
  }
  // A single object (not a list) in one-byte chunks, strings with escapes split anywhere.
  constexpr std::string_view kNode = R"({"kind": "Node", "metadata": {"name": "te1",
    "annotations": {"a": "x\"y\\z\u00e9", "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
    "status": {"allocatable": {"cpu": "1500m", "memory": "1Gi"}}})";
  Snapshot node_whole = decode_clean(kNode);
  REQUIRE(node_whole.nodes.size() == 1);
  Snapshot node_bytes;
  CHECK(decode_in_chunks(kNode, 1, &node_bytes).ok());
  CHECK(SnapshotText::of(node_bytes) == SnapshotText::of(node_whole));
}

TEST_CASE("a generated kubectl-style cluster decodes in chunks as in one piece", "[decode]") {
  // Nodes, pods and priority classes shaped as tools/gen_cluster.py writes them.
  std::string json = R"({"apiVersion": "v1", "items": [)";
  for (int i = 0; i < 20; ++i) {
    if (i != 0) json += ",";
    std::string n = std::to_string(i);
    json +=
        R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"annotations": {"a": "\\\"quoted\\\" \u0041"},
      "labels": {"app": "app-)" +
        n + R"("}, "name": "pod-)" + n + R"(", "namespace": "ns"},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": ")" +
        n + R"(00m"}}}],
               "nodeName": "node-)" +
        n + R"("}, "status": {"phase": "Running"}})";
  }
  json += R"(], "kind": "List", "metadata": {"resourceVersion": ""}})";
  Snapshot whole = decode_clean(json);
  REQUIRE(whole.pods.size() == 20);
  CHECK(whole.pods[19].containers[0].requests.cpu_milli == 1900);
  CHECK(*whole.pods[3].meta.annotations.find("a") == "\\\"quoted\\\" A");
  for (size_t chunk : {1, 5, 31, 4096}) {
    Snapshot pieces;
    CHECK(decode_in_chunks(json, chunk, &pieces).ok());
    CHECK(SnapshotText::of(pieces) == SnapshotText::of(whole));
  }
}

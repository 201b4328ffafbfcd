// Shared<T> and the decoders' value pool: pods of one workload hold one copy of what they have
// alike, a write never shows through another pod, and the pool lets go of what no pod holds.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "model/decode.h"
#include "model/model.h"
#include "model/shared_value.h"
#include "model/value_pool.h"

using namespace loadshift::model;

namespace {

// A pod of workload `app` as the API server writes it; `pool` picks its tolerations.
std::string pod_json(const std::string& name, const std::string& app, const std::string& pool) {
  return R"({"kind": "Pod", "apiVersion": "v1",
    "metadata": {"name": ")" +
         name + R"(", "namespace": "ml", "uid": "uid-)" + name + R"(",
      "labels": {"app": ")" +
         app + R"(", "pod-template-hash": "5d9f"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": ")" +
         app + R"(-5d9f", "uid": "rs-)" + app + R"(", "controller": true}]},
    "spec": {"nodeName": "n1",
      "containers": [{"name": "main", "image": "registry/)" +
         app + R"(:1", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
        "volumeMounts": [{"name": "kube-api-access-)" +
         name + R"(", "mountPath": "/var/run/secrets"}]}],
      "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [{"key": "maip.mxsf.io/node.usage",
          "operator": "In", "values": [")" +
         pool + R"("]}]}]}}},
      "tolerations": [{"key": "maip.mxsf.io/node.usage", "operator": "Equal", "value": ")" +
         pool + R"(", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
         "tolerationSeconds": 300}]},
    "status": {"phase": "Running"}})";
}

std::string list_json(const std::vector<std::string>& items) {
  std::string json = R"({"kind": "List", "apiVersion": "v1", "items": [)";
  for (size_t i = 0; i < items.size(); ++i) json += (i ? "," : "") + items[i];
  return json + "]}";
}

}  // namespace

TEST_CASE("a Shared value is shared by its copies and unshared by a write") {
  Shared<std::vector<int>> a = std::vector<int>{1, 2, 3};
  Shared<std::vector<int>> b = a;
  CHECK(a.same_as(b));
  CHECK(b.size() == 3);
  CHECK(b[1] == 2);

  b.edit().push_back(4);  // b gets its own copy first
  CHECK_FALSE(a.same_as(b));
  CHECK(a.size() == 3);
  CHECK(b.size() == 4);
  CHECK(b.back() == 4);

  // The only holder writes in place.
  const std::vector<int>* before = &b.get();
  b.edit().push_back(5);
  CHECK(&b.get() == before);

  // Empty reads as T{} and allocates nothing; equality compares values.
  Shared<std::vector<int>> none;
  CHECK(none.empty());
  CHECK(none.pointer() == nullptr);
  CHECK(none == Shared<std::vector<int>>(std::vector<int>{}));
  CHECK(a == Shared<std::vector<int>>(std::vector<int>{1, 2, 3}));
  CHECK_FALSE(a == b);
}

TEST_CASE(
    "decoded pods of one workload share their labels, owners, containers, affinity and "
    "tolerations") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(
      list_json({pod_json("web-a", "web", "inference"), pod_json("web-b", "web", "inference"),
                 pod_json("db-a", "db", "inference"),
                 pod_json("trainer-a", "trainer", "training")}),
      &snapshot);
  REQUIRE(summary.errors.empty());
  REQUIRE(snapshot.pods.size() == 4);
  const Pod& web_a = std::as_const(snapshot.pods)[0];
  const Pod& web_b = std::as_const(snapshot.pods)[1];
  const Pod& db_a = std::as_const(snapshot.pods)[2];
  const Pod& trainer = std::as_const(snapshot.pods)[3];

  // The same workload: one copy of each, although the containers' text differs (volumeMounts
  // name the pod) — the pool compares what the model keeps.
  CHECK(web_a.owners.same_as(web_b.owners));
  CHECK(web_a.containers.same_as(web_b.containers));
  CHECK(web_a.tolerations.same_as(web_b.tolerations));
  CHECK(web_a.node_affinity.same_as(web_b.node_affinity));
  CHECK(&web_a.meta.labels.items() == &web_b.meta.labels.items());
  // Another workload of the same pool: tolerations and affinity shared, the rest its own.
  CHECK(web_a.tolerations.same_as(db_a.tolerations));
  CHECK(web_a.node_affinity.same_as(db_a.node_affinity));
  CHECK_FALSE(web_a.owners.same_as(db_a.owners));
  CHECK_FALSE(web_a.containers.same_as(db_a.containers));
  CHECK(&web_a.meta.labels.items() != &db_a.meta.labels.items());
  // Another pool: nothing shared, and each pod reads what it was decoded with.
  CHECK_FALSE(web_a.tolerations.same_as(trainer.tolerations));
  CHECK_FALSE(web_a.node_affinity.same_as(trainer.node_affinity));
  CHECK(trainer.tolerations[0].value == "training");
  CHECK(web_a.tolerations[0].value == "inference");
  CHECK(db_a.owners[0].name == "db-5d9f");
  CHECK(web_b.containers[0].image == "registry/web:1");
  CHECK(web_b.containers[0].requests.cpu_milli == 500);
  REQUIRE(trainer.node_affinity->required);
  CHECK(trainer.node_affinity->required->at(0).match_expressions[0].values[0] == "training");
  CHECK(*web_b.meta.labels.find("app") == "web");

  // A write to one pod never shows in another (copy on write).
  Pod changed = web_a;
  changed.tolerations.edit()[0].value = "hybrid";
  changed.meta.labels.set("app", "other");
  changed.containers.edit()[0].requests.cpu_milli = 900;
  CHECK(web_a.tolerations[0].value == "inference");
  CHECK(web_b.tolerations[0].value == "inference");
  CHECK(*web_b.meta.labels.find("app") == "web");
  CHECK(web_b.containers[0].requests.cpu_milli == 500);
  CHECK(changed.tolerations[0].value == "hybrid");
  CHECK(*changed.meta.labels.find("app") == "other");
}

TEST_CASE("a pod without affinity, tolerations or labels holds nothing") {
  Snapshot snapshot;
  REQUIRE(decode_json(R"({"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "bare"},
                          "spec": {"containers": [{"name": "c"}], "affinity": {},
                                   "tolerations": []}})",
                      &snapshot)
              .errors.empty());
  const Pod& pod = std::as_const(snapshot.pods)[0];
  CHECK(pod.tolerations.pointer() == nullptr);
  CHECK(pod.owners.pointer() == nullptr);
  CHECK(pod.node_affinity.pointer() == nullptr);
  CHECK_FALSE(pod.node_affinity->required);
  CHECK(pod.meta.labels.empty());
  CHECK(pod.containers.size() == 1);
}

TEST_CASE("the pool lets go of values no pod holds any more") {
  // Workloads decoded and dropped, round after round: whatever the pool held before (other
  // tests share it), it must sweep, and the dropped rounds' values must go.
  auto decode_workloads = [](const std::string& prefix) {
    std::vector<std::string> items;
    for (int i = 0; i < 1500; ++i) {
      items.push_back(pod_json(prefix + std::to_string(i), prefix + std::to_string(i), "hybrid"));
    }
    Snapshot snapshot;
    REQUIRE(decode_json(list_json(items), &snapshot).errors.empty());
    return snapshot;
  };
  const ValuePoolStats before = value_pool_stats();
  Snapshot kept = decode_workloads("kept-");
  constexpr int kRounds = 8;
  for (int round = 0; round < kRounds; ++round) {
    Snapshot dropped = decode_workloads("gone-" + std::to_string(round) + "-");
  }
  const ValuePoolStats after = value_pool_stats();
  CHECK(after.sweeps > before.sweeps);
  // Each round brought 4,500 values (1,500 workloads' owners, containers and labels); without
  // sweeps the pool would hold all 9 x 4,500 more than before. It holds the kept round's and at
  // most the rounds since its last sweep of each kind.
  CHECK(after.values < before.values + (kRounds + 1) * 4500 / 2);
  // What is kept still reads right.
  CHECK(std::as_const(kept.pods)[7].owners[0].name == "kept-7-5d9f");
  CHECK(*std::as_const(kept.pods)[1499].meta.labels.find("app") == "kept-1499");
}

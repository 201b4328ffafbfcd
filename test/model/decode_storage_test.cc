// Decoding what issue 10 added: PersistentVolumeClaims, PersistentVolumes, CSINodes, required
// anti-affinity terms, and the API server's requests-from-limits defaulting.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "decode_helpers.h"
#include "model/model.h"
#include "snapshot_text.h"

using namespace loadshift::model;
using loadshift::testing::decode_clean;
using loadshift::testing::decode_in_chunks;
using loadshift::testing::SnapshotText;

TEST_CASE("decodes PersistentVolumeClaims, PersistentVolumes and CSINodes", "[decode][volumes]") {
  // Shapes as `kubectl get pv,pvc,csinodes -o json` writes them (v1 List, API server fields).
  Snapshot snapshot = decode_clean(R"({"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
     "metadata": {"name": "data-db-0", "namespace": "prod",
                  "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}},
              "storageClassName": "local", "volumeMode": "Filesystem", "volumeName": "pv-local-1"},
     "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}},
    {"apiVersion": "v1", "kind": "PersistentVolume",
     "metadata": {"name": "pv-local-1"},
     "spec": {"capacity": {"storage": "10Gi"}, "local": {"path": "/mnt/disks/1"},
              "claimRef": {"kind": "PersistentVolumeClaim", "name": "data-db-0", "namespace": "prod"},
              "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                  {"key": "kubernetes.io/hostname", "operator": "In", "values": ["te1"]}]}]}},
              "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "local"},
     "status": {"phase": "Bound"}},
    {"apiVersion": "v1", "kind": "PersistentVolume",
     "metadata": {"name": "pvc-0b1c"},
     "spec": {"csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeHandle": "vol-0abc"},
              "nodeAffinity": {"required": null}}},
    {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
     "metadata": {"name": "te1"},
     "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-0123",
                           "topologyKeys": ["topology.ebs.csi.aws.com/zone"],
                           "allocatable": {"count": 25}},
                          {"name": "efs.csi.aws.com", "nodeID": "i-0123", "topologyKeys": null}]}}
  ]})");
  REQUIRE(snapshot.persistent_volume_claims.size() == 1);
  const PersistentVolumeClaim& pvc = snapshot.persistent_volume_claims[0];
  CHECK(pvc.meta.namespace_ == "prod");
  CHECK(pvc.volume_name == "pv-local-1");
  CHECK(pvc.phase == "Bound");
  REQUIRE(snapshot.persistent_volumes.size() == 2);
  const PersistentVolume& local = snapshot.persistent_volumes[0];
  REQUIRE(local.node_affinity.has_value());
  REQUIRE(local.node_affinity->size() == 1);
  CHECK((*local.node_affinity)[0].match_expressions[0].values == std::vector<std::string>{"te1"});
  CHECK(local.csi_driver.empty());
  const PersistentVolume& csi = snapshot.persistent_volumes[1];
  CHECK_FALSE(csi.node_affinity.has_value());
  CHECK(csi.csi_driver == "ebs.csi.aws.com");
  CHECK(csi.csi_volume_handle == "vol-0abc");
  REQUIRE(snapshot.csi_nodes.size() == 1);
  REQUIRE(snapshot.csi_nodes[0].drivers.size() == 2);
  CHECK(snapshot.csi_nodes[0].drivers[0].allocatable_count == 25);
  CHECK_FALSE(snapshot.csi_nodes[0].drivers[1].allocatable_count.has_value());
}

TEST_CASE("storage objects with wrong field types are errors naming the place",
          "[decode][volumes]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_json(R"({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
    "metadata": {"name": "te1"},
    "spec": {"drivers": [{"name": "ebs.csi.aws.com", "allocatable": {"count": "many"}}]}})",
                                      &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK_THAT(summary.errors[0].to_string(),
             Catch::StartsWith("CSINode te1: spec.drivers[0].allocatable.count: expected"));
  CHECK(snapshot.csi_nodes.empty());
}

TEST_CASE("decodes required anti-affinity terms whole", "[decode][anti-affinity]") {
  Snapshot snapshot = decode_clean(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "guard", "namespace": "web"},
    "spec": {"containers": [{"name": "c"}], "affinity": {"podAntiAffinity": {
      "requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "zone"},
        {"labelSelector": null, "namespaces": ["a", "b"], "namespaceSelector": {},
         "topologyKey": "kubernetes.io/hostname"}],
      "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": {"topologyKey": "zone"}}]}}}})");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  CHECK(pod.pod_affinity.required.empty());
  REQUIRE(pod.pod_anti_affinity.preferred.size() == 1);
  CHECK(pod.pod_anti_affinity.preferred[0].weight == 1);
  CHECK(pod.pod_anti_affinity.preferred[0].term.topology_key == "zone");
  CHECK_FALSE(pod.pod_anti_affinity.preferred[0].term.label_selector.has_value());
  REQUIRE(pod.pod_anti_affinity.required.size() == 2);
  const PodAffinityTerm& first = pod.pod_anti_affinity.required[0];
  REQUIRE(first.label_selector.has_value());
  CHECK(*first.label_selector->match_labels.find("app") == "web");
  CHECK(first.topology_key == "zone");
  CHECK_FALSE(first.namespace_selector.has_value());
  const PodAffinityTerm& second = pod.pod_anti_affinity.required[1];
  CHECK_FALSE(second.label_selector.has_value());
  CHECK(second.namespaces == std::vector<std::string>{"a", "b"});
  CHECK(second.namespace_selector.has_value());
  CHECK(second.topology_key == "kubernetes.io/hostname");
}

TEST_CASE("a container's limits become its missing requests, as the API server defaults them",
          "[decode][defaulting]") {
  Snapshot snapshot = decode_clean(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "hand-written"},
    "spec": {
      "initContainers": [{"name": "init", "resources": {"limits": {"cpu": "2"}}}],
      "containers": [
        {"name": "limits-only", "resources": {"limits": {"cpu": "500m", "memory": "1Gi",
                                                         "nvidia.com/gpu": "1"}}},
        {"name": "mixed", "resources": {"requests": {"cpu": "100m", "memory": "0"},
                                        "limits": {"cpu": "1", "memory": "2Gi"}}},
        {"name": "none"}]}})");
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  const Container& limits_only = pod.containers[0];
  CHECK(limits_only.requests.cpu_milli == 500);
  CHECK(limits_only.requests.memory == int64_t{1} << 30);
  CHECK(limits_only.requests.get("nvidia.com/gpu") == 1);
  const Container& mixed = pod.containers[1];
  CHECK(mixed.requests.cpu_milli == 100);  // a request present stays
  CHECK(mixed.requests.memory == 0);       // even an explicit 0
  CHECK(pod.containers[2].requests.zero());
  CHECK(pod.init_containers[0].requests.cpu_milli == 2000);
  ResourceList effective = effective_requests(pod);
  CHECK(effective.cpu_milli == 2000);  // the init container's defaulted request dominates
  CHECK(effective.get("nvidia.com/gpu") == 1);
}

TEST_CASE("the storage kinds decode alike from YAML, whole JSON and JSON in pieces",
          "[decode][volumes]") {
  std::ifstream file(LOADSHIFT_SOURCE_DIR "/test/data/placement-fidelity/volumes.yaml");
  std::stringstream yaml;
  yaml << file.rdbuf();
  Snapshot from_yaml;
  DecodeSummary summary = decode_yaml(yaml.str(), &from_yaml);
  REQUIRE(summary.ok());
  CHECK(from_yaml.persistent_volume_claims.size() == 6);
  CHECK(from_yaml.persistent_volumes.size() == 4);
  CHECK(from_yaml.csi_nodes.size() == 2);
  CHECK_THAT(SnapshotText::of(from_yaml),
             Catch::Contains("PersistentVolume /pv-local") &&
                 Catch::Contains("exprs=kubernetes.io/hostname In [n1,];") &&
                 Catch::Contains("PersistentVolumeClaim default/db-data") &&
                 Catch::Contains("volume=pv-local phase=Bound"));

  const std::string json = R"({"kind": "List", "apiVersion": "v1", "items": [
    {"kind": "PersistentVolumeClaim", "apiVersion": "v1",
     "metadata": {"name": "c", "namespace": "ns", "deletionTimestamp": "2026-11-22T04:00:00Z"},
     "spec": {"volumeName": "v"}, "status": {"phase": "Bound"}},
    {"kind": "PersistentVolume", "apiVersion": "v1", "metadata": {"name": "v",
     "labels": {"topology.kubernetes.io/zone": "a__b"}},
     "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
       {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}},
    {"kind": "CSINode", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "n1"},
     "spec": {"drivers": [{"name": "d", "allocatable": {"count": 3}}]}}]})";
  Snapshot whole = decode_clean(json);
  REQUIRE(whole.persistent_volume_claims.size() == 1);
  CHECK(whole.persistent_volume_claims[0].meta.deleting);
  for (size_t chunk : {1, 7, 64}) {
    Snapshot pieces;
    REQUIRE(decode_in_chunks(json, chunk, &pieces).ok());
    CHECK(SnapshotText::of(pieces) == SnapshotText::of(whole));
  }
  CHECK_THAT(SnapshotText::of(whole), Catch::Contains("PersistentVolume /v") &&
                                          Catch::Contains("fields=metadata.name In [n1,];") &&
                                          Catch::Contains("CSINode /n1") &&
                                          Catch::Contains(" d=3"));
}

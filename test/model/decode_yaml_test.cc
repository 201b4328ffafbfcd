// YAML goes through the JSON decoder: multi-document files, typed scalars, YAML errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "model/decode.h"
#include "snapshot_text.h"

using namespace loadshift::model;
using Catch::Contains;
using loadshift::testing::SnapshotText;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("the seed HyperNodes and their Volcano Job decode exactly", "[decode][yaml]") {
  std::string yaml = read_file(LOADSHIFT_SHARED_DIR "/seed-examples/04-hypernodes.yaml");
  Snapshot snapshot;
  DecodeSummary summary = decode_yaml(yaml, &snapshot);
  for (const DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  CHECK(summary.objects == 8);
  CHECK(SnapshotText::of(snapshot) ==
        "HyperNode /s0-s1-rack-1 uid= created= deleting=0 labels={} annotations={} tier=1 "
        "tierName= members=Node:te1::;Node:te2::;\n"
        "HyperNode /s0-s1-rack-2 uid= created= deleting=0 labels={} annotations={} tier=1 "
        "tierName= members=Node:te3::;Node:te4::;\n"
        "HyperNode /s0-s2-rack-3 uid= created= deleting=0 labels={} annotations={} tier=1 "
        "tierName= members=Node:te5::;Node:te6::;\n"
        "HyperNode /s0-s2-rack-4 uid= created= deleting=0 labels={} annotations={} tier=1 "
        "tierName= members=Node:te7::;Node:te8::;\n"
        "HyperNode /s0-s1 uid= created= deleting=0 labels={} annotations={} tier=2 tierName= "
        "members=HyperNode:s0-s1-rack-1::;HyperNode:s0-s1-rack-2::;\n"
        "HyperNode /s0-s2 uid= created= deleting=0 labels={} annotations={} tier=2 tierName= "
        "members=HyperNode:s0-s2-rack-3::;HyperNode:s0-s2-rack-4::;\n"
        "HyperNode /s0 uid= created= deleting=0 labels={} annotations={} tier=3 tierName= "
        "members=HyperNode:s0-s1::;HyperNode:s0-s2::;\n"
        "Job default/hello-volcano-job uid= created= deleting=0 labels={} annotations={} "
        "minAvailable=6 topology=hard/2/ policies= taskPolicies= scheduler=volcano "
        "queue=default\n");
}

TEST_CASE("YAML scalars are typed as kubectl types them", "[decode][yaml]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_yaml(R"(
apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  labels: {version: "1.0", enabled: "true", zone: cn-north-1a}
spec:
  priority: 100
  containers:
    - name: a
      resources:
        requests: {cpu: 1, memory: 1Gi, ephemeral-storage: 1e3}
        limits: {cpu: "1", memory: 0.5}
      ports: [{containerPort: 80, hostPort: 0x50}]
  tolerations:
    - {key: gpu, operator: Exists, tolerationSeconds: 60}
  nodeSelector: {"disk": 'ssd'}
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: +10
          preference:
            matchExpressions: [{key: cores, operator: Gt, values: ["8"]}]
)",
                                      &snapshot);
  for (const DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  REQUIRE(snapshot.pods.size() == 1);
  const Pod& pod = snapshot.pods[0];
  CHECK(*pod.meta.labels.find("version") == "1.0");
  CHECK(*pod.meta.labels.find("enabled") == "true");
  CHECK(*pod.meta.labels.find("zone") == "cn-north-1a");
  CHECK(pod.priority == 100);
  CHECK(pod.containers[0].requests.cpu_milli == 1000);
  CHECK(pod.containers[0].requests.memory == int64_t{1} << 30);
  CHECK(pod.containers[0].requests.ephemeral_storage == 1000);
  CHECK(pod.containers[0].limits.cpu_milli == 1000);
  CHECK(pod.containers[0].limits.memory == 1);
  CHECK(pod.host_ports == std::vector<int32_t>{80});
  CHECK(pod.tolerations[0].toleration_seconds == 60);
  CHECK(*pod.node_selector.find("disk") == "ssd");
  CHECK(pod.node_affinity->preferred[0].weight == 10);
  CHECK(pod.node_affinity->preferred[0].preference.match_expressions[0].values ==
        std::vector<std::string>{"8"});
}

TEST_CASE("an unquoted boolean label value in YAML is an error", "[decode][yaml]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_yaml(R"(apiVersion: v1
kind: Node
metadata:
  name: te1
  labels:
    gpu: true
---
apiVersion: v1
kind: Node
metadata:
  name: te2
  labels:
    gpu: "true"
    legacy: yes
)",
                                      &snapshot);
  REQUIRE(summary.errors.size() == 2);
  CHECK(summary.errors[0].object == "Node te1");
  CHECK(summary.errors[0].path == "metadata.labels.gpu");
  CHECK(summary.errors[0].message == "expected a string, found the boolean true");
  CHECK(summary.errors[1].object == "Node te2");
  CHECK(summary.errors[1].path == "metadata.labels.legacy");
  CHECK(snapshot.nodes.empty());
}

TEST_CASE("YAML lists, empty documents, anchors and aliases", "[decode][yaml]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_yaml(R"(---
# nothing here
---
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata: {name: a, labels: &common {rack: r1, zone: z}}
  - apiVersion: v1
    kind: Node
    metadata: {name: b, labels: *common}
  - apiVersion: v1
    kind: Secret
    metadata: {name: s}
---
)",
                                      &snapshot);
  for (const DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  CHECK(summary.objects == 2);
  CHECK(summary.skipped == std::map<std::string, size_t>{{"Secret", 1}});
  REQUIRE(snapshot.nodes.size() == 2);
  CHECK(snapshot.nodes[1].meta.labels.items() == snapshot.nodes[0].meta.labels.items());
  CHECK(*snapshot.nodes[1].meta.labels.find("rack") == "r1");
}

TEST_CASE("YAML errors give the document, line and column", "[decode][yaml]") {
  Snapshot snapshot;
  DecodeSummary summary = decode_yaml(R"(apiVersion: v1
kind: Node
metadata: {name: first}
---
apiVersion: v1
kind: Node
metadata: {name: [unclosed
)",
                                      &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].object == "document 2");
  CHECK_THAT(summary.errors[0].message, Contains("YAML error at line 8, column 1: "));
  REQUIRE(snapshot.nodes.size() == 1);  // the document before the error is kept
  CHECK(snapshot.nodes[0].meta.name == "first");

  // yaml-cpp 0.7 would report a stray top-level ',' as endless empty documents.
  Snapshot stray;
  DecodeSummary stray_comma = decode_yaml("{kind: Node, metadata: {name: a}}\n,\n", &stray);
  REQUIRE(stray_comma.errors.size() == 1);
  CHECK(stray_comma.errors[0].message ==
        "YAML error at line 2, column 1: unexpected ',' where a document should start");
  CHECK(stray.nodes.size() == 1);

  Snapshot other;
  DecodeSummary complex_key = decode_yaml("kind: Node\n? [a, b]\n: c\n", &other);
  REQUIRE(complex_key.errors.size() == 1);
  CHECK_THAT(complex_key.errors[0].message,
             Contains("line 2, column 3: a mapping key must be a scalar"));
}

TEST_CASE("errors in a YAML document name the document when the object has no name",
          "[decode][yaml]") {
  Snapshot snapshot;
  DecodeSummary summary =
      decode_yaml("kind: Node\nmetadata: {name: a}\n---\nkind: Node\n", &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].object == "document 2 (line 3)");  // where its "---" is
  CHECK(summary.errors[0].path == "metadata.name");
  CHECK(snapshot.nodes.size() == 1);
}

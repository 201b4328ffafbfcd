// A small cluster and a hand-built Plan over it, for the report writers' tests: they check the
// rendering of a known Plan without depending on what the strategies decide.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "model/decode.h"
#include "placement/cluster_index.h"
#include "strategies/plan.h"

namespace loadshift::testing {

inline const char* kReportCluster = R"(
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {maip.mxsf.io/node.usage: training}}
status:
  addresses: [{type: InternalIP, address: 10.0.0.1}]
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n2, labels: {maip.mxsf.io/node.usage: inference}}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata: {name: n3}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: load-test}
spec: {nodeName: n1, containers: [{name: main, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: job-0, namespace: default}
spec: {nodeName: n1, containers: [{name: main, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: job-1, namespace: default}
spec: {nodeName: n2, containers: [{name: main, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bare, namespace: load-test}
spec: {nodeName: n1, containers: [{name: main, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: tainted, namespace: apps}
spec: {nodeName: n3, containers: [{name: main, image: nginx}]}
)";

// Pods: 0 web-1 (n1), 1 job-0 (n1), 2 job-1 (n2), 3 bare (n1), 4 tainted (n3).
struct ReportFixture {
  model::Snapshot snapshot;
  std::unique_ptr<placement::ClusterIndex> index;
  strategies::Plan plan;

  ReportFixture() {
    model::DecodeSummary summary = model::decode_yaml(kReportCluster, &snapshot);
    for (const auto& e : summary.errors) FAIL_CHECK(e.to_string());
    REQUIRE(summary.ok());
    REQUIRE(snapshot.nodes.size() == 3);
    REQUIRE(snapshot.pods.size() == 5);
    index = std::make_unique<placement::ClusterIndex>(snapshot);

    using strategies::NodeClass;
    strategies::NodeState n1;
    n1.node = 0;
    n1.pool = "training";
    n1.node_class = NodeClass::kOverutilized;
    n1.cpu = 92;
    n1.cpu_after = 61;
    n1.memory = 70;
    n1.memory_after = 65.004;
    n1.thresholds = {{"cpu", 30}, {"memory", 30}};
    n1.target_thresholds = {{"cpu", 80}, {"memory", 85}};
    strategies::NodeState n2;
    n2.node = 1;
    n2.pool = "inference";
    n2.node_class = NodeClass::kUnderutilized;
    n2.cpu = 20;
    n2.cpu_after = 31;
    n2.memory = 25;
    n2.memory_after = 25;
    n2.thresholds = n1.thresholds;
    n2.target_thresholds = n1.target_thresholds;
    strategies::NodeState n3;
    n3.node = 2;
    n3.node_class = NodeClass::kUnknown;
    n3.why = "unknown: not in usage.json";
    plan.nodes = {n1, n2, n3};

    plan.evictions.push_back({0, 0, 1, "p", "LoadAware",
                              "n1 cpu 92.0% > 80%: evict load-test/web-1 (est. 3.5 cpu) -> n2 "
                              "(cpu 20% -> 31%)"});
    plan.evictions.push_back({4, 2, placement::kNoNode, "p", "RemovePodsViolatingNodeTaints",
                              "n3 has taint a=b:NoSchedule | not tolerated"});
    plan.skipped.push_back({1, 0, "LoadAware", strategies::SkipCode::kNamespaceExcluded,
                            "namespace excluded: default is in "
                            "evictableNamespaces.exclude"});
    plan.skipped.push_back({3, 0, "LoadAware", strategies::SkipCode::kNotEvictable,
                            "ownerless pod: no ownerReferences"});
    plan.skipped.push_back({2, 1, "LoadAware", strategies::SkipCode::kNamespaceExcluded,
                            "namespace excluded: default is in "
                            "evictableNamespaces.exclude"});
    plan.notes.push_back("LoadAware: n1 is still over its targetThresholds after the plan");
  }
};

}  // namespace loadshift::testing

// Small builders for tests: nodes and pods in a few lines.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include "model/model.h"

namespace loadshift::testing {

using namespace loadshift::model;

inline Node make_node(const std::string& name, int64_t cpu_milli = 32000,
                      int64_t memory = int64_t{128} << 30, int64_t pods = 110) {
  Node node;
  node.meta.name = name;
  node.meta.labels.set("kubernetes.io/hostname", name);
  node.allocatable.cpu_milli = cpu_milli;
  node.allocatable.memory = memory;
  node.allocatable.pods = pods;
  node.capacity = node.allocatable;
  node.conditions.push_back({"Ready", "True", "KubeletReady"});
  return node;
}

inline Node pool_node(const std::string& name, const std::string& pool,
                      const std::string& gpu_product = "") {
  Node node = make_node(name);
  node.meta.labels.set("maip.mxsf.io/node.usage", pool);
  node.taints.push_back({"maip.mxsf.io/node.usage", pool, TaintEffect::kNoSchedule});
  if (!gpu_product.empty()) {
    node.meta.labels.set("nvidia.com/gpu.product", gpu_product);
    node.taints.push_back({"nvidia.com/gpu.product", gpu_product, TaintEffect::kNoSchedule});
    node.allocatable.set("nvidia.com/gpu", 8);
    node.capacity.set("nvidia.com/gpu", 8);
  }
  return node;
}

inline Pod make_pod(const std::string& name, int64_t cpu_milli = 100,
                    int64_t memory = int64_t{256} << 20, const std::string& node = "") {
  Pod pod;
  pod.meta.namespace_ = "default";
  pod.meta.name = name;
  pod.meta.uid = "uid-" + name;
  pod.node_name = node;
  pod.phase = node.empty() ? PodPhase::kPending : PodPhase::kRunning;
  Container c;
  c.name = "main";
  c.requests.cpu_milli = cpu_milli;
  c.requests.memory = memory;
  pod.containers.edit().push_back(c);
  return pod;
}

// A controller owner reference of `kind` (ReplicaSet unless said), as a controller sets it.
inline OwnerReference controller_owner(const std::string& name,
                                       const std::string& kind = "ReplicaSet") {
  return OwnerReference{"apps/v1", kind, name, name + "-uid", true};
}

inline Toleration tolerate(const std::string& key, const std::string& value,
                           std::optional<TaintEffect> effect = TaintEffect::kNoSchedule) {
  return Toleration{key, TolerationOperator::kEqual, value, effect, std::nullopt};
}

inline NodeSelectorRequirement req(const std::string& key, SelectorOperator op,
                                   std::vector<std::string> values = {}) {
  return NodeSelectorRequirement{key, op, std::move(values)};
}

// The seed's pool rules (02-training-job.yaml / 03-inference-deployment.yaml): required
// pool In [own, hybrid], preferred own pool with weight 100, tolerations for both pools and H20.
inline void seed_pool_rules(Pod& pod, const std::string& own) {
  NodeSelectorTerm required;
  required.match_expressions.push_back(
      req("maip.mxsf.io/node.usage", SelectorOperator::kIn, {own, "hybrid"}));
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{required};
  PreferredSchedulingTerm preferred;
  preferred.weight = 100;
  preferred.preference.match_expressions.push_back(
      req("maip.mxsf.io/node.usage", SelectorOperator::kIn, {own}));
  pod.node_affinity.edit().preferred.push_back(preferred);
  pod.tolerations.edit().push_back(tolerate("maip.mxsf.io/node.usage", own));
  pod.tolerations.edit().push_back(tolerate("maip.mxsf.io/node.usage", "hybrid"));
  pod.tolerations.edit().push_back(tolerate("nvidia.com/gpu.product", "NVIDIA-H20"));
}

}  // namespace loadshift::testing

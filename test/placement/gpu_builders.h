// GPU test builders: HAMi, native and Volcano/MetaX GPU nodes, GPU pods, and a fixture that indexes
// them (used by gpu_inventory_test.cc and gpu_fit_test.cc).
#pragma once

#include <string>
#include <vector>

#include "placement/gpu.h"
#include "placement/gpu_annotations.h"
#include "test/model/builders.h"

namespace loadshift::testing {

using namespace loadshift::placement;

inline std::string hami_device_json(const std::string& uuid, int index, int64_t mem, int numa,
                             bool healthy = true, const std::string& type = "NVIDIA-H20") {
  std::string json = "{\"id\":\"" + uuid + "\",\"index\":" + std::to_string(index) +
                     ",\"count\":10,\"devmem\":" + std::to_string(mem) +
                     ",\"devcore\":100,\"type\":\"" + type + "\",\"numa\":" + std::to_string(numa) +
                     ",\"mode\":\"hami-core\"";
  if (healthy) json += ",\"health\":true";
  return json + "}";
}

// A HAMi node with two healthy 24 GiB devices GPU-<name>-0 / -1 on NUMA 0 / 1.
inline Node hami_node(const std::string& name, const std::string& product = "NVIDIA-H20") {
  Node node = make_node(name);
  node.meta.labels.set("nvidia.com/gpu.product", product);
  node.meta.annotations.set("hami.io/node-nvidia-register",
                            "[" + hami_device_json("GPU-" + name + "-0", 0, 24576, 0) + "," +
                                hami_device_json("GPU-" + name + "-1", 1, 24576, 1) + "]");
  node.allocatable.set("nvidia.com/gpu", 20);
  node.capacity.set("nvidia.com/gpu", 20);
  return node;
}

inline Node native_node(const std::string& name, const std::string& product, int64_t gpus = 8) {
  Node node = make_node(name);
  node.meta.labels.set("nvidia.com/gpu.product", product);
  node.allocatable.set("nvidia.com/gpu", gpus);
  node.capacity.set("nvidia.com/gpu", gpus);
  return node;
}

inline Pod gpu_pod(const std::string& name, const std::string& node, int64_t gpus = 1) {
  Pod pod = make_pod(name, 100, int64_t{256} << 20, node);
  pod.containers.edit()[0].requests.set("nvidia.com/gpu", gpus);
  pod.containers.edit()[0].limits.set("nvidia.com/gpu", gpus);
  return pod;
}

// A settled HAMi pod on `node` using `mem` MiB and `cores` % of `device`.
inline Pod hami_pod(const std::string& name, const std::string& node, int64_t mem, int64_t cores,
             const std::string& device) {
  Pod pod = gpu_pod(name, node);
  pod.containers.edit()[0].limits.set("nvidia.com/gpumem", mem);
  pod.containers.edit()[0].limits.set("nvidia.com/gpucores", cores);
  pod.scheduler_name = "hami-scheduler";
  pod.meta.annotations.set("hami.io/vgpu-node", node);
  pod.meta.annotations.set("hami.io/bind-phase", "success");
  pod.meta.annotations.set(
      "hami.io/vgpu-devices-allocated",
      device + ",NVIDIA," + std::to_string(mem) + "," + std::to_string(cores) + ":;");
  return pod;
}

inline void own_by(Pod& pod, const std::string& owner_uid) {
  pod.owners.edit().push_back(
      OwnerReference{"batch.volcano.sh/v1alpha1", "Job", "job", owner_uid, true});
}

struct GpuFixture {
  Snapshot snapshot;
  GpuOptions options;

  NodeId node(const std::string& name) const {
    for (NodeId id = 0; id < snapshot.nodes.size(); ++id) {
      if (snapshot.nodes[id].meta.name == name) return id;
    }
    FAIL("no node " << name);
    return kNoNode;
  }
  PodId pod(const std::string& name) const {
    for (PodId id = 0; id < snapshot.pods.size(); ++id) {
      if (snapshot.pods[id].meta.name == name) return id;
    }
    FAIL("no pod " << name);
    return 0;
  }
  GpuIndex index() const { return GpuIndex(snapshot, options); }

  // check_gpu's reasons for `pod` on `target` ("" when it fits).
  std::string check(const GpuIndex& gpus, const std::string& pod, const std::string& target,
                    const Ledger* ledger = nullptr) const {
    Ledger empty(snapshot.nodes.size());
    const Ledger& l = ledger ? *ledger : empty;
    Reasons reasons;
    bool fits = check_gpu(snapshot, gpus, this->pod(pod), node(target), l, &reasons);
    bool fast = check_gpu(snapshot, gpus, this->pod(pod), node(target), l, nullptr);
    CHECK(fits == fast);
    CHECK(fits == reasons.empty());
    std::string text;
    for (const Rejection& r : reasons) {
      CHECK(r.rule == Rule::kGpu);
      text += (text.empty() ? "" : "; ") + r.reason;
    }
    return text;
  }
};


}  // namespace loadshift::testing

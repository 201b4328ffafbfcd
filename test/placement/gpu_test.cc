// GPU topology (placement/gpu.h): node views, register formats, pod demands, check_gpu and the
// GPU reasons a pod must never move.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "builders.h"
#include "placement/gpu.h"
#include "placement/gpu_annotations.h"

using namespace loadshift::testing;

namespace {

std::string hami_device_json(const std::string& uuid, int index, int64_t mem, int numa,
                             bool healthy = true, const std::string& type = "NVIDIA-H20") {
  std::string json = "{\"id\":\"" + uuid + "\",\"index\":" + std::to_string(index) +
                     ",\"count\":10,\"devmem\":" + std::to_string(mem) +
                     ",\"devcore\":100,\"type\":\"" + type + "\",\"numa\":" + std::to_string(numa) +
                     ",\"mode\":\"hami-core\"";
  if (healthy) json += ",\"health\":true";
  return json + "}";
}

// A HAMi node with two healthy 24 GiB devices GPU-<name>-0 / -1 on NUMA 0 / 1.
Node hami_node(const std::string& name, const std::string& product = "NVIDIA-H20") {
  Node node = make_node(name);
  node.meta.labels.set("nvidia.com/gpu.product", product);
  node.meta.annotations.set("hami.io/node-nvidia-register",
                            "[" + hami_device_json("GPU-" + name + "-0", 0, 24576, 0) + "," +
                                hami_device_json("GPU-" + name + "-1", 1, 24576, 1) + "]");
  node.allocatable.set("nvidia.com/gpu", 20);
  node.capacity.set("nvidia.com/gpu", 20);
  return node;
}

Node native_node(const std::string& name, const std::string& product, int64_t gpus = 8) {
  Node node = make_node(name);
  node.meta.labels.set("nvidia.com/gpu.product", product);
  node.allocatable.set("nvidia.com/gpu", gpus);
  node.capacity.set("nvidia.com/gpu", gpus);
  return node;
}

Pod gpu_pod(const std::string& name, const std::string& node, int64_t gpus = 1) {
  Pod pod = make_pod(name, 100, int64_t{256} << 20, node);
  pod.containers[0].requests.set("nvidia.com/gpu", gpus);
  pod.containers[0].limits.set("nvidia.com/gpu", gpus);
  return pod;
}

// A settled HAMi pod on `node` using `mem` MiB and `cores` % of `device`.
Pod hami_pod(const std::string& name, const std::string& node, int64_t mem, int64_t cores,
             const std::string& device) {
  Pod pod = gpu_pod(name, node);
  pod.containers[0].limits.set("nvidia.com/gpumem", mem);
  pod.containers[0].limits.set("nvidia.com/gpucores", cores);
  pod.scheduler_name = "hami-scheduler";
  pod.meta.annotations.set("hami.io/vgpu-node", node);
  pod.meta.annotations.set("hami.io/bind-phase", "success");
  pod.meta.annotations.set(
      "hami.io/vgpu-devices-allocated",
      device + ",NVIDIA," + std::to_string(mem) + "," + std::to_string(cores) + ":;");
  return pod;
}

void own_by(Pod& pod, const std::string& owner_uid) {
  pod.owners.push_back(OwnerReference{"batch.volcano.sh/v1alpha1", "Job", "job", owner_uid, true});
}

struct Fixture {
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

}  // namespace

TEST_CASE("stack detection for each GPU stack", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(make_node("cpu"));
  f.snapshot.nodes.push_back(native_node("native", "NVIDIA-H20"));
  f.snapshot.nodes.push_back(hami_node("hami"));
  Node handshake = make_node("hami-no-register");
  handshake.meta.annotations.set("hami.io/node-handshake", "Requesting_2025-01-01 00:00:00");
  handshake.allocatable.set("nvidia.com/gpu", 80);
  f.snapshot.nodes.push_back(handshake);
  Node sgpu = make_node("metax-sgpu");
  sgpu.meta.annotations.set("metax-tech.com/node-gpu-devices",
                            R"([{"uuid":"m-0","totalDevCount":16,"totalCompute":100,)"
                            R"("totalVRam":65536,"healthy":true}])");
  f.snapshot.nodes.push_back(sgpu);
  Node metax = make_node("metax");
  metax.allocatable.set("metax-tech.com/gpu", 8);
  f.snapshot.nodes.push_back(metax);
  Node vgpu = make_node("volcano-vgpu");
  vgpu.meta.annotations.set("volcano.sh/node-vgpu-register",
                            "GPU-v0,10,24576,NVIDIA-L4,true,hami-core:");
  vgpu.allocatable.set("volcano.sh/vgpu-number", 10);
  f.snapshot.nodes.push_back(vgpu);
  Node share = make_node("gpushare");
  share.capacity.set("volcano.sh/gpu-memory", 4 * 16384);
  share.capacity.set("volcano.sh/gpu-number", 4);
  f.snapshot.nodes.push_back(share);
  Node mig = make_node("mig-mixed");
  mig.allocatable.set("nvidia.com/mig-1g.5gb", 7);
  f.snapshot.nodes.push_back(mig);

  GpuIndex gpus = f.index();
  CHECK(gpus.node(f.node("cpu")).stack == GpuStack::kNone);
  CHECK(gpus.node(f.node("native")).stack == GpuStack::kNativeNvidia);
  CHECK(gpus.node(f.node("hami")).stack == GpuStack::kHamiNvidia);
  CHECK(gpus.node(f.node("hami")).register_ok);
  const NodeGpuView& missing = gpus.node(f.node("hami-no-register"));
  CHECK(missing.stack == GpuStack::kHamiNvidia);
  CHECK_FALSE(missing.register_ok);
  CHECK(missing.register_error == "annotation hami.io/node-nvidia-register is missing");
  CHECK(gpus.node(f.node("metax-sgpu")).stack == GpuStack::kHamiMetaxSgpu);
  CHECK(gpus.node(f.node("metax")).stack == GpuStack::kMetaxGpu);
  CHECK(gpus.node(f.node("volcano-vgpu")).stack == GpuStack::kVolcanoVgpu);
  const NodeGpuView& share_view = gpus.node(f.node("gpushare"));
  CHECK(share_view.stack == GpuStack::kVolcanoGpuShare);
  REQUIRE(share_view.devices.size() == 4);
  CHECK(share_view.devices[3].mem_mib == 16384);
  CHECK(gpus.node(f.node("mig-mixed")).stack == GpuStack::kNativeNvidia);
  CHECK(to_string(GpuStack::kHamiMetaxSgpu) == "hami-metax-sgpu");
}

TEST_CASE("HAMi register in JSON: absent health is unhealthy, absent numa/index are 0", "[gpu]") {
  RegisterDecode d = decode_hami_register(
      R"( [{"id":"GPU-a","index":2,"count":10,"devmem":97871,"devcore":100,"type":"NVIDIA H20",)"
      R"("numa":1,"mode":"hami-core","health":true},)"
      R"({"id":"GPU-b","count":5,"devmem":1000,"devcore":100,"type":"NVIDIA H20"}] )");
  REQUIRE(d.ok());
  REQUIRE(d.devices.size() == 2);
  CHECK(d.devices[0].uuid == "GPU-a");
  CHECK(d.devices[0].index == 2);
  CHECK(d.devices[0].numa == 1);
  CHECK(d.devices[0].slots == 10);
  CHECK(d.devices[0].mem_mib == 97871);
  CHECK(d.devices[0].cores == 100);
  CHECK(d.devices[0].mode == "hami-core");
  CHECK(d.devices[0].healthy);
  CHECK(d.devices[1].index == 0);
  CHECK(d.devices[1].numa == 0);
  CHECK_FALSE(d.devices[1].healthy);

  CHECK(decode_hami_register(R"([{"id":"GPU-a","count":"ten"}])").error ==
        "device 0: field \"count\" is not an integer");
  CHECK(decode_hami_register(R"([{"count":1}])").error == "device 0: field \"id\" is missing");
  CHECK(decode_hami_register(R"({"id":"GPU-a"})").error == "expected a JSON array of devices");
  CHECK(decode_hami_register("[{").error.starts_with("not valid JSON: parse error"));
}

TEST_CASE("HAMi register in the legacy colon format, 7 and 9 fields", "[gpu]") {
  RegisterDecode d = decode_hami_register(
      "GPU-a,10,24576,100,NVIDIA-L4,0,true:GPU-b,10,24576,100,NVIDIA-L4,1,false,5,mig:");
  REQUIRE(d.ok());
  REQUIRE(d.devices.size() == 2);
  CHECK(d.devices[0].uuid == "GPU-a");
  CHECK(d.devices[0].index == 0);
  CHECK(d.devices[0].mode.empty());
  CHECK(d.devices[0].healthy);
  CHECK(d.devices[1].index == 5);
  CHECK(d.devices[1].numa == 1);
  CHECK(d.devices[1].mode == "mig");
  CHECK_FALSE(d.devices[1].healthy);
  CHECK(decode_hami_register("GPU-a,10,24576,100,NVIDIA-L4:").error ==
        "device 0: expected 7 or 9 comma-separated fields, found 5");
  CHECK(decode_hami_register("GPU-a,10,24576,100,NVIDIA-L4,0,maybe:").error ==
        "device 0: bad health field");
}

TEST_CASE("Volcano vGPU and MetaX sGPU registers", "[gpu]") {
  RegisterDecode v = decode_volcano_register(
      "GPU-v0,10,24576,NVIDIA-L4,true,hami-core:GPU-v1,8,16384,NVIDIA-T4,False,mig:");
  REQUIRE(v.ok());
  REQUIRE(v.devices.size() == 2);
  CHECK(v.devices[0].slots == 10);
  CHECK(v.devices[0].mem_mib == 24576);
  CHECK(v.devices[0].cores == 100);
  CHECK(v.devices[0].type == "NVIDIA-L4");
  CHECK(v.devices[0].healthy);
  CHECK(v.devices[1].mode == "mig");
  CHECK(v.devices[1].index == 1);
  CHECK_FALSE(v.devices[1].healthy);
  CHECK(decode_volcano_register("GPU-v0,10,24576,NVIDIA-L4:").error ==
        "device 0: expected 6 comma-separated fields, found 4");

  RegisterDecode m = decode_metax_sgpu_register(
      R"([{"uuid":"m-0","model":"MXC500","totalDevCount":16,"totalCompute":100,)"
      R"("totalVRam":65536,"availableDevCount":10,"numa":1,"healthy":true,)"
      R"("qosPolicy":"fixed-share","linkZone":2},{"uuid":"m-1","linkZone":-1}])");
  REQUIRE(m.ok());
  REQUIRE(m.devices.size() == 2);
  CHECK(m.devices[0].slots == 16);
  CHECK(m.devices[0].mem_mib == 65536);
  CHECK(m.devices[0].qos == "fixed-share");
  CHECK(m.devices[0].link_zone == 2);
  CHECK(m.devices[0].healthy);
  CHECK(m.devices[1].link_zone == -1);
  CHECK_FALSE(m.devices[1].healthy);
}

TEST_CASE("device usage comes from the pods' allocation annotations", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("h1"));
  f.snapshot.nodes.push_back(hami_node("h2"));
  f.snapshot.nodes[0].meta.annotations.set("hami.io/device-cordon", "GPU-h1-1");
  f.snapshot.pods.push_back(hami_pod("a", "h1", 4000, 30, "GPU-h1-0"));
  f.snapshot.pods.push_back(hami_pod("b", "h1", 2000, 20, "GPU-h1-0"));
  Pod done = hami_pod("done", "h1", 9000, 50, "GPU-h1-0");
  done.phase = PodPhase::kSucceeded;
  f.snapshot.pods.push_back(done);
  // Mid-bind: no spec.nodeName yet, but HAMi already named the node.
  Pod binding = hami_pod("binding", "h2", 1000, 10, "GPU-h2-1");
  binding.node_name.clear();
  binding.meta.annotations.set("hami.io/bind-phase", "allocating");
  f.snapshot.pods.push_back(binding);
  // Two containers, one device each (the second entry of the pod is an init container's).
  Pod two = hami_pod("two", "h2", 0, 0, "GPU-h2-0");
  two.meta.annotations.set("hami.io/vgpu-devices-allocated",
                           "GPU-h2-0,NVIDIA,3000,0:;GPU-h2-0,NVIDIA,5000,0:;");
  f.snapshot.pods.push_back(two);

  GpuIndex gpus = f.index();
  const NodeGpuView& h1 = gpus.node(f.node("h1"));
  CHECK(h1.devices[0].used_slots == 2);
  CHECK(h1.devices[0].used_mem_mib == 6000);
  CHECK(h1.devices[0].used_cores == 50);
  CHECK_FALSE(h1.devices[0].cordoned);
  CHECK(h1.devices[1].cordoned);
  const NodeGpuView& h2 = gpus.node(f.node("h2"));
  CHECK(h2.devices[1].used_slots == 1);
  CHECK(h2.devices[1].used_mem_mib == 1000);
  CHECK(h2.devices[0].used_slots == 2);
  CHECK(h2.devices[0].used_mem_mib == 8000);

  AllocationDecode bad = decode_device_allocations("GPU-a,NVIDIA,lots,0:;");
  CHECK(bad.error ==
        "container 0: bad device entry \"GPU-a,NVIDIA,lots,0\" (expected UUID,TYPE,MEM,CORES)");
}

TEST_CASE("an unreadable allocation annotation makes the node's inventory unusable", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  f.snapshot.nodes.push_back(hami_node("dst"));
  f.snapshot.pods.push_back(hami_pod("mover", "src", 1000, 10, "GPU-src-0"));
  Pod broken = hami_pod("broken", "dst", 1000, 10, "GPU-dst-0");
  broken.meta.annotations.set("hami.io/vgpu-devices-allocated", "GPU-dst-0,NVIDIA:");
  f.snapshot.pods.push_back(broken);
  GpuIndex gpus = f.index();
  CHECK_FALSE(gpus.node(f.node("dst")).register_ok);
  CHECK(f.check(gpus, "mover", "dst") ==
        "node's GPU inventory is unusable: annotation hami.io/vgpu-devices-allocated of pod "
        "default/broken: container 0: bad device entry \"GPU-dst-0,NVIDIA\" (expected "
        "UUID,TYPE,MEM,CORES)");
}

TEST_CASE("pod GPU demand is classified per kind", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(native_node("h20", "NVIDIA-H20"));
  Node sliced = native_node("sliced", "NVIDIA-A10-SHARED", 40);
  sliced.meta.labels.set("nvidia.com/gpu.replicas", "10");
  sliced.meta.labels.set("nvidia.com/gpu.sharing-strategy", "time-slicing");
  f.snapshot.nodes.push_back(sliced);
  f.snapshot.nodes.push_back(native_node("mig-single", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 14));
  f.snapshot.nodes.push_back(hami_node("hami"));

  f.snapshot.pods.push_back(make_pod("cpu-only", 100, 1 << 20, "h20"));
  f.snapshot.pods.push_back(gpu_pod("whole", "h20", 2));
  f.snapshot.pods.push_back(gpu_pod("replica", "sliced"));
  Pod shared = make_pod("shared", 100, 1 << 20, "h20");
  shared.containers[0].requests.set("nvidia.com/gpu.shared", 1);
  f.snapshot.pods.push_back(shared);
  Pod mig = make_pod("mig", 100, 1 << 20, "h20");
  mig.containers[0].requests.set("nvidia.com/mig-1g.5gb", 1);
  f.snapshot.pods.push_back(mig);
  f.snapshot.pods.push_back(gpu_pod("mig-single", "mig-single"));
  f.snapshot.pods.push_back(gpu_pod("hami-plain", "hami"));
  Pod percent = gpu_pod("hami-percent", "hami");
  percent.containers[0].limits.set("nvidia.com/gpumem-percentage", 50);
  f.snapshot.pods.push_back(percent);
  Pod sgpu = make_pod("sgpu", 100, 1 << 20, "");
  sgpu.containers[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu.containers[0].limits.set("metax-tech.com/vmemory", 4);
  f.snapshot.pods.push_back(sgpu);
  Pod vgpu = make_pod("vgpu", 100, 1 << 20, "");
  vgpu.containers[0].limits.set("volcano.sh/vgpu-number", 2);
  vgpu.containers[0].limits.set("volcano.sh/vgpu-memory", 3000);
  vgpu.containers[0].limits.set("volcano.sh/vgpu-cores", 20);
  f.snapshot.pods.push_back(vgpu);
  Pod share = make_pod("gpushare", 100, 1 << 20, "");
  share.containers[0].requests.set("volcano.sh/gpu-memory", 1024);
  f.snapshot.pods.push_back(share);
  Pod metax = make_pod("metax", 100, 1 << 20, "");
  metax.containers[0].requests.set("metax-tech.com/gpu", 8);
  f.snapshot.pods.push_back(metax);
  Pod dra = make_pod("dra", 100, 1 << 20, "h20");
  dra.has_resource_claims = true;
  f.snapshot.pods.push_back(dra);

  GpuIndex gpus = f.index();
  auto kind = [&](const std::string& name) { return gpus.pod(f.pod(name)).kind; };
  CHECK(kind("cpu-only") == GpuDemandKind::kNone);
  CHECK(kind("whole") == GpuDemandKind::kWhole);
  CHECK(gpus.pod(f.pod("whole")).needs_stack == GpuStack::kNativeNvidia);
  CHECK(gpus.pod(f.pod("whole")).amount("nvidia.com/gpu") == 2);
  CHECK(kind("replica") == GpuDemandKind::kReplica);
  CHECK(kind("shared") == GpuDemandKind::kReplica);
  CHECK(kind("mig") == GpuDemandKind::kMig);
  CHECK(kind("mig-single") == GpuDemandKind::kMig);
  CHECK(kind("hami-plain") == GpuDemandKind::kHamiVgpu);
  CHECK(kind("sgpu") == GpuDemandKind::kMetaxSgpu);
  CHECK(kind("vgpu") == GpuDemandKind::kVolcanoVgpu);
  CHECK(kind("gpushare") == GpuDemandKind::kGpuShare);
  CHECK(kind("metax") == GpuDemandKind::kWhole);
  CHECK(gpus.pod(f.pod("metax")).needs_stack == GpuStack::kMetaxGpu);
  CHECK(kind("dra") == GpuDemandKind::kDra);

  // HAMi: a plain nvidia.com/gpu: 1 is a whole-memory, exclusive (100% cores) card.
  const auto& plain = gpus.pod(f.pod("hami-plain")).slices;
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].container == "main");
  CHECK(plain[0].count == 1);
  CHECK(plain[0].mem_mib == 0);
  CHECK(plain[0].mem_percent == 100);
  CHECK(plain[0].cores == 100);
  const auto& half = gpus.pod(f.pod("hami-percent")).slices;
  REQUIRE(half.size() == 1);
  CHECK(half[0].mem_percent == 50);
  CHECK(half[0].cores == 0);
  // MetaX: vmemory without a unit is GiB; vcore defaults to 100.
  const auto& s = gpus.pod(f.pod("sgpu")).slices;
  REQUIRE(s.size() == 1);
  CHECK(s[0].mem_mib == 4096);
  CHECK(s[0].cores == 100);
  const auto& v = gpus.pod(f.pod("vgpu")).slices;
  REQUIRE(v.size() == 1);
  CHECK(v[0].count == 2);
  CHECK(v[0].mem_mib == 3000);
  CHECK(v[0].cores == 20);
}

TEST_CASE("ignored_by_scheduler skips only extender-managed resources", "[gpu]") {
  for (GpuStack stack : {GpuStack::kNone, GpuStack::kNativeNvidia, GpuStack::kHamiNvidia,
                         GpuStack::kMetaxGpu, GpuStack::kVolcanoVgpu}) {
    CHECK(ignored_by_scheduler("nvidia.com/gpumem", stack));
    CHECK(ignored_by_scheduler("nvidia.com/gpumem-percentage", stack));
    CHECK(ignored_by_scheduler("nvidia.com/gpucores", stack));
    CHECK(ignored_by_scheduler("nvidia.com/priority", stack));
    CHECK(ignored_by_scheduler("metax-tech.com/sgpu", stack));
    CHECK(ignored_by_scheduler("metax-tech.com/vcore", stack));
    CHECK(ignored_by_scheduler("metax-tech.com/vmemory", stack));
    CHECK_FALSE(ignored_by_scheduler("metax-tech.com/gpu", stack));
    CHECK_FALSE(ignored_by_scheduler("volcano.sh/vgpu-memory", stack));
    CHECK(ignored_by_scheduler("volcano.sh/vgpu-memory-percentage", stack));
    CHECK_FALSE(ignored_by_scheduler("volcano.sh/vgpu-number", stack));
    CHECK_FALSE(ignored_by_scheduler("nvidia.com/mig-1g.5gb", stack));
    CHECK_FALSE(ignored_by_scheduler("cpu", stack));
  }
  CHECK(ignored_by_scheduler("nvidia.com/gpu", GpuStack::kHamiNvidia));
  CHECK_FALSE(ignored_by_scheduler("nvidia.com/gpu", GpuStack::kNativeNvidia));
  CHECK_FALSE(ignored_by_scheduler("nvidia.com/gpu", GpuStack::kNone));
}

TEST_CASE("GPU pods need free GPUs of the same product", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(native_node("h20-a", "NVIDIA-H20"));
  f.snapshot.nodes.push_back(native_node("h20-b", "NVIDIA-H20"));
  f.snapshot.nodes.push_back(native_node("h20-full", "NVIDIA-H20"));
  f.snapshot.nodes.push_back(native_node("a100", "NVIDIA-A100-SXM4-80GB"));
  f.snapshot.nodes.push_back(hami_node("hami-h20"));
  f.snapshot.pods.push_back(gpu_pod("trainer", "h20-a"));
  for (int i = 0; i < 8; ++i)
    f.snapshot.pods.push_back(gpu_pod("busy-" + std::to_string(i), "h20-full"));
  GpuIndex gpus = f.index();

  CHECK(f.check(gpus, "trainer", "h20-b").empty());
  // Whole-GPU counts are the generic resource check's: check_gpu accepts the full H20 node.
  CHECK(f.check(gpus, "trainer", "h20-full").empty());
  CHECK(f.check(gpus, "trainer", "a100") ==
        "GPU product NVIDIA-A100-SXM4-80GB differs from NVIDIA-H20 on the pod's node h20-a");
  CHECK(f.check(gpus, "trainer", "hami-h20") ==
        "node's GPU stack is hami-nvidia, the pod's GPU request (whole) needs native-nvidia");
}

TEST_CASE("a card-model toleration is the pod's product choice", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(native_node("a100-src", "NVIDIA-A100-SXM4-80GB"));
  f.snapshot.nodes.push_back(native_node("h20", "NVIDIA-H20"));
  f.snapshot.nodes.push_back(native_node("a100", "NVIDIA-A100-SXM4-80GB"));
  Pod tolerant = gpu_pod("tolerant", "a100-src");
  seed_pool_rules(tolerant, "training");
  f.snapshot.pods.push_back(tolerant);
  Pod chooser = gpu_pod("chooser", "a100-src");
  chooser.node_selector.set("nvidia.com/gpu.family", "hopper");
  f.snapshot.pods.push_back(chooser);
  GpuIndex gpus = f.index();

  const PodGpuDemand& demand = gpus.pod(f.pod("tolerant"));
  CHECK(demand.has_product_constraint);
  CHECK(demand.tolerated_products == std::vector<std::string>{"NVIDIA-H20"});
  CHECK(f.check(gpus, "tolerant", "h20").empty());
  CHECK(f.check(gpus, "tolerant", "a100") ==
        "GPU product NVIDIA-A100-SXM4-80GB is not one the pod tolerates (NVIDIA-H20)");
  // A selector on gpu.family is judged by the affinity predicate, not by check_gpu.
  CHECK(gpus.pod(f.pod("chooser")).has_product_constraint);
  CHECK(f.check(gpus, "chooser", "h20").empty());
}

TEST_CASE("whole GPUs, replicas and MIG instances never substitute for each other", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(native_node("whole-a", "NVIDIA-A10"));
  Node sliced = native_node("sliced", "NVIDIA-A10-SHARED", 40);
  sliced.meta.labels.set("nvidia.com/gpu.replicas", "10");
  sliced.meta.labels.set("nvidia.com/gpu.sharing-strategy", "time-slicing");
  f.snapshot.nodes.push_back(sliced);
  Node mps = native_node("mps", "NVIDIA-A10", 16);
  mps.meta.labels.set("nvidia.com/gpu.replicas", "4");
  mps.meta.labels.set("nvidia.com/gpu.sharing-strategy", "mps");
  f.snapshot.nodes.push_back(mps);
  f.snapshot.nodes.push_back(native_node("whole-b", "NVIDIA-A10"));
  f.snapshot.pods.push_back(gpu_pod("whole", "whole-a"));
  f.snapshot.pods.push_back(gpu_pod("replica", "sliced"));
  GpuIndex gpus = f.index();

  CHECK(f.check(gpus, "whole", "sliced") ==
        "node shares its GPUs (time-slicing, 10 replicas); the pod needs whole GPUs");
  CHECK(f.check(gpus, "replica", "whole-b") ==
        "node does not share its GPUs; the pod runs on a GPU replica");
  CHECK(f.check(gpus, "replica", "mps") ==
        "node shares its GPUs (mps, 4 replicas), the pod's node (time-slicing, 10 replicas)");
}

TEST_CASE("MIG pods need their profile and a settled MIG layout", "[gpu]") {
  Fixture f;
  auto mig_node = [](const std::string& name, const std::string& profile,
                     const std::string& state) {
    Node node = make_node(name);
    node.meta.labels.set("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB");
    node.meta.labels.set("nvidia.com/mig.strategy", "mixed");
    if (!state.empty()) node.meta.labels.set("nvidia.com/mig.config.state", state);
    node.allocatable.set("nvidia.com/mig-" + profile, 7);
    return node;
  };
  f.snapshot.nodes.push_back(mig_node("src", "1g.5gb", "success"));
  f.snapshot.nodes.push_back(mig_node("same", "1g.5gb", "success"));
  f.snapshot.nodes.push_back(mig_node("other-profile", "3g.20gb", "success"));
  f.snapshot.nodes.push_back(mig_node("pending", "1g.5gb", "pending"));
  f.snapshot.nodes.push_back(native_node("single-src", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 14));
  f.snapshot.nodes.push_back(native_node("single-2g", "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb", 6));
  Pod mig = make_pod("mig", 100, 1 << 20, "src");
  mig.containers[0].requests.set("nvidia.com/mig-1g.5gb", 1);
  f.snapshot.pods.push_back(mig);
  f.snapshot.pods.push_back(gpu_pod("single", "single-src"));
  Pod single_free = gpu_pod("single-free", "single-src");
  single_free.node_selector.set("nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb");
  f.snapshot.pods.push_back(single_free);
  GpuIndex gpus = f.index();

  CHECK(f.check(gpus, "mig", "same").empty());
  CHECK(f.check(gpus, "mig", "other-profile") ==
        "MIG profile nvidia.com/mig-1g.5gb is not offered by the node");
  CHECK(f.check(gpus, "mig", "pending") == "MIG reconfiguration on the node is pending");
  CHECK(f.check(gpus, "single", "single-2g") ==
        "MIG profile 2g.10gb differs from 1g.5gb of the pod's node; GPU product "
        "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb differs from NVIDIA-A100-SXM4-40GB-MIG-1g.5gb on the "
        "pod's node single-src");
  // Even with its own product selector, a MIG-single pod keeps its instance size.
  CHECK(f.check(gpus, "single-free", "single-2g") ==
        "MIG profile 2g.10gb differs from 1g.5gb of the pod's node");
}

TEST_CASE("HAMi shared pods fit device by device", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  f.snapshot.nodes.push_back(hami_node("dst"));
  f.snapshot.nodes.push_back(hami_node("a100", "NVIDIA-A100-SXM4-80GB"));
  // dst: device 0 has 20000 MiB and 50% cores taken; device 1 is idle.
  f.snapshot.pods.push_back(hami_pod("resident", "dst", 20000, 50, "GPU-dst-0"));
  f.snapshot.pods.push_back(hami_pod("small", "src", 4000, 30, "GPU-src-0"));
  f.snapshot.pods.push_back(hami_pod("big", "src", 22000, 30, "GPU-src-0"));
  Pod exclusive = hami_pod("exclusive", "src", 0, 100, "GPU-src-1");
  exclusive.containers[0].limits = ResourceList();
  exclusive.containers[0].limits.set("nvidia.com/gpu", 2);
  exclusive.containers[0].requests.set("nvidia.com/gpu", 2);
  f.snapshot.pods.push_back(exclusive);
  GpuIndex gpus = f.index();

  CHECK(f.check(gpus, "small", "dst").empty());
  CHECK(f.check(gpus, "big", "dst").empty());  // on idle device 1
  CHECK(f.check(gpus, "small", "a100") ==
        "GPU product NVIDIA-A100-SXM4-80GB differs from NVIDIA-H20 on the pod's node src");
  // Two exclusive cards: device 0 is in use.
  CHECK(f.check(gpus, "exclusive", "dst") ==
        "container main needs 2 GPUs with 100% memory and 100% cores; 1 of 2 devices fit (1 short "
        "of memory)");

  // A pod this plan already put on dst takes the idle device first.
  Ledger ledger(f.snapshot.nodes.size());
  ledger.reserve(f.pod("big"), f.node("src"), f.node("dst"), ResourceList());
  CHECK(f.check(gpus, "small", "dst", &ledger).empty());  // device 0 keeps 4576 MiB
  Ledger twice(f.snapshot.nodes.size());
  f.snapshot.pods.push_back(hami_pod("big2", "src", 22000, 30, "GPU-src-1"));
  GpuIndex more = f.index();
  twice.reserve(f.pod("big"), f.node("src"), f.node("dst"), ResourceList());
  CHECK(f.check(more, "big2", "dst", &twice) ==
        "container main needs 1 GPU with 22000 MiB and 30% cores; 0 of 2 devices fit (2 short of "
        "memory)");
}

TEST_CASE("HAMi device rules: slots, exclusive cards, exhausted compute, cordons, health",
          "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  Node dst = make_node("dst");
  dst.meta.labels.set("nvidia.com/gpu.product", "NVIDIA-H20");
  dst.allocatable.set("nvidia.com/gpu", 20);
  dst.meta.annotations.set(
      "hami.io/node-nvidia-register",
      "GPU-x,2,24576,100,NVIDIA-H20,0,true:GPU-y,10,24576,100,NVIDIA-H20,0,true:"
      "GPU-z,10,24576,100,NVIDIA-H20,0,false:");
  dst.meta.annotations.set("hami.io/device-cordon", "GPU-y");
  f.snapshot.nodes.push_back(dst);
  f.snapshot.pods.push_back(hami_pod("x1", "dst", 1000, 50, "GPU-x"));
  f.snapshot.pods.push_back(hami_pod("x2", "dst", 1000, 50, "GPU-x"));
  f.snapshot.pods.push_back(hami_pod("mover", "src", 1000, 0, "GPU-src-0"));
  GpuIndex gpus = f.index();
  CHECK(f.check(gpus, "mover", "dst") ==
        "container main needs 1 GPU with 1000 MiB and 0% cores; 0 of 3 devices fit (1 unhealthy, "
        "1 cordoned, 1 no free slot)");

  Fixture g;
  g.snapshot.nodes.push_back(hami_node("src"));
  g.snapshot.nodes.push_back(hami_node("dst"));
  g.snapshot.pods.push_back(hami_pod("full0", "dst", 1000, 100, "GPU-dst-0"));
  g.snapshot.pods.push_back(hami_pod("full1", "dst", 1000, 100, "GPU-dst-1"));
  g.snapshot.pods.push_back(hami_pod("zero-cores", "src", 1000, 0, "GPU-src-0"));
  GpuIndex full = g.index();
  CHECK(g.check(full, "zero-cores", "dst") ==
        "container main needs 1 GPU with 1000 MiB and 0% cores; 0 of 2 devices fit (2 compute "
        "exhausted)");
}

TEST_CASE("HAMi numa-bind and use-gputype are honoured per device", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  f.snapshot.nodes.push_back(hami_node("dst"));  // two devices on NUMA 0 and 1
  Pod numa = hami_pod("numa", "src", 1000, 10, "GPU-src-0");
  numa.containers[0].limits.set("nvidia.com/gpu", 2);
  numa.meta.annotations.set("nvidia.com/numa-bind", "true");
  f.snapshot.pods.push_back(numa);
  Pod typed = hami_pod("typed", "src", 1000, 10, "GPU-src-0");
  typed.meta.annotations.set("nvidia.com/use-gputype", "a100");
  f.snapshot.pods.push_back(typed);
  GpuIndex gpus = f.index();
  CHECK(f.check(gpus, "numa", "dst") ==
        "container main needs 2 GPUs with 1000 MiB and 10% cores; 2 of 2 devices fit, but not 2 "
        "on one NUMA node");
  CHECK(gpus.pod(f.pod("typed")).has_product_constraint);
  CHECK(f.check(gpus, "typed", "dst") ==
        "container main needs 1 GPU with 1000 MiB and 10% cores; 0 of 2 devices fit (2 model "
        "excluded by the pod)");
}

TEST_CASE("an unparsable or missing register keeps shared-GPU pods away", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  Node bad = hami_node("bad");
  bad.meta.annotations.set("hami.io/node-nvidia-register", "GPU-a,10,24576,100,NVIDIA-H20:");
  f.snapshot.nodes.push_back(bad);
  Node idle = hami_node("no-plugin");
  idle.allocatable.set("nvidia.com/gpu", 0);
  f.snapshot.nodes.push_back(idle);
  f.snapshot.pods.push_back(hami_pod("mover", "src", 1000, 10, "GPU-src-0"));
  GpuIndex gpus = f.index();
  CHECK(gpus.node(f.node("bad")).register_error ==
        "annotation hami.io/node-nvidia-register: device 0: expected 7 or 9 comma-separated "
        "fields, found 5");
  CHECK(f.check(gpus, "mover", "bad") ==
        "node's GPU inventory is unusable: annotation hami.io/node-nvidia-register: device 0: "
        "expected 7 or 9 comma-separated fields, found 5");
  CHECK(f.check(gpus, "mover", "no-plugin") ==
        "node's GPU inventory is unusable: allocatable nvidia.com/gpu is 0: the HAMi device "
        "plugin is not serving");
}

TEST_CASE("Volcano vGPU and MetaX sGPU pods fit per device", "[gpu]") {
  Fixture f;
  auto vgpu_node = [](const std::string& name, const std::string& reg) {
    Node node = make_node(name);
    node.meta.annotations.set("volcano.sh/node-vgpu-register", reg);
    node.allocatable.set("volcano.sh/vgpu-number", 10);
    return node;
  };
  f.snapshot.nodes.push_back(vgpu_node("v-src", "GPU-s,10,24576,NVIDIA-L4,true,hami-core:"));
  f.snapshot.nodes.push_back(vgpu_node("v-dst", "GPU-d,10,24576,NVIDIA-L4,true,hami-core:"));
  Pod resident = make_pod("resident", 100, 1 << 20, "v-dst");
  resident.containers[0].limits.set("volcano.sh/vgpu-number", 1);
  resident.containers[0].limits.set("volcano.sh/vgpu-memory", 10000);
  resident.meta.annotations.set("volcano.sh/vgpu-ids-new", "GPU-d,NVIDIA,10000,0:;");
  f.snapshot.pods.push_back(resident);
  Pod mover = make_pod("mover", 100, 1 << 20, "v-src");
  mover.containers[0].limits.set("volcano.sh/vgpu-number", 1);
  mover.containers[0].limits.set("volcano.sh/vgpu-memory", 8000);
  mover.meta.annotations.set("volcano.sh/vgpu-ids-new", "GPU-s,NVIDIA,8000,0:;");
  f.snapshot.pods.push_back(mover);

  auto sgpu_node = [](const std::string& name) {
    Node node = make_node(name);
    node.meta.labels.set("metax-tech.com/gpu.product", "MXC500");
    node.meta.annotations.set("metax-tech.com/node-gpu-devices",
                              R"([{"uuid":")" + name +
                                  R"(-0","model":"MXC500","totalDevCount":16,)"
                                  R"("totalCompute":100,"totalVRam":65536,"healthy":true}])");
    node.allocatable.set("metax-tech.com/sgpu", 16);
    return node;
  };
  f.snapshot.nodes.push_back(sgpu_node("m-src"));
  f.snapshot.nodes.push_back(sgpu_node("m-dst"));
  Pod sgpu_resident = make_pod("sgpu-resident", 100, 1 << 20, "m-dst");
  sgpu_resident.containers[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu_resident.containers[0].limits.set("metax-tech.com/vcore", 60);
  sgpu_resident.meta.annotations.set("hami.io/metax-sgpu-devices-allocated",
                                     "m-dst-0,Metax-SGPU,4096,60:;");
  f.snapshot.pods.push_back(sgpu_resident);
  Pod sgpu = make_pod("sgpu", 100, 1 << 20, "m-src");
  sgpu.containers[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu.containers[0].limits.set("metax-tech.com/vcore", 60);
  sgpu.containers[0].limits.set("metax-tech.com/vmemory", 4);
  f.snapshot.pods.push_back(sgpu);
  Pod small = make_pod("sgpu-small", 100, 1 << 20, "m-src");
  small.containers[0].limits.set("metax-tech.com/sgpu", 1);
  small.containers[0].limits.set("metax-tech.com/vcore", 40);
  small.containers[0].limits.set("metax-tech.com/vmemory", 4);
  f.snapshot.pods.push_back(small);
  GpuIndex gpus = f.index();

  CHECK(f.check(gpus, "mover", "v-dst").empty());
  CHECK(f.check(gpus, "sgpu", "m-dst") ==
        "container main needs 1 GPU with 4096 MiB and 60% cores; 0 of 1 devices fit (1 short of "
        "cores)");
  CHECK(f.check(gpus, "sgpu-small", "m-dst").empty());
  // No GPUs at all: the resource check refuses counted resources; check_gpu refuses the rest.
  f.snapshot.nodes.push_back(make_node("cpu"));
  GpuIndex with_cpu = f.index();
  CHECK(f.check(with_cpu, "mover", "cpu").empty());
  CHECK(f.check(with_cpu, "sgpu", "cpu") ==
        "node has no GPUs; the pod's GPU request (metax-sgpu) needs hami-metax-sgpu");
  CHECK(
      f.check(gpus, "sgpu", "v-dst") ==
      "node's GPU stack is volcano-vgpu, the pod's GPU request (metax-sgpu) needs hami-metax-sgpu");
}

TEST_CASE("gpu-group-size keeps a pod in its peers' node group", "[gpu]") {
  Fixture f;
  f.options.group_label = "metax-tech.com/dragonfly";
  auto metax_node = [](const std::string& name, const std::string& group) {
    Node node = make_node(name);
    node.meta.labels.set("metax-tech.com/gpu.product", "MXC500");
    if (!group.empty()) node.meta.labels.set("metax-tech.com/dragonfly", group);
    node.allocatable.set("metax-tech.com/gpu", 8);
    return node;
  };
  f.snapshot.nodes.push_back(metax_node("a1", "df-a"));
  f.snapshot.nodes.push_back(metax_node("a2", "df-a"));
  f.snapshot.nodes.push_back(metax_node("b1", "df-b"));
  f.snapshot.nodes.push_back(metax_node("plain", ""));
  auto worker = [&](const std::string& name, const std::string& node) {
    Pod pod = make_pod(name, 100, 1 << 20, node);
    pod.containers[0].requests.set("metax-tech.com/gpu", 8);
    pod.meta.annotations.set("metax-tech.com/gpu-group-size", "16");
    own_by(pod, "job-uid");
    return pod;
  };
  f.snapshot.pods.push_back(worker("w0", "a1"));
  f.snapshot.pods.push_back(worker("w1", "a2"));
  GpuIndex gpus = f.index();
  CHECK(gpus.pod(f.pod("w0")).group_size == 16);
  CHECK(gpus.pod(f.pod("w0")).group_gpus == 8);
  CHECK(gpus.peers(f.pod("w0")).size() == 2);
  CHECK(f.check(gpus, "w0", "a2").empty());
  CHECK(f.check(gpus, "w0", "b1") ==
        "GPU node group metax-tech.com/dragonfly=df-b differs from df-a of the pod's group peers");
  CHECK(f.check(gpus, "w0", "plain") ==
        "node has no GPU node-group label metax-tech.com/dragonfly (pod has "
        "metax-tech.com/gpu-group-size=16)");

  // The peer planned to b1 pulls the group's domain with it.
  Ledger ledger(f.snapshot.nodes.size());
  ledger.reserve(f.pod("w1"), f.node("a2"), f.node("b1"), ResourceList());
  CHECK(f.check(gpus, "w0", "b1", &ledger).empty());

  Fixture unconfigured = f;
  unconfigured.options.group_label.clear();
  GpuIndex without = unconfigured.index();
  CHECK(unconfigured.check(without, "w0", "a2") ==
        "pod has metax-tech.com/gpu-group-size=16 but no GPU node-group label is configured");
}

TEST_CASE("peers on one NVLink clique keep the pod in that clique", "[gpu]") {
  Fixture f;
  auto clique_node = [](const std::string& name, const std::string& clique) {
    Node node = native_node(name, "NVIDIA-GB200");
    if (!clique.empty()) node.meta.labels.set("nvidia.com/gpu.clique", clique);
    return node;
  };
  f.snapshot.nodes.push_back(clique_node("c1", "fabric.1"));
  f.snapshot.nodes.push_back(clique_node("c2", "fabric.1"));
  f.snapshot.nodes.push_back(clique_node("c3", "fabric.2"));
  f.snapshot.nodes.push_back(clique_node("none", ""));
  for (std::string name : {"p0", "p1"}) {
    Pod pod = gpu_pod(name, name == std::string("p0") ? "c1" : "c2", 4);
    own_by(pod, "nvl-job");
    f.snapshot.pods.push_back(pod);
  }
  Pod loner = gpu_pod("loner", "c1", 4);
  own_by(loner, "other-job");
  f.snapshot.pods.push_back(loner);
  GpuIndex gpus = f.index();
  CHECK(f.check(gpus, "p0", "c2").empty());
  CHECK(f.check(gpus, "p0", "c3") ==
        "NVLink clique fabric.2 differs from fabric.1 of the pod's peers");
  CHECK(f.check(gpus, "p0", "none") ==
        "NVLink clique (none) differs from fabric.1 of the pod's peers");
  CHECK(f.check(gpus, "loner", "c3").empty());
}

TEST_CASE("GPU pods that must never be moved", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("hami"));
  Node mig = make_node("mig");
  mig.meta.labels.set("nvidia.com/mig.config.state", "rebooting");
  mig.allocatable.set("nvidia.com/mig-1g.5gb", 7);
  f.snapshot.nodes.push_back(mig);
  Node sliced = native_node("sliced", "NVIDIA-A10-SHARED", 40);
  sliced.meta.labels.set("nvidia.com/gpu.replicas", "10");
  f.snapshot.nodes.push_back(sliced);
  Node cd = native_node("cd", "NVIDIA-GB200", 4);
  cd.meta.labels.set("resource.nvidia.com/computeDomain", "cd-uid");
  f.snapshot.nodes.push_back(cd);
  Node vg = make_node("vg");
  vg.meta.annotations.set("volcano.sh/node-vgpu-register",
                          "GPU-v,10,24576,NVIDIA-L4,true,hami-core:");
  f.snapshot.nodes.push_back(vg);

  f.snapshot.pods.push_back(hami_pod("settled", "hami", 1000, 10, "GPU-hami-0"));
  Pod pinned = hami_pod("pinned", "hami", 1000, 10, "GPU-hami-0");
  pinned.meta.annotations.set("nvidia.com/use-gpuuuid", "GPU-hami-0");
  f.snapshot.pods.push_back(pinned);
  Pod binding = hami_pod("binding", "hami", 1000, 10, "GPU-hami-0");
  binding.meta.annotations.set("hami.io/bind-phase", "allocating");
  f.snapshot.pods.push_back(binding);
  Pod no_phase = hami_pod("no-phase", "hami", 1000, 10, "GPU-hami-0");
  no_phase.meta.annotations = StringMap();
  no_phase.meta.annotations.set("hami.io/vgpu-devices-allocated", "GPU-hami-0,NVIDIA,1000,10:;");
  f.snapshot.pods.push_back(no_phase);
  Pod unrecorded = hami_pod("unrecorded", "hami", 1000, 10, "GPU-hami-0");
  unrecorded.meta.annotations = StringMap();
  unrecorded.meta.annotations.set("hami.io/bind-phase", "success");
  f.snapshot.pods.push_back(unrecorded);
  Pod dynamic_mig = hami_pod("dynamic-mig", "hami", 1000, 10, "GPU-hami-0");
  dynamic_mig.meta.annotations.set("hami.io/vgpu-mig-allocations", "[]");
  f.snapshot.pods.push_back(dynamic_mig);
  Pod dra = make_pod("dra", 100, 1 << 20, "hami");
  dra.has_resource_claims = true;
  f.snapshot.pods.push_back(dra);
  Pod mig_pod = make_pod("mig-pod", 100, 1 << 20, "mig");
  mig_pod.containers[0].requests.set("nvidia.com/mig-1g.5gb", 1);
  f.snapshot.pods.push_back(mig_pod);
  f.snapshot.pods.push_back(gpu_pod("replica-1", "sliced", 1));
  f.snapshot.pods.push_back(gpu_pod("replica-2", "sliced", 2));
  f.snapshot.pods.push_back(gpu_pod("domain", "cd", 4));
  Pod vgpu = make_pod("vgpu-binding", 100, 1 << 20, "vg");
  vgpu.containers[0].limits.set("volcano.sh/vgpu-number", 1);
  vgpu.meta.annotations.set("volcano.sh/bind-phase", "allocating");
  vgpu.meta.annotations.set("volcano.sh/vgpu-ids-new", "GPU-v,NVIDIA,24576,0:;");
  f.snapshot.pods.push_back(vgpu);
  f.snapshot.pods.push_back(make_pod("cpu-only", 100, 1 << 20, "cd"));
  GpuIndex gpus = f.index();

  auto reason = [&](const std::string& name) {
    return gpu_unmovable_reason(f.snapshot, gpus, f.pod(name)).value_or("");
  };
  CHECK(reason("settled").empty());
  CHECK(
      reason("pinned") ==
      "pinned to GPU UUIDs by annotation nvidia.com/use-gpuuuid=GPU-hami-0 (UUIDs are node-local)");
  CHECK(reason("binding") == "HAMi allocation not settled: hami.io/bind-phase is allocating");
  CHECK(reason("no-phase") ==
        "HAMi allocation not settled: annotation hami.io/bind-phase is missing");
  CHECK(reason("unrecorded") ==
        "HAMi allocation not recorded: annotation hami.io/vgpu-devices-allocated is missing");
  CHECK(reason("dynamic-mig") ==
        "dynamic MIG allocation (annotation hami.io/vgpu-mig-allocations) cannot be recreated "
        "elsewhere");
  CHECK(reason("dra") ==
        "uses DRA resource claims (spec.resourceClaims); DRA device allocation is not modelled");
  CHECK(reason("mig-pod") == "MIG pod on a node whose MIG reconfiguration is rebooting");
  CHECK(reason("replica-1").empty());
  CHECK(reason("replica-2") ==
        "requests 2 GPU replicas (time-slicing / MPS); only single-replica pods are moved");
  CHECK(reason("domain") ==
        "member of ComputeDomain cd-uid (node label resource.nvidia.com/computeDomain)");
  CHECK(reason("vgpu-binding") ==
        "Volcano vGPU allocation not settled: volcano.sh/bind-phase is allocating");
  CHECK(reason("cpu-only").empty());
}

TEST_CASE("pods without GPU demand always pass check_gpu", "[gpu]") {
  Fixture f;
  f.snapshot.nodes.push_back(hami_node("hami"));
  f.snapshot.nodes.push_back(make_node("cpu"));
  f.snapshot.pods.push_back(make_pod("web", 100, 1 << 20, "cpu"));
  GpuIndex gpus = f.index();
  Ledger ledger(f.snapshot.nodes.size());
  CHECK(check_gpu(f.snapshot, gpus, f.pod("web"), f.node("hami"), ledger, nullptr));
  // A default-built index knows no pods: everything passes.
  CHECK(check_gpu(f.snapshot, GpuIndex(), 0, 0, ledger, nullptr));
  CHECK(sanitize_product("NVIDIA  A100-SXM4-80GB (rev 1)") == "NVIDIA-A100-SXM4-80GB-rev-1");
}

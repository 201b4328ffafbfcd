// GPU topology (placement/gpu.h), what check_gpu decides: product, kinds, MIG, HAMi/Volcano/MetaX
// per-device fit, group size, NVLink clique, and the GPU reasons a pod must never move.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpu_builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;

TEST_CASE("GPU pods need free GPUs of the same product", "[gpu]") {
  GpuFixture f;
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
  GpuFixture f;
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
  GpuFixture f;
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
  GpuFixture f;
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
  mig.containers.edit()[0].requests.set("nvidia.com/mig-1g.5gb", 1);
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
  GpuFixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  f.snapshot.nodes.push_back(hami_node("dst"));
  f.snapshot.nodes.push_back(hami_node("a100", "NVIDIA-A100-SXM4-80GB"));
  // dst: device 0 has 20000 MiB and 50% cores taken; device 1 is idle.
  f.snapshot.pods.push_back(hami_pod("resident", "dst", 20000, 50, "GPU-dst-0"));
  f.snapshot.pods.push_back(hami_pod("small", "src", 4000, 30, "GPU-src-0"));
  f.snapshot.pods.push_back(hami_pod("big", "src", 22000, 30, "GPU-src-0"));
  Pod exclusive = hami_pod("exclusive", "src", 0, 100, "GPU-src-1");
  exclusive.containers.edit()[0].limits = ResourceList();
  exclusive.containers.edit()[0].limits.set("nvidia.com/gpu", 2);
  exclusive.containers.edit()[0].requests.set("nvidia.com/gpu", 2);
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
  GpuFixture f;
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

  GpuFixture g;
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
  GpuFixture f;
  f.snapshot.nodes.push_back(hami_node("src"));
  f.snapshot.nodes.push_back(hami_node("dst"));  // two devices on NUMA 0 and 1
  Pod numa = hami_pod("numa", "src", 1000, 10, "GPU-src-0");
  numa.containers.edit()[0].limits.set("nvidia.com/gpu", 2);
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
  GpuFixture f;
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
  GpuFixture f;
  auto vgpu_node = [](const std::string& name, const std::string& reg) {
    Node node = make_node(name);
    node.meta.annotations.set("volcano.sh/node-vgpu-register", reg);
    node.allocatable.set("volcano.sh/vgpu-number", 10);
    return node;
  };
  f.snapshot.nodes.push_back(vgpu_node("v-src", "GPU-s,10,24576,NVIDIA-L4,true,hami-core:"));
  f.snapshot.nodes.push_back(vgpu_node("v-dst", "GPU-d,10,24576,NVIDIA-L4,true,hami-core:"));
  Pod resident = make_pod("resident", 100, 1 << 20, "v-dst");
  resident.containers.edit()[0].limits.set("volcano.sh/vgpu-number", 1);
  resident.containers.edit()[0].limits.set("volcano.sh/vgpu-memory", 10000);
  resident.meta.annotations.set("volcano.sh/vgpu-ids-new", "GPU-d,NVIDIA,10000,0:;");
  f.snapshot.pods.push_back(resident);
  Pod mover = make_pod("mover", 100, 1 << 20, "v-src");
  mover.containers.edit()[0].limits.set("volcano.sh/vgpu-number", 1);
  mover.containers.edit()[0].limits.set("volcano.sh/vgpu-memory", 8000);
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
  sgpu_resident.containers.edit()[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu_resident.containers.edit()[0].limits.set("metax-tech.com/vcore", 60);
  sgpu_resident.meta.annotations.set("hami.io/metax-sgpu-devices-allocated",
                                     "m-dst-0,Metax-SGPU,4096,60:;");
  f.snapshot.pods.push_back(sgpu_resident);
  Pod sgpu = make_pod("sgpu", 100, 1 << 20, "m-src");
  sgpu.containers.edit()[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu.containers.edit()[0].limits.set("metax-tech.com/vcore", 60);
  sgpu.containers.edit()[0].limits.set("metax-tech.com/vmemory", 4);
  f.snapshot.pods.push_back(sgpu);
  Pod small = make_pod("sgpu-small", 100, 1 << 20, "m-src");
  small.containers.edit()[0].limits.set("metax-tech.com/sgpu", 1);
  small.containers.edit()[0].limits.set("metax-tech.com/vcore", 40);
  small.containers.edit()[0].limits.set("metax-tech.com/vmemory", 4);
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
  GpuFixture f;
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
    pod.containers.edit()[0].requests.set("metax-tech.com/gpu", 8);
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

  GpuFixture unconfigured = f;
  unconfigured.options.group_label.clear();
  GpuIndex without = unconfigured.index();
  CHECK(unconfigured.check(without, "w0", "a2") ==
        "pod has metax-tech.com/gpu-group-size=16 but no GPU node-group label is configured");
}

TEST_CASE("peers on one NVLink clique keep the pod in that clique", "[gpu]") {
  GpuFixture f;
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
  GpuFixture f;
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
  mig_pod.containers.edit()[0].requests.set("nvidia.com/mig-1g.5gb", 1);
  f.snapshot.pods.push_back(mig_pod);
  f.snapshot.pods.push_back(gpu_pod("replica-1", "sliced", 1));
  f.snapshot.pods.push_back(gpu_pod("replica-2", "sliced", 2));
  f.snapshot.pods.push_back(gpu_pod("domain", "cd", 4));
  Pod vgpu = make_pod("vgpu-binding", 100, 1 << 20, "vg");
  vgpu.containers.edit()[0].limits.set("volcano.sh/vgpu-number", 1);
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
  GpuFixture f;
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

// GPU topology (placement/gpu.h), what the index reads: stack detection, register formats, device
// usage from allocation annotations, pod demand kinds. Fit checks: gpu_fit_test.cc.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpu_builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;

TEST_CASE("stack detection for each GPU stack", "[gpu]") {
  GpuFixture f;
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
  GpuFixture f;
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
  GpuFixture f;
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
  GpuFixture f;
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
  shared.containers.edit()[0].requests.set("nvidia.com/gpu.shared", 1);
  f.snapshot.pods.push_back(shared);
  Pod mig = make_pod("mig", 100, 1 << 20, "h20");
  mig.containers.edit()[0].requests.set("nvidia.com/mig-1g.5gb", 1);
  f.snapshot.pods.push_back(mig);
  f.snapshot.pods.push_back(gpu_pod("mig-single", "mig-single"));
  f.snapshot.pods.push_back(gpu_pod("hami-plain", "hami"));
  Pod percent = gpu_pod("hami-percent", "hami");
  percent.containers.edit()[0].limits.set("nvidia.com/gpumem-percentage", 50);
  f.snapshot.pods.push_back(percent);
  Pod sgpu = make_pod("sgpu", 100, 1 << 20, "");
  sgpu.containers.edit()[0].limits.set("metax-tech.com/sgpu", 1);
  sgpu.containers.edit()[0].limits.set("metax-tech.com/vmemory", 4);
  f.snapshot.pods.push_back(sgpu);
  Pod vgpu = make_pod("vgpu", 100, 1 << 20, "");
  vgpu.containers.edit()[0].limits.set("volcano.sh/vgpu-number", 2);
  vgpu.containers.edit()[0].limits.set("volcano.sh/vgpu-memory", 3000);
  vgpu.containers.edit()[0].limits.set("volcano.sh/vgpu-cores", 20);
  f.snapshot.pods.push_back(vgpu);
  Pod share = make_pod("gpushare", 100, 1 << 20, "");
  share.containers.edit()[0].requests.set("volcano.sh/gpu-memory", 1024);
  f.snapshot.pods.push_back(share);
  Pod metax = make_pod("metax", 100, 1 << 20, "");
  metax.containers.edit()[0].requests.set("metax-tech.com/gpu", 8);
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

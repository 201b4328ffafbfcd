#include <catch2/catch.hpp>

#include <cstdlib>
#include <new>

#include "placement/cluster_index.h"
#include "placement/placer.h"
#include "placement/predicates.h"
#include "test/model/builders.h"

using namespace loadshift::placement;

using namespace loadshift::testing;

// Counting allocations replaces the global operator new, which AddressSanitizer replaces too
// (shared libraries would then mix its new with this delete): only in builds without it.
#if defined(__SANITIZE_ADDRESS__)
#define LOADSHIFT_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOADSHIFT_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef LOADSHIFT_COUNT_ALLOCATIONS
#define LOADSHIFT_COUNT_ALLOCATIONS 1
#endif

namespace {

// Allocations made on this thread while `g_counting` is set (see the hot-path test below).
thread_local bool g_counting = false;
thread_local long g_allocations = 0;

}  // namespace

#if LOADSHIFT_COUNT_ALLOCATIONS
void* operator new(std::size_t size) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
// Not inlined: GCC would otherwise see free() next to new and warn (-Wmismatched-new-delete).
[[gnu::noinline]] void operator delete(void* p) noexcept {
  std::free(p);
}
[[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
#endif

namespace {

Taint taint(const std::string& key, const std::string& value, TaintEffect effect) {
  return Taint{key, value, effect};
}

Toleration toleration(const std::string& key, TolerationOperator op, const std::string& value,
                      std::optional<TaintEffect> effect) {
  return Toleration{key, op, value, effect, std::nullopt};
}

}  // namespace

TEST_CASE("tolerations against taints: every operator and effect", "[predicates][taints]") {
  using E = TaintEffect;
  using O = TolerationOperator;
  const Taint h20 = taint("nvidia.com/gpu.product", "NVIDIA-H20", E::kNoSchedule);
  struct Case {
    Toleration toleration;
    Taint taint;
    bool tolerated;
  };
  const Case cases[] = {
      {toleration("nvidia.com/gpu.product", O::kEqual, "NVIDIA-H20", E::kNoSchedule), h20, true},
      {toleration("nvidia.com/gpu.product", O::kEqual, "NVIDIA-A100", E::kNoSchedule), h20, false},
      {toleration("nvidia.com/gpu.product", O::kEqual, "NVIDIA-H20", std::nullopt), h20, true},
      {toleration("nvidia.com/gpu.product", O::kEqual, "NVIDIA-H20", E::kNoExecute), h20, false},
      {toleration("nvidia.com/gpu.product", O::kExists, "", E::kNoSchedule), h20, true},
      {toleration("nvidia.com/gpu.product", O::kExists, "", std::nullopt), h20, true},
      {toleration("other", O::kExists, "", std::nullopt), h20, false},
      // Exists with an empty key tolerates every taint (of the effect, if one is given).
      {toleration("", O::kExists, "", std::nullopt), h20, true},
      {toleration("", O::kExists, "", E::kNoSchedule), h20, true},
      {toleration("", O::kExists, "", E::kNoExecute), h20, false},
      // An empty key with Equal is invalid and tolerates nothing.
      {toleration("", O::kEqual, "", std::nullopt), h20, false},
      // Equal with an empty value matches a taint without value.
      {toleration("dedicated", O::kEqual, "", std::nullopt),
       taint("dedicated", "", E::kNoExecute), true},
      {toleration("dedicated", O::kEqual, "", std::nullopt),
       taint("dedicated", "x", E::kNoExecute), false},
      {toleration("soft", O::kEqual, "v", E::kPreferNoSchedule),
       taint("soft", "v", E::kPreferNoSchedule), true},
  };
  int i = 0;
  for (const Case& c : cases) {
    INFO("case " << i++);
    CHECK(tolerates(c.toleration, c.taint) == c.tolerated);
  }
}

TEST_CASE("taint filter blocks NoSchedule and NoExecute, only scores PreferNoSchedule",
          "[predicates][taints]") {
  Node node = make_node("n1");
  node.taints = {taint("a", "1", TaintEffect::kNoSchedule), taint("b", "2", TaintEffect::kNoExecute),
                 taint("c", "3", TaintEffect::kPreferNoSchedule)};
  Pod pod = make_pod("p");
  Reasons reasons;
  CHECK_FALSE(check_taints(pod, node, &reasons));
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0].rule == Rule::kTaints);
  CHECK(reasons[0].reason == "taint a=1:NoSchedule not tolerated");
  CHECK(reasons[1].reason == "taint b=2:NoExecute not tolerated");
  CHECK(untolerated_prefer_no_schedule(pod, node) == 1);

  pod.tolerations = {toleration("a", TolerationOperator::kEqual, "1", std::nullopt),
                     toleration("b", TolerationOperator::kExists, "", TaintEffect::kNoExecute)};
  CHECK(check_taints(pod, node, nullptr));
  CHECK(untolerated_prefer_no_schedule(pod, node) == 1);
  pod.tolerations.edit().push_back(toleration("c", TolerationOperator::kExists, "", std::nullopt));
  CHECK(untolerated_prefer_no_schedule(pod, node) == 0);
}

TEST_CASE("node selector requirements: every operator", "[predicates][affinity]") {
  using S = SelectorOperator;
  StringMap labels({{"zone", "a"},
                    {"gpus", "8"},
                    {"mem", "1.5"},
                    {"neg", "-3"},
                    {"plus", "+8"},
                    {"plusminus", "+-8"}});
  struct Case {
    NodeSelectorRequirement requirement;
    bool matches;
  };
  const Case cases[] = {
      {req("zone", S::kIn, {"a", "b"}), true},
      {req("zone", S::kIn, {"b"}), false},
      {req("missing", S::kIn, {"a"}), false},
      {req("zone", S::kNotIn, {"b"}), true},
      {req("zone", S::kNotIn, {"a"}), false},
      {req("missing", S::kNotIn, {"a"}), true},
      {req("zone", S::kExists), true},
      {req("missing", S::kExists), false},
      {req("zone", S::kDoesNotExist), false},
      {req("missing", S::kDoesNotExist), true},
      {req("gpus", S::kGt, {"4"}), true},
      {req("gpus", S::kGt, {"8"}), false},
      {req("gpus", S::kLt, {"9"}), true},
      {req("gpus", S::kLt, {"8"}), false},
      {req("neg", S::kLt, {"0"}), true},
      // Gt / Lt on non-integers fail on either side.
      {req("mem", S::kGt, {"1"}), false},
      {req("gpus", S::kGt, {"1.5"}), false},
      {req("zone", S::kLt, {"9"}), false},
      {req("missing", S::kGt, {"1"}), false},
      {req("gpus", S::kGt, {"1", "2"}), false},
      // The Gt / Lt value must also be a valid label value (labels.NewRequirement runs
      // validateLabelValue on every value), so a signed bound makes the term match nothing...
      {req("gpus", S::kGt, {"-1"}), false},
      {req("gpus", S::kGt, {"+4"}), false},
      {req("gpus", S::kGt, {"+-5"}), false},
      {req("gpus", S::kGt, {"0004"}), true},
      // ...while the node's value is read with strconv.ParseInt: one sign, then digits.
      {req("plus", S::kGt, {"4"}), true},
      {req("plusminus", S::kLt, {"0"}), false},
  };
  int i = 0;
  for (const Case& c : cases) {
    INFO("case " << i++ << ": " << c.requirement.key << " " << to_string(c.requirement.op));
    CHECK(requirement_matches(c.requirement, labels) == c.matches);
  }
}

TEST_CASE("required node affinity: terms ORed, expressions ANDed, matchFields",
          "[predicates][affinity]") {
  using S = SelectorOperator;
  Node node = make_node("te1");
  node.meta.labels.set("pool", "training");
  node.meta.labels.set("rack", "r1");
  Pod pod = make_pod("p");
  CHECK(check_node_affinity(pod, node, nullptr));  // no requirement

  NodeSelectorTerm both;  // pool=training AND rack=r2: fails
  both.match_expressions = {req("pool", S::kIn, {"training"}), req("rack", S::kIn, {"r2"})};
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{both};
  Reasons reasons;
  CHECK_FALSE(check_node_affinity(pod, node, &reasons));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].reason == "required node affinity not matched: rack In [r2] (node has rack=r1)");

  NodeSelectorTerm by_name;  // OR metadata.name In [te1]
  by_name.match_fields = {req("metadata.name", S::kIn, {"te1"})};
  pod.node_affinity.edit().required->push_back(by_name);
  CHECK(check_node_affinity(pod, node, nullptr));

  NodeSelectorTerm not_me;
  not_me.match_fields = {req("metadata.name", S::kNotIn, {"te1"})};
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{not_me};
  CHECK_FALSE(check_node_affinity(pod, node, nullptr));
  NodeSelectorTerm unknown_field;
  unknown_field.match_fields = {req("metadata.uid", S::kIn, {"x"})};
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{unknown_field};
  CHECK_FALSE(check_node_affinity(pod, node, nullptr));

  // An empty term matches nothing; an empty term list matches nothing.
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{NodeSelectorTerm{}};
  CHECK_FALSE(check_node_affinity(pod, node, nullptr));
  pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{};
  CHECK_FALSE(check_node_affinity(pod, node, nullptr));
}

TEST_CASE("preferred node affinity sums the weights of matching terms", "[predicates][affinity]") {
  using S = SelectorOperator;
  Node node = make_node("n");
  node.meta.labels.set("pool", "training");
  node.meta.labels.set("disk", "ssd");
  Pod pod = make_pod("p");
  PreferredSchedulingTerm pool{100, {}}, disk{7, {}}, other{50, {}}, empty{30, {}};
  pool.preference.match_expressions = {req("pool", S::kIn, {"training"})};
  disk.preference.match_expressions = {req("disk", S::kExists)};
  other.preference.match_expressions = {req("pool", S::kIn, {"inference"})};
  pod.node_affinity.edit().preferred = {pool, disk, other, empty};
  CHECK(preferred_affinity_score(pod, node) == 107);
}

TEST_CASE("nodeSelector needs every label", "[predicates]") {
  Node node = make_node("te3");
  Pod pod = make_pod("stress");
  pod.node_selector.set("kubernetes.io/hostname", "te3");
  CHECK(check_node_selector(pod, node, nullptr));
  pod.node_selector.set("disk", "ssd");
  Reasons reasons;
  CHECK_FALSE(check_node_selector(pod, node, &reasons));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].reason == "nodeSelector disk=ssd not matched (node has no disk label)");
}

TEST_CASE("node readiness and cordon", "[predicates]") {
  Node node = make_node("n");
  Pod pod = make_pod("p");
  CHECK(check_node_ready(node, nullptr));
  Reasons reasons;
  node.conditions[0].status = "Unknown";
  CHECK_FALSE(check_node_ready(node, &reasons));
  CHECK(reasons.at(0).reason == "node is not Ready (Ready=Unknown)");
  node.conditions.clear();
  CHECK_FALSE(check_node_ready(node, nullptr));
  node = make_node("n");
  node.meta.deleting = true;
  CHECK_FALSE(check_node_ready(node, nullptr));

  node = make_node("n");
  node.unschedulable = true;
  CHECK_FALSE(check_node_schedulable(pod, node, nullptr));
  pod.tolerations.edit().push_back(Toleration{"node.kubernetes.io/unschedulable",
                                              TolerationOperator::kExists, "",
                                              TaintEffect::kNoSchedule, std::nullopt});
  CHECK(check_node_schedulable(pod, node, nullptr));
}

TEST_CASE("effective requests: max of init containers vs sum of containers, plus overhead",
          "[predicates][resources]") {
  Pod pod = make_pod("p", 300, 100);
  Container second;
  second.requests.cpu_milli = 200;
  second.requests.memory = 100;
  second.requests.set("nvidia.com/gpu", 1);
  pod.containers.edit().push_back(second);
  Container init;
  init.requests.cpu_milli = 1000;  // init peak above the sum of cpu
  init.requests.memory = 50;
  pod.init_containers.push_back(init);
  pod.overhead.cpu_milli = 10;
  pod.overhead.memory = 5;
  ResourceList r = effective_requests(pod);
  CHECK(r.cpu_milli == 1010);
  CHECK(r.memory == 205);
  CHECK(r.get("nvidia.com/gpu") == 1);
  CHECK(r.pods == 1);

  // A restartable init container (sidecar) adds to the app containers and later inits.
  Container sidecar;
  sidecar.restart_always = true;
  sidecar.requests.cpu_milli = 100;
  sidecar.requests.memory = 1000;
  pod.init_containers.insert(pod.init_containers.begin(), sidecar);
  r = effective_requests(pod);
  CHECK(r.cpu_milli == 1110);  // init peak: sidecar 100 + init 1000, plus overhead
  CHECK(r.memory == 1205);     // containers 200 + sidecar 1000 + overhead 5
}

TEST_CASE("resources fit allocatable minus requested minus reserved", "[predicates][resources]") {
  Node node = make_node("n", 4000, 8LL << 30, 3);
  node.allocatable.set("nvidia.com/gpu", 2);
  ResourceList requested;
  requested.cpu_milli = 3000;
  requested.memory = 4LL << 30;
  requested.pods = 1;
  requested.set("nvidia.com/gpu", 1);
  ResourceList reserved;
  NodeLoad load{&requested, &reserved};
  ResourceList pod;
  pod.cpu_milli = 1000;
  pod.memory = 4LL << 30;
  pod.pods = 1;
  pod.set("nvidia.com/gpu", 1);
  CHECK(check_resources(pod, node, load, GpuStack::kNone, nullptr));

  reserved.cpu_milli = 1;
  Reasons reasons;
  CHECK_FALSE(check_resources(pod, node, load, GpuStack::kNone, &reasons));
  REQUIRE(reasons.size() == 1);
  CHECK(reasons[0].reason ==
        "insufficient cpu: pod requests 1, node has 999m free of 4 allocatable (1m reserved by "
        "this plan)");

  reserved = ResourceList{};
  reserved.set("nvidia.com/gpu", 1);
  reserved.pods = 2;
  reasons.clear();
  CHECK_FALSE(check_resources(pod, node, load, GpuStack::kNone, &reasons));
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0].reason == "too many pods: node allows 3, has 3");
  CHECK(reasons[1].reason ==
        "insufficient nvidia.com/gpu: pod requests 1, node has 0 free of 2 allocatable (1 "
        "reserved by this plan)");

  // An extended resource the node does not have at all.
  ResourceList wants_metax;
  wants_metax.pods = 1;
  wants_metax.set("metax-tech.com/gpu", 1);
  reasons.clear();
  CHECK_FALSE(check_resources(wants_metax, node, NodeLoad{}, GpuStack::kNone, &reasons));
  CHECK(reasons.at(0).reason ==
        "insufficient metax-tech.com/gpu: pod requests 1, node has 0 free of 0 allocatable");

  // Extender-managed resources are skipped as kube-scheduler skips them.
  ResourceList hami;
  hami.pods = 1;
  hami.set("nvidia.com/gpumem", 4096);
  hami.set("nvidia.com/gpucores", 30);
  CHECK(check_resources(hami, node, NodeLoad{}, GpuStack::kHamiNvidia, nullptr));

  // Zero requests check only the pod count.
  ResourceList nothing;
  nothing.pods = 1;
  Node full = make_node("full", 0, 0, 1);
  CHECK(check_resources(nothing, full, NodeLoad{}, GpuStack::kNone, nullptr));
}

TEST_CASE("host ports and inter-pod affinity", "[predicates]") {
  Pod pod = make_pod("p");
  pod.host_ports = {8080, 9090};
  std::vector<int32_t> used = {22, 9090};
  Reasons reasons;
  CHECK_FALSE(check_host_ports(pod, used, &reasons));
  CHECK(reasons.at(0).reason == "host port 9090 already in use");
  used = {22};
  CHECK(check_host_ports(pod, used, nullptr));

}

TEST_CASE("failing checks allocate nothing when no reasons are asked for",
          "[predicates][hot-path]") {
  // Placer::feasible runs these millions of times a second, mostly on pairs that fail: a reason
  // string built before `out` is looked at (longer than the small-string buffer) would allocate.
  if (!LOADSHIFT_COUNT_ALLOCATIONS) {
    WARN("allocations are not counted under AddressSanitizer");
    return;
  }
  Node node = make_node("node-with-a-long-name", 1000, 1 << 30, 1);
  node.taints = {taint("dedicated", "a-rather-long-taint-value", TaintEffect::kNoSchedule)};
  Node cordoned = node, not_ready = node, deleting = node, no_condition = node;
  cordoned.unschedulable = true;
  not_ready.conditions[0].status = "Unknown";
  deleting.meta.deleting = true;
  no_condition.conditions.clear();
  Pod pod = make_pod("p", 2000);
  pod.node_selector.set("disk", "ssd-with-a-long-name");
  pod.host_ports = {8080};
  ResourceList requested;
  requested.pods = 1;
  const std::vector<int32_t> used = {8080};
  const ResourceList wants = effective_requests(pod);
  check_node_schedulable(pod, cordoned, nullptr);  // builds the function's static taint once

  g_allocations = 0;
  g_counting = true;
  bool passed =
      check_node_ready(not_ready, nullptr) || check_node_ready(deleting, nullptr) ||
      check_node_ready(no_condition, nullptr) || check_node_schedulable(pod, cordoned, nullptr) ||
      check_taints(pod, node, nullptr) || check_node_selector(pod, node, nullptr) ||
      check_resources(wants, node, NodeLoad{&requested, nullptr}, GpuStack::kNone, nullptr) ||
      check_host_ports(pod, used, nullptr);
  g_counting = false;
  CHECK_FALSE(passed);
  CHECK(g_allocations == 0);

  // The same through the Placer, for a pod alone in its constraint class (no memo row).
  Snapshot snapshot;
  snapshot.nodes = {make_node("home"), cordoned, node, not_ready};
  Pod mover = make_pod("mover", 100, 1 << 20, "home");
  mover.host_ports = {8080};
  snapshot.pods.push_back(mover);
  ClusterIndex index(snapshot);
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size());
  REQUIRE(index.memo_rows() == 0);
  g_allocations = 0;
  g_counting = true;
  bool any = false;
  for (int round = 0; round < 10; ++round) {
    for (NodeId n = 0; n < snapshot.nodes.size(); ++n) any = placer.feasible(0, n, ledger) || any;
  }
  g_counting = false;
  CHECK_FALSE(any);
  CHECK(g_allocations == 0);

  // And with the rules of issue 10 at work: a pod with a zoned, node-pinned CSI volume, refused
  // by an existing pod's anti-affinity, by its volume's node affinity and by a full CSI node.
  Snapshot storage;
  storage.nodes = {make_node("home"), make_node("guarded"), make_node("full"),
                   make_node("elsewhere")};
  for (Node& n : storage.nodes) n.meta.labels.set("topology.kubernetes.io/zone", "a");
  Pod guard = make_pod("guard", 100, 1 << 20, "guarded");
  PodAffinityTerm term;
  term.label_selector = LabelSelector{};
  term.label_selector->match_labels.set("app", "a-rather-long-application-name");
  term.topology_key = "kubernetes.io/hostname";
  guard.pod_anti_affinity.required.push_back(term);
  Pod moving = make_pod("moving", 100, 1 << 20, "home");
  moving.meta.labels.set("app", "a-rather-long-application-name");
  Pod filler = make_pod("filler", 100, 1 << 20, "full");
  for (Pod* p : {&moving, &filler}) {
    Volume v;
    v.name = "data";
    v.kind = kVolumePersistentClaim;
    v.claim_name = p->meta.name + "-claim-with-a-long-name";
    p->volumes.push_back(v);
    PersistentVolumeClaim& claim = storage.persistent_volume_claims.emplace_back();
    claim.meta.namespace_ = "default";
    claim.meta.name = v.claim_name;
    claim.volume_name = "pv-" + p->meta.name;
    claim.phase = "Bound";
    claim.meta.annotations.set("pv.kubernetes.io/bind-completed", "yes");
    PersistentVolume& pv = storage.persistent_volumes.emplace_back();
    pv.meta.name = claim.volume_name;
    pv.meta.labels.set("topology.kubernetes.io/zone", "a");
    pv.csi_driver = "ebs.csi.aws.com";
    pv.csi_volume_handle = "vol-" + p->meta.name + "-with-a-long-handle";
  }
  NodeSelectorTerm not_elsewhere;
  not_elsewhere.match_expressions = {
      req("kubernetes.io/hostname", SelectorOperator::kNotIn, {"elsewhere"})};
  storage.persistent_volumes[0].node_affinity = std::vector<NodeSelectorTerm>{not_elsewhere};
  CsiNode csi;
  csi.meta.name = "full";
  csi.drivers.push_back(CsiNodeDriver{"ebs.csi.aws.com", 1});
  storage.csi_nodes.push_back(csi);
  storage.pods = {guard, moving, filler};
  ClusterIndex storage_index(storage);
  Placer storage_placer(storage_index);
  Ledger storage_ledger(storage.nodes.size());
  for (NodeId n = 1; n < 4; ++n) {
    REQUIRE(storage_placer.fits(1, n, storage_ledger).failures.size() == 1);
  }
  g_allocations = 0;
  g_counting = true;
  any = false;
  for (int round = 0; round < 10; ++round) {
    for (NodeId n = 0; n < storage.nodes.size(); ++n) {
      any = storage_placer.feasible(1, n, storage_ledger) || any;
    }
  }
  g_counting = false;
  CHECK_FALSE(any);
  CHECK(g_allocations == 0);
}

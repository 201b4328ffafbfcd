// Scenario tests: make_plan() on small clusters, with the exact plan expected — which pods leave,
// where they go, and why the others stay.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "placement/cluster_index.h"
#include "policy/loader.h"
#include "strategies/plan.h"
#include "test/model/builders.h"

using namespace loadshift::placement;

namespace {

using namespace loadshift;
using namespace loadshift::testing;

Pod owned_pod(const std::string& name, int64_t cpu_milli, const std::string& node,
              const std::string& owner = "web", const std::string& ns = "apps") {
  Pod pod = make_pod(name, cpu_milli, int64_t{1} << 30, node);
  pod.meta.namespace_ = ns;
  pod.owners.edit().push_back({"apps/v1", "ReplicaSet", owner, "uid-rs-" + owner, true});
  return pod;
}

policy::Policy load(const std::string& text) {
  policy::LoadResult result = policy::load_policy(text, "scenario.yaml");
  std::string errors;
  for (const auto& e : result.errors) errors += e.to_string() + "\n";
  INFO(errors);
  REQUIRE(result.ok());
  return *result.policy;
}

std::string load_aware_policy(const std::string& extra_args = "",
                              const std::string& top_level = "",
                              const std::string& evictor = "priorityThreshold: {value: 10000}",
                              const std::string& metrics_extra = "") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top_level +
         "profiles:\n- name: balance\n  pluginConfig:\n  - name: DefaultEvictor\n    args: {" +
         evictor +
         "}\n  - name: LoadAware\n    args:\n      metrics: {type: Prometheus, address: "
         "\"http://prometheus:9090\"" + metrics_extra + "}\n      thresholds: {cpu: 30, memory: 30}\n"
         "      targetThresholds: {cpu: 80, memory: 85}\n" +
         extra_args + "  plugins:\n    balance: {enabled: [LoadAware]}\n";
}

metrics::UsageMap usage_of(std::vector<std::pair<std::string, std::pair<double, double>>> nodes,
                           std::vector<std::pair<std::string, std::string>> unknown = {}) {
  metrics::UsageMap usage;
  for (const auto& [name, cpu_memory] : nodes) {
    metrics::NodeUsage u;
    u.cpu.percent = cpu_memory.first;
    u.memory.percent = cpu_memory.second;
    usage.nodes[name] = u;
  }
  for (const auto& [name, why] : unknown) usage.unknown[name] = why;
  return usage;
}

struct Outcome {
  strategies::Plan plan;
  std::vector<std::string> moves;  // "pod->target" in plan order
  std::string skip_reason(const Snapshot& snapshot, const std::string& pod) const {
    for (const auto& s : plan.skipped) {
      if (snapshot.pods[s.pod].meta.name == pod) return s.reason;
    }
    return "";
  }
};

Outcome run(const Snapshot& snapshot, const metrics::UsageMap& usage,
            const policy::Policy& policy) {
  placement::ClusterIndex index(snapshot, strategies::placement_options(policy));
  Outcome out;
  out.plan = strategies::make_plan(index, usage, policy);
  for (const auto& e : out.plan.evictions) {
    std::string target =
        e.target == placement::kNoNode ? "-" : snapshot.nodes[e.target].meta.name;
    out.moves.push_back(snapshot.pods[e.pod].meta.name + "->" + target);
  }
  return out;
}

// Three plain nodes: hot (cpu 92%), one idle, one in between.
Snapshot three_nodes() {
  Snapshot s;
  s.nodes = {make_node("hot"), make_node("idle"), make_node("busy")};
  return s;
}

}  // namespace

TEST_CASE("every plugin the policy can enable has a strategy") {
  for (const char* plugin : {"LoadAware", "LowNodeUtilization", "HighNodeUtilization",
                             "RemovePodsViolatingNodeAffinity", "RemovePodsViolatingNodeTaints"}) {
    CHECK(strategies::has_strategy(plugin));
  }
  CHECK_FALSE(strategies::has_strategy("DefaultEvictor"));
}

TEST_CASE("a hot node sheds one right-sized pod to the idle node and stops under target") {
  Snapshot s = three_nodes();
  // 32 cores per node: 4 cores = 12.5%. The hot node at 92% needs > 12% to go under 80%.
  s.pods = {owned_pod("small-1", 1000, "hot"), owned_pod("small-2", 1000, "hot"),
            owned_pod("right", 4000, "hot"), owned_pod("huge", 16000, "hot")};
  auto usage = usage_of({{"hot", {92, 40}}, {"idle", {10, 10}}, {"busy", {60, 50}}});
  Outcome out = run(s, usage, load(load_aware_policy()));
  CHECK(out.moves == std::vector<std::string>{"right->idle"});
  REQUIRE(out.plan.evictions.size() == 1);
  CHECK(out.plan.evictions[0].strategy == "LoadAware");
  CHECK(out.plan.evictions[0].reason.find("hot cpu 92.0% > 80%") != std::string::npos);
  CHECK(out.plan.nodes[0].node_class == strategies::NodeClass::kOverutilized);
  CHECK(out.plan.nodes[1].node_class == strategies::NodeClass::kUnderutilized);
  CHECK(out.plan.nodes[2].node_class == strategies::NodeClass::kAppropriate);
  REQUIRE(out.plan.nodes[0].cpu_after.has_value());
  CHECK(*out.plan.nodes[0].cpu_after == Approx(92 - 12.5));
  REQUIRE(out.plan.nodes[1].cpu_after.has_value());
  CHECK(*out.plan.nodes[1].cpu_after == Approx(10 + 12.5));
}

TEST_CASE("no eviction without a target that stays under its own targetThresholds") {
  Snapshot s = three_nodes();
  s.pods = {owned_pod("big", 24000, "hot")};  // 75% of a node: idle would reach 85% > 80%
  auto usage = usage_of({{"hot", {95, 40}}, {"idle", {10, 10}}, {"busy", {60, 50}}});
  Outcome out = run(s, usage, load(load_aware_policy()));
  CHECK(out.moves.empty());
  CHECK(out.skip_reason(s, "big").rfind("no target", 0) == 0);
  // The plan says the node stays hot, rather than looking like a relieved node.
  bool still_hot = std::any_of(out.plan.notes.begin(), out.plan.notes.end(), [](const std::string& n) {
    return n.find("hot cpu 95.0% > 80% after the plan") != std::string::npos;
  });
  CHECK(still_hot);
}

TEST_CASE("nodes without usage data are never sources nor targets") {
  Snapshot s;
  s.nodes = {make_node("hot"), make_node("dark"), make_node("idle")};
  s.pods = {owned_pod("a", 4000, "hot"), owned_pod("b", 4000, "dark")};
  auto usage = usage_of({{"hot", {92, 40}}, {"idle", {10, 10}}}, {{"dark", "no cpu series"}});
  // Coverage 2/3 is below minNodeCoverage 90%: nothing at all.
  Outcome below = run(s, usage,
                      load(load_aware_policy("", "", "priorityThreshold: {value: 10000}",
                                             ", minNodeCoverage: 90")));
  CHECK(below.moves.empty());
  REQUIRE_FALSE(below.plan.notes.empty());
  CHECK(below.plan.nodes[1].node_class == strategies::NodeClass::kUnknown);
  bool said_coverage = std::any_of(below.plan.notes.begin(), below.plan.notes.end(),
                                   [](const std::string& n) { return n.find("minNodeCoverage") != std::string::npos; });
  CHECK(said_coverage);

  // With the bar lowered, the hot node is relieved, to the known idle node only.
  Outcome lowered = run(s, usage,
                        load(load_aware_policy("", "", "priorityThreshold: {value: 10000}",
                                               ", minNodeCoverage: 50")));
  CHECK(lowered.moves == std::vector<std::string>{"a->idle"});
  // Without minNodeCoverage one node of three may lack data (max(1, 10%)).
  CHECK(run(s, usage, load(load_aware_policy())).moves == std::vector<std::string>{"a->idle"});
}

TEST_CASE("pods at or above priorityThreshold stay, with the reason") {
  Snapshot s = three_nodes();
  s.pods = {owned_pod("important", 4000, "hot"), owned_pod("cheap", 4000, "hot")};
  s.pods[0].priority = 100000;
  s.pods[1].priority = 1000;
  auto usage = usage_of({{"hot", {92, 40}}, {"idle", {10, 10}}, {"busy", {60, 50}}});
  Outcome out = run(s, usage, load(load_aware_policy()));
  CHECK(out.moves == std::vector<std::string>{"cheap->idle"});
  CHECK(out.skip_reason(s, "important").find("priority") != std::string::npos);
}

TEST_CASE("podProtections PodsWithoutPDB keeps pods no budget covers") {
  Snapshot s = three_nodes();
  s.pods = {owned_pod("covered", 4000, "hot", "api"), owned_pod("bare-budget", 4000, "hot", "web")};
  s.pods[0].meta.labels.set("app", "api");
  PodDisruptionBudget pdb;
  pdb.meta.namespace_ = "apps";
  pdb.meta.name = "api";
  LabelSelector selector;
  selector.match_labels.set("app", "api");
  pdb.selector = selector;
  pdb.disruptions_allowed = 1;
  s.pdbs.push_back(pdb);
  auto usage = usage_of({{"hot", {92, 40}}, {"idle", {10, 10}}, {"busy", {60, 50}}});
  Outcome out = run(s, usage,
                    load(load_aware_policy("", "",
                                           "priorityThreshold: {value: 10000}, podProtections: "
                                           "{extraEnabled: [PodsWithoutPDB]}")));
  CHECK(out.moves == std::vector<std::string>{"covered->idle"});
  CHECK(out.skip_reason(s, "bare-budget").find("PodDisruptionBudget") != std::string::npos);
}

TEST_CASE("limits: per node, per namespace and in total, shared by the policy") {
  Snapshot s;
  s.nodes = {make_node("hot-1"), make_node("hot-2"), make_node("idle-1"), make_node("idle-2"),
             make_node("idle-3")};
  // Each hot node needs two 4-core pods gone (96% -> 83.5% -> 71%).
  for (const char* node : {"hot-1", "hot-2"}) {
    for (int i = 0; i < 3; ++i) {
      s.pods.push_back(owned_pod(std::string(node) + "-p" + std::to_string(i), 4000, node,
                                 std::string(node) + "-rs" + std::to_string(i)));
    }
  }
  auto usage = usage_of({{"hot-1", {96, 40}}, {"hot-2", {96, 40}}, {"idle-1", {5, 5}},
                         {"idle-2", {5, 5}}, {"idle-3", {5, 5}}});
  SECTION("no limit: two from each hot node") {
    Outcome out = run(s, usage, load(load_aware_policy()));
    CHECK(out.moves.size() == 4);
  }
  SECTION("maxNoOfPodsToEvictPerNode: 1") {
    Outcome out = run(s, usage, load(load_aware_policy("", "maxNoOfPodsToEvictPerNode: 1\n")));
    CHECK(out.moves.size() == 2);
  }
  SECTION("maxNoOfPodsToEvictPerNamespace: 3") {
    Outcome out =
        run(s, usage, load(load_aware_policy("", "maxNoOfPodsToEvictPerNamespace: 3\n")));
    CHECK(out.moves.size() == 3);
  }
  SECTION("maxNoOfPodsToEvictTotal: 1") {
    Outcome out = run(s, usage, load(load_aware_policy("", "maxNoOfPodsToEvictTotal: 1\n")));
    CHECK(out.moves.size() == 1);
  }
  SECTION("LoadAware evictionLimits.node: 1") {
    Outcome out = run(s, usage, load(load_aware_policy("      evictionLimits: {node: 1}\n")));
    CHECK(out.moves.size() == 2);
  }
}

TEST_CASE("GPU product mismatch: a GPU pod allowed to move still needs a node of its card") {
  Snapshot s;
  s.nodes = {pool_node("h20-hot", "training", "NVIDIA-H20"),
             pool_node("a100-idle", "training", "NVIDIA-A100")};
  Pod pod = owned_pod("trainer", 4000, "h20-hot");
  seed_pool_rules(pod, "training");
  pod.containers.edit()[0].requests.set("nvidia.com/gpu", 1);
  pod.containers.edit()[0].limits.set("nvidia.com/gpu", 1);
  s.pods = {pod};
  auto usage = usage_of({{"h20-hot", {92, 40}}, {"a100-idle", {5, 5}}});
  SECTION("GPU pods stay by default") {
    Outcome out = run(s, usage, load(load_aware_policy()));
    CHECK(out.moves.empty());
    CHECK(out.skip_reason(s, "trainer").find("GPU pod") != std::string::npos);
  }
  SECTION("with gpu.evictGpuPods the card's taint still rules the A100 node out") {
    Outcome out = run(s, usage, load(load_aware_policy("      gpu: {evictGpuPods: true}\n")));
    CHECK(out.moves.empty());
    CHECK(out.skip_reason(s, "trainer").rfind("no target", 0) == 0);
  }
}

TEST_CASE("the same input gives the same plan") {
  Snapshot s = three_nodes();
  for (int i = 0; i < 8; ++i) {
    s.pods.push_back(owned_pod("p" + std::to_string(i), 1000 + 500 * i, "hot",
                               "rs" + std::to_string(i % 3)));
  }
  auto usage = usage_of({{"hot", {99, 40}}, {"idle", {10, 10}}, {"busy", {20, 20}}});
  policy::Policy policy = load(load_aware_policy());
  Outcome a = run(s, usage, policy);
  Outcome b = run(s, usage, policy);
  CHECK_FALSE(a.moves.empty());
  CHECK(a.moves == b.moves);
}

TEST_CASE("a hard tier-1 Volcano job only moves inside its rack, one pod per cycle") {
  Snapshot s;
  s.nodes = {make_node("hot"), make_node("a-idle"), make_node("b-idle")};
  auto rack = [](const std::string& name, std::vector<std::string> nodes) {
    HyperNode h;
    h.meta.name = name;
    h.tier = 1;
    for (const std::string& node : nodes) h.members.push_back({HyperNodeMemberType::kNode, node, "", std::nullopt});
    return h;
  };
  HyperNode spine;
  spine.meta.name = "spine";
  spine.tier = 2;
  spine.members = {{HyperNodeMemberType::kHyperNode, "rack-a", "", std::nullopt},
                   {HyperNodeMemberType::kHyperNode, "rack-b", "", std::nullopt}};
  s.hyper_nodes = {rack("rack-a", {"hot", "a-idle"}), rack("rack-b", {"b-idle"}), spine};
  PodGroup group;
  group.meta.namespace_ = "apps";
  group.meta.name = "train-pg";
  group.min_member = 2;
  group.network_topology = NetworkTopology{TopologyMode::kHard, 1, ""};
  s.pod_groups = {group};
  for (const char* name : {"w0", "w1", "w2"}) {
    Pod pod = owned_pod(name, 4000, "hot");
    pod.owners.edit()[0] = {"batch.volcano.sh/v1alpha1", "Job", "train", "uid-job-train", true};
    pod.meta.annotations.set("scheduling.k8s.io/group-name", "train-pg");
    s.pods.push_back(pod);
  }
  // b-idle is the emptier node, but outside the job's rack.
  auto usage = usage_of({{"hot", {99, 40}}, {"a-idle", {25, 20}}, {"b-idle", {2, 2}}});
  Outcome out = run(s, usage, load(load_aware_policy()));
  REQUIRE(out.moves.size() == 1);
  CHECK(out.moves[0].substr(out.moves[0].find("->")) == "->a-idle");
  // The other two stay: the job may lose only one pod this cycle.
  size_t job_limited = 0;
  for (const auto& skipped : out.plan.skipped) {
    job_limited += skipped.reason.find("job") != std::string::npos;
  }
  CHECK(job_limited >= 1);
}

TEST_CASE("return home: a pod pushed onto a hybrid node goes back to its own pool") {
  Snapshot s;
  s.nodes = {pool_node("inf-1", "inference"), pool_node("hyb-1", "hybrid")};
  Pod pod = owned_pod("svc", 2000, "hyb-1");
  seed_pool_rules(pod, "inference");
  Pod home = owned_pod("svc-home", 2000, "inf-1", "svc2");
  seed_pool_rules(home, "inference");
  s.pods = {pod, home};
  const std::string policy_text = R"(
apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: pools
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true, priorityThreshold: {value: 10000}}
  - name: RemovePodsViolatingNodeAffinity
    args: {nodeAffinityType: [preferredDuringSchedulingIgnoredDuringExecution]}
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeAffinity]}
)";
  auto usage = usage_of({{"inf-1", {20, 20}}, {"hyb-1", {50, 50}}});
  Outcome out = run(s, usage, load(policy_text));
  // svc moves home; svc-home is already on its best node and never moves (no loop).
  CHECK(out.moves == std::vector<std::string>{"svc->inf-1"});
  REQUIRE(out.plan.evictions.size() == 1);
  CHECK(out.plan.evictions[0].strategy == "RemovePodsViolatingNodeAffinity");
  // The predicted usage counts deschedule moves too: 2 of 32 cores = 6.25%.
  REQUIRE(out.plan.nodes[0].cpu_after.has_value());
  CHECK(*out.plan.nodes[0].cpu_after == Approx(26.25));
  REQUIRE(out.plan.nodes[1].cpu_after.has_value());
  CHECK(*out.plan.nodes[1].cpu_after == Approx(43.75));
}

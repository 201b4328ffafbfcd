// PlanContext: the node table and scope, pod load, every limit, the Volcano gang limits, and the
// bookkeeping of evictions and skips.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "strategies/plan_context.h"
#include "test/strategies/plan_fixture.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using strategies::PlanContext;
using strategies::Skip;
using strategies::SkipCode;

// n1, n2 (training), n3 (inference); pods a, b on n1 (ReplicaSet web), c on n1 (ReplicaSet api,
// namespace batch), d on n2 (ReplicaSet web).
struct Cluster : PlanFixture {
  Cluster() {
    snapshot.nodes = {make_node("n1"), pool_node("n2", "training"), pool_node("n3", "inference")};
    snapshot.pods = {owned_pod("a", "n1"), owned_pod("b", "n1"),
                     owned_pod("c", "n1", 500, "api", "batch"), owned_pod("d", "n2")};
    usage = usage_of({{"n1", {92, 40}}, {"n2", {20, 30}}}, {{"n3", "no cpu series"}});
    build();
  }
  void evict(const std::string& pod, const std::string& target = "",
             const policy::EvictionLimits* limits = nullptr) {
    ctx().evict(this->pod(pod), target.empty() ? placement::kNoNode : node(target), "profile",
                "LoadAware", "because " + pod, limits);
  }
  std::string limit(const std::string& pod, const policy::EvictionLimits* limits = nullptr) {
    std::optional<Skip> r = ctx().limit_reason(this->pod(pod), limits);
    return r ? r->reason : "";
  }
  // The code of the limit that refuses `pod` (what the controller's metrics read).
  std::optional<SkipCode> limit_code(const std::string& pod,
                                     const policy::EvictionLimits* limits = nullptr) {
    std::optional<Skip> r = ctx().limit_reason(this->pod(pod), limits);
    return r ? std::optional<SkipCode>(r->code) : std::nullopt;
  }
};

}  // namespace

TEST_CASE("the node table: pools, usage, and why usage is unknown", "[plan_context]") {
  Cluster f;
  REQUIRE(f.plan.nodes.size() == 3);
  const strategies::NodeState& n1 = f.plan.nodes[0];
  CHECK(n1.node == 0);
  CHECK(n1.pool == "");
  CHECK(n1.cpu == 92.0);
  CHECK(n1.memory == 40.0);
  CHECK(n1.why == "");
  CHECK(n1.node_class == strategies::NodeClass::kUnknown);
  CHECK(f.plan.nodes[1].pool == "training");
  CHECK(f.plan.nodes[1].cpu == 20.0);
  CHECK(f.plan.nodes[2].pool == "inference");
  CHECK_FALSE(f.plan.nodes[2].cpu.has_value());
  CHECK(f.plan.nodes[2].why == "unknown: no cpu series");
  CHECK(f.ctx().node_usage(0)->cpu.percent == 92.0);
  CHECK(f.ctx().node_usage(2) == nullptr);

  f.usage.unknown.clear();
  f.build();
  CHECK(f.plan.nodes[2].why == "unknown: no usage data for this node");

  SECTION("the pool label is the index's") {
    f.placement.pool_label = "example.com/pool";
    f.snapshot.nodes[0].meta.labels.set("example.com/pool", "edge");
    f.build();
    CHECK(f.plan.nodes[0].pool == "edge");
    CHECK(f.plan.nodes[1].pool == "");
  }
}

TEST_CASE("scope: Ready, not deleting, matching the policy nodeSelector", "[plan_context]") {
  Cluster f;
  CHECK(f.ctx().in_scope(0));
  CHECK(f.ctx().in_scope(1));
  CHECK(f.ctx().in_scope(2));

  f.snapshot.nodes[0].conditions = {{"Ready", "False", "KubeletNotReady"}};
  f.snapshot.nodes[1].meta.deleting = true;
  f.build();
  CHECK_FALSE(f.ctx().in_scope(0));
  CHECK_FALSE(f.ctx().in_scope(1));
  CHECK(f.ctx().in_scope(2));

  f.snapshot.nodes[0].conditions.clear();  // no Ready condition at all
  f.snapshot.nodes[1].meta.deleting = false;
  f.policy.node_selector = "maip.mxsf.io/node.usage in (training)";
  f.build();
  CHECK_FALSE(f.ctx().in_scope(0));
  CHECK(f.ctx().in_scope(1));
  CHECK_FALSE(f.ctx().in_scope(2));
  CHECK(f.plan.notes.empty());

  f.policy.node_selector = "a in (b";
  f.build();
  CHECK_FALSE(f.ctx().in_scope(1));
  REQUIRE(f.plan.notes.size() == 1);
  CHECK(f.plan.notes[0].rfind("policy nodeSelector \"a in (b\" cannot be parsed (cannot parse "
                              "requirement",
                              0) == 0);
  CHECK(f.plan.notes[0].find("no node is in scope") != std::string::npos);
}

TEST_CASE("matches_selector parses each string once and refuses bad ones", "[plan_context]") {
  Cluster f;
  CHECK(f.ctx().matches_selector(0, ""));
  CHECK(f.ctx().matches_selector(1, "maip.mxsf.io/node.usage=training"));
  CHECK_FALSE(f.ctx().matches_selector(2, "maip.mxsf.io/node.usage=training"));
  CHECK(f.ctx().matches_selector(0, "!maip.mxsf.io/node.usage"));
  CHECK_FALSE(f.ctx().matches_selector(0, "a b"));
  CHECK_FALSE(f.ctx().matches_selector(1, "a b"));
  REQUIRE(f.plan.notes.size() == 1);  // one note per bad string
  CHECK(f.plan.notes[0] ==
        "node selector \"a b\" cannot be parsed (cannot parse requirement \"a b\" (expected key, "
        "!key, key=value, key!=value, key in (a,b) or key notin (a,b))); it matches no node");
}

TEST_CASE("pod load: measured usage when known, else requests", "[plan_context]") {
  Cluster f;
  f.usage.pods["apps/a"] = metrics::PodUsage{1500, 2e9};
  f.build();
  strategies::PodLoad a = f.ctx().pod_load(f.pod("a"));
  CHECK(a.measured);
  CHECK(a.cpu_milli == 1500);
  CHECK(a.memory_bytes == 2e9);
  strategies::PodLoad b = f.ctx().pod_load(f.pod("b"));
  CHECK_FALSE(b.measured);
  CHECK(b.cpu_milli == 500);
  CHECK(b.memory_bytes == static_cast<double>(int64_t{1} << 30));
}

TEST_CASE("evict records the decision, the reservation and the counters", "[plan_context]") {
  Cluster f;
  f.evict("a", "n2");
  REQUIRE(f.plan.evictions.size() == 1);
  const strategies::EvictionDecision& d = f.plan.evictions[0];
  CHECK(d.pod == f.pod("a"));
  CHECK(d.node == f.node("n1"));
  CHECK(d.target == f.node("n2"));
  CHECK(d.profile == "profile");
  CHECK(d.strategy == "LoadAware");
  CHECK(d.reason == "because a");
  CHECK(f.ctx().planned(f.pod("a")));
  CHECK(f.ctx().ledger().planned_node(f.pod("a")) == f.node("n2"));
  CHECK(f.ctx().ledger().reserved(f.node("n2")).cpu_milli == 500);
  CHECK(f.limit("a") == "already planned by LoadAware");

  f.evict("b");  // a deschedule plugin without nodeFit: no target, no reservation
  CHECK(f.ctx().planned(f.pod("b")));
  CHECK(f.ctx().ledger().planned_node(f.pod("b")) == placement::kNoNode);
  CHECK(f.ctx().ledger().moves().size() == 1);
  CHECK(f.limit("b") == "already planned by LoadAware");
  CHECK(f.limit("c") == "");
}

TEST_CASE("skips: first reason wins, eviction removes them, evicted pods are not skipped",
          "[plan_context]") {
  Cluster f;
  PlanContext& ctx = f.ctx();
  ctx.skip(f.pod("a"), "LoadAware", SkipCode::kNoTarget, "no target: none fits");
  ctx.skip(f.pod("b"), "LoadAware", SkipCode::kNotEvictable,
           "priority at or above threshold: 1 >= 0");
  ctx.skip(f.pod("a"), "RemovePodsViolatingNodeTaints", SkipCode::kNoTarget, "second reason");
  ctx.skip(f.pod("c"), "LoadAware", SkipCode::kNotEvictable, "c stays");
  REQUIRE(f.plan.skipped.size() == 3);
  CHECK(f.skip_reason("a") == "no target: none fits");
  CHECK(f.plan.skipped[0].code == SkipCode::kNoTarget);  // the first code wins with its reason
  CHECK(f.plan.skipped[0].strategy == "LoadAware");
  CHECK(f.plan.skipped[0].node == f.node("n1"));

  f.evict("b", "n2");
  REQUIRE(f.plan.skipped.size() == 2);
  CHECK(f.skip_reason("b") == "");
  CHECK(f.skip_reason("a") == "no target: none fits");
  CHECK(f.skip_reason("c") == "c stays");
  // The entries behind the removed one are still found after the shift.
  f.evict("c", "n2");
  REQUIRE(f.plan.skipped.size() == 1);
  CHECK(f.skip_reason("a") == "no target: none fits");
  ctx.skip(f.pod("b"), "RemovePodsViolatingNodeAffinity", SkipCode::kAlreadyPlanned,
           "already planned by LoadAware");
  CHECK(f.plan.skipped.size() == 1);
  f.evict("a", "n2");
  CHECK(f.plan.skipped.empty());
  CHECK(f.plan.evictions.size() == 3);
}

TEST_CASE("policy limits: total, per node, per namespace", "[plan_context][limits]") {
  SECTION("total") {
    Cluster f;
    f.policy.max_pods_to_evict_total = 1;
    f.build();
    CHECK(f.limit("a") == "");
    f.evict("a", "n2");
    CHECK(f.limit("d") == "total eviction limit reached: 1 of 1 (maxNoOfPodsToEvictTotal)");
    CHECK(f.limit_code("d") == SkipCode::kTotalLimit);
    CHECK(f.limit_code("a") == SkipCode::kAlreadyPlanned);
  }
  SECTION("per node") {
    Cluster f;
    f.policy.max_pods_to_evict_per_node = 1;
    f.build();
    f.evict("a", "n2");
    CHECK(f.limit("b") ==
          "node eviction limit reached: 1 of 1 from n1 (maxNoOfPodsToEvictPerNode)");
    CHECK(f.limit_code("b") == SkipCode::kNodeLimit);
    CHECK(f.limit("d") == "");
    CHECK(f.limit_code("d") == std::nullopt);
  }
  SECTION("per namespace") {
    Cluster f;
    f.policy.max_pods_to_evict_per_namespace = 1;
    f.build();
    f.evict("a", "n2");
    CHECK(f.limit("d") ==
          "namespace eviction limit reached: 1 of 1 in apps (maxNoOfPodsToEvictPerNamespace)");
    CHECK(f.limit_code("d") == SkipCode::kNamespaceLimit);
    CHECK(f.limit("c") == "");
  }
  SECTION("evicting past a limit is a plugin bug") {
    Cluster f;
    f.policy.max_pods_to_evict_total = 0;
    f.build();
    CHECK_THROWS_AS(f.evict("a", "n2"), std::logic_error);
    CHECK(f.plan.evictions.empty());
  }
}

TEST_CASE("plugin limits: node, namespace, workload", "[plan_context][limits]") {
  Cluster f;
  policy::EvictionLimits node_limit;
  node_limit.node = 2;
  policy::EvictionLimits namespace_limit;
  namespace_limit.namespace_ = 1;
  policy::EvictionLimits workload_limit;
  workload_limit.workload = 1;

  f.evict("a", "n2", &node_limit);
  CHECK(f.limit("b", &node_limit) == "");
  CHECK(f.limit("d", &namespace_limit) ==
        "namespace eviction limit reached: 1 of 1 in apps (evictionLimits.namespace)");
  CHECK(f.limit("c", &namespace_limit) == "");
  CHECK(f.limit("b", &workload_limit) ==
        "workload eviction limit reached: 1 of 1 from apps/ReplicaSet/web "
        "(evictionLimits.workload)");
  CHECK(f.limit("d", &workload_limit) ==
        "workload eviction limit reached: 1 of 1 from apps/ReplicaSet/web "
        "(evictionLimits.workload)");
  CHECK(f.limit("c", &workload_limit) == "");  // another workload
  CHECK(f.limit_code("d", &namespace_limit) == SkipCode::kNamespaceLimit);
  CHECK(f.limit_code("b", &workload_limit) == SkipCode::kWorkloadLimit);
  f.evict("c", "n2");
  CHECK(f.limit("b", &node_limit) ==
        "node eviction limit reached: 2 of 2 from n1 (evictionLimits.node)");
  CHECK(f.limit_code("b", &node_limit) == SkipCode::kNodeLimit);
  CHECK(f.limit("d", &node_limit) == "");
  CHECK(f.limit("b") == "");  // without the plugin's limits
}

TEST_CASE("Volcano jobs: one pod per cycle, never below minAvailable",
          "[plan_context][limits][gang]") {
  PlanFixture f;
  f.snapshot.nodes = {make_node("n1"), make_node("n2"), make_node("n3")};
  f.snapshot.pods = {gang_pod("w0", "n1", "train"), gang_pod("w1", "n1", "train"),
                     gang_pod("w2", "n2", "train"), gang_pod("w3", "", "train"),
                     gang_pod("s0", "n1", "serve"), gang_pod("s1", "n2", "serve")};
  f.snapshot.jobs = {volcano_job("train", 2), volcano_job("serve", 2)};
  f.snapshot.pod_groups = {volcano_pod_group("train", 2), volcano_pod_group("serve", 2)};
  f.build();
  REQUIRE(f.index->gangs().jobs().size() == 2);
  auto limit = [&f](const std::string& pod) {
    std::optional<Skip> r = f.ctx().limit_reason(f.pod(pod), nullptr);
    return r ? r->reason : "";
  };

  // train: 3 running (w3 is pending), minAvailable 2: one may go.
  CHECK(limit("w0") == "");
  CHECK(limit("s0") ==
        "Volcano job at minAvailable: job default/serve has 2 running pods, minAvailable 2; "
        "evicting would leave 1");
  f.ctx().evict(f.pod("w0"), f.node("n3"), "p", "LoadAware", "hot", nullptr);
  CHECK(limit("w1") ==
        "Volcano job already disrupted this cycle: job default/train has 1 pod(s) planned for "
        "eviction (at most one per cycle)");
  CHECK(limit("w3") ==
        "Volcano job already disrupted this cycle: job default/train has 1 pod(s) planned for "
        "eviction (at most one per cycle)");

  SECTION("pods being deleted or terminated do not count as running") {
    f.snapshot.pod_groups[0].min_member = 3;
    f.snapshot.pods[2].meta.deleting = true;
    f.build();
    REQUIRE(f.index->gangs().job(f.index->gangs().job_of(f.pod("w0"))).min_available == 3);
    CHECK(limit("w0") ==
          "Volcano job at minAvailable: job default/train has 2 running pods, minAvailable 3; "
          "evicting would leave 1");
    CHECK(limit("w3") == "");  // a pending pod leaves the running count as it is
  }
}

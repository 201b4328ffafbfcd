// LoadAware on small clusters, run directly over a PlanContext: the exact plan, the node classes
// and the reasons. Nodes are 32 cores / 128 GiB: a 1-core pod is 3.125% cpu.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "test/strategies/balance_harness.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using strategies::NodeClass;
using Moves = std::vector<std::string>;

Pod training_pod(const std::string& name, const std::string& node, int64_t cpu_milli) {
  Pod pod = owned_pod(name, node, cpu_milli, "rs-" + name);
  seed_pool_rules(pod, "training");
  return pod;
}

}  // namespace

TEST_CASE("LoadAware relieves a hot node to an underutilized node of its own pool") {
  BalanceRun r;
  r.f.snapshot.nodes = {pool_node("train-hot", "training"), pool_node("train-warm", "training"),
                        pool_node("inf-idle", "inference")};
  r.f.snapshot.pods = {training_pod("w-small", "train-hot", 1000),
                       training_pod("w-big", "train-hot", 8000)};
  r.f.usage = usage_of({{"train-hot", {92, 40}}, {"train-warm", {45, 20}}, {"inf-idle", {5, 5}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.node_pools = {{"training",
                      "maip.mxsf.io/node.usage=training",
                      {{"cpu", 50}, {"memory", 30}},
                      {{"cpu", 90}, {"memory", 85}}}};

  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"w-small->train-warm"});
  // The pool's watermarks: 45% is under the training pool's 50% (not under the plugin's 30%).
  CHECK(r.node_class("train-hot") == NodeClass::kOverutilized);
  CHECK(r.node("train-hot").why == "cpu 92.0% > 90%");
  CHECK(r.node("train-hot").thresholds == policy::Percentages{{"cpu", 50}, {"memory", 30}});
  CHECK(r.node("train-hot").target_thresholds == policy::Percentages{{"cpu", 90}, {"memory", 85}});
  CHECK(r.node("train-hot").classified_by == "LoadAware");
  CHECK(r.node_class("train-warm") == NodeClass::kUnderutilized);
  CHECK(r.node("train-warm").why == "cpu 45.0% <= 50%, memory 20.0% <= 30%");
  CHECK(r.node_class("inf-idle") == NodeClass::kUnderutilized);
  CHECK(r.node("inf-idle").target_thresholds == policy::Percentages{{"cpu", 80}, {"memory", 85}});
  // 1 core covers the 2-point excess; the smaller of the two covering pods goes.
  CHECK(r.reason(0) ==
        "train-hot cpu 92.0% > 90%: evict apps/w-small (est. 1 cpu from requests) -> train-warm "
        "(cpu 45.0% -> 48.1%)");
  CHECK(r.f.plan.evictions[0].strategy == "LoadAware");
  CHECK(r.f.plan.evictions[0].profile == "balance");
  CHECK(r.skip("w-big") ==
        "node relieved: train-hot is within its targetThresholds after the evictions planned");
  REQUIRE(r.node("train-hot").cpu_after.has_value());
  CHECK(*r.node("train-hot").cpu_after == Approx(92 - 3.125));
  REQUIRE(r.node("train-warm").cpu_after.has_value());
  CHECK(*r.node("train-warm").cpu_after == Approx(45 + 3.125));
  CHECK_FALSE(r.node("inf-idle").cpu_after.has_value());  // untouched
}

TEST_CASE("LoadAware keeps a pod without a target and says why") {
  BalanceRun r;
  Node tainted = make_node("idle");
  tainted.taints.push_back({"dedicated", "gpu", TaintEffect::kNoSchedule});
  r.f.snapshot.nodes = {make_node("hot"), tainted};
  r.f.snapshot.pods = {owned_pod("p", "hot", 4000)};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"idle", {5, 5}}});
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
  CHECK(r.skip("p") == "no target: taint dedicated=gpu:NoSchedule not tolerated on idle");
  CHECK_FALSE(r.node("hot").cpu_after.has_value());
}

TEST_CASE("LoadAware never pushes a target over its own targetThresholds") {
  BalanceRun r;
  // The target search alone: the scheduler model ties idle-1 and idle-2 (both empty), so with
  // landing prediction the pod would stay (landing_check_test.cc covers that).
  r.f.options.predict_landing = false;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle-1"), make_node("idle-2")};
  r.f.snapshot.pods = {owned_pod("big", "hot", 18000)};  // 56.25% of a node
  SECTION("the fuller underutilized node would pass 80%: the other one is used") {
    r.f.usage = usage_of({{"hot", {99, 40}}, {"idle-1", {25, 10}}, {"idle-2", {20, 10}}});
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"big->idle-2"});
    CHECK(*r.node("idle-2").cpu_after == Approx(76.25));
    CHECK(*r.node("idle-2").cpu_after <= 80);
  }
  SECTION("both would pass 80%: the pod stays") {
    r.f.usage = usage_of({{"hot", {99, 40}}, {"idle-1", {25, 10}}, {"idle-2", {28, 10}}});
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
    CHECK(r.skip("big") == "no target: cpu would exceed targetThresholds on idle-1, idle-2");
  }
  SECTION("moves planned earlier count on the target") {
    r.f.snapshot.nodes.push_back(make_node("other"));
    r.f.snapshot.pods.push_back(owned_pod("earlier", "other", 4000));
    r.f.usage = usage_of(
        {{"hot", {99, 40}}, {"idle-1", {25, 10}}, {"idle-2", {20, 10}}, {"other", {50, 10}}});
    r.f.build();
    // An earlier plugin put 12.5% on idle-2: 20 + 12.5 + 56.25 > 80.
    r.f.ctx().evict(r.f.pod("earlier"), r.f.node("idle-2"), "p", "Earlier", "test", nullptr);
    strategies::EvictionFilter filter = r.f.filter(seed_evictor());
    strategies::ProfileScope scope{"balance", &filter, true, ""};
    strategies::run_load_aware(seed_load_aware_args(), scope, r.f.ctx());
    CHECK(r.moves() == Moves{"earlier->idle-2"});
    CHECK(r.skip("big") == "no target: cpu would exceed targetThresholds on idle-1, idle-2");
  }
}

TEST_CASE("LoadAware deviation mode classifies around the mean of real usage") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("a"), make_node("b"), make_node("c"), make_node("d")};
  r.f.snapshot.pods = {owned_pod("p", "a", 4000)};
  r.f.options.predict_landing =
      false;  // classification is the subject: b, c, d tie for the scheduler
  // Mean cpu 50: low 40, high 60.
  r.f.usage = usage_of({{"a", {70, 10}}, {"b", {50, 10}}, {"c", {30, 10}}, {"d", {50, 10}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.thresholds = {{"cpu", 10}};
  args.target_thresholds = {{"cpu", 10}};
  args.resource_weights = {{"cpu", 1}};
  args.use_deviation_thresholds = true;
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"p->c"});
  CHECK(r.node_class("a") == NodeClass::kOverutilized);
  CHECK(r.node_class("b") == NodeClass::kAppropriate);
  CHECK(r.node_class("c") == NodeClass::kUnderutilized);
  CHECK(r.node("a").thresholds == policy::Percentages{{"cpu", 40}});
  CHECK(r.node("a").target_thresholds == policy::Percentages{{"cpu", 60}});
  CHECK(r.node("b").why == "cpu 50.0% in 40%..60%");
  CHECK(r.reason(0) ==
        "a cpu 70.0% > 60%: evict apps/p (est. 4 cpu from requests) -> c (cpu "
        "30.0% -> 42.5%)");
}

TEST_CASE("LoadAware sustainedFor: a node hot for the whole period moves, a spike does not") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("steady"), make_node("spike"), make_node("blind"),
                        make_node("idle"), make_node("idle-spiky")};
  r.f.snapshot.pods = {owned_pod("s", "steady", 4000), owned_pod("k", "spike", 4000),
                       owned_pod("b", "blind", 4000)};
  r.f.usage = usage_of({{"steady", {92, 40}},
                        {"spike", {95, 40}},
                        {"blind", {93, 40}},
                        {"idle", {10, 10}},
                        {"idle-spiky", {10, 10}}});
  auto sustain = [&](const std::string& node, double cpu_min, double cpu_max, double mem_min,
                     double mem_max) {
    metrics::NodeUsage& u = r.f.usage.nodes[node];
    u.cpu.sustained_min = cpu_min;
    u.cpu.sustained_max = cpu_max;
    u.memory.sustained_min = mem_min;
    u.memory.sustained_max = mem_max;
  };
  sustain("steady", 85, 97, 35, 45);
  sustain("spike", 40, 99, 35, 45);
  sustain("idle", 5, 15, 5, 15);
  sustain("idle-spiky", 5, 50, 5, 15);
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.sustained_for = policy::Duration{600000, "10m"};
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"s->idle"});
  CHECK(r.node_class("steady") == NodeClass::kOverutilized);
  CHECK(r.node("steady").why == "cpu 92.0% > 80% for 10m (lowest 85.0%)");
  CHECK(r.node_class("spike") == NodeClass::kAppropriate);
  CHECK(r.node("spike").why == "cpu 95.0% > 80% but not for 10m (lowest 40.0%)");
  CHECK(r.node_class("blind") == NodeClass::kAppropriate);
  CHECK(r.node("blind").why == "no sustained data: cpu 93.0% > 80%");
  CHECK(r.node_class("idle") == NodeClass::kUnderutilized);
  CHECK(r.node_class("idle-spiky") == NodeClass::kAppropriate);
  CHECK(r.node("idle-spiky").why == "cpu 10.0% <= 30% but not for 10m (highest 50.0%)");
}

TEST_CASE("LoadAware does nothing when too few nodes have usage data") {
  BalanceRun r;
  // Coverage is the subject; with landing prediction the replacement could land on te8, whose
  // usage is unknown, and the pod would stay.
  r.f.options.predict_landing = false;
  std::vector<std::pair<std::string, std::pair<double, double>>> known;
  for (int i = 1; i <= 8; ++i) r.f.snapshot.nodes.push_back(make_node("te" + std::to_string(i)));
  r.f.snapshot.pods = {owned_pod("p", "te3", 4000)};
  for (int i = 1; i <= 7; ++i)
    known.push_back({"te" + std::to_string(i), {i == 3 ? 92.0 : 10.0, 10}});
  r.f.usage = usage_of(known, {{"te8", "no cpu series"}});
  policy::LoadAwareArgs strict = seed_load_aware_args();
  strict.metrics.min_node_coverage = 90;
  CHECK(r.run(&strategies::run_load_aware, strict).empty());
  CHECK(r.f.plan.notes ==
        std::vector<std::string>{"LoadAware: 7 of 8 nodes (87.5%) have usage data; minNodeCoverage "
                                 "is 90%: nothing evicted"});
  // Known nodes are still classified (the deschedule plugins read the watermarks); none acts.
  CHECK(r.node_class("te3") == NodeClass::kOverutilized);
  CHECK(r.f.plan.skipped.empty());

  policy::LoadAwareArgs lowered = seed_load_aware_args();
  lowered.metrics.min_node_coverage = 87.5;
  CHECK(r.run(&strategies::run_load_aware, lowered).size() == 1);

  // Unset, one node of 8 may lack data (max(1, 10%)): a single missing exporter does not stop a
  // small cluster; two do.
  REQUIRE_FALSE(seed_load_aware_args().metrics.min_node_coverage.has_value());
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).size() == 1);
  known.erase(known.begin());  // te1 loses its data too
  r.f.usage = usage_of(known, {{"te1", "no cpu series"}, {"te8", "no cpu series"}});
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
  CHECK(r.f.plan.notes ==
        std::vector<std::string>{"LoadAware: 6 of 8 nodes (75%) have usage data; without "
                                 "minNodeCoverage at most 1 may lack it (max(1, 10%)): nothing "
                                 "evicted"});
}

TEST_CASE("LoadAware without minNodeCoverage lets 10% of a big cluster lack usage data") {
  BalanceRun r;
  r.f.options.predict_landing = false;  // coverage is the subject (see the test above)
  std::vector<std::pair<std::string, std::pair<double, double>>> known;
  std::vector<std::pair<std::string, std::string>> unknown;
  for (int i = 1; i <= 40; ++i) r.f.snapshot.nodes.push_back(make_node("n" + std::to_string(i)));
  r.f.snapshot.pods = {owned_pod("p", "n1", 4000)};
  for (int i = 1; i <= 40; ++i) {
    std::string name = "n" + std::to_string(i);
    if (i > 36) {
      unknown.push_back({name, "no cpu series"});  // 4 of 40 = 10%: allowed
    } else {
      known.push_back({name, {i == 1 ? 92.0 : 10.0, 10}});
    }
  }
  r.f.usage = usage_of(known, unknown);
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).size() == 1);
  known.pop_back();  // a fifth node without data: 35 of 40
  unknown.push_back({"n36", "no cpu series"});
  r.f.usage = usage_of(known, unknown);
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
}

TEST_CASE("LoadAware never uses a node without usage data as source or target") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("dark-hot"), make_node("dark-empty"),
                        make_node("busy")};
  r.f.snapshot.pods = {owned_pod("a", "hot", 4000), owned_pod("d", "dark-hot", 4000)};
  // dark-empty is the emptiest node by requests, but nobody knows its usage.
  r.f.usage = usage_of({{"hot", {92, 40}}, {"busy", {60, 40}}},
                       {{"dark-hot", "no cpu series"}, {"dark-empty", "sample 12m old"}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.metrics.min_node_coverage = 50;
  CHECK(r.run(&strategies::run_load_aware, args).empty());
  CHECK(r.node_class("dark-hot") == NodeClass::kUnknown);
  CHECK(r.node("dark-hot").why == "unknown: no cpu series");
  CHECK(r.node_class("dark-empty") == NodeClass::kUnknown);
  CHECK(r.skip("d").empty());  // not a source: its pods are not even looked at
  CHECK(r.noted("LoadAware: 1 node is overutilized but none is underutilized: nothing evicted"));

  r.f.snapshot.nodes.push_back(make_node("idle"));
  r.f.usage.nodes["idle"].cpu.percent = 5;
  // idle is a target, but the scheduler ranks dark-empty and busy as high (all three without
  // requests): it picks one of the three at random. Two of three are acceptable landings, which
  // is enough (PlanOptions::min_landing_chance, 66%): the pod moves, counted on idle.
  REQUIRE(r.run(&strategies::run_load_aware, args) == Moves{"a->idle"});
  CHECK(r.f.plan.evictions[0].placed() == r.f.node("idle"));
  CHECK(r.reason(0).find("; lands on busy or idle (2 of 3 top nodes; 1 in 3 on dark-empty)") !=
        std::string::npos);
  // Asked for certainty, the replacement may land where nobody knows the usage: the pod stays.
  r.f.options.min_landing_chance = 100;
  CHECK(r.run(&strategies::run_load_aware, args).empty());
  CHECK(r.skip("a").rfind("replacement would land on dark-empty, whose usage is unknown: "
                          "scheduler score dark-empty ",
                          0) == 0);
  // dark-empty, busy and idle have no requests: the scheduler may pick any of the three
  // (fit 100, balanced 100, taints 100, spread 100 with a's ReplicaSet's other pod on dark-hot).
  CHECK(r.skip("a").find(" vs idle 687 (") != std::string::npos);
  CHECK(r.skip("a").find("; 3 nodes tie at the top; 2 of 3 acceptable, a move needs 100.0%") !=
        std::string::npos);
  // Without the prediction (the comparison), the target search alone sends it to idle.
  r.f.options.predict_landing = false;
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"a->idle"});
}

TEST_CASE("LoadAware numberOfNodes: acts only when more nodes than that are underutilized") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle-1"), make_node("idle-2")};
  r.f.snapshot.pods = {owned_pod("p", "hot", 4000)};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"idle-1", {5, 5}}, {"idle-2", {6, 6}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.number_of_nodes = 2;
  CHECK(r.run(&strategies::run_load_aware, args).empty());
  CHECK(r.f.plan.notes ==
        std::vector<std::string>{"LoadAware: 1 node is overutilized but only 2 nodes "
                                 "underutilized; numberOfNodes is 2 (it acts only when more "
                                 "are): nothing evicted"});
  args.number_of_nodes = 1;
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"p->idle-1"});
}

TEST_CASE("LoadAware orders sources by weighted usage normalised per resource") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("cpu-hot"), make_node("both-warm"), make_node("idle")};
  r.f.snapshot.pods = {owned_pod("c", "cpu-hot", 4000), owned_pod("w", "both-warm", 4000)};
  // cpu-hot: 90/80 + 50/85 = 1.71; both-warm: 82/80 + 84/85 = 2.01.
  r.f.usage = usage_of({{"cpu-hot", {90, 50}}, {"both-warm", {82, 84}}, {"idle", {5, 5}}});
  r.f.policy.max_pods_to_evict_total = 1;
  policy::LoadAwareArgs args = seed_load_aware_args();
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"w->idle"});
  CHECK(r.skip("c").rfind("total eviction limit reached", 0) == 0);
  CHECK(r.f.skip_code("c") == strategies::SkipCode::kTotalLimit);
  // cpu weighing 10: cpu-hot 11.84 beats both-warm 11.24.
  args.resource_weights = {{"cpu", 10}, {"memory", 1}};
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"c->idle"});
}

TEST_CASE("LoadAware gives up pods by priority, QoS, deletion cost, then newest") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle")};
  auto pod = [](const std::string& name, int32_t priority, const std::string& qos,
                const std::string& cost, const std::string& created) {
    Pod p = owned_pod(name, "hot", 1000, "rs-" + name);
    p.priority = priority;
    p.qos_class = qos;
    if (!cost.empty()) p.meta.annotations.set("controller.kubernetes.io/pod-deletion-cost", cost);
    p.meta.creation_timestamp = created;
    return p;
  };
  r.f.snapshot.pods = {pod("a", 10, "Burstable", "", "2024-01-01T00:00:00Z"),
                       pod("b", 0, "Guaranteed", "", "2024-01-01T00:00:00Z"),
                       pod("c", 0, "BestEffort", "", "2024-01-01T00:00:00Z"),
                       pod("d", 0, "Burstable", "5", "2024-01-01T00:00:00Z"),
                       pod("e", 0, "Burstable", "-5", "2024-01-01T00:00:00Z"),
                       pod("f", 0, "Burstable", "", "2024-01-02T00:00:00Z"),
                       pod("g", 0, "Burstable", "", "2024-01-01T00:00:00Z")};
  // 99% needs 7 pods of 3.125% to reach 77.1%.
  r.f.usage = usage_of({{"hot", {99, 40}}, {"idle", {0, 0}}});
  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) ==
        Moves{"c->idle", "e->idle", "f->idle", "g->idle", "d->idle", "b->idle", "a->idle"});
}

TEST_CASE("LoadAware prefers the pod that best covers the excess") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle")};
  // Each of its own ReplicaSet: spreading does not push a third replica back (see the
  // scheduler model's system-default spreading).
  r.f.snapshot.pods = {owned_pod("small", "hot", 1000, "rs-small"),
                       owned_pod("right", "hot", 4000, "rs-right"),
                       owned_pod("mid", "hot", 2000, "rs-mid"),
                       owned_pod("huge", "hot", 16000, "rs-huge")};
  SECTION("one right-sized pod instead of many small ones") {
    r.f.usage = usage_of({{"hot", {92, 40}}, {"idle", {0, 0}}});  // excess 12: 12.5% covers
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"right->idle"});
  }
  SECTION("no pod alone covers: the biggest first, then again the best cover") {
    r.f.snapshot.pods.pop_back();  // without huge, no pod covers an excess of 19
    r.f.usage = usage_of({{"hot", {99, 40}}, {"idle", {0, 0}}});
    // 99 -> 86.5 (excess 6.5, nothing covers) -> 80.25 (excess 0.25, small covers) -> 77.1
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) ==
          Moves{"right->idle", "mid->idle", "small->idle"});
  }
  SECTION("pod usage from the usage data beats requests") {
    r.f.usage = usage_of({{"hot", {92, 40}}, {"idle", {0, 0}}});
    r.f.usage.pods["apps/right"] = {500, 1 << 30};  // really uses 1.6%: no longer covers
    r.f.usage.pods["apps/mid"] = {4500, 1 << 30};   // really uses 14.1%: the smallest cover
    CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()) == Moves{"mid->idle"});
    CHECK(r.reason(0) ==
          "hot cpu 92.0% > 80%: evict apps/mid (est. 4.5 cpu) -> idle (cpu 0.0% -> 14.1%)");
  }
}

TEST_CASE("LoadAware skips what the filter, namespaces and limits keep") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle")};
  r.f.snapshot.pods = {owned_pod("vip", "hot", 4000, "rs-vip"),
                       owned_pod("sys", "hot", 4000, "rs-sys", "kube-system"),
                       owned_pod("x", "hot", 2000, "rs-x"), owned_pod("y", "hot", 2000, "rs-y")};
  r.f.snapshot.pods[0].priority = 10000;
  r.f.usage = usage_of({{"hot", {99, 40}}, {"idle", {0, 0}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.excluded_namespaces = {"kube-system"};
  args.eviction_limits.node = 1;
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"x->idle"});
  CHECK(r.skip("vip").find("priority") != std::string::npos);
  CHECK(r.skip("sys") == "namespace excluded: evictableNamespaces.exclude lists kube-system");
  CHECK(r.skip("y") == "node eviction limit reached: 1 of 1 from hot (evictionLimits.node)");
}

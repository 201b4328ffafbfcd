// Regressions found in the review of the strategies commit: each case shows one bug, now fixed.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/rfc3339.h"
#include "policy/loader.h"
#include "test/strategies/balance_harness.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;
using Moves = std::vector<std::string>;

}  // namespace

// LoadAware built its WorkloadSwitches from evictGangPods, respectRestartPolicies and evictGpuPods
// only, so gpu.vendorPrefixes never reached the filter: a pod requesting a GPU of a vendor the
// policy names (and the built-in list does not) was moved although gpu.evictGpuPods is false.
TEST_CASE("review: LoadAware honours gpu.vendorPrefixes", "[review][load_aware][gpu]") {
  BalanceRun r;
  Node hot = make_node("hot");
  Node idle = make_node("idle");
  for (Node* node : {&hot, &idle}) {
    node->allocatable.set("amd.com/gpu", 8);
    node->capacity.set("amd.com/gpu", 8);
  }
  r.f.snapshot.nodes = {hot, idle};
  Pod trainer = owned_pod("trainer", "hot", 4000);
  trainer.containers.edit()[0].requests.set("amd.com/gpu", 1);
  r.f.snapshot.pods = {trainer};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"idle", {5, 5}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.gpu_vendor_prefixes = {"amd.com/"};
  REQUIRE_FALSE(args.evict_gpu_pods);

  CHECK(r.run(&strategies::run_load_aware, args).empty());
  CHECK(r.skip("trainer") == "GPU pod: requests amd.com/gpu (set gpu.evictGpuPods to allow)");

  args.evict_gpu_pods = true;  // the switch still lets it go
  CHECK(r.run(&strategies::run_load_aware, args) == Moves{"trainer->idle"});
}

// A snapshot that lists one node name twice: the ClusterIndex binds every pod to the first copy,
// so the second copy looks empty to the placement core while the UsageMap (by name) gives it the
// real node's usage. It was in scope and became a target: a pod "fit" on the phantom although the
// real node had no room.
TEST_CASE("review: a duplicated node name is neither source nor target",
          "[review][plan_context]") {
  BalanceRun r;
  r.f.snapshot.nodes = {make_node("hot"), make_node("idle"), make_node("idle")};
  r.f.snapshot.pods = {owned_pod("mover", "hot", 4000, "rs-mover"),
                       owned_pod("filler", "idle", 30000, "rs-filler")};
  r.f.usage = usage_of({{"hot", {92, 40}}, {"idle", {10, 10}}});

  CHECK(r.run(&strategies::run_load_aware, seed_load_aware_args()).empty());
  CHECK_THAT(r.skip("mover"), Catch::StartsWith("no target: "));
  CHECK_FALSE(r.f.ctx().in_scope(2));  // the second "idle"
  CHECK(r.f.ctx().in_scope(1));
}

// Times outside what std::chrono::system_clock (nanoseconds since 1970 in an int64) can hold
// overflowed in the conversion (signed overflow, undefined behaviour) and came back as some other
// instant: "0001-01-01T00:00:00Z", which is how Go writes a zero time, read as a date in 1754 or
// so, which minPodAge then compared with now.
TEST_CASE("review: pod times outside the clock's range are refused, not wrapped",
          "[review][pod_time]") {
  using model::parse_rfc3339;
  CHECK_FALSE(model::parse_rfc3339("0001-01-01T00:00:00Z").has_value());
  CHECK_FALSE(model::parse_rfc3339("1000-06-01T00:00:00Z").has_value());
  CHECK_FALSE(model::parse_rfc3339("9999-12-31T23:59:59Z").has_value());
  CHECK(model::parse_rfc3339("1970-01-01T00:00:00Z").has_value());
  CHECK(model::parse_rfc3339("2200-01-01T00:00:00Z").has_value());

  policy::DefaultEvictorArgs args = default_evictor();
  args.min_pod_age = policy::Duration{300000, "5m"};
  PlanFixture f;
  f.snapshot.nodes = {make_node("n1")};
  Pod pod = owned_pod("p", "n1");
  pod.start_time = "0001-01-01T00:00:00Z";
  f.snapshot.pods = {pod};
  f.build();
  CHECK(f.filter(args).reject_reason(f.pod("p"), {}) ==
        std::optional<std::string>(
            "unreadable start time: status.startTime \"0001-01-01T00:00:00Z\" is not an RFC 3339 "
            "time"));
}

// Fixed: with "pods" among LoadAware's watermarks, a node whose allocatable (and capacity)
// lists no pods gets a pods usage of 1e9 percent (percent_of's "never fits" value, meant for
// targets) and becomes a source: missing data reads as "hot" and its pods are evicted.
TEST_CASE("review: a node without allocatable pods is not a source because of it",
          "[review][load_aware]") {
  BalanceRun r;
  Node odd = make_node("odd");
  odd.allocatable.pods = 0;
  odd.capacity.pods = 0;
  r.f.snapshot.nodes = {odd, make_node("idle")};
  r.f.snapshot.pods = {owned_pod("p", "odd", 1000)};
  r.f.usage = usage_of({{"odd", {50, 50}}, {"idle", {5, 5}}});
  policy::LoadAwareArgs args = seed_load_aware_args();
  args.thresholds["pods"] = 30;
  args.target_thresholds["pods"] = 80;

  std::vector<std::string> moves = r.run(&strategies::run_load_aware, args);
  if (!moves.empty()) UNSCOPED_INFO(r.reason(0));
  CHECK(moves.empty());
}

// Fixed: make_plan() classifies with LoadAware before the deschedule plugins so that they never
// send a pod to a node LoadAware calls overutilized. When coverage is under minNodeCoverage the
// classification is skipped altogether, the known nodes keep no watermarks, and the deschedule
// plugins cap a target at 100%: a node at 95% cpu (over LoadAware's 80%) takes a pod.
TEST_CASE("review: low coverage does not lift the deschedule plugins' watermark to 100%",
          "[review][planner]") {
  policy::LoadResult loaded = policy::load_policy(R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: p
  pluginConfig:
  - name: DefaultEvictor
    args: {priorityThreshold: {value: 10000}}
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus:9090", minNodeCoverage: 90}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    deschedule: {enabled: [RemovePodsViolatingNodeTaints]}
    balance: {enabled: [LoadAware]}
)",
                                                  "coverage.yaml");
  REQUIRE(loaded.ok());
  Snapshot snapshot;
  Node tainted = make_node("tainted");
  tainted.taints.push_back({"maintenance", "", TaintEffect::kNoSchedule});
  snapshot.nodes = {tainted, make_node("warm"), make_node("dark")};
  snapshot.pods = {owned_pod("p", "tainted", 1000)};
  // 2 of 3 nodes known: 67% < 90%.
  metrics::UsageMap usage = usage_of({{"tainted", {20, 20}}, {"warm", {95, 40}}},
                                     {{"dark", "no cpu series"}});
  placement::ClusterIndex index(snapshot, strategies::placement_options(*loaded.policy));
  strategies::Plan plan = strategies::make_plan(index, usage, *loaded.policy);
  if (!plan.evictions.empty()) UNSCOPED_INFO(plan.evictions.front().reason);
  CHECK(plan.evictions.empty());  // warm is at 95% cpu, over LoadAware's 80%
}

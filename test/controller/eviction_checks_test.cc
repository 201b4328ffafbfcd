// The checks before each eviction (controller/eviction_checks.h), one at a time against a cluster
// held in maps: each lets the planned eviction go when nothing changed and skips it with its code
// and reason when its own condition fails; the first skip wins, in the documented order.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controller/eviction_checks.h"
#include "placement/cluster_index.h"
#include "strategies/workload.h"
#include "test/model/builders.h"

using namespace loadshift;
using namespace loadshift::controller;
using namespace loadshift::testing;

namespace {

class MapObjects final : public LiveObjects {
 public:
  std::optional<model::Pod> pod(std::string_view ns, std::string_view name) const override {
    for (const model::Pod& p : pods) {
      if (p.meta.namespace_ == ns && p.meta.name == name) return p;
    }
    return std::nullopt;
  }
  std::optional<model::Node> node(std::string_view name) const override {
    for (const model::Node& n : nodes) {
      if (n.meta.name == name) return n;
    }
    return std::nullopt;
  }
  std::vector<model::Pod> pods_on_node(std::string_view node) const override {
    std::vector<model::Pod> out;
    for (const model::Pod& p : pods) {
      if (p.node_name == node) out.push_back(p);
    }
    return out;
  }
  std::vector<model::Pod> pods;
  std::vector<model::Node> nodes;
};

model::Pod web_pod(const std::string& name, const std::string& node) {
  model::Pod pod = make_pod(name, 100, int64_t{256} << 20, node);
  pod.owners = {controller_owner("web")};
  return pod;
}

// hot (web-0, web-1) and idle (db-0); the plan moves web-0 from hot to idle.
struct Checks {
  Checks() {
    snapshot.nodes = {make_node("hot"), make_node("idle")};
    for (model::Node& n : snapshot.nodes) {
      n.meta.uid = "uid-" + n.meta.name;
      n.meta.resource_version = "10";
    }
    snapshot.pods = {web_pod("web-0", "hot"), web_pod("web-1", "hot"),
                     make_pod("db-0", 100, int64_t{256} << 20, "idle")};
    index.emplace(snapshot);
    live.nodes = snapshot.nodes;
    for (size_t i = 0; i < snapshot.pods.size(); ++i) live.pods.push_back(snapshot.pods[i]);
    decision.pod = 0;
    decision.node = 0;
    decision.target = 1;
    decision.strategy = "LoadAware";
  }
  std::optional<CheckSkip> run(int max_in_flight = 1) {
    const model::Pod& pod = snapshot.pods[decision.pod];
    const strategies::RolloutWorkload workload = strategies::rollout_workload(pod);
    const std::string node = "hot", target = "idle";
    const CheckInput in{*index,   decision, pod,         node,  target,
                        workload, live,     node_writes, cycle, max_in_flight};
    return check_eviction(in);
  }
  std::string run_reason(int max_in_flight = 1) {
    std::optional<CheckSkip> skip = run(max_in_flight);
    return skip ? skip->reason : "";
  }

  model::Snapshot snapshot;
  std::optional<placement::ClusterIndex> index;
  MapObjects live;
  strategies::EvictionDecision decision;
  const NodeWrites* node_writes = nullptr;
  CycleRecord cycle{snapshot};
};

}  // namespace

TEST_CASE("eviction checks: the documented order and names", "[eviction_checks]") {
  std::vector<std::string> names;
  for (const EvictionCheck& check : eviction_checks()) names.emplace_back(check.name);
  CHECK(names == std::vector<std::string>{"soft_taint_in_place", "pod_unchanged",
                                          "target_unchanged", "no_pod_arrived",
                                          "workload_in_flight"});
  CHECK(std::string(to_string(ExecutorSkip::kNotAllowed)) == "not_allowed");
  CHECK(std::string(to_string(ExecutorSkip::kSoftTaintFailed)) == "soft_taint_failed");
  CHECK(std::string(to_string(ExecutorSkip::kPodChanged)) == "pod_changed");
  CHECK(std::string(to_string(ExecutorSkip::kTargetChanged)) == "target_changed");
  CHECK(std::string(to_string(ExecutorSkip::kWorkloadInFlight)) == "workload_in_flight");
  CHECK(std::string(to_string(ExecutorSkip::kGone)) == "gone");
  CHECK(std::string(to_string(ExecutorSkip::kReplaced)) == "replaced");
  CHECK(std::string(to_string(ExecutorSkip::kPdb)) == "pdb");
}

TEST_CASE("eviction checks: nothing changed, the eviction goes", "[eviction_checks]") {
  Checks c;
  CHECK(c.run() == std::nullopt);
  CHECK(c.run(0) == std::nullopt);
}

TEST_CASE("eviction checks: each check skips with its code", "[eviction_checks]") {
  Checks c;
  SECTION("soft taint refused on a hot node") {
    NodeWrites writes;
    writes.refused["hot"] = "403 forbidden";
    c.node_writes = &writes;
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kSoftTaintFailed);
    CHECK(skip->reason.find("loadshift.io/overutilized on hot") != std::string::npos);
  }
  SECTION("pod gone, replaced, moved, terminating, finished") {
    model::Pod& live = c.live.pods[0];
    SECTION("gone") {
      c.live.pods.erase(c.live.pods.begin());
      CHECK(c.run_reason() == "pod gone: no longer in the cache");
    }
    SECTION("replaced") {
      live.meta.uid = "other";
      CHECK(c.run_reason() == "pod replaced: the name now belongs to uid other");
    }
    SECTION("moved") {
      live.node_name = "idle";
      CHECK(c.run_reason() == "pod moved: now on idle, planned from hot");
    }
    SECTION("terminating") {
      live.meta.deleting = true;
      CHECK(c.run_reason() == "pod terminating: already being deleted");
    }
    SECTION("finished") {
      live.phase = model::PodPhase::kSucceeded;
      CHECK(c.run_reason() == "pod finished: phase is no longer Running");
    }
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kPodChanged);
  }
  SECTION("target gone or updated") {
    SECTION("gone") {
      c.live.nodes.pop_back();
      CHECK(c.run_reason() == "target gone: node idle is no longer in the cache");
    }
    SECTION("updated") {
      c.live.nodes[1].meta.resource_version = "11";
      CHECK(c.run_reason() ==
            "target changed since the plan: node idle was updated (resourceVersion 10 -> 11); "
            "the next cycle plans again");
    }
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kTargetChanged);
  }
  SECTION("this cycle's own patch of the target is no change") {
    c.live.nodes[1].meta.resource_version = "11";
    NodeWrites writes;
    writes.patched["idle"] = "11";
    c.node_writes = &writes;
    CHECK(c.run() == std::nullopt);
  }
  SECTION("a pod arrived on the target, unless it replaces one this cycle evicted there") {
    model::Pod arrived = web_pod("web-2", "idle");
    c.live.pods.push_back(arrived);
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kTargetChanged);
    CHECK(skip->reason ==
          "target changed since the plan: pod default/web-2 arrived on idle; the next cycle "
          "plans again");
    // web-1 of the same workload was evicted toward idle by this cycle: web-2 is its
    // replacement. With no in-flight limit, the count does not stop web-0.
    c.cycle.evicted(strategies::rollout_workload(c.snapshot.pods[1]), c.snapshot.pods[1], {"idle"});
    CHECK(c.run(0) == std::nullopt);
  }
  SECTION("the workload has a pod in flight") {
    c.live.pods[1].meta.deleting = true;  // the cache sees it; the plan's snapshot counts
    c.snapshot.pods[1].meta.deleting = true;
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kWorkloadInFlight);
    CHECK(skip->reason.rfind("workload limit: ReplicaSet default/web has 1 pod(s) in flight", 0) ==
          0);
    CHECK(c.run(2) == std::nullopt);  // a limit of two lets it go
    CHECK(c.run(0) == std::nullopt);  // no limit
  }
  SECTION("an eviction of this cycle counts as in flight") {
    CHECK(c.run() == std::nullopt);
    c.cycle.evicted(strategies::rollout_workload(c.snapshot.pods[1]), c.snapshot.pods[1], {});
    std::optional<CheckSkip> skip = c.run();
    REQUIRE(skip);
    CHECK(skip->code == ExecutorSkip::kWorkloadInFlight);
  }
}

TEST_CASE("eviction checks: the first failing check wins", "[eviction_checks]") {
  Checks c;
  c.live.pods[0].meta.uid = "other";                  // pod_unchanged fails
  c.live.nodes[1].meta.resource_version = "11";       // target_unchanged fails too
  c.snapshot.pods[1].meta.deleting = true;            // and workload_in_flight
  CHECK(c.run()->code == ExecutorSkip::kPodChanged);  // the earlier one is reported
  NodeWrites writes;
  writes.refused["hot"] = "timeout";
  c.node_writes = &writes;
  CHECK(c.run()->code == ExecutorSkip::kSoftTaintFailed);
}

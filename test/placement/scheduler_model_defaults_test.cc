// The scheduler model's newer plugins against scores computed by hand from their formulas:
// kube-scheduler's system-default topology spreading (podtopologyspread: scoring.go, common.go,
// PodTopologySpreadArgs defaultingType System) and Volcano's usage plugin (volcano
// pkg/scheduler/plugins/usage/usage.go), and which nodes count as the scheduler's picks.
#include <catch2/catch.hpp>

#include <cmath>

#include "placement/cluster_index.h"
#include "placement/scheduler_model.h"
#include "test/model/builders.h"
#include "test/placement/node_scores.h"

using namespace loadshift::placement;

namespace loadshift::testing {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

// a, b, c in zone z1, 16 cpu each; ReplicaSet web: two pods on a, one on b, and the one evicted
// (the pod predicted) on c.
Snapshot web_cluster() {
  Snapshot s;
  for (const char* name : {"a", "b", "c"}) {
    Node node = make_node(name, 16000, 64 * kGi);
    node.meta.labels.set("topology.kubernetes.io/zone", "z1");
    s.nodes.push_back(node);
  }
  for (const auto& [name, node] : std::vector<std::pair<std::string, std::string>>{
           {"web-0", "a"}, {"web-1", "a"}, {"web-2", "b"}, {"web-3", "c"}}) {
    Pod pod = make_pod(name, 500, kGi, node);
    pod.owners.edit().push_back(controller_owner("web-rs"));
    s.pods.push_back(pod);
  }
  return s;
}

const std::vector<NodeId> kAbc{0, 1, 2};

}  // namespace

TEST_CASE("system-default spreading: hostname maxSkew 3 and zone maxSkew 5 over the owner's pods") {
  Snapshot s = web_cluster();
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  const PodId evicted = 3;  // web-3 on c: it terminates, so it does not count
  std::vector<NodeScore> scores = model.scores(evicted, kAbc, ledger);
  REQUIRE(scores.size() == 3);
  // Three feasible nodes: hostname weight ln(3 + 2); one zone domain: ln(1 + 2). The zone holds
  // the three other pods. Raw: a 2 ln5 + 2 + 3 ln3 + 4 = 12.51 -> 13; b ln5 + 2 + 3 ln3 + 4 =
  // 10.91 -> 11; c 0 + 2 + 3 ln3 + 4 = 9.30 -> 9. Normalised 100 (13 + 9 - raw) / 13.
  const double h = std::log(5.0), z = std::log(3.0);
  CHECK(std::llround(2 * h + 2 + 3 * z + 4) == 13);
  CHECK(score_of(scores, 0).spread == 100 * (13 + 9 - 13) / 13);  // 69
  CHECK(score_of(scores, 1).spread == 100 * (13 + 9 - 11) / 13);  // 84
  CHECK(score_of(scores, 2).spread == 100);
  // Weight 2 in the total.
  const NodeScore& c = score_of(scores, 2);
  CHECK(c.total == c.fit + c.balanced + 3 * c.taint + 2 * c.spread);
  // The pods pile up on a: the replacement is pushed away from it, to c.
  CHECK(model.predict(evicted, kAbc, ledger).best == std::vector<NodeId>{2});

  SECTION("a terminating pod of the owner does not count") {
    s.pods[0].meta.deleting = true;  // web-0 on a
    ClusterIndex again(s);
    SchedulerModel m(again);
    std::vector<NodeScore> sc = m.scores(evicted, kAbc, ledger);
    // a and b now hold one each: raw a = b = ln5 + 2 + 2 ln3 + 4 = 9.81 -> 10, c = 2 ln3 + 6 =
    // 8.20 -> 8: a and b 100 (10 + 8 - 10) / 10 = 80.
    CHECK(score_of(sc, 0).spread == 100 * (10 + 8 - 10) / 10);
    CHECK(score_of(sc, 1).spread == score_of(sc, 0).spread);
    CHECK(score_of(sc, 2).spread == 100);
  }
  SECTION("a pod the plan moved counts where it was placed") {
    ledger.reserve(0, 0, 2, index.requests(0));  // web-0: a -> c
    std::vector<NodeScore> sc = model.scores(evicted, kAbc, ledger);
    // a, b and c hold one each: all equal, 100.
    CHECK(score_of(sc, 0).spread == 100);
    CHECK(score_of(sc, 1).spread == 100);
    CHECK(score_of(sc, 2).spread == 100);
  }
  SECTION("nothing for a pod with constraints of its own, a Job's pod, or when turned off") {
    TopologySpreadConstraint own_constraint;
    own_constraint.topology_key = "kubernetes.io/hostname";
    s.pods[3].topology_spread.push_back(own_constraint);  // DoNotSchedule: nothing soft
    ClusterIndex own(s);
    SchedulerModel m(own);
    CHECK(score_of(m.scores(evicted, kAbc, ledger), 0).spread == 0);

    Snapshot job = web_cluster();
    job.pods[3].owners = {controller_owner("batch-1", "Job")};
    ClusterIndex job_index(job);
    SchedulerModel job_model(job_index);
    CHECK(score_of(job_model.scores(evicted, kAbc, ledger), 0).spread == 0);

    SchedulerProfile off;
    off.system_default_spreading = false;
    SchedulerModel off_model(index, off);
    CHECK(score_of(off_model.scores(evicted, kAbc, ledger), 0).spread == 0);
  }
  SECTION("a node without a zone label gets the hostname part only") {
    s.nodes[2] = make_node("c", 16000, 64 * kGi);  // hostname label only
    ClusterIndex again(s);
    SchedulerModel m(again);
    std::vector<NodeScore> sc = m.scores(evicted, kAbc, ledger);
    // Domains: z1 and "none": zone weight ln(2 + 2). a 2 ln5 + 2 + 3 ln4 + 4 = 13.38 -> 13;
    // b ln5 + 2 + 3 ln4 + 4 = 11.77 -> 12; c (no zone) 0 + 2 = 2. 100 (13 + 2 - raw) / 13.
    CHECK(score_of(sc, 0).spread == 100 * (13 + 2 - 13) / 13);
    CHECK(score_of(sc, 1).spread == 100 * (13 + 2 - 12) / 13);
    CHECK(score_of(sc, 2).spread == 100);
  }
}

TEST_CASE("Volcano's usage plugin filters nodes over its thresholds and scores free usage") {
  Snapshot s = web_cluster();
  for (Pod& pod : s.pods) pod.scheduler_name = "volcano";
  ClusterIndex index(s);
  SchedulerProfile profile;
  profile.volcano_usage = VolcanoUsageScoring{5, 1, 1, 80, 80, true};
  SchedulerModel model(index, profile);
  // a at 90% cpu (over 80: filtered); b cpu 40, memory 60; c cpu 10, memory 30.
  model.set_node_load({{true, 90, 50}, {true, 40, 60}, {true, 10, 30}});
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  std::vector<NodeScore> scores = model.scores(3, kAbc, ledger);
  REQUIRE(scores.size() == 2);  // a filtered out
  // ((100 - cpu)/100 * 1 + (100 - memory)/100 * 1) / 2 * 100: b (0.6 + 0.4) / 2 -> 50, c (0.9 +
  // 0.7) / 2 -> 80; weighted by usage.weight 5 in the total.
  const NodeScore& b = score_of(scores, 1);
  const NodeScore& c = score_of(scores, 2);
  CHECK(b.usage == 50);
  CHECK(c.usage == 80);
  CHECK(c.total == c.fit + c.balanced + 3 * c.taint + c.binpack + 5 * c.usage);
  // Volcano's float scores: picks within binpack's and usage's weights of the top.
  CHECK(model.margin(3) == 1 + 5);
  CHECK(model.predict(3, kAbc, ledger).best == std::vector<NodeId>{2});

  SECTION("enablePredicate false: scored, not filtered; unknown usage: neither") {
    profile.volcano_usage->predicate = false;
    SchedulerModel no_filter(index, profile);
    no_filter.set_node_load({{true, 90, 50}, {false, 0, 0}, {true, 10, 30}});
    std::vector<NodeScore> sc = no_filter.scores(3, kAbc, ledger);
    REQUIRE(sc.size() == 3);
    CHECK(score_of(sc, 0).usage == 30);  // (0.1 + 0.5) / 2
    CHECK(score_of(sc, 1).usage == 0);   // no metrics: the plugin scores 0
  }
  SECTION("a kube-scheduler pod is not scored by Volcano's plugins") {
    s.pods[3].scheduler_name = "";
    ClusterIndex kube(s);
    SchedulerModel m(kube, profile);
    m.set_node_load({{true, 90, 50}, {true, 40, 60}, {true, 10, 30}});
    std::vector<NodeScore> sc = m.scores(3, kAbc, ledger);
    CHECK(sc.size() == 3);
    CHECK(score_of(sc, 2).usage == 0);
    CHECK(m.margin(3) == 0);
  }
}

TEST_CASE("Volcano without binpack or without nodeorder scores only what is configured") {
  Snapshot s = web_cluster();
  for (Pod& pod : s.pods) pod.scheduler_name = "volcano";
  ClusterIndex index(s);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  SchedulerProfile no_binpack;
  no_binpack.volcano_binpack_weight = 0;
  SchedulerModel a(index, no_binpack);
  const std::vector<NodeScore> without_binpack = a.scores(3, kAbc, ledger);
  const NodeScore& c = score_of(without_binpack, 2);
  CHECK(c.total == c.fit + c.balanced + 3 * c.taint);
  CHECK(a.margin(3) == 0);

  SchedulerProfile only_binpack;
  only_binpack.volcano_nodeorder = false;
  SchedulerModel b(index, only_binpack);
  const std::vector<NodeScore> binpack_alone = b.scores(3, kAbc, ledger);
  const NodeScore& cb = score_of(binpack_alone, 2);
  CHECK(cb.total == cb.binpack);
}

}  // namespace loadshift::testing

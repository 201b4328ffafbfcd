// The scheduler model against kube-scheduler scores computed by hand from the plugins' formulas
// (noderesources least/most allocated and requested-to-capacity ratio, balanced allocation,
// TaintToleration and NodeAffinity with DefaultNormalizeScore, default weights).
#include "placement/scheduler_model.h"

#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <tuple>

#include "placement/cluster_index.h"
#include "test/model/builders.h"
#include "test/placement/node_scores.h"

using namespace loadshift::placement;

namespace loadshift::testing {
namespace {

constexpr int64_t kGi = int64_t{1} << 30;

// a: 4 cpu / 8Gi with a 1 cpu / 2Gi pod; b: 4 cpu / 8Gi with 3 cpu / 4Gi. The moving pod asks for
// 500m / 1Gi and runs on c (8 cpu / 16Gi, empty but for it).
Snapshot two_nodes_and_home() {
  Snapshot s;
  s.nodes.push_back(make_node("a", 4000, 8 * kGi));
  s.nodes.push_back(make_node("b", 4000, 8 * kGi));
  s.nodes.push_back(make_node("c", 8000, 16 * kGi));
  s.pods.push_back(make_pod("on-a", 1000, 2 * kGi, "a"));
  s.pods.push_back(make_pod("on-b", 3000, 4 * kGi, "b"));
  Pod mover = make_pod("mover", 500, 1 * kGi, "c");
  mover.owners.edit().push_back(controller_owner("web-1"));
  s.pods.push_back(mover);
  return s;
}

const std::vector<NodeId> kAll{0, 1, 2};

}  // namespace

TEST_CASE("LeastAllocated and BalancedAllocation as kube-scheduler computes them") {
  Snapshot s = two_nodes_and_home();
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
  REQUIRE(scores.size() == 3);
  // a: cpu (4000-1500)*100/4000 = 62 (integer division), memory (8-3)*100/8 = 62 -> 62.
  // Balanced: cpu 1500/4000 = 0.375, memory 3/8 = 0.375 -> std 0 -> 100.
  CHECK(score_of(scores, 0).fit == 62);
  CHECK(score_of(scores, 0).balanced == 100);
  // b: cpu (4000-3500)*100/4000 = 12, memory (8-5)*100/8 = 37 -> (12+37)/2 = 24.
  // Balanced: 0.875 and 0.625 -> std 0.125 -> 87 (int of 87.5).
  CHECK(score_of(scores, 1).fit == 24);
  CHECK(score_of(scores, 1).balanced == 87);
  // c, the pod's own node, where the original still counts while it terminates: cpu 1000 of
  // 8000 -> 87, memory 2 of 16 -> 87.
  CHECK(score_of(scores, 2).fit == 87);
  // No taints, no affinity: TaintToleration normalises all to 100, NodeAffinity leaves 0.
  CHECK(score_of(scores, 0).taint == 100);
  CHECK(score_of(scores, 0).node_affinity == 0);
  // The pod is a ReplicaSet's without constraints: system-default spreading, and no other pod
  // of its ReplicaSet anywhere (the original terminates): every node 100.
  CHECK(score_of(scores, 0).spread == 100);
  // Default weights: fit 1, balanced 1, taints 3, spread 2.
  CHECK(score_of(scores, 0).total == 62 + 100 + 300 + 200);
  CHECK(score_of(scores, 1).total == 24 + 87 + 300 + 200);

  Landing landing = model.predict(2, kAll, ledger);
  REQUIRE(landing.best == std::vector<NodeId>{2});
  CHECK(landing.score == 87 + 100 + 300 + 200);
}

TEST_CASE("NodeResourcesFit charges 100m and 200Mi to a container that requests nothing") {
  Snapshot s;
  s.nodes.push_back(make_node("a", 1000, 1000 * (int64_t{1} << 20)));
  s.nodes.push_back(make_node("home", 1000, 1000 * (int64_t{1} << 20)));
  Pod pod = make_pod("besteffort", 0, 0, "home");
  pod.owners.edit().push_back(controller_owner("be"));
  s.pods.push_back(pod);
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  std::vector<NodeScore> scores = model.scores(0, std::vector<NodeId>{0, 1}, ledger);
  // a: cpu (1000-100)*100/1000 = 90, memory (1000-200)*100/1000 = 80 -> 85.
  CHECK(score_of(scores, 0).fit == 85);
  // home also counts the original: cpu 200 -> 80, memory 400Mi -> 60 -> 70.
  CHECK(score_of(scores, 1).fit == 70);
  // BalancedAllocation reads real requests: 0 and 0 -> 100.
  CHECK(score_of(scores, 0).balanced == 100);
}

TEST_CASE("MostAllocated and RequestedToCapacityRatio, with resource weights") {
  Snapshot s = two_nodes_and_home();
  ClusterIndex index(s);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  SECTION("MostAllocated") {
    SchedulerProfile profile;
    profile.fit.type = FitScoring::Type::kMostAllocated;
    profile.fit.resources = {{"cpu", 3}, {"memory", 1}};
    SchedulerModel model(index, profile);
    std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
    // a: cpu 1500*100/4000 = 37, memory 3*100/8 = 37 -> (37*3+37)/4 = 37.
    CHECK(score_of(scores, 0).fit == 37);
    // b: cpu 3500 -> 87, memory 5/8 -> 62 -> (87*3+62)/4 = 80 (323/4).
    CHECK(score_of(scores, 1).fit == 80);
    Landing landing = model.predict(2, kAll, ledger);
    // b: 80 + 87 + 300 = 467; a: 37 + 100 + 300 = 437; c: 12 + 100 + 300 = 412.
    CHECK(landing.best == std::vector<NodeId>{1});
  }
  SECTION("RequestedToCapacityRatio: shape (0,0) (100,10) scaled to 0..100") {
    SchedulerProfile profile;
    profile.fit.type = FitScoring::Type::kRequestedToCapacityRatio;
    profile.fit.shape = {{0, 0}, {100, 10}};
    SchedulerModel model(index, profile);
    std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
    // a: utilization cpu 37, memory 37 -> 37 and 37 -> round(74/2) = 37.
    CHECK(score_of(scores, 0).fit == 37);
    // b: cpu 87, memory 62 -> round(149/2) = 75 (74.5 rounds away from zero).
    CHECK(score_of(scores, 1).fit == 75);
  }
}

TEST_CASE("TaintToleration and NodeAffinity are normalised over the feasible nodes") {
  Snapshot s = two_nodes_and_home();
  s.nodes[0].taints.push_back({"soft", "x", TaintEffect::kPreferNoSchedule});
  s.nodes[0].taints.push_back({"soft2", "y", TaintEffect::kPreferNoSchedule});
  s.nodes[1].taints.push_back({"soft", "x", TaintEffect::kPreferNoSchedule});
  PreferredSchedulingTerm prefer;
  prefer.weight = 7;
  prefer.preference.match_expressions.push_back(
      req("kubernetes.io/hostname", SelectorOperator::kIn, {"b"}));
  s.pods[2].node_affinity.edit().preferred.push_back(prefer);
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
  // Untolerated counts 2, 1, 0; max 2 -> reversed: 100 - 100*2/2 = 0, 100 - 50 = 50, 100.
  CHECK(score_of(scores, 0).taint == 0);
  CHECK(score_of(scores, 1).taint == 50);
  CHECK(score_of(scores, 2).taint == 100);
  // Preferred weight 7 on b only -> b 100, the others 0.
  CHECK(score_of(scores, 1).node_affinity == 100);
  CHECK(score_of(scores, 0).node_affinity == 0);
  // b: 24 + 87 + 3*50 + 2*100 + 2*100 (system-default spreading, as above) = 661.
  CHECK(score_of(scores, 1).total == 661);
  CHECK(model.predict(2, kAll, ledger).best == std::vector<NodeId>{2});

  SECTION("a tolerated soft taint does not count") {
    s.pods[2].tolerations.edit().push_back(tolerate("soft", "x", TaintEffect::kPreferNoSchedule));
    ClusterIndex tolerant(s);
    SchedulerModel m(tolerant);
    std::vector<NodeScore> t = m.scores(2, kAll, ledger);
    // Counts 1, 0, 0 -> 0, 100, 100.
    CHECK(score_of(t, 0).taint == 0);
    CHECK(score_of(t, 1).taint == 100);
  }
  SECTION("loadshift's own soft taint on the pod's node sends the replacement elsewhere") {
    SchedulerModel m(index);
    m.set_soft_taint({SchedulerModel::kAsIs, SchedulerModel::kUntainted, SchedulerModel::kTainted});
    std::vector<NodeScore> t = m.scores(2, kAll, ledger);
    // Counts 2, 1, 1 -> 0, 50, 50: b 24 + 87 + 150 + 200 = 461 beats c 87 + 100 + 150 = 337.
    CHECK(score_of(t, 2).taint == 50);
    CHECK(m.predict(2, kAll, ledger).best == std::vector<NodeId>{1});
  }
}

TEST_CASE("ties, the pod's own node, and what nothing recreates") {
  Snapshot s;
  s.nodes.push_back(make_node("a", 4000, 8 * kGi));
  s.nodes.push_back(make_node("b", 4000, 8 * kGi));
  s.nodes.push_back(make_node("home", 4000, 8 * kGi));
  Pod pod = make_pod("p", 1000, 1 * kGi, "home");
  pod.owners.edit().push_back(controller_owner("rs"));
  s.pods.push_back(pod);
  Pod bare = make_pod("bare", 100, kGi, "home");
  s.pods.push_back(bare);
  Pod daemon = make_pod("daemon", 100, kGi, "home");
  daemon.owners.edit().push_back(controller_owner("ds", "DaemonSet"));
  s.pods.push_back(daemon);
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  Landing landing = model.predict(0, kAll, ledger);
  // a and b are equal and emptier than home (which keeps the original while it terminates).
  CHECK(landing.best == std::vector<NodeId>{0, 1});
  CHECK(model.recreated(0));
  CHECK_FALSE(model.recreated(1));
  CHECK_FALSE(model.recreated(2));

  SECTION("a host port the original holds keeps the replacement off its node") {
    s.pods[0].host_ports = {8080};
    s.nodes[0].unschedulable = true;
    s.nodes[1].unschedulable = true;
    ClusterIndex ports(s);
    SchedulerModel m(ports);
    Landing l = m.predict(0, kAll, ledger);
    CHECK(l.best.empty());
  }
}

TEST_CASE("Volcano pods get binpack besides nodeorder") {
  Snapshot s = two_nodes_and_home();
  s.pods[2].scheduler_name = "volcano";
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
  // binpack on b: cpu 3500/4000 = 0.875, memory 5/8 = 0.625 -> 0.75 -> 75.
  CHECK(score_of(scores, 1).binpack == 75);
  // a: 0.375 and 0.375 -> 37.
  CHECK(score_of(scores, 0).binpack == 37);
  CHECK(score_of(scores, 1).total == 24 + 87 + 300 + 75);
  CHECK(model.predict(2, kAll, ledger).volcano);
}

TEST_CASE("the ledger's planned moves count where they land") {
  Snapshot s = two_nodes_and_home();
  Pod other = make_pod("other", 2000, 2 * kGi, "c");
  other.owners.edit().push_back(controller_owner("web-2"));
  s.pods.push_back(other);
  ClusterIndex index(s);
  SchedulerModel model(index);
  Ledger ledger(s.nodes.size(), &index.pod_topology());
  ledger.reserve(3, 2, 0, index.requests(3));  // other: c -> a
  std::vector<NodeScore> scores = model.scores(2, kAll, ledger);
  // a now holds 1000 + 2000 + 500 = 3500 cpu -> 12; 2 + 2 + 1 = 5Gi -> 37 -> 24.
  CHECK(score_of(scores, 0).fit == 24);
}

}  // namespace loadshift::testing

namespace loadshift::testing {

// predict()'s fast path (totals known before the filters) against the full scoring of scores():
// the same best nodes, on random clusters with a random soft-taint set and random filters.
TEST_CASE("the fast path picks the same best nodes as scoring every node") {
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  size_t fast_cases = 0;
  for (int round = 0; round < 40; ++round) {
    INFO("round " << round);
    Snapshot s;
    const int nodes = pick(3, 25);
    for (int n = 0; n < nodes; ++n) {
      Node node = make_node("n" + std::to_string(n), 1000 * pick(2, 8), kGi * pick(4, 16));
      if (pick(0, 5) == 0) node.unschedulable = true;  // some filters fail
      s.nodes.push_back(node);
    }
    for (int p = 0; p < nodes * 3; ++p) {
      Pod pod = make_pod("p" + std::to_string(p), 100 * pick(0, 10), (kGi / 4) * pick(0, 8),
                         "n" + std::to_string(pick(0, nodes - 1)));
      pod.owners.edit().push_back(controller_owner("rs" + std::to_string(p % 5)));
      if (pick(0, 3) == 0) pod.scheduler_name = "volcano";
      s.pods.push_back(pod);
    }
    std::vector<SchedulerModel::SoftTaint> tainted(s.nodes.size());
    for (size_t n = 0; n < tainted.size(); ++n) {
      tainted[n] = static_cast<SchedulerModel::SoftTaint>(pick(-1, 1));
      // Some nodes carry loadshift's taint already (a cycle before put it there).
      if (pick(0, 3) == 0) {
        s.nodes[n].taints.push_back(
            {SchedulerModel::kSoftTaintKey, "", TaintEffect::kPreferNoSchedule});
      }
    }
    ClusterIndex index(s);
    SchedulerModel model(index);
    model.set_soft_taint(tainted);
    Ledger ledger(s.nodes.size(), &index.pod_topology());
    std::vector<NodeId> all(s.nodes.size());
    for (NodeId n = 0; n < all.size(); ++n) all[n] = n;
    for (PodId pod = 0; pod < s.pods.size(); pod += 7) {
      std::vector<NodeScore> scores = model.scores(pod, all, ledger);
      std::vector<NodeId> expected;
      int64_t top = 0;
      for (const NodeScore& sc : scores) top = std::max(top, sc.total);
      for (const NodeScore& sc : scores) {
        // A Volcano pod's near-ties (within the float scores' truncation) are picks too.
        if (sc.total >= top - model.margin(pod)) expected.push_back(sc.node);
      }
      Landing landing = model.predict(pod, all, ledger);
      CHECK(landing.best == expected);
      if (!expected.empty()) CHECK(landing.score == top);
      ++fast_cases;
      // Plan a move now and then, so later predictions see the ledger.
      if (!landing.best.empty() && pick(0, 2) == 0 && landing.best.front() != index.node_of(pod)) {
        ledger.reserve(pod, index.node_of(pod), landing.best.front(), index.requests(pod));
      }
    }
  }
  CHECK(fast_cases > 100);
}

// The fast path keeps node totals between predictions of pods that score alike and rescoring
// only the nodes whose Ledger input changed: a model used for a whole plan must answer as a fresh
// model does at every step, through moves, moves replaced, and soft-taint changes.
TEST_CASE("kept node totals answer as a fresh model does, through ledger moves") {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  size_t repeated_classes = 0, predictions = 0;
  for (int round = 0; round < 30; ++round) {
    INFO("round " << round);
    Snapshot s;
    // Every third round is larger than kube-scheduler's minFeasibleNodesToFind (100), in zones:
    // there the ReplicaSets' pods take the fast path too, with system-default spreading over
    // the kept candidate counts.
    const bool large = round % 3 == 0;
    const int nodes = large ? pick(101, 130) : pick(4, 30);
    for (int n = 0; n < nodes; ++n) {
      s.nodes.push_back(make_node("n" + std::to_string(n), 1000 * pick(4, 8), kGi * pick(4, 16)));
      if (large && pick(0, 3) != 0) {
        s.nodes.back().meta.labels.set("topology.kubernetes.io/zone", "z" + std::to_string(n % 3));
      }
    }
    for (int p = 0; p < nodes * 4; ++p) {
      // Few sizes, so that many pods share a class.
      Pod pod = make_pod("p" + std::to_string(p), 250 * pick(0, 2), (kGi / 2) * pick(0, 2),
                         "n" + std::to_string(pick(0, nodes - 1)));
      pod.owners.edit().push_back(controller_owner("rs" + std::to_string(p % 3)));
      if (pick(0, 4) == 0) pod.scheduler_name = "volcano";
      s.pods.push_back(pod);
    }
    ClusterIndex index(s);
    SchedulerModel kept(index);
    Ledger ledger(s.nodes.size(), &index.pod_topology());
    std::vector<NodeId> all(s.nodes.size());
    for (NodeId n = 0; n < all.size(); ++n) all[n] = n;
    std::set<std::tuple<int64_t, int64_t, std::string>> seen;
    std::vector<SchedulerModel::SoftTaint> tainted(s.nodes.size(), SchedulerModel::kAsIs);
    for (int step = 0; step < 60; ++step) {
      const PodId pod = static_cast<PodId>(pick(0, static_cast<int>(s.pods.size()) - 1));
      const Pod& p = s.pods[pod];
      if (!seen.insert({index.requests(pod).cpu_milli, index.requests(pod).memory,
                        p.scheduler_name})
               .second) {
        ++repeated_classes;
      }
      SchedulerModel fresh(index);
      fresh.set_soft_taint(tainted);
      // Now and then over a part of the cluster (counted afresh, the kept totals reused).
      std::vector<NodeId> some;
      for (NodeId n : all) {
        if (pick(0, 2) != 0) some.push_back(n);
      }
      const std::vector<NodeId>& nodes_asked = pick(0, 3) == 0 ? some : all;
      Landing expected = fresh.predict(pod, nodes_asked, ledger);
      Landing landing = kept.predict(pod, nodes_asked, ledger);
      CHECK(landing.best == expected.best);
      CHECK(landing.score == expected.score);
      ++predictions;
      // Moves (some of them replacing an earlier move of the same pod) and, now and then, a new
      // soft-taint state.
      if (!landing.best.empty() && pick(0, 1) == 0) {
        ledger.reserve(pod, index.node_of(pod), landing.best.back(), index.requests(pod));
      }
      if (pick(0, 9) == 0) {
        for (auto& t : tainted) t = static_cast<SchedulerModel::SoftTaint>(pick(-1, 1));
        kept.set_soft_taint(tainted);
      }
    }
  }
  CHECK(predictions == 30 * 60);
  CHECK(repeated_classes > 1000);
}

}  // namespace loadshift::testing

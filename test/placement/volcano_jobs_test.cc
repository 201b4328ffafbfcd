#include "placement/volcano_jobs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "model/model.h"
#include "placement/hypernode_tree.h"
#include "placement/ledger.h"

namespace loadshift::placement {
using namespace loadshift::model;
namespace {

constexpr std::string_view kGroupName = "scheduling.k8s.io/group-name";

HyperNodeMember member(HyperNodeMemberType type, std::string name) {
  HyperNodeMember result;
  result.type = type;
  result.exact_name = std::move(name);
  return result;
}

HyperNode hyper_node(std::string name, int32_t tier, std::string tier_name,
                     std::vector<std::string> members, HyperNodeMemberType type) {
  HyperNode result;
  result.meta.name = std::move(name);
  result.tier = tier;
  result.tier_name = std::move(tier_name);
  for (std::string& each : members) result.members.push_back(member(type, std::move(each)));
  return result;
}

// te1..te9 (ids 0..8); te9 is in no HyperNode. HyperNodes as in 04-hypernodes.yaml, tier names
// rack, spine and hall added.
Snapshot seed_cluster() {
  Snapshot snapshot;
  for (int i = 1; i <= 9; ++i) {
    snapshot.nodes.emplace_back();
    snapshot.nodes.back().meta.name = "te" + std::to_string(i);
  }
  const auto kNode = HyperNodeMemberType::kNode;
  const auto kHyper = HyperNodeMemberType::kHyperNode;
  snapshot.hyper_nodes = {
      hyper_node("s0-s1-rack-1", 1, "rack", {"te1", "te2"}, kNode),
      hyper_node("s0-s1-rack-2", 1, "rack", {"te3", "te4"}, kNode),
      hyper_node("s0-s2-rack-3", 1, "rack", {"te5", "te6"}, kNode),
      hyper_node("s0-s2-rack-4", 1, "rack", {"te7", "te8"}, kNode),
      hyper_node("s0-s1", 2, "spine", {"s0-s1-rack-1", "s0-s1-rack-2"}, kHyper),
      hyper_node("s0-s2", 2, "spine", {"s0-s2-rack-3", "s0-s2-rack-4"}, kHyper),
      hyper_node("s0", 3, "hall", {"s0-s1", "s0-s2"}, kHyper),
  };
  return snapshot;
}

constexpr NodeId te(int i) {
  return static_cast<NodeId>(i - 1);
}

NetworkTopology hard(int32_t tier) {
  return NetworkTopology{
      .mode = TopologyMode::kHard, .highest_tier_allowed = tier, .highest_tier_name = {}};
}

Pod pod(std::string name, std::string node_name, std::string group = "hello-volcano-job") {
  Pod result;
  result.meta.namespace_ = "default";
  result.meta.name = std::move(name);
  result.node_name = std::move(node_name);
  result.phase = PodPhase::kRunning;
  if (!group.empty()) result.meta.annotations.set(std::string(kGroupName), std::move(group));
  return result;
}

PodGroup pod_group(std::optional<NetworkTopology> topology,
                   std::string name = "hello-volcano-job") {
  PodGroup result;
  result.meta.namespace_ = "default";
  result.meta.name = std::move(name);
  result.min_member = 3;
  result.network_topology = std::move(topology);
  return result;
}

// Pods 0, 1, 2 of the job run on te1, te2, te3; pod 3 (no job) runs on te1.
Snapshot gang_cluster(std::optional<NetworkTopology> topology) {
  Snapshot snapshot = seed_cluster();
  snapshot.pod_groups.push_back(pod_group(std::move(topology)));
  snapshot.pods = {pod("worker-0", "te1"), pod("worker-1", "te2"), pod("worker-2", "te3"),
                   pod("loner", "te1", "")};
  return snapshot;
}

// The tree, gangs and an empty ledger over one snapshot, checked as a unit.
struct Fixture {
  explicit Fixture(Snapshot cluster)
      : snapshot(std::move(cluster)),
        tree(snapshot.hyper_nodes, snapshot.nodes),
        gangs(snapshot, tree),
        ledger(snapshot.nodes.size()) {}

  bool fits(PodId pod_id, NodeId target, const Ledger& with) {
    return check_network_topology(snapshot, tree, gangs, pod_id, target, with, nullptr);
  }
  bool fits(PodId pod_id, NodeId target) { return fits(pod_id, target, ledger); }
  // The single rejection reason for the move, or "" when it fits.
  std::string reason(PodId pod_id, NodeId target, const Ledger& with) {
    Reasons reasons;
    const bool ok = check_network_topology(snapshot, tree, gangs, pod_id, target, with, &reasons);
    if (ok) return reasons.empty() ? "" : "fits, but with reasons";
    if (reasons.size() != 1 || reasons[0].rule != Rule::kNetworkTopology) return "bad reasons";
    return reasons[0].reason;
  }
  std::string reason(PodId pod_id, NodeId target) { return reason(pod_id, target, ledger); }
  int32_t tier(PodId pod_id, NodeId target) {
    return network_topology_tier(snapshot, tree, gangs, pod_id, target, ledger);
  }

  Snapshot snapshot;
  HyperNodeTree tree;
  GangIndex gangs;
  Ledger ledger;
};

TEST_CASE("pods are grouped into their job by PodGroup annotation", "[gang]") {
  Fixture f(gang_cluster(hard(2)));
  CHECK(f.gangs.warnings().empty());
  REQUIRE(f.gangs.jobs().size() == 1);
  const JobId id = f.gangs.job_of(0);
  REQUIRE(id != kNoJob);
  CHECK(f.gangs.job_of(1) == id);
  CHECK(f.gangs.job_of(2) == id);
  CHECK(f.gangs.job_of(3) == kNoJob);
  CHECK(f.gangs.job_of(99) == kNoJob);
  const GangJob& job = f.gangs.job(id);
  CHECK(job.namespace_ == "default");
  CHECK(job.name == "hello-volcano-job");
  CHECK(job.pod_group == &f.snapshot.pod_groups[0]);
  CHECK(job.job == nullptr);
  CHECK(job.min_available == 3);
  CHECK(job.highest_tier == 2);
  CHECK(job.pods == std::vector<PodId>{0, 1, 2});
  CHECK(job.live_nodes == std::vector<NodeId>{te(1), te(2), te(3)});
}

TEST_CASE("hard tier 2: a move must keep the job under one spine", "[gang]") {
  Fixture f(gang_cluster(hard(2)));
  CHECK(f.fits(2, te(4)));
  CHECK(f.fits(0, te(4)));
  CHECK(f.fits(1, te(3)));
  CHECK_FALSE(f.fits(2, te(5)));
  CHECK_FALSE(f.fits(0, te(8)));
  CHECK(f.reason(2, te(5)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 2; with "
        "this pod on te5 they span s0 (tier 3)");
  CHECK(f.reason(2, te(9)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 2; with "
        "this pod on te9 they share no HyperNode");
  CHECK(f.reason(2, te(4)).empty());
}

TEST_CASE("hard tier 1: a move must stay in the rack", "[gang]") {
  Snapshot snapshot = gang_cluster(hard(1));
  snapshot.pods[2].node_name = "te2";
  Fixture f(std::move(snapshot));
  CHECK(f.fits(2, te(1)));
  CHECK_FALSE(f.fits(2, te(3)));
  CHECK(f.reason(2, te(3)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 1; with "
        "this pod on te3 they span s0-s1 (tier 2)");
}

TEST_CASE("every other pod counts, whatever its order and repeats", "[gang]") {
  Snapshot snapshot = gang_cluster(hard(1));
  snapshot.pods = {pod("w0", "te3"), pod("w1", "te3"), pod("w2", "te2"), pod("w3", "te4")};
  Fixture f(std::move(snapshot));
  CHECK(f.fits(2, te(3)));  // others on te3, te3, te4: rack 2
  CHECK(f.fits(2, te(4)));
  CHECK_FALSE(f.fits(2, te(1)));
  CHECK_FALSE(f.fits(3, te(4)));  // others on te3, te3, te2: the rack holds te3 but not te2
  CHECK(f.reason(3, te(4)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 1; with "
        "this pod on te4 they span s0-s1 (tier 2)");
  CHECK(f.tier(3, te(4)) == 2);
  CHECK(f.tier(2, te(4)) == 1);
  CHECK(f.tier(2, te(7)) == 3);
}

TEST_CASE("planned moves in the ledger count where they land", "[gang]") {
  Fixture f(gang_cluster(hard(2)));
  Ledger ledger(f.snapshot.nodes.size());
  ledger.reserve(2, te(3), te(4), ResourceList{});  // worker-2 already planned onto te4
  CHECK_FALSE(f.fits(0, te(5), ledger));
  CHECK(f.fits(0, te(3), ledger));
  CHECK(f.fits(1, te(4), ledger));

  Ledger far(f.snapshot.nodes.size());
  far.reserve(0, te(1), te(5), ResourceList{});  // worker-0 planned across the spines
  CHECK(f.fits(2, te(4)));
  CHECK_FALSE(f.fits(2, te(4), far));
  CHECK(network_topology_tier(f.snapshot, f.tree, f.gangs, 2, te(4), far) == 3);
  CHECK(f.reason(2, te(4), far) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 2; with "
        "this pod on te4 they span s0 (tier 3)");
}

TEST_CASE("soft mode always passes and scores by tier", "[gang]") {
  Fixture f(gang_cluster(NetworkTopology{
      .mode = TopologyMode::kSoft, .highest_tier_allowed = 2, .highest_tier_name = {}}));
  CHECK(f.fits(2, te(5)));
  CHECK(f.fits(2, te(9)));
  CHECK(f.reason(2, te(5)).empty());
  CHECK(f.tier(2, te(4)) == 2);
  CHECK(f.tier(2, te(5)) == 3);
  CHECK(f.tier(2, te(2)) == 1);
  CHECK(f.tier(2, te(9)) == 4);
}

TEST_CASE("network_topology_tier of hard jobs, and of pods without a job", "[gang]") {
  Fixture f(gang_cluster(hard(2)));
  CHECK(f.tier(2, te(4)) == 2);
  CHECK(f.tier(2, te(5)) == 3);
  CHECK(f.tier(3, te(5)) == 0);
}

TEST_CASE("a pod without a job always passes", "[gang]") {
  Fixture f(gang_cluster(hard(2)));
  CHECK(f.fits(3, te(5)));
  CHECK(f.fits(3, te(9)));
  CHECK(f.reason(3, te(9)).empty());
}

TEST_CASE("a job without topology, or without a bound, always passes", "[gang]") {
  Fixture none(gang_cluster(std::nullopt));
  CHECK(none.fits(2, te(9)));
  CHECK(none.tier(2, te(5)) == 0);
  CHECK(none.gangs.warnings().empty());

  Fixture unbounded(gang_cluster(NetworkTopology{}));
  CHECK(unbounded.fits(2, te(9)));
  CHECK(unbounded.gangs.warnings() ==
        std::vector<std::string>{
            "job default/hello-volcano-job: hard networkTopology without highestTierAllowed or "
            "highestTierName; no tier bound applied"});
}

TEST_CASE("highestTierName resolves through HyperNode tierName", "[gang]") {
  Fixture spine(gang_cluster(NetworkTopology{
      .mode = TopologyMode::kHard, .highest_tier_allowed = {}, .highest_tier_name = "spine"}));
  CHECK(spine.gangs.job(0).highest_tier == 2);
  CHECK(spine.fits(2, te(4)));
  CHECK_FALSE(spine.fits(2, te(5)));

  Fixture rack(gang_cluster(NetworkTopology{
      .mode = TopologyMode::kHard, .highest_tier_allowed = {}, .highest_tier_name = "rack"}));
  CHECK(rack.gangs.job(0).highest_tier == 1);
  CHECK_FALSE(rack.fits(2, te(4)));

  Fixture unknown(gang_cluster(NetworkTopology{
      .mode = TopologyMode::kHard, .highest_tier_allowed = {}, .highest_tier_name = "zone"}));
  CHECK_FALSE(unknown.gangs.job(0).highest_tier.has_value());
  CHECK(unknown.fits(2, te(5)));
  CHECK(unknown.fits(2, te(9)));
  CHECK(unknown.gangs.warnings() ==
        std::vector<std::string>{"job default/hello-volcano-job: no HyperNode has tierName "
                                 "\"zone\"; no tier bound applied"});

  Fixture both(gang_cluster(NetworkTopology{
      .mode = TopologyMode::kHard, .highest_tier_allowed = 1, .highest_tier_name = "spine"}));
  CHECK(both.gangs.job(0).highest_tier == 1);
  CHECK(both.gangs.warnings().size() == 1);
}

TEST_CASE("with no other live pod, the target must be in a HyperNode of tier <= bound", "[gang]") {
  Snapshot snapshot = gang_cluster(hard(2));
  snapshot.pods[0].phase = PodPhase::kSucceeded;
  snapshot.pods[1].phase = PodPhase::kFailed;
  Fixture f(std::move(snapshot));
  CHECK_FALSE(f.fits(2, te(9)));
  CHECK(f.reason(2, te(9)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 2; te9 is "
        "in no HyperNode of tier <= 2");
  CHECK(f.fits(2, te(5)));  // nothing else of the job is live: any rack will do
  CHECK(f.tier(2, te(5)) == 1);
  CHECK(f.tier(2, te(9)) == 4);

  // Pending (unbound) pods and pods on nodes the snapshot lacks do not count either.
  Snapshot unbound = gang_cluster(hard(2));
  unbound.pods[0].node_name = "";
  unbound.pods[0].phase = PodPhase::kPending;
  unbound.pods[1].node_name = "gone";
  Fixture g(std::move(unbound));
  CHECK(g.gangs.job(0).live_nodes == std::vector<NodeId>{kNoNode, kNoNode, te(3)});
  CHECK(g.fits(2, te(5)));
  CHECK_FALSE(g.fits(2, te(9)));
}

TEST_CASE("a node in no HyperNode never hosts a hard job, even with a high bound", "[gang]") {
  Fixture f(gang_cluster(hard(9)));
  CHECK(f.fits(2, te(5)));
  CHECK_FALSE(f.fits(2, te(9)));
  CHECK(f.reason(2, te(9)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 9; with "
        "this pod on te9 they share no HyperNode");
}

TEST_CASE("topology falls back to the vcjob when the PodGroup has none", "[gang]") {
  Snapshot snapshot = gang_cluster(std::nullopt);
  snapshot.pod_groups[0].meta.name = "hello-volcano-job-0a1b";
  snapshot.pod_groups[0].job_name = "hello-volcano-job";
  snapshot.pod_groups[0].min_member = 6;
  for (Pod& each : snapshot.pods) {
    if (each.meta.annotations.contains(kGroupName)) {
      each.meta.annotations.set(std::string(kGroupName), "hello-volcano-job-0a1b");
    }
  }
  snapshot.pods[2].meta.annotations = {};  // only the job-name label links this one
  snapshot.pods[2].meta.labels.set("volcano.sh/job-name", "hello-volcano-job");
  VolcanoJob vcjob;
  vcjob.meta.namespace_ = "default";
  vcjob.meta.name = "hello-volcano-job";
  vcjob.min_available = 6;
  vcjob.network_topology = hard(2);
  snapshot.jobs.push_back(vcjob);
  Fixture f(std::move(snapshot));

  CHECK(f.gangs.warnings().empty());
  REQUIRE(f.gangs.jobs().size() == 1);
  const GangJob& job = f.gangs.job(0);
  CHECK(job.name == "hello-volcano-job-0a1b");
  CHECK(job.job_name == "hello-volcano-job");
  CHECK(job.job == &f.snapshot.jobs[0]);
  CHECK(job.pods == std::vector<PodId>{0, 1, 2});
  CHECK(job.min_available == 6);
  CHECK(f.fits(2, te(4)));
  CHECK(f.reason(2, te(5)) ==
        "job default/hello-volcano-job requires its pods under one HyperNode of tier <= 2; with "
        "this pod on te5 they span s0 (tier 3)");
}

TEST_CASE("the PodGroup's topology wins over the vcjob's", "[gang]") {
  Snapshot snapshot = gang_cluster(hard(1));
  snapshot.pod_groups[0].job_name = "hello-volcano-job";
  VolcanoJob vcjob;
  vcjob.meta.namespace_ = "default";
  vcjob.meta.name = "hello-volcano-job";
  vcjob.network_topology = hard(3);
  snapshot.jobs.push_back(vcjob);
  Fixture f(std::move(snapshot));
  CHECK(f.gangs.job(0).highest_tier == 1);
  CHECK(f.gangs.job(0).job == &f.snapshot.jobs[0]);
}

TEST_CASE("a vcjob without a PodGroup gives minAvailable and topology", "[gang]") {
  Snapshot snapshot = seed_cluster();
  VolcanoJob vcjob;
  vcjob.meta.namespace_ = "default";
  vcjob.meta.name = "hello-volcano-job";
  vcjob.min_available = 6;
  vcjob.network_topology = hard(2);
  snapshot.jobs.push_back(vcjob);
  for (const char* node_name : {"te1", "te3"}) {
    snapshot.pods.push_back(pod(std::string("w-") + node_name, node_name, ""));
    snapshot.pods.back().meta.annotations.set("volcano.sh/job-name", "hello-volcano-job");
  }
  Fixture f(std::move(snapshot));
  CHECK(f.gangs.warnings().empty());
  REQUIRE(f.gangs.jobs().size() == 1);
  CHECK(f.gangs.job(0).name == "hello-volcano-job");
  CHECK(f.gangs.job(0).pod_group == nullptr);
  CHECK(f.gangs.job(0).min_available == 6);
  CHECK(f.fits(0, te(4)));
  CHECK_FALSE(f.fits(0, te(6)));
}

TEST_CASE("topology from pod annotations when no object has one", "[gang]") {
  Snapshot snapshot = gang_cluster(std::nullopt);
  snapshot.pod_groups.clear();  // the PodGroup is named but not in the snapshot
  for (PodId id = 0; id < 3; ++id) {
    snapshot.pods[id].meta.annotations.set("volcano.sh/network-topology-mode", "hard");
    snapshot.pods[id].meta.annotations.set("volcano.sh/network-topology-highest-tier", "2");
  }
  Fixture f(std::move(snapshot));
  CHECK(f.gangs.warnings() ==
        std::vector<std::string>{"job default/hello-volcano-job: PodGroup "
                                 "default/hello-volcano-job named by pod default/worker-0 is not "
                                 "in the snapshot"});
  REQUIRE(f.gangs.jobs().size() == 1);
  CHECK(f.gangs.job(0).pods.size() == 3);
  CHECK(f.gangs.job(0).min_available == 0);
  CHECK(f.gangs.job(0).highest_tier == 2);
  CHECK(f.fits(2, te(4)));
  CHECK_FALSE(f.fits(2, te(5)));
}

TEST_CASE("pod annotations: soft mode, and unreadable values", "[gang]") {
  Snapshot soft = gang_cluster(std::nullopt);
  soft.pods[1].meta.annotations.set("volcano.sh/network-topology-mode", "soft");
  soft.pods[1].meta.annotations.set("volcano.sh/network-topology-highest-tier", "2");
  Fixture s(std::move(soft));
  REQUIRE(s.gangs.job(0).topology.has_value());
  CHECK(s.gangs.job(0).topology->mode == TopologyMode::kSoft);
  CHECK(s.fits(2, te(5)));
  CHECK(s.tier(2, te(5)) == 3);

  Snapshot bad = gang_cluster(std::nullopt);
  bad.pods[0].meta.annotations.set("volcano.sh/network-topology-mode", "strict");
  bad.pods[0].meta.annotations.set("volcano.sh/network-topology-highest-tier", "two");
  Fixture b(std::move(bad));
  REQUIRE(b.gangs.job(0).topology.has_value());
  CHECK(b.gangs.job(0).topology->mode == TopologyMode::kHard);
  CHECK_FALSE(b.gangs.job(0).highest_tier.has_value());
  CHECK(b.fits(2, te(5)));
  CHECK(b.gangs.warnings() ==
        std::vector<std::string>{
            "job default/hello-volcano-job: pod default/worker-0 annotation "
            "volcano.sh/network-topology-mode=\"strict\" is neither hard nor soft; hard assumed",
            "job default/hello-volcano-job: pod default/worker-0 annotation "
            "volcano.sh/network-topology-highest-tier=\"two\" is not a tier (a non-negative "
            "integer); no tier bound applied",
            "job default/hello-volcano-job: hard networkTopology without highestTierAllowed or "
            "highestTierName; no tier bound applied"});
}

TEST_CASE("jobs are per namespace; the volcano group-name annotation also links", "[gang]") {
  Snapshot snapshot = gang_cluster(hard(2));
  Pod other = pod("worker-0", "te5", "");
  other.meta.namespace_ = "team-b";
  other.meta.annotations.set("scheduling.volcano.sh/group-name", "hello-volcano-job");
  snapshot.pods.push_back(other);  // pod 4
  PodGroup group = pod_group(hard(2));
  group.meta.namespace_ = "team-b";
  snapshot.pod_groups.push_back(group);
  Fixture f(std::move(snapshot));
  REQUIRE(f.gangs.jobs().size() == 2);
  CHECK(f.gangs.job_of(4) != f.gangs.job_of(0));
  CHECK(f.gangs.job(f.gangs.job_of(4)).pod_group == &f.snapshot.pod_groups[1]);
  CHECK(f.gangs.job(f.gangs.job_of(0)).pods.size() == 3);
  CHECK(f.fits(2, te(4)));  // team-b's pod on te5 does not count for default's job
  CHECK(f.fits(4, te(8)));  // alone in its job: any rack
  CHECK_FALSE(f.fits(4, te(9)));
}

}  // namespace
}  // namespace loadshift::placement

// The user's seed examples (../shared/seed-examples) as the bundled example cluster
// (examples/seed-cluster/cluster.yaml): the placement core must decide them exactly.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>
#include <sstream>

#include "model/decode.h"
#include "placement/cluster_index.h"
#include "placement/placer.h"

using namespace loadshift::placement;

using namespace loadshift::model;

namespace {

struct SeedCluster {
  Snapshot snapshot;
  std::unique_ptr<ClusterIndex> index;

  SeedCluster() {
    std::ifstream file(LOADSHIFT_SOURCE_DIR "/examples/seed-cluster/cluster.yaml");
    REQUIRE(file);
    std::stringstream text;
    text << file.rdbuf();
    DecodeSummary summary = decode_yaml(text.str(), &snapshot);
    for (const auto& e : summary.errors) FAIL_CHECK(e.to_string());
    REQUIRE(summary.ok());
    index = std::make_unique<ClusterIndex>(snapshot);
  }

  NodeId node(const std::string& name) const {
    NodeId id = index->node_id(name);
    REQUIRE(id != kNoNode);
    return id;
  }
  PodId pod(const std::string& name) const {
    for (PodId id = 0; id < snapshot.pods.size(); ++id) {
      if (snapshot.pods[id].meta.name == name) return id;
    }
    FAIL("no pod " << name);
    return 0;
  }
  std::vector<std::string> feasible(PodId pod, const Ledger& ledger) const {
    Placer placer(*index);
    std::vector<std::string> names;
    for (NodeId n = 0; n < snapshot.nodes.size(); ++n) {
      if (placer.feasible(pod, n, ledger)) names.push_back(snapshot.nodes[n].meta.name);
    }
    return names;
  }
  std::vector<Rule> failed_rules(PodId pod, const std::string& node, const Ledger& ledger) const {
    std::vector<Rule> rules;
    for (const auto& f : Placer(*index).fits(pod, this->node(node), ledger).failures) {
      rules.push_back(f.rule);
    }
    return rules;
  }
};

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("seed: the example cluster decodes completely", "[seed]") {
  SeedCluster seed;
  CHECK(seed.snapshot.nodes.size() == 8);
  CHECK(seed.snapshot.hyper_nodes.size() == 7);
  CHECK(seed.snapshot.jobs.size() == 2);
  CHECK(seed.snapshot.pod_groups.size() == 2);
  CHECK(seed.snapshot.priority_classes.size() == 2);
  CHECK(seed.snapshot.pods.size() == 20);
  CHECK(seed.index->known_pools() == Names{"hybrid", "inference", "training"});
  CHECK(seed.index->warnings().empty());
}

TEST_CASE("seed: the training pod fits training and hybrid nodes, never inference nodes",
          "[seed]") {
  SeedCluster seed;
  Ledger ledger(seed.snapshot.nodes.size());
  PodId training = seed.pod("training-job-worker-0");  // runs on te1
  CHECK(seed.feasible(training, ledger) == Names{"te2", "te3", "te4", "te7", "te8"});
  for (const char* inference : {"te5", "te6"}) {
    Verdict v = Placer(*seed.index).fits(training, seed.node(inference), ledger);
    INFO(inference << ": " << v.describe());
    REQUIRE_FALSE(v.fits());
    bool pool_reason = false;
    for (const auto& f : v.failures) {
      if (f.rule != Rule::kUsagePool) continue;
      pool_reason = true;
      CHECK(f.reason ==
            "node is in usage pool inference; the pod may not run there (its pools: hybrid, "
            "training)");
    }
    CHECK(pool_reason);
  }
  PodPools pools = pod_pools(seed.snapshot.pods[training], kDefaultPoolLabel,
                             seed.index->known_pools());
  CHECK(pools.allowed == Names{"hybrid", "training"});
  CHECK(pools.preferred == Names{"training"});

  // Best target: a training node (preferred weight 100) over hybrid ones.
  std::vector<NodeId> all(seed.snapshot.nodes.size());
  std::iota(all.begin(), all.end(), 0);
  TargetChoice choice = Placer(*seed.index).best_target(training, all, ledger);
  REQUIRE(choice.target);
  CHECK(seed.snapshot.nodes[*choice.target].meta.labels.find(kDefaultPoolLabel)->compare(
            "training") == 0);
  CHECK(choice.score.preferred_affinity == 100);
  CHECK(choice.rejected.size() == 3);  // te1 (its own node), te5, te6
}

TEST_CASE("seed: the inference pod pushed onto hybrid can go home", "[seed]") {
  SeedCluster seed;
  Ledger ledger(seed.snapshot.nodes.size());
  PodId pushed = seed.pod("inference-service-7d9c5-fghij");  // on te7 (hybrid)
  CHECK(seed.feasible(pushed, ledger) == Names{"te5", "te8"});  // te6 is an A100 node
  Placer placer(*seed.index);
  CHECK(placer.score(pushed, seed.node("te5"), ledger).preferred_affinity == 100);
  CHECK(placer.score(pushed, seed.node("te8"), ledger).preferred_affinity == 0);
  CHECK(seed.failed_rules(pushed, "te6", ledger) == std::vector<Rule>{Rule::kTaints});
}

TEST_CASE("seed: a CPU pod without the H20 toleration never fits an H20 node", "[seed]") {
  SeedCluster seed;
  Ledger ledger(seed.snapshot.nodes.size());
  PodId cpu_pod = seed.pod("low-priority-workload-5f6b7-r7t3w");  // on te7
  for (const char* h20 : {"te1", "te2", "te3", "te4", "te5"}) {
    Verdict v = Placer(*seed.index).fits(cpu_pod, seed.node(h20), ledger);
    INFO(h20 << ": " << v.describe());
    REQUIRE_FALSE(v.fits());
    CHECK(v.describe().find("taint nvidia.com/gpu.product=NVIDIA-H20:NoSchedule not tolerated") !=
          std::string::npos);
  }
  CHECK(seed.feasible(cpu_pod, ledger) == Names{"te8"});
}

TEST_CASE("seed: a hard tier-2 job on te1, te2, te3 may move a pod to te4, never to te5",
          "[seed]") {
  SeedCluster seed;
  Ledger ledger(seed.snapshot.nodes.size());
  Placer placer(*seed.index);
  PodId member = seed.pod("hello-volcano-job-mytask-9");  // on te3
  CHECK(placer.feasible(member, seed.node("te4"), ledger));
  CHECK_FALSE(placer.feasible(member, seed.node("te5"), ledger));
  // te7 is a hybrid H20 node the pod's pool rules allow: only the tier bound refuses it.
  CHECK(seed.failed_rules(member, "te7", ledger) == std::vector<Rule>{Rule::kNetworkTopology});
  CHECK(seed.failed_rules(member, "te8", ledger) == std::vector<Rule>{Rule::kNetworkTopology});
  CHECK(seed.feasible(member, ledger) == Names{"te1", "te2", "te4"});

  // Once one pod is planned onto te4, the others still may not leave spine s0-s1.
  ledger.reserve(member, seed.node("te3"), seed.node("te4"), seed.index->requests(member));
  PodId other = seed.pod("hello-volcano-job-mytask-0");  // on te1
  CHECK(placer.feasible(other, seed.node("te3"), ledger));
  CHECK(seed.failed_rules(other, "te7", ledger) == std::vector<Rule>{Rule::kNetworkTopology});
}

TEST_CASE("seed: GPU pods need free GPUs of the same product", "[seed]") {
  SeedCluster seed;
  Ledger ledger(seed.snapshot.nodes.size());
  // gpu-batch-0 (1 x H20, tolerates every taint, on te7): te2 has all 8 GPUs taken, te4 has
  // 4 free, te6 is an A100 node, te8 has no GPUs.
  PodId batch = seed.pod("gpu-batch-0");
  CHECK(seed.feasible(batch, ledger) == Names{"te1", "te3", "te4", "te5"});
  CHECK(seed.failed_rules(batch, "te2", ledger) == std::vector<Rule>{Rule::kResources});
  CHECK(seed.failed_rules(batch, "te6", ledger) == std::vector<Rule>{Rule::kGpu});
  CHECK(seed.failed_rules(batch, "te8", ledger) == std::vector<Rule>{Rule::kResources});

  // gpu-trainer-0 (8 x H20 on te2) fits only where 8 GPUs are free in its pools.
  PodId trainer = seed.pod("gpu-trainer-0");
  CHECK(seed.feasible(trainer, ledger) == Names{"te1", "te3"});  // te7: gpu-batch-0 holds one
  // Reserving it on te3 uses te3's GPUs for every later check.
  ledger.reserve(trainer, seed.node("te2"), seed.node("te3"), seed.index->requests(trainer));
  CHECK(seed.failed_rules(batch, "te3", ledger) == std::vector<Rule>{Rule::kResources});
}

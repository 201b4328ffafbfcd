// The soft taint on hot nodes (--soft-taint-hot-nodes): put on a hot node pods are evicted from,
// kept while it is hot or unknown, removed when it cools, never in dry run, other taints kept, and
// a node that cannot be tainted keeps its pods this cycle.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "controller/soft_taint.h"
#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

const nlohmann::json kSoftTaint = {{"key", "loadshift.io/overutilized"},
                                   {"effect", "PreferNoSchedule"}};

// te3's taints as the seed has them (a pool and a GPU product).
const nlohmann::json kTe3Taints = nlohmann::json::array(
    {{{"key", "maip.mxsf.io/node.usage"}, {"value", "training"}, {"effect", "NoSchedule"}},
     {{"key", "nvidia.com/gpu.product"}, {"value", "NVIDIA-H20"}, {"effect", "NoSchedule"}}});

nlohmann::json taints_of(const FakeApiServer& server, const std::string& node) {
  for (const nlohmann::json& n : server.objects("/api/v1/nodes")) {
    if (n["metadata"]["name"] == node) {
      return n["spec"].contains("taints") ? n["spec"]["taints"] : nlohmann::json::array();
    }
  }
  FAIL("no node " << node);
  return {};
}

size_t writes_to(const FakeApiServer& server, const std::string& method,
                 const std::string& path_part) {
  size_t n = 0;
  for (const RecordedRequest& r : server.writes()) {
    if (r.method == method && r.path.find(path_part) != std::string::npos) ++n;
  }
  return n;
}

// The seed usage with the cpu of some nodes replaced ("" leaves the node without data).
std::function<FakeResponse(const FakeRequest&)> usage_with(
    const std::map<std::string, std::string>& cpu) {
  return [cpu](const FakeRequest& r) {
    FakeResponse answer = seed_usage_answer(r);
    nlohmann::json body = nlohmann::json::parse(answer.body);
    nlohmann::json& result = body["data"]["result"];
    nlohmann::json kept = nlohmann::json::array();
    const bool memory = r.form("query").find("memory") != std::string::npos ||
                        r.form("query").find("Mem") != std::string::npos;
    for (nlohmann::json& sample : result) {
      auto it = cpu.find(sample["metric"].value("instance", ""));
      if (it != cpu.end()) {
        if (it->second.empty()) continue;
        if (!memory) sample["value"][1] = it->second;
      }
      kept.push_back(sample);
    }
    result = kept;
    answer.body = body.dump();
    return answer;
  };
}

bool cache_sees_taint(Replica& replica, bool wanted) {
  return eventually([&] {
    std::optional<model::Node> node = replica.cache.node("te3");
    return node && controller::has_soft_taint(*node) == wanted;
  });
}

}  // namespace

TEST_CASE("soft taint: added to a hot node with evictions, kept while hot, removed when cool",
          "[run][taint]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  controller::LoopSettings settings;
  settings.plan.soft_taint_hot_nodes = true;
  Replica replica(server, prometheus, tmp, policy, settings);

  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  CHECK(outcome.evicted == 1);
  // Appended after the node's own taints, which stay as they were.
  nlohmann::json expected = kTe3Taints;
  expected.push_back(kSoftTaint);
  CHECK(taints_of(server, "te3") == expected);
  // One JSON Patch of te3 only, before the eviction, testing the resourceVersion.
  std::vector<RecordedRequest> writes = server.writes();
  REQUIRE(writes.size() >= 2);
  CHECK(writes[0].method == "PATCH");
  CHECK(writes[0].path == "/api/v1/nodes/te3");
  CHECK(writes[0].status == 200);
  CHECK(writes[0].headers["content-type"] == "application/json-patch+json");
  nlohmann::json ops = nlohmann::json::parse(writes[0].body);
  REQUIRE(ops.size() == 2);
  CHECK(ops[0]["op"] == "test");
  CHECK(ops[0]["path"] == "/metadata/resourceVersion");
  CHECK(ops[1] ==
        nlohmann::json({{"op", "add"}, {"path", "/spec/taints/-"}, {"value", kSoftTaint}}));
  CHECK_THAT(writes[1].path, Contains("/eviction"));
  CHECK(writes_to(server, "PATCH", "/api/v1/nodes/") == 1);
  CHECK_THAT(log.text(), Contains("soft taint added node=te3"));
  CHECK_THAT(scrape(*replica.registry), Contains("loadshift_soft_tainted_nodes 1"));
  CHECK_THAT(scrape(*replica.registry),
             Contains("loadshift_soft_taint_changes_total{action=\"added\"} 1"));

  REQUIRE(cache_sees_taint(replica, true));
  SECTION("kept while the node is hot (the workload's other pod leaves this cycle)") {
    REQUIRE(eventually([&] { return replica.cache.pod("load-test", kHotPodA) == std::nullopt; }));
    outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(outcome.evicted == 1);
    CHECK(writes_to(server, "PATCH", "/api/v1/nodes/") == 1);
    CHECK(taints_of(server, "te3") == expected);
    CHECK_THAT(scrape(*replica.registry), Contains("loadshift_soft_tainted_nodes 1"));

    // te3 cools to 50% (appropriate): the taint goes, the other two stay.
    prometheus.set_handler(usage_with({{"te3", "50"}}));
    outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(writes_to(server, "PATCH", "/api/v1/nodes/te3") == 2);
    CHECK(taints_of(server, "te3") == kTe3Taints);
    CHECK_THAT(log.text(), Contains("soft taint removed node=te3"));
    CHECK_THAT(scrape(*replica.registry), Contains("loadshift_soft_tainted_nodes 0"));
    REQUIRE(cache_sees_taint(replica, false));
  }
  SECTION("kept while the node's usage is unknown") {
    prometheus.set_handler(usage_with({{"te3", ""}}));
    outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(writes_to(server, "PATCH", "/api/v1/nodes/") == 1);
    CHECK(taints_of(server, "te3") == expected);
    CHECK_THAT(log.text(), Contains("soft taint kept node=te3"));
  }
}

TEST_CASE("soft taint: a cooled target loses it, and the evictions toward it go on",
          "[run][taint]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  // te8, the one target the hot pods may go to, still carries the taint from an earlier cycle.
  for (nlohmann::json node : server.objects("/api/v1/nodes")) {
    if (node["metadata"]["name"] != "te8") continue;
    node["spec"]["taints"].push_back(kSoftTaint);
    node["metadata"].erase("resourceVersion");
    server.upsert("/api/v1/nodes", node);
  }
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.soft_taint_hot_nodes = true;
  Replica replica(server, prometheus, tmp, policy, settings);
  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  nlohmann::json te8 = taints_of(server, "te8");
  CHECK(std::count(te8.begin(), te8.end(), kSoftTaint) == 0);
  CHECK_FALSE(te8.empty());  // its own taints stay
  nlohmann::json te3 = taints_of(server, "te3");
  CHECK(std::count(te3.begin(), te3.end(), kSoftTaint) == 1);
  // This cycle's own patch of te8 is not a change that voids the plan's verdict on it.
  CHECK(outcome.evicted == 1);
  CHECK_THAT(scrape(*replica.registry),
             !Contains("loadshift_evictions_skipped_total{reason=\"target_changed\"}"));
  CHECK_THAT(scrape(*replica.registry), Contains("loadshift_soft_tainted_nodes 1"));
}

TEST_CASE("soft taint: never in dry run", "[run][taint]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.soft_taint_hot_nodes = true;
  settings.dry_run = true;
  Replica replica(server, prometheus, tmp, policy, settings);
  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  CHECK(outcome.planned >= 1);
  CHECK(server.writes().empty());
  CHECK(taints_of(server, "te3") == kTe3Taints);
}

TEST_CASE("soft taint: a node that cannot be tainted keeps its pods this cycle", "[run][taint]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  controller::LoopSettings settings;
  settings.plan.soft_taint_hot_nodes = true;
  settings.plan.max_in_flight_per_workload = 0;               // both pods of te3 planned and carried out
  Replica replica(server, prometheus, tmp, policy, settings);

  SECTION("403: refused") {
    server.fail_next("/api/v1/nodes/te3", 403);
    controller::CycleOutcome outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(outcome.planned == 2);
    CHECK(outcome.evicted == 0);
    CHECK(outcome.skipped == 2);
    CHECK(writes_to(server, "POST", "/eviction") == 0);
    CHECK(taints_of(server, "te3") == kTe3Taints);
    CHECK_THAT(log.text(), Contains("soft taint failed node=te3"));
    CHECK_THAT(log.text(), Contains("soft taint missing"));
    std::string metrics = scrape(*replica.registry);
    CHECK_THAT(metrics,
               Contains("loadshift_evictions_skipped_total{reason=\"soft_taint_failed\"} 2"));
    CHECK_THAT(metrics, Contains("loadshift_soft_taint_changes_total{action=\"failed\"} 1"));
    CHECK_THAT(metrics, Contains("loadshift_soft_tainted_nodes 0"));
  }
  SECTION("refused on one node: no eviction at all (every landing was predicted with it)") {
    prometheus.set_handler(usage_with({{"te7", "90"}}));  // te7 is hot too
    server.fail_next("/api/v1/nodes/te3", 403);
    controller::CycleOutcome outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(outcome.planned == 3);
    CHECK(outcome.skipped == 3);
    CHECK(outcome.evicted == 0);
    CHECK(writes_to(server, "POST", "/eviction") == 0);
    // te7's taint was put on: it is hot whatever happens to te3.
    nlohmann::json te7 = taints_of(server, "te7");
    CHECK(std::count(te7.begin(), te7.end(), kSoftTaint) == 1);
    CHECK(taints_of(server, "te3") == kTe3Taints);
    CHECK_THAT(log.text(), Contains("every landing this cycle was predicted with it"));
  }
  SECTION("422 (the node changed since the snapshot): made again from the newer node") {
    server.fail_next("/api/v1/nodes/te3", 422);
    controller::CycleOutcome outcome = replica.cycle();
    INFO(outcome.why);
    CHECK(outcome.evicted == 2);
    CHECK(writes_to(server, "PATCH", "/api/v1/nodes/te3") == 2);
    nlohmann::json expected = kTe3Taints;
    expected.push_back(kSoftTaint);
    CHECK(taints_of(server, "te3") == expected);
  }
}

TEST_CASE("soft taint: every hot node gets it, also one the plan evicts nothing from",
          "[run][taint]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  controller::LoopSettings settings;
  settings.plan.soft_taint_hot_nodes = true;
  Replica replica(server, prometheus, tmp, policy, settings);
  // te1 runs only pods of the excluded namespace default: hot, but nothing to evict from it. The
  // plan's landing predictions counted the taint on it all the same.
  prometheus.set_handler(usage_with({{"te1", "95"}}));
  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  nlohmann::json te1 = taints_of(server, "te1");
  CHECK(std::count(te1.begin(), te1.end(), kSoftTaint) == 1);
  nlohmann::json te3 = taints_of(server, "te3");
  CHECK(std::count(te3.begin(), te3.end(), kSoftTaint) == 1);
  CHECK_THAT(log.text(), Contains("soft taint added node=te1"));
  CHECK_THAT(log.text(), Contains("0 eviction(s) planned"));
  CHECK(outcome.evicted >= 1);  // te3's pods still go
}

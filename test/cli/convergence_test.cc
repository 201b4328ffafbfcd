// Relief within three cycles, without ping-pong, under the schedulers users run (`simulate`, with
// the settings `run` uses by default: the policy's loadshift section, 30m cool-down, one pod in
// flight per workload, landing prediction):
//  (a) six replicas of one Deployment on a hot 16-core node, kube-scheduler scoring
//      (examples/hot-replicas);
//  (b) the seeds' load test with schedulerName volcano (examples/volcano-load-test) under
//      Volcano's shipped configuration (nodeorder + binpack), without binpack, and with the usage
//      plugin;
//  (c) the least-requested hot node (examples/ping-pong): only the soft taint relieves it, and
//      without it the report says so and how to turn it on.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "test/policy/load_text.h"

using namespace loadshift::cli;

namespace {

const std::string kExamples = LOADSHIFT_SOURCE_DIR "/examples/";
const std::string kSeedPolicy =
    LOADSHIFT_SOURCE_DIR "/test/data/shared/seed-examples/05-load-aware-policy.yaml";

nlohmann::json simulate_json(SimulateOptions o) {
  o.at = "2026-11-22T04:00:00Z";
  o.output = "json";
  o.interval = "30s";  // --descheduling-interval 30s, as in the field report
  std::ostringstream out, err;
  int code = run_simulate(o, out, err);
  INFO(err.str());
  REQUIRE(code == 0);
  return nlohmann::json::parse(out.str());
}

SimulateOptions example(const std::string& dir, const std::string& policy, int cycles) {
  SimulateOptions o;
  o.policy_file = policy;
  o.snapshot_files = {kExamples + dir + "/cluster.json"};
  o.usage_file = kExamples + dir + "/usage.json";
  o.cycles = cycles;
  return o;
}

// The first cycle after which `node` is below `percent` cpu, or 0 when it never is.
int relieved_after(const nlohmann::json& j, size_t node, double percent) {
  for (const auto& c : j["perCycle"]) {
    if (c["cycle"] == 0) continue;
    if (c["cpuByNode"][node].get<double>() < percent) return c["cycle"].get<int>();
  }
  return 0;
}

// `policy_file` with `section` inserted as its top-level `loadshift` section.
std::string with_loadshift_section(const std::string& policy_file, const std::string& section,
                                   const std::string& out_path) {
  std::string text = loadshift::policy::testing::read_file(policy_file);
  std::string kind = "kind: \"DeschedulerPolicy\"\n";
  size_t at = text.find(kind);
  if (at == std::string::npos) {
    kind = "kind: DeschedulerPolicy\n";
    at = text.find(kind);
  }
  REQUIRE(at != std::string::npos);
  size_t end = text.find("profiles:", at);
  REQUIRE(end != std::string::npos);
  text.replace(at + kind.size(), end - at - kind.size(), section);
  std::ofstream(out_path) << text;
  return out_path;
}

}  // namespace

TEST_CASE("convergence (a): six replicas leave the hot node, one per cycle, below 80% in three",
          "[convergence]") {
  nlohmann::json j = simulate_json(example("hot-replicas", kSeedPolicy, 6));
  CHECK(j["workloadCooldownSeconds"] == 1800);
  CHECK(j["maxInFlightPerWorkload"] == 1);
  REQUIRE(j["nodes"][0] == "h1");
  // 95% with six replicas using 0.95 core each (5.9% of 16 cores): three must go.
  const int relieved = relieved_after(j, 0, 80);
  CHECK(relieved >= 1);
  CHECK(relieved <= 3);
  for (int cycle = 1; cycle <= 3; ++cycle) CHECK(j["perCycle"][cycle]["evictions"] == 1);
  CHECK(j["convergedAfter"] == 3);
  CHECK(j["perCycle"][6]["movedBack"] == 0);
  CHECK(j["perCycle"][6]["movedTwice"] == 0);
  CHECK(j["perCycle"][6]["elsewhere"] == 0);
}

TEST_CASE("convergence (b): the seeds' Volcano load test is relieved under Volcano's scoring",
          "[convergence]") {
  const std::string dir = "volcano-load-test";
  const std::string shipped = kExamples + dir + "/policy.yaml";
  auto check_relieved = [&](const std::string& policy) {
    nlohmann::json j = simulate_json(example(dir, policy, 6));
    REQUIRE(j["nodes"][0] == "te1");
    const int relieved = relieved_after(j, 0, 80);
    CHECK(relieved >= 1);
    CHECK(relieved <= 3);
    CHECK(j["perCycle"][6]["movedBack"] == 0);
    CHECK(j["perCycle"][6]["movedTwice"] == 0);
  };
  SECTION("the shipped configuration: nodeorder + binpack") { check_relieved(shipped); }
  SECTION("without binpack") {
    check_relieved(with_loadshift_section(
        shipped, "loadshift:\n  volcanoScheduler:\n    plugins:\n    - name: nodeorder\n",
        "/tmp/loadshift-convergence-no-binpack.yaml"));
  }
  SECTION("with the usage plugin (te1 at 92% is filtered out by its 80% cpu threshold)") {
    check_relieved(with_loadshift_section(shipped,
                                          "loadshift:\n  volcanoScheduler:\n    plugins:\n"
                                          "    - name: nodeorder\n    - name: binpack\n"
                                          "    - name: usage\n"
                                          "      arguments: {thresholds: {cpu: 80, mem: 80}}\n",
                                          "/tmp/loadshift-convergence-usage.yaml"));
  }
}

TEST_CASE("convergence (c): the least-requested hot node moves only with the soft taint",
          "[convergence]") {
  const std::string dir = kExamples + "ping-pong/";
  SimulateOptions o;
  o.policy_file = dir + "policy.yaml";
  o.snapshot_files = {dir + "cluster.yaml"};
  o.usage_file = dir + "usage.json";
  o.cycles = 6;
  SECTION("the soft taint from the policy's section: relieved in the first cycles, none back") {
    o.policy_file = with_loadshift_section(
        dir + "policy.yaml", "loadshift:\n  softTaintHotNodes: true\n",
        "/tmp/loadshift-convergence-soft-taint.yaml");
    nlohmann::json j = simulate_json(o);
    CHECK(j["softTaintHotNodes"] == true);
    const int relieved = relieved_after(j, 0, 70);  // pp1's targetThresholds cpu 70
    CHECK(relieved >= 1);
    CHECK(relieved <= 3);
    CHECK(j["perCycle"][6]["movedBack"] == 0);
  }
  SECTION("without it nothing moves, and the report says why and how to turn it on") {
    nlohmann::json j = simulate_json(o);
    for (int cycle = 1; cycle <= 6; ++cycle) CHECK(j["perCycle"][cycle]["evictions"] == 0);
    ReportOptions r;
    r.policy_file = o.policy_file;
    r.snapshot_files = o.snapshot_files;
    r.usage_file = o.usage_file;
    r.at = "2026-11-22T04:00:00Z";
    std::ostringstream out, err;
    REQUIRE(run_report(r, out, err) == 0);
    CHECK_THAT(out.str(), Catch::Contains("replacement would land back on pp1"));
    CHECK_THAT(out.str(), Catch::Contains("pp1 needs the soft taint: the scheduler would put pods' replacements back"));
    CHECK_THAT(out.str(), Catch::Contains("`loadshift: {softTaintHotNodes: true}` in the policy"));
    // And the report with the soft taint shows the plan the controller would then carry out.
    r.plan.soft_taint_hot_nodes = true;
    std::ostringstream tainted;
    REQUIRE(run_report(r, tainted, err) == 0);
    CHECK_THAT(tainted.str(), Catch::Contains("pp1 -> pp"));
  }
}

// `loadshift explain NAMESPACE/POD`: what each plugin did with the pod and why, every node's
// verdict with the scheduler model's scores, and where the replacement lands, with its chance.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/commands.h"

using namespace loadshift::cli;

namespace {

const std::string kExamples = LOADSHIFT_SOURCE_DIR "/examples/";

struct Run {
  int code = 0;
  std::string out, err;
};

Run explain(const std::string& pod, const std::string& dir, const std::string& policy,
            const std::string& cluster, const std::string& output = "table") {
  ExplainOptions o;
  o.pod = pod;
  o.report.policy_file = policy;
  o.report.snapshot_files = {kExamples + dir + "/" + cluster};
  o.report.usage_file = kExamples + dir + "/usage.json";
  o.report.at = "2026-11-22T04:00:00Z";
  o.output = output;
  std::ostringstream out, err;
  Run run;
  run.code = run_explain(o, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

const std::string kSeedPolicy =
    LOADSHIFT_SOURCE_DIR "/test/data/shared/seed-examples/05-load-aware-policy.yaml";

}  // namespace

TEST_CASE("explain: a pod LoadAware moves, with every node's score and the landing's chance",
          "[explain]") {
  Run run = explain("loadtest/low-priority-workload-6d5f8-a1b2c", "hot-replicas", kSeedPolicy,
                    "cluster.json", "json");
  INFO(run.err);
  REQUIRE(run.code == 0);
  nlohmann::json j = nlohmann::json::parse(run.out);
  CHECK(j["node"] == "h1");
  CHECK(j["nodeClass"] == "overutilized");
  REQUIRE(j["plugins"].size() == 1);
  CHECK(j["plugins"][0]["plugin"] == "LoadAware");
  CHECK(j["plugins"][0]["action"] == "evicts");
  CHECK(j["plugins"][0]["target"] == "i1");
  REQUIRE(j["nodes"].size() == 3);
  for (const auto& n : j["nodes"]) CHECK(n["feasible"] == true);
  // Five other replicas on h1: system-default spreading scores it lower than the empty nodes.
  CHECK(j["nodes"][0]["score"]["spread"].get<int>() < j["nodes"][1]["score"]["spread"].get<int>());
  CHECK(j["landing"]["nodes"] == nlohmann::json::array({"i1", "i2"}));
  CHECK(j["landing"]["chanceEach"] == 0.5);

  Run table = explain("loadtest/low-priority-workload-6d5f8-a1b2c", "hot-replicas", kSeedPolicy,
                      "cluster.json");
  REQUIRE(table.code == 0);
  CHECK_THAT(table.out, Catch::Contains("kube-system/LoadAware: evicts -> i1: h1 cpu 95.0% > 80%"));
  CHECK_THAT(table.out, Catch::Contains("  h1  feasible, scheduler score h1 "));
  CHECK_THAT(table.out, Catch::Contains("i1 or i2 (score 685; 1 in 2 each)"));
}

TEST_CASE("explain: the pod that stays says why, and where it would land", "[explain]") {
  Run run = explain("apps/busy-7c9d8-0", "ping-pong", kExamples + "ping-pong/policy.yaml",
                    "cluster.yaml");
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK_THAT(run.out, Catch::Contains("balance/LoadAware: skips: replacement would land back on pp1"));
  CHECK_THAT(run.out, Catch::Contains("Where the scheduler puts its replacement\n  pp1 (score"));
  // A bare pod: nothing recreates it.
  Run bare = explain("loadtest/stress-pod-on-h1", "hot-replicas", kSeedPolicy, "cluster.json");
  REQUIRE(bare.code == 0);
  CHECK_THAT(bare.out, Catch::Contains("nowhere: no controller owner: nothing recreates it"));
}

TEST_CASE("explain: bad input exits 2 and names it", "[explain]") {
  Run missing = explain("loadtest/nope", "hot-replicas", kSeedPolicy, "cluster.json");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.err, Catch::Contains("pod loadtest/nope is not in the cluster read"));
  Run shape = explain("nope", "hot-replicas", kSeedPolicy, "cluster.json");
  CHECK(shape.code == 2);
  CHECK_THAT(shape.err, Catch::Contains("expected the pod as NAMESPACE/NAME, found \"nope\""));
  Run output = explain("loadtest/x", "hot-replicas", kSeedPolicy, "cluster.json", "yaml");
  CHECK(output.code == 2);
  CHECK_THAT(output.err, Catch::Contains("--output: expected table, json or html"));
}

// `loadshift simulate`: the ping-pong case (examples/ping-pong: the hot node is the least
// requested) bounces every cycle without landing prediction and never with it; the soft taint
// relieves the hot node without a bounce; bad flags exit 2 naming the flag; the chart renders.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.h"

using namespace loadshift::cli;
namespace fs = std::filesystem;

namespace {

const std::string kDir = LOADSHIFT_SOURCE_DIR "/examples/ping-pong/";

struct Run {
  int code = 0;
  std::string out, err;
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

SimulateOptions ping_pong(int cycles) {
  SimulateOptions o;
  o.policy_file = kDir + "policy.yaml";
  o.snapshot_files = {kDir + "cluster.yaml"};
  o.usage_file = kDir + "usage.json";
  o.cycles = cycles;
  o.at = "2026-11-22T04:00:00Z";
  o.output = "json";
  return o;
}

Run simulate(const SimulateOptions& options) {
  std::ostringstream out, err;
  Run run;
  run.code = run_simulate(options, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

}  // namespace

TEST_CASE("simulate: the ping-pong case bounces without landing prediction, not with it") {
  SECTION("without prediction: an eviction every cycle, each replacement back on pp1") {
    SimulateOptions o = ping_pong(6);
    o.plan.no_landing_prediction = true;
    o.plan.workload_cooldown = "0";  // the same pod may bounce again next cycle
    Run run = simulate(o);
    REQUIRE(run.code == 0);
    nlohmann::json j = run.json();
    CHECK(j["landingPrediction"] == false);
    CHECK(j["convergedAfter"].is_null());
    for (int cycle = 1; cycle <= 6; ++cycle) {
      INFO("cycle " << cycle);
      CHECK(j["perCycle"][cycle]["evictions"].get<int>() >= 1);
      // Nothing changes: the replacement is back on the hot node.
      CHECK(j["perCycle"][cycle]["cpu"]["max"].get<double>() == Approx(85.0));
    }
    CHECK(j["perCycle"][6]["movedBack"].get<int>() >= 6);
    CHECK(j["perCycle"][6]["movedTwice"].get<int>() >= 1);
    // Every move, each one an eviction from pp1 whose replacement the scheduler put back there.
    int evictions = 0;
    for (const auto& c : j["perCycle"]) evictions += c["evictions"].get<int>();
    REQUIRE(j["moves"].size() == static_cast<size_t>(evictions));
    for (const auto& m : j["moves"]) {
      INFO(m.dump());
      CHECK(m["from"] == "pp1");
      CHECK(m["landed"] == "pp1");
      CHECK(m["target"] != "pp1");
      CHECK(m["outcome"] == "elsewhere");
      CHECK(m["strategy"] == "LoadAware");
    }
    CHECK(j["moves"][0]["cycle"] == 1);
    CHECK(j["watermarks"]["cpuHigh"].is_number());
  }
  SECTION("with prediction: nothing bounces (and nothing moves: every landing is pp1)") {
    Run run = simulate(ping_pong(6));
    REQUIRE(run.code == 0);
    nlohmann::json j = run.json();
    CHECK(j["convergedAfter"] == 0);
    for (int cycle = 1; cycle <= 6; ++cycle) CHECK(j["perCycle"][cycle]["evictions"] == 0);
    CHECK(j["perCycle"][6]["movedBack"] == 0);
  }
  SECTION("with prediction and the soft taint: pp1 is relieved, nothing bounces") {
    SimulateOptions o = ping_pong(6);
    o.plan.soft_taint_hot_nodes = true;
    Run run = simulate(o);
    REQUIRE(run.code == 0);
    nlohmann::json j = run.json();
    CHECK(j["perCycle"][1]["evictions"].get<int>() >= 1);
    CHECK(j["perCycle"][1]["elsewhere"] == 0);
    // Under pp1's targetThresholds cpu 70 after the first cycle, and it stays there.
    CHECK(j["perCycle"][6]["cpu"]["max"].get<double>() < 70.0);
    CHECK(j["perCycle"][6]["movedBack"] == 0);
    CHECK(j["perCycle"][6]["movedTwice"] == 0);
    REQUIRE(j["convergedAfter"].is_number());
    CHECK(j["convergedAfter"].get<int>() <= 2);
  }
  SECTION("the cool-down keeps a replacement that landed back where it is") {
    // Without prediction every replacement lands back on pp1; the cool-down (30m, the policy's
    // default) does not move one that started there since its move again: each cycle moves
    // another pod, and none twice until its cool-down is over (cycles are 10 minutes apart).
    SimulateOptions o = ping_pong(6);
    o.plan.no_landing_prediction = true;
    Run run = simulate(o);
    REQUIRE(run.code == 0);
    nlohmann::json j = run.json();
    CHECK(j["workloadCooldownSeconds"] == 1800);
    for (int cycle = 1; cycle <= 6; ++cycle) CHECK(j["perCycle"][cycle]["evictions"] == 1);
    // Cycle 4 is 30 minutes after cycle 1: the first pod's cool-down is over.
    CHECK(j["perCycle"][3]["movedTwice"] == 0);
    CHECK(j["perCycle"][3]["movedBack"] == 3);
    CHECK(j["perCycle"][4]["movedTwice"] == 1);
  }
}

TEST_CASE("simulate: the table names the columns and says whether it converged") {
  SimulateOptions o = ping_pong(3);
  o.output = "table";
  o.plan.no_landing_prediction = true;
  Run run = simulate(o);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("landing prediction OFF") != std::string::npos);
  CHECK(run.out.find("CYCLE  EVICTIONS") != std::string::npos);
  CHECK(run.out.find("not converged: cycle 3 still evicted") != std::string::npos);
}

TEST_CASE("simulate: bad flags exit 2 and name the flag") {
  SimulateOptions o = ping_pong(0);
  o.interval = "soon";
  o.output = "yaml";
  o.usage_file.clear();
  Run run = simulate(o);
  CHECK(run.code == 2);
  CHECK(run.err.find("error: --cycles: expected 1 to 1000, found 0") != std::string::npos);
  CHECK(run.err.find("error: --interval: expected a duration such as 30s, 10m or 1h30m, found "
                     "\"soon\"") != std::string::npos);
  CHECK(run.err.find("error: --output: expected table, json or html, found \"yaml\"") !=
        std::string::npos);
  CHECK(run.err.find("error: --usage: required") != std::string::npos);

  SimulateOptions missing = ping_pong(2);
  missing.snapshot_files = {kDir + "no-such-file.yaml"};
  Run bad = simulate(missing);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("no-such-file.yaml") != std::string::npos);
}

TEST_CASE("simulate: the chart is an SVG that rsvg-convert renders") {
  fs::path dir = fs::temp_directory_path() / ("loadshift-chart-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  SimulateOptions o = ping_pong(4);
  o.plan.soft_taint_hot_nodes = true;
  o.chart = (dir / "chart.svg").string();
  Run run = simulate(o);
  REQUIRE(run.code == 0);
  std::ifstream svg(o.chart);
  std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("<title>pp1</title>") != std::string::npos);        // one line per node
  CHECK(text.find("overutilized: over 70.0%") != std::string::npos);  // the watermark band
  // rsvg-convert (librsvg2-bin, installed by scripts/setup.sh) must render it.
  fs::path png = dir / "chart.png";
  std::string command = "rsvg-convert '" + o.chart + "' -o '" + png.string() + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  std::ifstream image(png, std::ios::binary);
  unsigned char header[24] = {};
  image.read(reinterpret_cast<char*>(header), sizeof header);
  REQUIRE(image.gcount() == 24);
  CHECK(header[1] == 'P');
  CHECK(header[2] == 'N');
  CHECK(header[3] == 'G');
  // IHDR width and height, big-endian: the SVG's 960 x 750.
  uint32_t width = (header[16] << 24) | (header[17] << 16) | (header[18] << 8) | header[19];
  uint32_t height = (header[20] << 24) | (header[21] << 16) | (header[22] << 8) | header[23];
  CHECK(width == 960);
  CHECK(height == 750);
  fs::remove_all(dir);

  SimulateOptions unwritable = ping_pong(1);
  unwritable.chart = "/nonexistent-dir/chart.svg";
  Run bad = simulate(unwritable);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("error: --chart: cannot write /nonexistent-dir/chart.svg") !=
        std::string::npos);
}

// LoadAware's schedulerScoring: the scoringStrategy of kube-scheduler's NodeResourcesFitArgs, read
// and validated as kube-scheduler does, with exact messages and positions, and a round trip.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

// Valid metrics and watermarks on lines 1-3; schedulerScoring from line 4 on.
const std::string kBase =
    "metrics: {type: Prometheus, address: \"http://prom:9090\"}\n"
    "thresholds: {cpu: 30, memory: 30}\n"
    "targetThresholds: {cpu: 80, memory: 85}\n";

ReadResult read(const std::string& scoring) {
  return read_args(read_load_aware_args, kBase + scoring);
}

const SchedulerScoring& scoring_of(const ReadResult& result) {
  return std::get<LoadAwareArgs>(result.args).scheduler_scoring;
}

}  // namespace

TEST_CASE("schedulerScoring: default, MostAllocated with weights, RequestedToCapacityRatio",
          "[policy][args]") {
  ReadResult none = read("");
  CHECK(none.errors.empty());
  CHECK(scoring_of(none).type == "LeastAllocated");
  CHECK(scoring_of(none).resources ==
        std::vector<std::pair<std::string, int64_t>>{{"cpu", 1}, {"memory", 1}});

  ReadResult most = read(
      "schedulerScoring:\n"
      "  type: MostAllocated\n"
      "  resources: [{name: cpu, weight: 3}, {name: nvidia.com/gpu}]\n");
  CHECK(most.errors.empty());
  CHECK(scoring_of(most).type == "MostAllocated");
  CHECK(scoring_of(most).resources ==
        std::vector<std::pair<std::string, int64_t>>{{"cpu", 3}, {"nvidia.com/gpu", 1}});

  ReadResult ratio = read(
      "schedulerScoring:\n"
      "  type: RequestedToCapacityRatio\n"
      "  requestedToCapacityRatio:\n"
      "    shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]\n");
  CHECK(ratio.errors.empty());
  CHECK(scoring_of(ratio).shape == std::vector<std::pair<int64_t, int64_t>>{{0, 10}, {100, 0}});

  // validate --effective writes it back, and it reads the same.
  PluginArgs back = round_trip(ratio.args, write_load_aware_args, read_load_aware_args);
  CHECK(std::get<LoadAwareArgs>(back).scheduler_scoring == scoring_of(ratio));
}

TEST_CASE("schedulerScoring: every mistake named at its place", "[policy][args]") {
  ReadResult type = read("schedulerScoring: {type: LeastRequested}\n");
  REQUIRE(type.errors.size() == 1);
  CHECK(type.errors[0].find("schedulerScoring.type") != std::string::npos);
  CHECK(type.errors[0].find("LeastRequested") != std::string::npos);

  ReadResult weight = read(
      "schedulerScoring:\n"
      "  resources: [{name: cpu, weight: 0}, {name: cpu}]\n");
  CHECK(weight.errors ==
        Strings{at(5, 35, "schedulerScoring.resources[0].weight",
                   "expected an integer in 1..100, found the number 0"),
                at(5, 39, "schedulerScoring.resources[1]", "resource cpu is listed twice")});

  ReadResult shape_missing = read("schedulerScoring: {type: RequestedToCapacityRatio}\n");
  REQUIRE(shape_missing.errors.size() == 1);
  CHECK(shape_missing.errors[0].find("needs requestedToCapacityRatio.shape") != std::string::npos);

  ReadResult score = read(
      "schedulerScoring:\n"
      "  type: RequestedToCapacityRatio\n"
      "  requestedToCapacityRatio:\n"
      "    shape: [{utilization: 0, score: 1}, {utilization: 50, score: 11}]\n");
  REQUIRE(score.errors.size() == 1);
  CHECK(score.errors[0].find("shape[1].score: expected an integer in 0..10, found the number 11") !=
        std::string::npos);

  ReadResult decreasing = read(
      "schedulerScoring:\n"
      "  type: RequestedToCapacityRatio\n"
      "  requestedToCapacityRatio:\n"
      "    shape: [{utilization: 50, score: 1}, {utilization: 50, score: 2}]\n");
  REQUIRE(decreasing.errors.size() == 1);
  CHECK(decreasing.errors[0].find("shape[1].utilization: utilization values must be strictly "
                                  "increasing: 50 follows 50") != std::string::npos);

  ReadResult misplaced = read(
      "schedulerScoring:\n"
      "  type: MostAllocated\n"
      "  requestedToCapacityRatio: {shape: [{utilization: 0, score: 0}]}\n");
  REQUIRE(misplaced.errors.size() == 1);
  CHECK(misplaced.errors[0].find("only with type RequestedToCapacityRatio (type is "
                                 "MostAllocated)") != std::string::npos);

  ReadResult unknown = read("schedulerScoring: {type: MostAllocated, weights: {}}\n");
  REQUIRE(unknown.errors.size() == 1);
  CHECK(unknown.errors[0].find("weights") != std::string::npos);

  ReadResult empty = read("schedulerScoring: {resources: []}\n");
  REQUIRE(empty.errors.size() == 1);
  CHECK(empty.errors[0].find("expected at least one resource") != std::string::npos);
}

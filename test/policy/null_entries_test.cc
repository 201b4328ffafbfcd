// A null where a value belongs, inside a mapping whose keys are data (resource names, label keys,
// header names), is an error at that value, in every args reader: the policy fuzzer found
// `thresholds: {cpu: 20, pods: }` loading as "thresholds none" (the cpu entry silently dropped),
// and its effective policy, `thresholds: {}`, not loading again
// (test/fuzz/corpus_policy/regression-null-threshold).
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/load_text.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Equals;
using Strings = std::vector<std::string>;

TEST_CASE("LowNodeUtilization: a null threshold is an error at its position", "[policy][args]") {
  for (const char* value : {"", "null", "~", "&a"}) {
    CAPTURE(value);
    ReadResult result = read_args(read_low_node_utilization_args,
                                  std::string("thresholds: {cpu: 20, pods: ") + value +
                                      "}\ntargetThresholds: {cpu: 50, pods: 50}\n");
    REQUIRE(result.errors.size() == 1);
    CHECK_THAT(result.errors[0], Catch::Contains(std::string(kArgsPath) +
                                                 ".thresholds.pods: expected a number in 0..100, "
                                                 "found null"));
    CHECK_THAT(result.errors[0], Catch::StartsWith("policy.yaml:1:"));
  }
}

TEST_CASE("LoadAware: null thresholds, resource weights and header values are errors",
          "[policy][args]") {
  const std::string metrics = "metrics: {type: Prometheus, address: \"http://prom:9090\"}\n";
  ReadResult thresholds = read_args(
      read_load_aware_args,
      metrics + "thresholds: {cpu: 30, memory: null}\ntargetThresholds: {cpu: 80, memory: 85}\n");
  CHECK_THAT(thresholds.errors,
             Equals(Strings{at(2, 31, "thresholds.memory", "expected a number in 0..100, found null")}));

  ReadResult weights = read_args(read_load_aware_args,
                                 metrics +
                                     "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n"
                                     "resourceWeights: {cpu: }\n");
  CHECK_THAT(weights.errors,
             Equals(Strings{at(4, 24, "resourceWeights.cpu", "expected a number in 0..1000, found null")}));

  ReadResult headers = read_args(read_load_aware_args,
                                 "metrics:\n  type: Prometheus\n  address: \"http://prom:9090\"\n"
                                 "  headers: {X-Scope-OrgID: null}\n"
                                 "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n");
  CHECK_THAT(headers.errors,
             Equals(Strings{at(4, 28, "metrics.headers.X-Scope-OrgID", "expected a string, found null")}));
}

TEST_CASE("DefaultEvictor: a null matchLabels value is an error", "[policy][args]") {
  ReadResult result =
      read_args(read_default_evictor_args, "labelSelector:\n  matchLabels: {app: web, tier: }\n");
  CHECK_THAT(result.errors, Equals(Strings{at(2, 33, "labelSelector.matchLabels.tier",
                                               "expected a string, found null")}));
}

TEST_CASE("The fuzzer's policy fails to load, naming line and column", "[policy][loader]") {
  Loaded loaded = load_text(read_file(std::string(LOADSHIFT_SOURCE_DIR) +
                                      "/test/fuzz/corpus_policy/regression-null-threshold"));
  REQUIRE_FALSE(loaded.result.ok());
  REQUIRE(loaded.errors.size() == 1);
  CHECK_THAT(loaded.errors[0], Catch::Contains("thresholds.pods: expected a number in 0..100, found null"));
}

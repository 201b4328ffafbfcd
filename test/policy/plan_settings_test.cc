// The top-level `loadshift` section: defaults, every field, the Volcano scheduler's plugins as
// volcano-scheduler.conf lists them, errors with positions, and the round trip.
#include <catch2/catch.hpp>

#include "policy/effective_policy.h"
#include "policy/volcano_policy.h"
#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Contains;
using Strings = std::vector<std::string>;

namespace {

std::string with_section(const std::string& section) {
  return "apiVersion: descheduler/v1alpha2\n"
         "kind: DeschedulerPolicy\n"
         "loadshift:\n" +
         section + "profiles: []\n";
}

}  // namespace

TEST_CASE("loadshift section: absent means every default", "[policy][plan-settings]") {
  Policy policy = load_valid("apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n"
                             "profiles: []\n");
  const PlanSettings& s = policy.loadshift;
  CHECK(s.workload_cooldown.milliseconds == 1800000);
  CHECK(s.max_in_flight_per_workload == 1);
  CHECK_FALSE(s.soft_taint_hot_nodes);
  CHECK(s.landing_prediction);
  CHECK(s.min_landing_chance == 66);
  CHECK(s.volcano_scheduler.nodeorder);
  CHECK(s.volcano_scheduler.binpack_weight == 1);
  CHECK_FALSE(s.volcano_scheduler.usage.has_value());
}

TEST_CASE("loadshift section: every field read, written back and read again the same",
          "[policy][plan-settings]") {
  Policy policy = load_valid(with_section(
      "  workloadCooldown: 10m\n"
      "  maxInFlightPerWorkload: 2\n"
      "  softTaintHotNodes: true\n"
      "  landingPrediction: true\n"
      "  minLandingChance: 75\n"
      "  volcanoScheduler:\n"
      "    plugins:\n"
      "    - name: priority\n"
      "    - name: gang\n"
      "      enablePreemptable: false\n"
      "    - name: drf\n"
      "      enablePreemptable: false\n"
      "      enableJobOrder: true\n"
      "    - name: binpack\n"
      "      enableNodeOrder: false\n"
      "    - name: nodeorder\n"
      "    - name: usage\n"
      "      enablePredicate: false\n"
      "      arguments:\n"
      "        usage.weight: 4\n"
      "        cpu.weight: 2\n"
      "        memory.weight: 1\n"
      "        thresholds: {cpu: 70, mem: 90}\n"));
  const PlanSettings& s = policy.loadshift;
  CHECK(s.workload_cooldown.text == "10m");
  CHECK(s.max_in_flight_per_workload == 2);
  CHECK(s.soft_taint_hot_nodes);
  CHECK(s.min_landing_chance == 75);
  CHECK(s.volcano_scheduler.nodeorder);
  CHECK_FALSE(s.volcano_scheduler.binpack_weight.has_value());  // not listed: no binpack
  REQUIRE(s.volcano_scheduler.usage.has_value());
  CHECK(*s.volcano_scheduler.usage ==
        VolcanoUsagePlugin{4, 2, 1, 70, 90, /*predicate=*/false});

  std::string written = write_policy_yaml(policy);
  CHECK_THAT(written, Contains("loadshift:\n  workloadCooldown: 10m"));
  Policy again = load_valid(written);
  CHECK(again == policy);
  CHECK(write_policy_yaml(again) == written);
  // Volcano's descheduler drops unknown top-level keys: the section rides along in its form.
  VolcanoPolicy volcano = write_volcano_policy_yaml(policy);
  CHECK(load_valid(volcano.yaml).loadshift == policy.loadshift);

  CHECK_THAT(summarize_policy(policy),
             Contains("plan: workload cool-down 10m, 2 pod(s) in flight per workload, soft taint "
                      "on, landing prediction on (a move needs 75% of the likely landings "
                      "acceptable)"));
  CHECK_THAT(summarize_policy(policy),
             Contains("volcano scheduler: nodeorder + usage (weight 4, no filter)"));
}

TEST_CASE("loadshift section: errors name the place and what was expected",
          "[policy][plan-settings]") {
  Loaded loaded = load_text(with_section(
      "  workloadCooldown: 1.5s\n"
      "  maxInFlightPerWorkload: -1\n"
      "  minLandingChance: 0\n"
      "  softTaint: true\n"
      "  volcanoScheduler:\n"
      "    plugins:\n"
      "    - name: nodeorder\n"
      "      arguments: {leastrequested.weight: 2}\n"
      "    - name: tdm\n"
      "    - name: usage\n"
      "      arguments: {thresholds: {cpu: 80, mem: }}\n"));
  CHECK_THAT(loaded.errors,
             Catch::Matchers::Equals(Strings{
                 "4:21: loadshift.workloadCooldown: expected whole seconds (30s, 10m, 1h30m; 0s: "
                 "off), found \"1s500ms\"",
                 "5:27: loadshift.maxInFlightPerWorkload: expected an integer in 0..1000000, "
                 "found the number -1",
                 "6:21: loadshift.minLandingChance: expected a number in 1..100, found the "
                 "number 0",
                 "7:3: loadshift.softTaint: unknown field \"softTaint\"",
                 "11:18: loadshift.volcanoScheduler.plugins[0].arguments: nodeorder is modelled "
                 "with its default weights (leastrequested 1, balancedresource 1, "
                 "tainttoleration 3, nodeaffinity 2, podaffinity 2, podtopologyspread 2); other "
                 "weights are not read yet: remove `arguments` or leave nodeorder out",
                 "12:13: loadshift.volcanoScheduler.plugins[1].name: Volcano scheduler plugin "
                 "\"tdm\" is not modelled: loadshift predicts Volcano pods' landings with "
                 "nodeorder, binpack and usage (and reads priority, gang, conformance, drf, "
                 "predicates, proportion, overcommit, capacity, sla, extender and resourcequota, "
                 "which do not score nodes)",
                 "14:46: loadshift.volcanoScheduler.plugins[2].arguments.thresholds.mem: "
                 "expected an integer in 0..100, found null",
}));
}

TEST_CASE("loadshift section: an empty Volcano plugin list is an error, not the default",
          "[policy][plan-settings]") {
  Loaded loaded = load_text(with_section("  volcanoScheduler: {plugins: []}\n"));
  REQUIRE(loaded.errors.size() == 1);
  CHECK_THAT(loaded.errors[0], Contains("loadshift.volcanoScheduler.plugins: expected at least one "
                                        "plugin"));
}

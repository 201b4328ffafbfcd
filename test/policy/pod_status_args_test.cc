// Args of PodLifeTime, RemovePodsHavingTooManyRestarts and RemoveFailedPods, as upstream defines
// them: values and defaults, validation errors with their position, write -> read round trips.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Strings = std::vector<std::string>;

namespace {

bool any_contains(const Strings& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("PodLifeTime args", "[policy][args][pod_status]") {
  ReadResult good = read_args(read_pod_lifetime_args, R"(maxPodLifeTimeSeconds: 86400
states: [Pending, PodInitializing, Succeeded, OOMKilled]
includingInitContainers: true
exitCodes: [1, 137]
ownerKinds: {exclude: [Job]}
namespaces: {include: [namespace1, namespace2]}
labelSelector:
  matchLabels: {component: redis}
  matchExpressions: [{key: tier, operator: In, values: [cache]}]
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const PodLifeTimeArgs& args = std::get<PodLifeTimeArgs>(good.args);
  CHECK(args.max_pod_life_time_seconds == 86400);
  CHECK(args.states == Strings{"Pending", "PodInitializing", "Succeeded", "OOMKilled"});
  CHECK(args.including_init_containers);
  CHECK(args.exit_codes == std::vector<int32_t>{1, 137});
  CHECK(args.owner_kinds == Namespaces{{}, {"Job"}});
  CHECK(args.namespaces == Namespaces{{"namespace1", "namespace2"}, {}});
  REQUIRE(args.label_selector.has_value());
  PluginArgs back = round_trip(good.args, write_pod_lifetime_args, read_pod_lifetime_args);
  CHECK(std::get<PodLifeTimeArgs>(back) == args);

  ReadResult states_only = read_args(read_pod_lifetime_args, "states: [Running]\n");
  CHECK_THAT(states_only.errors, Equals(Strings{}));
  CHECK_FALSE(std::get<PodLifeTimeArgs>(states_only.args).max_pod_life_time_seconds);

  CHECK_THAT(read_args(read_pod_lifetime_args, "{}").errors,
             Equals(Strings{at(1, 1, "",
                               "expected at least one of maxPodLifeTimeSeconds, states, "
                               "conditions or exitCodes (without one, PodLifeTime would select "
                               "every pod)")}));
  // An empty list selects nothing either (upstream v0.36 tests the lengths).
  CHECK(any_contains(
      read_args(read_pod_lifetime_args, "states: []\nexitCodes: []\nconditions: []\n").errors,
      "expected at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes"));
  Strings errors = read_args(read_pod_lifetime_args,
                             "maxPodLifeTimeSeconds: -1\nstates: [Runing]\nexitCodes: [x]\n"
                             "namespaces: {include: [a], exclude: [b]}\n"
                             "ownerKinds: {include: [A], exclude: [B]}\n"
                             "podStatusPhases: [Pending]\n")
                       .errors;
  CHECK(any_contains(errors, at(1, 24, "maxPodLifeTimeSeconds",
                                "expected an integer in 0..4294967295, found the number -1")));
  CHECK(any_contains(errors, "states[0]: expected one of "));
  CHECK(any_contains(errors, "found \"Runing\""));
  CHECK(any_contains(errors, "exitCodes[0]: expected an integer"));
  CHECK(any_contains(errors, "namespaces: set include or exclude, not both"));
  CHECK(any_contains(errors, "ownerKinds: set include or exclude, not both"));
  CHECK(any_contains(errors, "unknown field \"podStatusPhases\""));
}

TEST_CASE("PodLifeTime conditions and includingEphemeralContainers (v0.36)",
          "[policy][args][pod_status]") {
  // The README's example: completed pods idle for 4 hours, Jobs excluded.
  ReadResult good = read_args(read_pod_lifetime_args, R"(states: [Succeeded]
conditions:
- reason: PodCompleted
  status: "True"
  minTimeSinceLastTransitionSeconds: 14400
- type: DisruptionTarget
includingEphemeralContainers: true
ownerKinds: {exclude: [Job]}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  CHECK_THAT(good.warnings, Equals(Strings{}));
  const PodLifeTimeArgs& args = std::get<PodLifeTimeArgs>(good.args);
  REQUIRE(args.conditions.size() == 2);
  CHECK(args.conditions[0] == PodConditionFilter{"", "True", "PodCompleted", 14400});
  CHECK(args.conditions[1] == PodConditionFilter{"DisruptionTarget", "", "", std::nullopt});
  CHECK(args.including_ephemeral_containers);
  CHECK_FALSE(args.including_init_containers);
  PluginArgs back = round_trip(good.args, write_pod_lifetime_args, read_pod_lifetime_args);
  CHECK(std::get<PodLifeTimeArgs>(back) == args);

  // conditions alone are a filter.
  ReadResult alone = read_args(read_pod_lifetime_args, "conditions: [{type: Ready}]\n");
  CHECK_THAT(alone.errors, Equals(Strings{}));

  ReadResult bad = read_args(read_pod_lifetime_args, R"(maxPodLifeTimeSeconds: 60
conditions:
- {}
- {status: True}
- {minTimeSinceLastTransitionSeconds: -3, reson: X}
- type: Ready
  status: "true"
- Ready
)");
  CHECK(any_contains(bad.errors,
                     "conditions[0]: expected at least one of type, status, reason or "
                     "minTimeSinceLastTransitionSeconds (an empty entry would match every pod's "
                     "conditions)"));
  // Unquoted True is a YAML boolean; upstream's decoder refuses it for a string field too.
  CHECK(any_contains(bad.errors, "conditions[1].status: expected a string, found"));
  CHECK(any_contains(bad.errors,
                     "conditions[2].minTimeSinceLastTransitionSeconds: expected an integer in "
                     "0..4294967295"));
  CHECK(any_contains(bad.errors,
                     "conditions[2].reson: unknown field \"reson\" (did you mean "
                     "\"reason\"?)"));
  CHECK(any_contains(bad.errors, "conditions[4]: expected a mapping"));
  CHECK_THAT(bad.warnings,
             Equals(Strings{at(7, 11, "conditions[3].status",
                               "a pod condition's status is True, False or Unknown; \"true\" "
                               "matches no condition")}));
}

TEST_CASE("RemovePodsHavingTooManyRestarts args", "[policy][args][pod_status]") {
  ReadResult good = read_args(read_too_many_restarts_args, R"(podRestartThreshold: 100
includingInitContainers: true
states: [CrashLoopBackOff]
namespaces: {exclude: [kube-system]}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const TooManyRestartsArgs& args = std::get<TooManyRestartsArgs>(good.args);
  CHECK(args.pod_restart_threshold == 100);
  CHECK(args.including_init_containers);
  CHECK(args.states == Strings{"CrashLoopBackOff"});
  CHECK(args.namespaces == Namespaces{{}, {"kube-system"}});
  PluginArgs back =
      round_trip(good.args, write_too_many_restarts_args, read_too_many_restarts_args);
  CHECK(std::get<TooManyRestartsArgs>(back) == args);

  CHECK_THAT(read_args(read_too_many_restarts_args, "includingInitContainers: true\n").errors,
             Equals(Strings{at(1, 1, "podRestartThreshold", "required field is missing")}));
  Strings errors =
      read_args(read_too_many_restarts_args, "podRestartThreshold: 0\nstates: [Pending]\n").errors;
  CHECK(any_contains(errors, at(1, 22, "podRestartThreshold",
                                "expected an integer in 1..2147483647, found the number 0")));
  CHECK(any_contains(errors,
                     "states[0]: expected one of CrashLoopBackOff, Running, found \"Pending\""));
}

TEST_CASE("RemoveFailedPods args", "[policy][args][pod_status]") {
  ReadResult good = read_args(read_failed_pods_args, R"(reasons: [NodeAffinity, OutOfcpu]
exitCodes: [1]
includingInitContainers: true
excludeOwnerKinds: [Job]
minPodLifetimeSeconds: 7200
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const FailedPodsArgs& args = std::get<FailedPodsArgs>(good.args);
  CHECK(args.reasons == Strings{"NodeAffinity", "OutOfcpu"});
  CHECK(args.exit_codes == std::vector<int32_t>{1});
  CHECK(args.including_init_containers);
  CHECK(args.exclude_owner_kinds == Strings{"Job"});
  CHECK(args.min_pod_lifetime_seconds == 7200);
  PluginArgs back = round_trip(good.args, write_failed_pods_args, read_failed_pods_args);
  CHECK(std::get<FailedPodsArgs>(back) == args);

  // Upstream's default: an hour; 0 means no minimum.
  ReadResult empty = read_args(read_failed_pods_args, "{}");
  CHECK_THAT(empty.errors, Equals(Strings{}));
  CHECK(std::get<FailedPodsArgs>(empty.args).min_pod_lifetime_seconds == 3600);
  CHECK(std::get<FailedPodsArgs>(default_failed_pods_args()).min_pod_lifetime_seconds == 3600);
  CHECK(
      std::get<FailedPodsArgs>(read_args(read_failed_pods_args, "minPodLifetimeSeconds: 0\n").args)
          .min_pod_lifetime_seconds == 0);
  CHECK_THAT(
      read_args(read_failed_pods_args, "exitCodes: 1\n").errors,
      Equals(Strings{at(1, 12, "exitCodes", "expected a list of integers, found the number 1")}));
}

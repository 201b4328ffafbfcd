// Args of RemovePodsViolatingInterPodAntiAffinity and RemovePodsViolatingTopologySpreadConstraint,
// as upstream defines them: values and defaults, validation errors with their position,
// write -> read round trips.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Strings = std::vector<std::string>;
using Action = loadshift::model::UnsatisfiableAction;

namespace {

bool any_contains(const Strings& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("RemovePodsViolatingInterPodAntiAffinity args", "[policy][args][inter_pod]") {
  ReadResult good = read_args(read_inter_pod_anti_affinity_args, R"(namespaces:
  include: [namespace1, namespace2]
labelSelector:
  matchLabels: {app: web}
  matchExpressions: [{key: tier, operator: NotIn, values: [cache]}]
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const InterPodAntiAffinityArgs& args = std::get<InterPodAntiAffinityArgs>(good.args);
  CHECK(args.namespaces == Namespaces{{"namespace1", "namespace2"}, {}});
  REQUIRE(args.label_selector.has_value());
  CHECK(args.label_selector->match_labels.items() ==
        std::vector<std::pair<std::string, std::string>>{{"app", "web"}});
  REQUIRE(args.label_selector->match_expressions.size() == 1);
  CHECK(args.label_selector->match_expressions[0].op == "NotIn");
  PluginArgs back =
      round_trip(good.args, write_inter_pod_anti_affinity_args, read_inter_pod_anti_affinity_args);
  CHECK(std::get<InterPodAntiAffinityArgs>(back) == args);

  // Defaults: every namespace, every pod.
  ReadResult empty = read_args(read_inter_pod_anti_affinity_args, "{}");
  CHECK_THAT(empty.errors, Equals(Strings{}));
  CHECK(std::get<InterPodAntiAffinityArgs>(empty.args) == InterPodAntiAffinityArgs{});
  CHECK(std::get<InterPodAntiAffinityArgs>(default_inter_pod_anti_affinity_args()) ==
        InterPodAntiAffinityArgs{});
  CHECK(std::get<InterPodAntiAffinityArgs>(
            round_trip(default_inter_pod_anti_affinity_args(), write_inter_pod_anti_affinity_args,
                       read_inter_pod_anti_affinity_args)) == InterPodAntiAffinityArgs{});

  Strings errors = read_args(read_inter_pod_anti_affinity_args,
                             "namespaces: {include: [a], exclude: [b]}\n"
                             "labelSelector: {matchExpressions: [{key: app, operator: Has}]}\n"
                             "topologyKey: zone\n")
                       .errors;
  CHECK(any_contains(errors, "namespaces: set include or exclude, not both"));
  CHECK(any_contains(errors, "labelSelector.matchExpressions[0].operator"));
  CHECK(any_contains(errors, at(3, 1, "topologyKey", "unknown field \"topologyKey\"")));
}

TEST_CASE("RemovePodsViolatingTopologySpreadConstraint args", "[policy][args][inter_pod]") {
  ReadResult good = read_args(read_topology_spread_args, R"(namespaces:
  exclude: [kube-system]
labelSelector:
  matchLabels: {app: web}
constraints:
- DoNotSchedule
- ScheduleAnyway
topologyBalanceNodeFit: false
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const TopologySpreadArgs& args = std::get<TopologySpreadArgs>(good.args);
  CHECK(args.namespaces == Namespaces{{}, {"kube-system"}});
  REQUIRE(args.label_selector.has_value());
  CHECK(args.constraints == std::vector<Action>{Action::kDoNotSchedule, Action::kScheduleAnyway});
  CHECK_FALSE(args.topology_balance_node_fit);
  std::string text;
  PluginArgs back =
      round_trip(good.args, write_topology_spread_args, read_topology_spread_args, &text);
  CHECK(std::get<TopologySpreadArgs>(back) == args);
  CHECK_THAT(text, Contains("constraints: [DoNotSchedule, ScheduleAnyway]"));

  // Defaults (upstream's SetDefaults): constraints [DoNotSchedule], topologyBalanceNodeFit true.
  for (const char* yaml : {"{}", "constraints: null\ntopologyBalanceNodeFit: null\n"}) {
    ReadResult empty = read_args(read_topology_spread_args, yaml);
    CHECK_THAT(empty.errors, Equals(Strings{}));
    const TopologySpreadArgs& defaults = std::get<TopologySpreadArgs>(empty.args);
    CHECK(defaults.constraints == std::vector<Action>{Action::kDoNotSchedule});
    CHECK(defaults.topology_balance_node_fit);
    CHECK(defaults == TopologySpreadArgs{});
  }
  CHECK(std::get<TopologySpreadArgs>(default_topology_spread_args()) == TopologySpreadArgs{});
  CHECK(std::get<TopologySpreadArgs>(
            round_trip(default_topology_spread_args(), write_topology_spread_args,
                       read_topology_spread_args)) == TopologySpreadArgs{});

  // ScheduleAnyway alone, and a repeated action, which means nothing more.
  ReadResult soft =
      read_args(read_topology_spread_args, "constraints: [ScheduleAnyway, ScheduleAnyway]\n");
  CHECK_THAT(soft.errors, Equals(Strings{}));
  CHECK(std::get<TopologySpreadArgs>(soft.args).constraints ==
        std::vector<Action>{Action::kScheduleAnyway});

  // Upstream's validation: each constraint is DoNotSchedule or ScheduleAnyway, named where it is.
  CHECK_THAT(read_args(read_topology_spread_args, "constraints:\n- DoNotSchedule\n- Soft\n").errors,
             Equals(Strings{at(3, 3, "constraints[1]",
                               "expected DoNotSchedule or ScheduleAnyway, found \"Soft\"")}));
  CHECK(any_contains(read_args(read_topology_spread_args, "constraints: DoNotSchedule\n").errors,
                     "constraints: expected a list"));
  // An empty list would balance nothing (upstream defaults only an absent one): refused.
  CHECK_THAT(read_args(read_topology_spread_args, "constraints: []\n").errors,
             Equals(Strings{at(1, 14, "constraints",
                               "expected at least one of DoNotSchedule, ScheduleAnyway, found an "
                               "empty list (upstream would then balance no constraint at all); "
                               "omit constraints for the default [DoNotSchedule]")}));

  Strings errors = read_args(read_topology_spread_args,
                             "namespaces: {include: [a], exclude: [b]}\n"
                             "labelSelector: {matchExpressions: [{key: app, operator: In}]}\n"
                             "topologyBalanceNodeFit: \"true\"\n"
                             "includeSoftConstraints: true\n")
                       .errors;
  CHECK(any_contains(errors, "namespaces: set include or exclude, not both"));
  CHECK(any_contains(errors, "labelSelector.matchExpressions[0]"));
  CHECK(any_contains(errors, "topologyBalanceNodeFit: expected true or false, found the string"));
  // v1alpha1's includeSoftConstraints is not a v1alpha2 field (upstream migrated it to
  // constraints).
  CHECK(any_contains(errors, "unknown field \"includeSoftConstraints\""));
}

// DefaultEvictor args: upstream's defaults, the priorityThreshold rule, the deprecated booleans
// and podProtections (and the rule against mixing them), and the round trip.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Strings = std::vector<std::string>;

namespace {

ReadResult read(const std::string& yaml) {
  return read_args(read_default_evictor_args, yaml);
}

const DefaultEvictorArgs& evictor(const ReadResult& result) {
  return std::get<DefaultEvictorArgs>(result.args);
}

}  // namespace

TEST_CASE("DefaultEvictor defaults are upstream's", "[policy][evictor]") {
  ReadResult result = read("{}");
  CHECK(result.errors == Strings{});
  const DefaultEvictorArgs& args = evictor(result);
  CHECK(args == std::get<DefaultEvictorArgs>(default_default_evictor_args()));
  CHECK(args.priority_threshold.value == 2000000000);
  CHECK(args.priority_threshold.name.empty());
  CHECK_FALSE(args.node_fit);
  CHECK(args.node_selector.empty());
  CHECK(args.min_replicas == 0);
  CHECK_FALSE(args.min_pod_age);
  CHECK(args.no_eviction_policy == NoEvictionPolicy::kPreferred);
  CHECK(args.protections == PodProtections{});
  CHECK(args.protections.local_storage);
  CHECK(args.protections.daemon_set);
  CHECK(args.protections.system_critical);
  CHECK(args.protections.failed_bare);
  CHECK_FALSE(args.protections.with_pvc);
}

TEST_CASE("DefaultEvictor reads every field", "[policy][evictor]") {
  ReadResult result = read(R"(nodeSelector: "pool=general,!gpu"
labelSelector:
  matchLabels: {app: web}
namespaceLabelSelector:
  matchExpressions:
  - {key: team, operator: In, values: [a, b]}
priorityThreshold: {name: high-priority}
nodeFit: true
minReplicas: 2
minPodAge: 90s
noEvictionPolicy: Mandatory
podProtections:
  defaultDisabled: [DaemonSetPods, FailedBarePods]
  extraEnabled: [PodsWithPVC, PodsWithResourceClaims]
  config:
    PodsWithPVC:
      protectedStorageClasses:
      - name: local-path
)");
  CHECK(result.errors == Strings{});
  CHECK(result.warnings == Strings{});
  const DefaultEvictorArgs& args = evictor(result);
  CHECK(args.node_selector == "pool=general,!gpu");
  REQUIRE(args.label_selector);
  CHECK(*args.label_selector->match_labels.find("app") == "web");
  REQUIRE(args.namespace_label_selector);
  CHECK(args.namespace_label_selector->match_expressions.at(0).values == Strings{"a", "b"});
  CHECK(args.priority_threshold.name == "high-priority");
  CHECK_FALSE(args.priority_threshold.value);
  CHECK(args.node_fit);
  CHECK(args.min_replicas == 2);
  CHECK(args.min_pod_age == Duration{90000, "1m30s"});
  CHECK(args.no_eviction_policy == NoEvictionPolicy::kMandatory);
  PodProtections expected;
  expected.daemon_set = false;
  expected.failed_bare = false;
  expected.with_pvc = true;
  expected.with_resource_claims = true;
  expected.protected_storage_classes = {"local-path"};
  CHECK(args.protections == expected);

  // And back.
  CHECK(std::get<DefaultEvictorArgs>(round_trip(result.args, write_default_evictor_args,
                                                read_default_evictor_args)) == args);
}

TEST_CASE("priorityThreshold: value xor name, value at most 2000000000", "[policy][evictor]") {
  CHECK(read("priorityThreshold:\n  value: 100\n  name: high\n").errors ==
        Strings{at(2, 3, "priorityThreshold",
                   "set value or name, not both (found value 100 and name \"high\")")});
  CHECK(read("priorityThreshold: {value: 2000000001}\n").errors ==
        Strings{at(1, 28, "priorityThreshold.value",
                   "expected an integer in -2147483648..2000000000, found the number "
                   "2000000001")});
  CHECK(read("priorityThreshold: {value: -5}\n").errors == Strings{});
  CHECK(evictor(read("priorityThreshold: {value: -5}\n")).priority_threshold.value == -5);
  CHECK(read("priorityThreshold: {valeu: 5}\n").errors ==
        Strings{at(1, 21, "priorityThreshold.valeu",
                   "unknown field \"valeu\" (did you mean \"value\"?)")});
  // An empty threshold keeps the default.
  CHECK(evictor(read("priorityThreshold: {}\n")).priority_threshold.value == 2000000000);
}

TEST_CASE("the deprecated booleans map onto protections, with a warning", "[policy][evictor]") {
  ReadResult result = read(
      "evictLocalStoragePods: true\nevictDaemonSetPods: true\nevictSystemCriticalPods: true\n"
      "evictFailedBarePods: true\nignorePvcPods: true\nignorePodsWithoutPDB: true\n");
  CHECK(result.errors == Strings{});
  REQUIRE(result.warnings.size() == 6);
  CHECK(result.warnings[0] == at(1, 24, "evictLocalStoragePods",
                                 "deprecated since kubernetes-sigs/descheduler v0.34; use "
                                 "podProtections.defaultDisabled: [PodsWithLocalStorage] instead (not for "
                                 "Volcano's descheduler: it reads only the boolean)"));
  CHECK(result.warnings[5] == at(6, 23, "ignorePodsWithoutPDB",
                                 "deprecated since kubernetes-sigs/descheduler v0.34; use "
                                 "podProtections.extraEnabled: [PodsWithoutPDB] instead"));
  PodProtections expected;
  expected.local_storage = false;
  expected.daemon_set = false;
  expected.system_critical = false;
  expected.failed_bare = false;
  expected.with_pvc = true;
  expected.without_pdb = true;
  CHECK(evictor(result).protections == expected);

  // false changes nothing (but is still deprecated).
  ReadResult off = read("ignorePvcPods: false\n");
  CHECK(evictor(off).protections == PodProtections{});
  CHECK(off.warnings.size() == 1);
}

TEST_CASE("deprecated booleans set to true cannot be mixed with podProtections lists",
          "[policy][evictor]") {
  CHECK(read("ignorePvcPods: true\nevictDaemonSetPods: true\npodProtections:\n"
             "  defaultDisabled: [PodsWithLocalStorage]\n")
            .errors == Strings{at(4, 3, "podProtections",
                                  "cannot be combined with the deprecated evictDaemonSetPods: "
                                  "true (= defaultDisabled: [DaemonSetPods]), ignorePvcPods: true "
                                  "(= extraEnabled: [PodsWithPVC]); move those settings into "
                                  "podProtections")});
  // A false boolean or empty lists are no mix.
  CHECK(read("ignorePvcPods: false\npodProtections:\n  extraEnabled: [PodsWithPVC]\n").errors ==
        Strings{});
  ReadResult empty_lists =
      read("ignorePvcPods: true\npodProtections:\n  defaultDisabled: []\n  extraEnabled:\n");
  CHECK(empty_lists.errors == Strings{});
  CHECK(evictor(empty_lists).protections.with_pvc);
}

TEST_CASE("podProtections names are checked", "[policy][evictor]") {
  CHECK(read("podProtections:\n  defaultDisabled: [PodsWithPVC, DaemonSetPod]\n"
             "  extraEnabled: [PodsWithoutPdb]\n")
            .errors ==
        Strings{at(2, 21, "podProtections.defaultDisabled[0]",
                   "expected one of PodsWithLocalStorage, DaemonSetPods, SystemCriticalPods, "
                   "FailedBarePods, found \"PodsWithPVC\" (PodsWithPVC belongs in extraEnabled)"),
                at(2, 34, "podProtections.defaultDisabled[1]",
                   "expected one of PodsWithLocalStorage, DaemonSetPods, SystemCriticalPods, "
                   "FailedBarePods, found \"DaemonSetPod\" (did you mean \"DaemonSetPods\"?)"),
                at(3, 18, "podProtections.extraEnabled[0]",
                   "expected one of PodsWithPVC, PodsWithoutPDB, PodsWithResourceClaims, found "
                   "\"PodsWithoutPdb\" (did you mean \"PodsWithoutPDB\"?)")});
  ReadResult classes = read(
      "podProtections:\n  config:\n    PodsWithPVC:\n      protectedStorageClasses: [{name: a}]\n");
  CHECK(classes.errors == Strings{});
  CHECK(classes.warnings ==
        Strings{at(3, 5, "podProtections.config",
                   "protectedStorageClasses has no effect unless PodsWithPVC is enabled "
                   "(podProtections.extraEnabled: [PodsWithPVC])")});
  CHECK(read("podProtections:\n  extraEnabled: [PodsWithPVC]\n  config:\n    PodsWithPVC:\n"
             "      protectedStorageClasses: [{name: \"\"}, {}]\n")
            .errors ==
        Strings{at(5, 40, "podProtections.config.PodsWithPVC.protectedStorageClasses[0].name",
                   "must not be empty"),
                at(5, 45, "podProtections.config.PodsWithPVC.protectedStorageClasses[1].name",
                   "required field is missing")});
}

TEST_CASE("other DefaultEvictor field errors", "[policy][evictor]") {
  CHECK(read("noEvictionPolicy: mandatory\n").errors ==
        Strings{at(1, 19, "noEvictionPolicy",
                   "expected Preferred or Mandatory, found \"mandatory\" (did you mean "
                   "\"Mandatory\"?)")});
  CHECK(evictor(read("noEvictionPolicy: \"\"\n")).no_eviction_policy ==
        NoEvictionPolicy::kPreferred);
  CHECK(read("nodeSelector: \"a b\"\n").errors ==
        Strings{at(1, 15, "nodeSelector",
                   "expected a label selector: cannot parse requirement \"a b\" (expected key, "
                   "!key, key=value, key!=value, key in (a,b) or key notin (a,b))")});
  CHECK(read("minPodAge: 10 minutes\n").errors ==
        Strings{at(1, 12, "minPodAge",
                   "expected a duration such as \"30s\", \"5m\" or \"1h30m\", found \"10 "
                   "minutes\"")});
  CHECK(read("minReplicas: -1\nnodeFit: \"true\"\n").errors ==
        // The args reader reports in reading order; the loader sorts a file's errors.
        Strings{
            at(2, 10, "nodeFit", "expected true or false, found the string \"true\""),
            at(1, 14, "minReplicas", "expected an integer in 0..4294967295, found the number -1")});
  CHECK(read("labelSelector:\n  matchExpressions:\n  - {key: a, operator: Exist}\n").errors ==
        Strings{at(3, 24, "labelSelector.matchExpressions[0].operator",
                   "expected one of In, NotIn, Exists, DoesNotExist, found \"Exist\" (did you "
                   "mean \"Exists\"?)")});
}

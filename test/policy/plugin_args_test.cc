// Args of the kubernetes-sigs plugins loadshift runs: LowNodeUtilization, HighNodeUtilization,
// RemovePodsViolatingNodeAffinity, RemovePodsViolatingNodeTaints. Values and defaults, every
// validation error with its exact message and position, and write -> read round trips.
// (LoadAware's args are in load_aware_args_test.cc.)
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "policy/shared_args.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Equals;
using Strings = std::vector<std::string>;

namespace {

const NodeUtilizationArgs& utilization(const ReadResult& result) {
  return std::get<NodeUtilizationArgs>(result.args);
}

ReadResult read_low(const std::string& yaml) {
  return read_args(read_low_node_utilization_args, yaml);
}
ReadResult read_high(const std::string& yaml) {
  return read_args(read_high_node_utilization_args, yaml);
}

}  // namespace

TEST_CASE("LowNodeUtilization reads upstream's requests-based args", "[policy][args]") {
  ReadResult result = read_low(R"(thresholds:
  cpu: 20
  memory: 20
  pods: 20
  nvidia.com/gpu: 10
targetThresholds: {cpu: 50, memory: 50, pods: 50, nvidia.com/gpu: 60}
numberOfNodes: 1
evictableNamespaces: {exclude: [kube-system]}
evictionLimits: {node: 5}
)");
  CHECK_THAT(result.errors, Equals(Strings{}));
  CHECK_THAT(result.warnings, Equals(Strings{}));
  const NodeUtilizationArgs& args = utilization(result);
  CHECK(args.thresholds ==
        Percentages{{"cpu", 20}, {"memory", 20}, {"pods", 20}, {"nvidia.com/gpu", 10}});
  CHECK(args.target_thresholds.at("nvidia.com/gpu") == 60);
  CHECK_FALSE(args.use_deviation_thresholds);
  CHECK(args.number_of_nodes == 1);
  CHECK(args.excluded_namespaces == Strings{"kube-system"});
  CHECK(args.eviction_limit_node == 5u);
  CHECK(args.metrics_utilization == MetricsUtilization{});
  CHECK(args.eviction_modes.empty());
  CHECK(std::get<NodeUtilizationArgs>(default_low_node_utilization_args()) ==
        NodeUtilizationArgs{});
  CHECK(std::get<NodeUtilizationArgs>(default_high_node_utilization_args()) ==
        NodeUtilizationArgs{});
}

TEST_CASE("LowNodeUtilization's watermark rules", "[policy][args]") {
  CHECK_THAT(read_low("numberOfNodes: 1\n").errors,
             Equals(Strings{at(1, 1, "thresholds", "required field is missing"),
                            at(1, 1, "targetThresholds", "required field is missing")}));
  CHECK_THAT(
      read_low("thresholds: {cpu: 60, gpu: 5, MetricResource: 1, cpus: 3}\n"
               "targetThresholds: {cpu: 50.5}\n")
          .errors,
      Equals(Strings{
          at(1, 28, "thresholds.gpu",
             "unknown resource \"gpu\": expected cpu, memory, pods, ephemeral-storage, "
             "hugepages-<size> or an extended resource with a domain such as nvidia.com/gpu"),
          at(1, 47, "thresholds.MetricResource",
             "MetricResource is only valid with metricsUtilization.source: Prometheus"),
          at(1, 56, "thresholds.cpus",
             "unknown resource \"cpus\": expected cpu, memory, pods, ephemeral-storage, "
             "hugepages-<size> or an extended resource with a domain such as nvidia.com/gpu "
             "(did you mean \"cpu\"?)")}));
  CHECK_THAT(read_low("thresholds: {cpu: 60, hugepages-2Mi: 1}\n"
                      "targetThresholds: {cpu: 50.5, hugepages-2Mi: 2}\n")
                 .errors,
             Equals(Strings{at(1, 19, "thresholds.cpu",
                               "cpu threshold 60 is greater than targetThresholds.cpu 50.5 "
                               "(thresholds must not exceed targetThresholds unless "
                               "useDeviationThresholds is true)")}));
  CHECK_THAT(read_low("thresholds: {cpu: 60}\ntargetThresholds: {cpu: 50}\n"
                      "useDeviationThresholds: true\nevictableNamespaces: {include: [x]}\n"
                      "evictionLimits: {node: 1, total: 2}\n")
                 .errors,
             Equals(Strings{at(4, 32, "evictableNamespaces.include",
                               "only exclude is supported (as upstream): LowNodeUtilization "
                               "cannot be limited to some namespaces; list the namespaces whose "
                               "pods must stay under exclude"),
                            at(5, 27, "evictionLimits.total", "unknown field \"total\"")}));
}

TEST_CASE("LowNodeUtilization's metricsUtilization", "[policy][args]") {
  ReadResult prometheus = read_low(R"(thresholds: {MetricResource: 30}
targetThresholds: {MetricResource: 70}
metricsUtilization:
  source: Prometheus
  prometheus:
    query: instance:node_cpu:rate:sum
)");
  CHECK_THAT(prometheus.errors, Equals(Strings{}));
  CHECK(utilization(prometheus).metrics_utilization ==
        MetricsUtilization{"Prometheus", "instance:node_cpu:rate:sum"});

  ReadResult deprecated = read_low(
      "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 70}\n"
      "metricsUtilization: {metricsServer: true}\n");
  CHECK_THAT(deprecated.errors, Equals(Strings{}));
  CHECK_THAT(deprecated.warnings,
             Equals(Strings{at(3, 37, "metricsUtilization.metricsServer",
                               "deprecated since kubernetes-sigs/descheduler v0.33: use source: "
                               "KubernetesMetrics")}));
  CHECK(utilization(deprecated).metrics_utilization == MetricsUtilization{"KubernetesMetrics", ""});

  CHECK_THAT(read_low("thresholds: {cpu: 30}\ntargetThresholds: {cpu: 70}\n"
                      "metricsUtilization: {metricsServer: true, source: KubernetesMetrics, "
                      "prometheus: {query: up}}\n")
                 .errors,
             Equals(Strings{at(3, 37, "metricsUtilization.metricsServer",
                               "set either metricsServer (deprecated) or source, not both; "
                               "metricsServer: true means source: KubernetesMetrics"),
                            at(3, 82, "metricsUtilization.prometheus",
                               "prometheus is read only with source: Prometheus, not with "
                               "source: KubernetesMetrics")}));
  CHECK_THAT(
      read_low("thresholds: {cpu: 30, memory: 20}\ntargetThresholds: {cpu: 70}\n"
               "metricsUtilization: {source: Prometheus}\n")
          .errors,
      Equals(Strings{at(3, 21, "metricsUtilization.prometheus",
                        "required field is missing (source Prometheus needs prometheus.query)"),
                     at(1, 19, "thresholds.cpu",
                        "with metricsUtilization.source Prometheus the only resource is "
                        "MetricResource (the query gives one utilisation per node), found \"cpu\""),
                     at(1, 31, "thresholds.memory",
                        "with metricsUtilization.source Prometheus the only resource is "
                        "MetricResource (the query gives one utilisation per node), found "
                        "\"memory\""),
                     at(2, 25, "targetThresholds.cpu",
                        "with metricsUtilization.source Prometheus the only resource is "
                        "MetricResource (the query gives one utilisation per node), found "
                        "\"cpu\"")}));
  CHECK_THAT(read_low("thresholds: {MetricResource: 30}\ntargetThresholds: {MetricResource: 70}\n"
                      "metricsUtilization: {source: Prometheus, prometheus: {query: \"\"}}\n")
                 .errors,
             Equals(Strings{at(3, 62, "metricsUtilization.prometheus.query",
                               "expected a PromQL query, found an empty string")}));
  CHECK_THAT(read_low("thresholds: {cpu: 30}\ntargetThresholds: {cpu: 70}\n"
                      "metricsUtilization: {source: prometheus}\n")
                 .errors,
             Equals(Strings{at(3, 30, "metricsUtilization.source",
                               "expected one of KubernetesMetrics, Prometheus, found "
                               "\"prometheus\" (did you mean \"Prometheus\"?)")}));
}

TEST_CASE("HighNodeUtilization reads upstream's args and rejects LowNodeUtilization's",
          "[policy][args]") {
  ReadResult good = read_high(
      "thresholds: {cpu: 20, memory: 20}\nnumberOfNodes: 3\n"
      "evictableNamespaces: {exclude: [a, b]}\nevictionModes: [OnlyThresholdingResources]\n");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const NodeUtilizationArgs& args = utilization(good);
  CHECK(args.thresholds == Percentages{{"cpu", 20}, {"memory", 20}});
  CHECK(args.target_thresholds.empty());
  CHECK(args.number_of_nodes == 3);
  CHECK(args.excluded_namespaces == Strings{"a", "b"});
  CHECK(args.eviction_modes == Strings{"OnlyThresholdingResources"});

  CHECK_THAT(read_high("targetThresholds: {cpu: 50}\n"
                       "evictionModes: [OnlyThresholdingResource, All]\n"
                       "useDeviationThresholds: true\n")
                 .errors,
             Equals(Strings{
                 at(1, 1, "thresholds", "required field is missing"),
                 at(2, 17, "evictionModes[0]",
                    "expected OnlyThresholdingResources, found "
                    "\"OnlyThresholdingResource\" (did you mean "
                    "\"OnlyThresholdingResources\"?)"),
                 at(2, 43, "evictionModes[1]", "expected OnlyThresholdingResources, found \"All\""),
                 at(1, 1, "targetThresholds", "unknown field \"targetThresholds\""),
                 at(3, 1, "useDeviationThresholds", "unknown field \"useDeviationThresholds\"")}));
}

TEST_CASE("LowNodeUtilization and HighNodeUtilization args survive write -> read",
          "[policy][args]") {
  for (const char* yaml :
       {"thresholds: {cpu: 20.5, example.com/fpga: 1}\n"
        "targetThresholds: {cpu: 50, example.com/fpga: 2}\n"
        "useDeviationThresholds: true\nnumberOfNodes: 4\nevictableNamespaces: {exclude: [x]}\n"
        "evictionLimits: {node: 0}\n",
        "thresholds: {MetricResource: 30}\ntargetThresholds: {MetricResource: 70}\n"
        "metricsUtilization: {source: Prometheus, prometheus: {query: '1 - avg(x)'}}\n",
        "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 70}\n"
        "metricsUtilization: {metricsServer: true}\n",
        "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 70}\n"
        "metricsUtilization: {source: KubernetesMetrics}\n"}) {
    ReadResult low = read_low(yaml);
    REQUIRE_THAT(low.errors, Equals(Strings{}));
    PluginArgs back =
        round_trip(low.args, write_node_utilization_args, read_low_node_utilization_args);
    CHECK(std::get<NodeUtilizationArgs>(back) == utilization(low));
  }
  ReadResult high = read_high(
      "thresholds: {cpu: 20, memory: 20}\nnumberOfNodes: 3\n"
      "evictableNamespaces: {exclude: [a]}\nevictionModes: [OnlyThresholdingResources]\n");
  REQUIRE_THAT(high.errors, Equals(Strings{}));
  PluginArgs back =
      round_trip(high.args, write_node_utilization_args, read_high_node_utilization_args);
  CHECK(std::get<NodeUtilizationArgs>(back) == utilization(high));
}

TEST_CASE("RemovePodsViolatingNodeAffinity args", "[policy][args]") {
  ReadResult good = read_args(read_node_affinity_args, R"(nodeAffinityType:
- requiredDuringSchedulingIgnoredDuringExecution
- preferredDuringSchedulingIgnoredDuringExecution
namespaces:
  exclude: [kube-system]
labelSelector:
  matchLabels: {app: "true"}
  matchExpressions:
  - {key: tier, operator: In, values: [web, "1"]}
  - {key: canary, operator: DoesNotExist}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const NodeAffinityArgs& args = std::get<NodeAffinityArgs>(good.args);
  CHECK(args.node_affinity_type == Strings{"requiredDuringSchedulingIgnoredDuringExecution",
                                           "preferredDuringSchedulingIgnoredDuringExecution"});
  CHECK(args.namespaces == Namespaces{{}, {"kube-system"}});
  REQUIRE(args.label_selector.has_value());
  CHECK(*args.label_selector->match_labels.find("app") == "true");
  CHECK(args.label_selector->match_expressions.size() == 2);
  PluginArgs back = round_trip(good.args, write_node_affinity_args, read_node_affinity_args);
  CHECK(std::get<NodeAffinityArgs>(back) == args);
  CHECK(std::get<NodeAffinityArgs>(default_node_affinity_args()) == NodeAffinityArgs{});

  const std::string expected =
      "expected requiredDuringSchedulingIgnoredDuringExecution or "
      "preferredDuringSchedulingIgnoredDuringExecution";
  CHECK_THAT(read_args(read_node_affinity_args, "labelSelector: {}\n").errors,
             Equals(Strings{
                 at(1, 1, "nodeAffinityType", "required field is missing (" + expected + ")")}));
  CHECK_THAT(read_args(read_node_affinity_args, "nodeAffinityType: []\n").errors,
             Equals(Strings{at(1, 19, "nodeAffinityType", expected + ", found an empty list")}));
  CHECK_THAT(
      read_args(read_node_affinity_args,
                "nodeAffinityType:\n- requiredDuringSchedulingIgnoredDuringExecutions\n"
                "- preferredDuringSchedulingIgnoredDuringExecution\n"
                "- preferredDuringSchedulingIgnoredDuringExecution\n"
                "namespaces: {include: [a], exclude: [b]}\n"
                "labelSelector: {matchExpressions: [{key: a, operator: In}]}\n")
          .errors,
      Equals(Strings{
          at(2, 3, "nodeAffinityType[0]",
             expected + ", found \"requiredDuringSchedulingIgnoredDuringExecutions\" (did you "
                        "mean \"requiredDuringSchedulingIgnoredDuringExecution\"?)"),
          at(4, 3, "nodeAffinityType[2]",
             "preferredDuringSchedulingIgnoredDuringExecution is listed twice"),
          at(5, 13, "namespaces", "set include or exclude, not both"),
          at(6, 36, "labelSelector.matchExpressions[0]", "operator In needs at least one value")}));
}

TEST_CASE("RemovePodsViolatingNodeTaints args", "[policy][args]") {
  ReadResult good = read_args(read_node_taints_args, R"(excludedTaints:
- node.kubernetes.io/unschedulable
- dedicated=gpu
- empty=
includePreferNoSchedule: true
namespaces: {include: [team-a]}
labelSelector: {matchLabels: {evict: "yes"}}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const NodeTaintsArgs& args = std::get<NodeTaintsArgs>(good.args);
  CHECK(args.excluded_taints ==
        Strings{"node.kubernetes.io/unschedulable", "dedicated=gpu", "empty="});
  CHECK(args.included_taints.empty());
  CHECK(args.include_prefer_no_schedule);
  CHECK(args.namespaces == Namespaces{{"team-a"}, {}});
  PluginArgs back = round_trip(good.args, write_node_taints_args, read_node_taints_args);
  CHECK(std::get<NodeTaintsArgs>(back) == args);

  const NodeTaintsArgs defaults = std::get<NodeTaintsArgs>(default_node_taints_args());
  CHECK(defaults == NodeTaintsArgs{});
  CHECK_FALSE(defaults.include_prefer_no_schedule);
  ReadResult empty = read_args(read_node_taints_args, "{}");
  CHECK_THAT(empty.errors, Equals(Strings{}));
  CHECK(std::get<NodeTaintsArgs>(empty.args) == defaults);
  PluginArgs included = round_trip(NodeTaintsArgs{{}, {"a=b"}, false, {}, std::nullopt},
                                   write_node_taints_args, read_node_taints_args);
  CHECK(std::get<NodeTaintsArgs>(included).included_taints == Strings{"a=b"});

  CHECK_THAT(read_args(read_node_taints_args, "includedTaints: []\n").errors,
             Equals(Strings{at(1, 17, "includedTaints",
                               "expected at least one taint, found an empty list (it would match "
                               "no taint, so the plugin would evict nothing); omit "
                               "includedTaints to consider every taint")}));
  CHECK_THAT(read_args(read_node_taints_args,
                       "excludedTaints: [a]\nincludedTaints: [\"=x\", \"b=c d\", ok]\n"
                       "includePreferNoSchedule: 1\nexcludeTaints: [z]\n")
                 .errors,
             Equals(Strings{
                 at(2, 18, "includedTaints[0]",
                    "expected a taint key or key=value such as dedicated=gpu, found \"=x\""),
                 at(2, 24, "includedTaints[1]",
                    "expected a taint key or key=value such as dedicated=gpu, found \"b=c d\""),
                 at(2, 17, "includedTaints", "set excludedTaints or includedTaints, not both"),
                 at(3, 26, "includePreferNoSchedule", "expected true or false, found the number 1"),
                 at(4, 1, "excludeTaints",
                    "unknown field \"excludeTaints\" (did you mean \"excludedTaints\"?)")}));
}

TEST_CASE("emit_string writes strings that read back as the same strings", "[policy][args]") {
  const Strings samples = {
      "",     " a",   "a ",   "#x",    "x #y", "- a",  "? a",    ": a",    "a: b", "'q'", "\"q\"",
      "@x",   "`x",   "%x",   "*x",    "&x",   "!x",   "|x",     ">x",     "{x",   "[x]", "~",
      "null", "NULL", "1e3",  "0x10",  ".5",   "-1",   "+1",     "yes",    "No",   "on",  "Off",
      "y",    "N",    "true", "False", "1:30", "a\nb", "tab\tx", "ümlaut", "a,b"};
  for (const std::string& sample : samples) {
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "k" << YAML::Value;
    emit_string(out, sample);
    out << YAML::EndMap;
    INFO("sample [" << sample << "] written as: " << out.c_str());
    Diagnostics diagnostics("x.yaml");
    FieldReader reader(YAML::Load(out.c_str()), "", &diagnostics);
    CHECK(reader.string("k") == sample);
    CHECK(diagnostics.errors().empty());
  }
}

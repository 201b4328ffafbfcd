// LoadAware args: Volcano's fields as Volcano users write them, loadshift's extensions with their
// defaults, every validation error with its exact message and position, and a round trip.
#include <catch2/catch.hpp>

#include "policy/plugin_schemas.h"
#include "test/policy/read_args.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;
using Catch::Matchers::Equals;
using Strings = std::vector<std::string>;

namespace {

// Valid metrics and watermarks on lines 1-3; a test appends its own lines from line 4 on.
const std::string kBase =
    "metrics: {type: Prometheus, address: \"http://prom:9090\"}\n"
    "thresholds: {cpu: 30, memory: 30}\n"
    "targetThresholds: {cpu: 80, memory: 85}\n";

ReadResult read(const std::string& yaml) {
  return read_args(read_load_aware_args, yaml);
}

const LoadAwareArgs& load_aware(const ReadResult& result) {
  return std::get<LoadAwareArgs>(result.args);
}

}  // namespace

TEST_CASE("LoadAware reads the seed policy's args with every default filled in", "[policy][args]") {
  ReadResult result = read(R"(evictableNamespaces:
  exclude:
  - default
metrics:
  address: "http://prometheus-server.kube-system.svc.cluster.local:80"
  type: Prometheus
targetThresholds:
  cpu: 80
  memory: 85
thresholds:
  cpu: 30
  memory: 30
)");
  CHECK_THAT(result.errors, Equals(Strings{}));
  CHECK_THAT(result.warnings, Equals(Strings{}));
  const LoadAwareArgs& args = load_aware(result);
  CHECK(args.metrics.type == "Prometheus");
  CHECK(args.metrics.address == "http://prometheus-server.kube-system.svc.cluster.local:80");
  // The metrics block is in Volcano's form ({type, address}): Volcano's default window.
  CHECK(args.metrics.window == Duration{120000, "2m"});
  CHECK(args.metrics.step == Duration{30000, "30s"});
  CHECK(args.metrics.timeout == Duration{10000, "10s"});
  CHECK(args.metrics.queries == MetricsQueries{});
  CHECK(args.metrics.node_label == "instance");
  CHECK(args.metrics.node_match == NodeMatch::kAuto);
  CHECK(args.metrics.bearer_token_file.empty());
  CHECK(args.metrics.ca_file.empty());
  CHECK_FALSE(args.metrics.insecure_skip_verify);
  CHECK(args.metrics.headers.empty());
  CHECK_FALSE(args.metrics.min_node_coverage.has_value());  // the rule: all but max(1, 10%)
  CHECK(args.thresholds == Percentages{{"cpu", 30}, {"memory", 30}});
  CHECK(args.target_thresholds == Percentages{{"cpu", 80}, {"memory", 85}});
  CHECK_FALSE(args.use_deviation_thresholds);
  CHECK(args.number_of_nodes == 0);
  CHECK_FALSE(args.node_fit);
  CHECK(args.node_selector.empty());
  CHECK(args.excluded_namespaces == Strings{"default"});
  CHECK_FALSE(args.sustained_for.has_value());
  CHECK(args.node_pools.empty());
  CHECK(args.usage_pool_label == "maip.mxsf.io/node.usage");
  CHECK(args.resource_weights == std::map<std::string, double>{{"cpu", 1}, {"memory", 1}});
  CHECK(args.eviction_limits == EvictionLimits{});
  CHECK_FALSE(args.evict_gang_pods);
  CHECK(args.respect_restart_policies);
  CHECK_FALSE(args.evict_gpu_pods);
  CHECK(args.gpu_vendor_prefixes == Strings{"nvidia.com/", "metax-tech.com/", "hami.io/",
                                            "volcano.sh/vgpu", "huawei.com/Ascend"});
}

TEST_CASE("LoadAware's defaults are the struct's defaults", "[policy][args]") {
  const LoadAwareArgs args = std::get<LoadAwareArgs>(default_load_aware_args());
  CHECK(args == LoadAwareArgs{});
  CHECK(args.metrics.window.text == "5m");
  CHECK(args.resource_weights == std::map<std::string, double>{{"cpu", 1}, {"memory", 1}});
  CHECK(args.gpu_vendor_prefixes.size() == 5);
}

TEST_CASE("LoadAware accepts Volcano's spelling and legacy evictor fields, with warnings",
          "[policy][args]") {
  ReadResult result = read(R"(metrics: {type: prometheus, address: "https://prom.example:443/x"}
duration: 3m
thresholds: {cpu: 30, memory: 30, pods: 50}
targetThresholds: {cpu: 80, memory: 85, pods: 90}
useDeviationThresholds: false
numberOfNodes: 2
nodeFit: true
nodeSelector: "node-role.kubernetes.io/worker"
evictLocalStoragePods: true
evictSystemCriticalPods: false
ignorePvcPods: true
evictFailedBarePods: false
labelSelector: {matchLabels: {app: web}}
priorityThreshold: {value: 10000}
)");
  CHECK_THAT(result.errors, Equals(Strings{}));
  const std::string tail = " (neither does Volcano's): DefaultEvictor's args apply, set it there";
  const std::string head = "accepted for Volcano compatibility, but LoadAware does not read ";
  CHECK_THAT(
      result.warnings,
      Equals(Strings{at(9, 24, "evictLocalStoragePods", head + "evictLocalStoragePods" + tail),
                     at(10, 26, "evictSystemCriticalPods", head + "evictSystemCriticalPods" + tail),
                     at(11, 16, "ignorePvcPods", head + "ignorePvcPods" + tail),
                     at(12, 22, "evictFailedBarePods", head + "evictFailedBarePods" + tail),
                     at(13, 16, "labelSelector", head + "labelSelector" + tail),
                     at(14, 20, "priorityThreshold", head + "priorityThreshold" + tail)}));
  const LoadAwareArgs& args = load_aware(result);
  CHECK(args.metrics.type == "prometheus");
  CHECK(args.metrics.window == Duration{180000, "3m"});
  CHECK(args.thresholds.at("pods") == 50);
  CHECK(args.number_of_nodes == 2);
  CHECK(args.node_fit);
  CHECK(args.node_selector == "node-role.kubernetes.io/worker");
  CHECK(args.resource_weights ==
        std::map<std::string, double>{{"cpu", 1}, {"memory", 1}, {"pods", 1}});
}

TEST_CASE("LoadAware's metrics type and address are required and checked", "[policy][args]") {
  const std::string no_type =
      "without a metrics type the Volcano descheduler logs an error every cycle and balances "
      "nothing; set type: prometheus";
  CHECK_THAT(read("thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n").errors,
             Equals(Strings{at(1, 1, "metrics",
                               "required field is missing (LoadAware reads node load from "
                               "Prometheus: set metrics.type: prometheus and metrics.address)")}));
  CHECK_THAT(
      read("metrics:\n  type: null\n  address: http://p:9090\n"
           "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
          .errors,
      Equals(Strings{at(2, 9, "metrics.type", "required field is null (" + no_type + ")")}));
  CHECK_THAT(
      read("metrics: {address: \"http://p:9090\"}\n"
           "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
          .errors,
      Equals(Strings{at(1, 10, "metrics.type", "required field is missing (" + no_type + ")")}));
  CHECK_THAT(read("metrics: {type: \"\", address: \"http://p:9090\"}\n"
                  "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
                 .errors,
             Equals(Strings{at(1, 17, "metrics.type",
                               "expected prometheus, found an empty string (" + no_type + ")")}));
  CHECK_THAT(read("metrics: {type: prometheus_adaptor, address: \"http://p:9090\"}\n"
                  "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
                 .errors,
             Equals(Strings{at(1, 17, "metrics.type",
                               "prometheus_adaptor is not supported by loadshift: use type "
                               "prometheus")}));
  CHECK_THAT(read("metrics: {type: Promethues, address: \"http://p:9090\"}\n"
                  "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
                 .errors,
             Equals(Strings{at(1, 17, "metrics.type",
                               "expected prometheus, found \"Promethues\" (did you mean "
                               "\"prometheus\"?)")}));
  CHECK_THAT(
      read("metrics: {type: Prometheus}\nthresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
          .errors,
      Equals(Strings{at(1, 10, "metrics.address",
                        "required field is missing: the Prometheus base URL, e.g. "
                        "http://prometheus-server.monitoring.svc:9090 (`loadshift report "
                        "--prometheus URL` can override it for one report, but the policy "
                        "must name one)")}));
  const std::string expected_url =
      "expected an http(s) URL such as http://prometheus-server.monitoring.svc:9090, found ";
  CHECK_THAT(
      read("metrics: {type: Prometheus, address: \"ftp://p:21\"}\n"
           "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
          .errors,
      Equals(Strings{at(1, 38, "metrics.address",
                        expected_url + "\"ftp://p:21\": the scheme must be http or https, found "
                                       "\"ftp\"")}));
  CHECK_THAT(
      read("metrics: {type: Prometheus, address: \"http://p:99999\"}\n"
           "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
          .errors,
      Equals(Strings{at(1, 38, "metrics.address",
                        expected_url + "\"http://p:99999\": port 99999 is not in 1..65535")}));
}

TEST_CASE("LoadAware's window, step, timeout and Volcano's duration", "[policy][args]") {
  ReadResult both = read(kBase + "duration: 2m\n" + "sustainedFor: 10m\n");
  CHECK_THAT(both.errors, Equals(Strings{}));
  CHECK(load_aware(both).metrics.window == Duration{120000, "2m"});
  CHECK(load_aware(both).sustained_for == Duration{600000, "10m"});

  ReadResult conflict = read(
      "metrics: {type: Prometheus, address: \"http://p:9090\", window: 10m}\n"
      "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\nduration: 2m\n");
  CHECK_THAT(conflict.errors,
             Equals(Strings{at(4, 11, "duration",
                               "set either duration or metrics.window, not both (duration is "
                               "Volcano's name for metrics.window)")}));

  ReadResult steps = read(
      "metrics: {type: Prometheus, address: \"http://p:9090\", window: 1m, step: 2m, timeout: 0s}\n"
      "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\nsustainedFor: 1m\n");
  CHECK_THAT(steps.errors,
             Equals(Strings{
                 at(1, 86, "metrics.timeout", "expected a duration greater than 0, found \"0s\""),
                 at(1, 73, "metrics.step",
                    "step 2m is longer than the window 1m (a subquery step must not "
                    "exceed its window)"),
                 at(4, 15, "sustainedFor",
                    "sustainedFor 1m is shorter than metrics.step 2m (the sustain "
                    "check samples usage once per step)")}));

  CHECK_THAT(read("metrics: {type: Prometheus, address: \"http://p:9090\", window: 10s}\n"
                  "thresholds: {cpu: 30}\ntargetThresholds: {cpu: 80}\n")
                 .errors,
             Equals(Strings{at(1, 63, "metrics.window",
                               "window 10s is shorter than the default step 30s (set "
                               "metrics.step to at most the window)")}));
  CHECK_THAT(read(kBase + "duration: 5 minutes\n").errors,
             Equals(Strings{at(4, 11, "duration",
                               "expected a duration such as \"30s\", \"5m\" or \"1h30m\", found "
                               "\"5 minutes\"")}));
}

TEST_CASE("LoadAware's query templates, node matching and connection settings", "[policy][args]") {
  ReadResult good = read(R"(metrics:
  type: Prometheus
  address: https://prom.example
  window: 15m
  step: 1m
  timeout: 3s
  queries:
    cpu: 'avg by (node) (rate(x[{{window}}:{{step}}]))'
    memory: 'mem_used'
    podCpu: 'sum by (namespace, pod) (rate(c[{{window}}]))'
    podMemory: 'ws'
  nodeLabel: node
  nodeMatch: internalIP
  bearerTokenFile: /var/run/secrets/token
  caFile: /etc/ca.pem
  insecureSkipVerify: true
  headers: {X-Scope-OrgID: tenant-a}
  minNodeCoverage: 75.5
thresholds: {cpu: 30}
targetThresholds: {cpu: 80}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const LoadAwareMetrics& m = load_aware(good).metrics;
  CHECK(m.queries == MetricsQueries{"avg by (node) (rate(x[{{window}}:{{step}}]))", "mem_used",
                                    "sum by (namespace, pod) (rate(c[{{window}}]))", "ws"});
  CHECK(m.node_label == "node");
  CHECK(m.node_match == NodeMatch::kInternalIp);
  CHECK(m.bearer_token_file == "/var/run/secrets/token");
  CHECK(m.ca_file == "/etc/ca.pem");
  CHECK(m.insecure_skip_verify);
  CHECK(m.headers == std::map<std::string, std::string>{{"X-Scope-OrgID", "tenant-a"}});
  CHECK(m.min_node_coverage == 75.5);
  CHECK(m.timeout == Duration{3000, "3s"});

  ReadResult bad = read(R"(metrics:
  type: Prometheus
  address: http://p:9090
  queries:
    cpu: 'rate(x[{{range}}])'
    memory: ''
    podCpu: 'rate(x[{{window}'
    podMemroy: 'x'
  nodeLabel: node-name
  nodeMatch: ip
  headers: {"bad header": x}
  minNodeCoverage: 120
  windw: 5m
thresholds: {cpu: 30}
targetThresholds: {cpu: 80}
)");
  CHECK_THAT(
      bad.errors,
      Equals(Strings{
          at(5, 10, "metrics.queries.cpu",
             "unknown placeholder {{range}}: a query may use only {{window}} and {{step}}"),
          at(6, 13, "metrics.queries.memory",
             "expected a PromQL query, found an empty string (omit the field to use the "
             "default query)"),
          at(7, 13, "metrics.queries.podCpu",
             "unterminated placeholder \"{{window}\": a query may use only {{window}} and "
             "{{step}}"),
          at(8, 5, "metrics.queries.podMemroy",
             "unknown field \"podMemroy\" (did you mean \"podMemory\"?)"),
          at(9, 14, "metrics.nodeLabel",
             "expected a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), found "
             "\"node-name\""),
          at(10, 14, "metrics.nodeMatch", "expected one of auto, name, internalIP, found \"ip\""),
          at(11, 27, "metrics.headers.bad header",
             "expected an HTTP header name (letters, digits and !#$%&'*+-.^_`|~), found "
             "\"bad header\""),
          at(12, 20, "metrics.minNodeCoverage",
             "expected a number in 0..100, found the number 120"),
          at(13, 3, "metrics.windw", "unknown field \"windw\" (did you mean \"window\"?)")}));
}

TEST_CASE("LoadAware's thresholds and targetThresholds", "[policy][args]") {
  const std::string metrics = "metrics: {type: Prometheus, address: \"http://p:9090\"}\n";
  CHECK_THAT(read(metrics).errors,
             Equals(Strings{at(1, 1, "thresholds", "required field is missing"),
                            at(1, 1, "targetThresholds", "required field is missing")}));
  CHECK_THAT(read(metrics + "thresholds: {}\ntargetThresholds: {cpu: 80}\n").errors,
             Equals(Strings{at(2, 13, "thresholds",
                               "expected at least one resource, found an empty mapping")}));
  CHECK_THAT(
      read(metrics + "thresholds: {cpu: 30, gpu: 10, memroy: 5}\ntargetThresholds: {cpu: 120}\n")
          .errors,
      Equals(Strings{
          at(2, 28, "thresholds.gpu",
             "unknown resource \"gpu\": LoadAware classifies nodes on cpu, memory, pods"),
          at(2, 40, "thresholds.memroy",
             "unknown resource \"memroy\": LoadAware classifies nodes on cpu, memory, pods (did "
             "you mean \"memory\"?)"),
          at(3, 25, "targetThresholds.cpu", "expected a number in 0..100, found the number 120")}));
  CHECK_THAT(
      read(metrics + "thresholds: {cpu: 90, memory: 30}\ntargetThresholds: {cpu: 80, pods: 50}\n")
          .errors,
      Equals(Strings{
          at(2, 19, "thresholds.cpu",
             "cpu threshold 90 is greater than targetThresholds.cpu 80 (thresholds must not "
             "exceed targetThresholds unless useDeviationThresholds is true)"),
          at(3, 19, "targetThresholds",
             "missing resource \"memory\", which thresholds sets (thresholds and "
             "targetThresholds must name the same resources)"),
          at(3, 35, "targetThresholds.pods",
             "resource \"pods\" is not in thresholds (thresholds and targetThresholds must name "
             "the same resources)")}));
  ReadResult deviation = read(metrics +
                              "thresholds: {cpu: 20.5}\ntargetThresholds: {cpu: 10}\n"
                              "useDeviationThresholds: true\n");
  CHECK_THAT(deviation.errors, Equals(Strings{}));
  CHECK(load_aware(deviation).thresholds == Percentages{{"cpu", 20.5}});
}

TEST_CASE("LoadAware's namespaces, numberOfNodes, selectors and unknown fields", "[policy][args]") {
  CHECK_THAT(
      read(kBase + "evictableNamespaces: {include: [a], exclude: [Kube_System]}\n"
                   "numberOfNodes: -1\nnodeSelector: \"a in (b\"\ntargetThreshold: {cpu: 1}\n")
          .errors,
      Equals(Strings{
          at(5, 16, "numberOfNodes", "expected an integer in 0..2147483647, found the number -1"),
          at(6, 15, "nodeSelector",
             "expected a label selector: cannot parse requirement \"a in (b\" (expected key, "
             "!key, key=value, key!=value, key in (a,b) or key notin (a,b))"),
          at(4, 32, "evictableNamespaces.include",
             "only exclude is supported (as upstream): LoadAware cannot be limited to some "
             "namespaces; list the namespaces whose pods must stay under exclude"),
          at(4, 47, "evictableNamespaces.exclude[0]",
             "expected a namespace name (lowercase letters, digits and '-'), found "
             "\"Kube_System\""),
          at(7, 1, "targetThreshold",
             "unknown field \"targetThreshold\" (did you mean \"targetThresholds\"?)")}));
}

TEST_CASE("LoadAware's nodePools inherit the plugin's watermarks", "[policy][args]") {
  ReadResult result = read(kBase + R"(nodePools:
- name: training
  nodeSelector: maip.mxsf.io/node.usage=training
  thresholds: {cpu: 50}
  targetThresholds: {memory: 95}
- name: inference
  nodeSelector: maip.mxsf.io/node.usage=inference
)");
  CHECK_THAT(result.errors, Equals(Strings{}));
  const std::vector<NodePool>& pools = load_aware(result).node_pools;
  REQUIRE(pools.size() == 2);
  CHECK(pools[0] == NodePool{"training",
                             "maip.mxsf.io/node.usage=training",
                             {{"cpu", 50}, {"memory", 30}},
                             {{"cpu", 80}, {"memory", 95}}});
  CHECK(pools[1] == NodePool{"inference",
                             "maip.mxsf.io/node.usage=inference",
                             {{"cpu", 30}, {"memory", 30}},
                             {{"cpu", 80}, {"memory", 85}}});

  CHECK_THAT(
      read(kBase + R"(nodePools:
- name: a
  nodeSelector: x=y
  thresholds: {cpu: 90, pods: 10}
- name: a
  nodeSelector: ""
  targetThresholds: {memory: 20}
- thresholds: {cpu: 10}
  nodeselector: x
)")
          .errors,
      Equals(Strings{at(7, 31, "nodePools[0].thresholds.pods",
                        "resource \"pods\" is not in the plugin's thresholds (cpu, memory): a pool "
                        "only overrides the watermarks of resources the plugin classifies on"),
                     at(8, 9, "nodePools[1].name", "duplicate pool name \"a\" (also nodePools[0])"),
                     at(9, 17, "nodePools[1].nodeSelector",
                        "expected a label selector, found an empty string (it would select every "
                        "node)"),
                     at(10, 30, "nodePools[1].targetThresholds.memory",
                        "memory threshold 30 (inherited from the plugin) is greater than "
                        "targetThresholds.memory 20 (this pool's); thresholds must not exceed "
                        "targetThresholds unless useDeviationThresholds is true"),
                     at(11, 3, "nodePools[2].name", "required field is missing"),
                     at(11, 3, "nodePools[2].nodeSelector",
                        "required field is missing (the label selector of the pool's nodes, e.g. "
                        "maip.mxsf.io/node.usage=training)"),
                     at(12, 3, "nodePools[2].nodeselector",
                        "unknown field \"nodeselector\" (did you mean \"nodeSelector\"?)")}));
}

TEST_CASE("LoadAware's pool label, weights, limits, gang and gpu", "[policy][args]") {
  ReadResult good = read(kBase + R"(usagePoolLabel: example.com/pool
resourceWeights: {cpu: 2}
evictionLimits: {node: 1, namespace: 2, workload: 3}
gang: {evictGangPods: true, respectRestartPolicies: false}
gpu: {evictGpuPods: true, vendorPrefixes: [nvidia.com/]}
)");
  CHECK_THAT(good.errors, Equals(Strings{}));
  const LoadAwareArgs& args = load_aware(good);
  CHECK(args.usage_pool_label == "example.com/pool");
  CHECK(args.resource_weights == std::map<std::string, double>{{"cpu", 2}, {"memory", 1}});
  CHECK(args.eviction_limits == EvictionLimits{1, 2, 3});
  CHECK(args.evict_gang_pods);
  CHECK_FALSE(args.respect_restart_policies);
  CHECK(args.evict_gpu_pods);
  CHECK(args.gpu_vendor_prefixes == Strings{"nvidia.com/"});

  CHECK_THAT(
      read(kBase + R"(usagePoolLabel: "bad label"
resourceWeights: {cpu: -1, pods: 1, disk: 1}
evictionLimits: {node: -1, total: 5}
gang: {evictGangPods: "yes"}
gpu: {vendorPrefixes: []}
)")
          .errors,
      Equals(Strings{
          at(4, 17, "usagePoolLabel",
             "expected a label key such as maip.mxsf.io/node.usage, found \"bad label\""),
          at(5, 24, "resourceWeights.cpu", "expected a number in 0..1000, found the number -1"),
          at(5, 34, "resourceWeights.pods",
             "resource \"pods\" is not in thresholds (cpu, memory): weights apply only to "
             "the resources nodes are classified on"),
          at(5, 43, "resourceWeights.disk",
             "unknown resource \"disk\": LoadAware classifies nodes on cpu, memory, pods"),
          at(6, 24, "evictionLimits.node",
             "expected an integer in 0..4294967295, found the number -1"),
          at(6, 28, "evictionLimits.total", "unknown field \"total\""),
          at(7, 23, "gang.evictGangPods", "expected true or false, found the string \"yes\""),
          at(8, 23, "gpu.vendorPrefixes",
             "expected at least one resource name prefix, found an empty list (omit "
             "vendorPrefixes for the defaults)")}));
  CHECK_THAT(
      read(kBase + "resourceWeights: {cpu: 0, memory: 0}\n").errors,
      Equals(Strings{at(4, 18, "resourceWeights", "at least one weight must be greater than 0")}));
}

TEST_CASE("LoadAware args survive write -> read unchanged", "[policy][args]") {
  ReadResult full = read(R"(metrics:
  type: prometheus
  address: "https://user@prom.example:8443/prefix"
  window: 90s
  step: 15s
  timeout: 2500ms
  queries: {cpu: 'a[{{window}}:{{step}}]', memory: '1 - b', podCpu: 'true', podMemory: '42'}
  nodeLabel: kubernetes_node
  nodeMatch: name
  bearerTokenFile: /t
  caFile: /c
  insecureSkipVerify: true
  headers: {X-A: "1", X-B: "no"}
  minNodeCoverage: 66.6
thresholds: {cpu: 20.25, memory: 30, pods: 0}
targetThresholds: {cpu: 70, memory: 80.5, pods: 100}
useDeviationThresholds: false
numberOfNodes: 3
nodeFit: true
nodeSelector: "pool in (a,b),!gpu"
evictableNamespaces: {exclude: [kube-system, "123"]}
sustainedFor: 1h30m
nodePools:
- {name: "007", nodeSelector: "!gpu,p=007", thresholds: {cpu: 10}}
usagePoolLabel: pool
resourceWeights: {cpu: 0.5, memory: 2}
evictionLimits: {node: 0, workload: 1}
gang: {evictGangPods: true, respectRestartPolicies: false}
gpu: {evictGpuPods: true, vendorPrefixes: [a/, b]}
)");
  REQUIRE_THAT(full.errors, Equals(Strings{}));
  const LoadAwareArgs& args = load_aware(full);
  CHECK(args.metrics.window == Duration{90000, "1m30s"});
  CHECK(args.metrics.timeout == Duration{2500, "2s500ms"});
  CHECK(args.resource_weights ==
        std::map<std::string, double>{{"cpu", 0.5}, {"memory", 2}, {"pods", 1}});
  CHECK(args.excluded_namespaces == Strings{"kube-system", "123"});
  std::string text;
  PluginArgs back = round_trip(full.args, write_load_aware_args, read_load_aware_args, &text);
  CHECK(std::get<LoadAwareArgs>(back) == args);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("window: 1m30s") && Catch::Contains("podMemory: \"42\""));
}

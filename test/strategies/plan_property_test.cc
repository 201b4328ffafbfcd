// Property tests: make_plan() over random clusters (fixed seeds) with LoadAware or
// LowNodeUtilization, checking what must hold for every plan:
//  - every target passes the placement core with the Ledger as it was when the pod was planned;
//  - nothing at or above priorityThreshold is evicted;
//  - no limit is exceeded (policy per node / namespace / total, plugin node / namespace /
//  workload);
//  - no target's predicted usage exceeds its targetThresholds;
//  - no node without usage data (or out of scope) is a source or a target;
//  - the same input gives the same plan.
#include <catch2/catch.hpp>

#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "placement/placer.h"
#include "strategies/plan.h"
#include "test/strategies/plan_fixture.h"

namespace {

using namespace loadshift;
using namespace loadshift::testing;

constexpr int32_t kPriorityThreshold = 10000;
const std::vector<std::string> kPools = {"", "training", "inference", "hybrid"};
const std::vector<std::string> kNamespaces = {"apps", "batch", "web"};

struct RandomCluster {
  Snapshot snapshot;
  metrics::UsageMap usage;
  policy::Policy policy;
};

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  int integer(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }
  double real(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng_);
  }
  bool chance(double p) { return real(0, 1) < p; }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(integer(0, static_cast<int>(items.size()) - 1))];
  }

  RandomCluster cluster() {
    RandomCluster c;
    int nodes = integer(3, 12);
    for (int n = 0; n < nodes; ++n) {
      std::string name = "n" + std::to_string(n);
      const std::string& pool = pick(kPools);
      Node node = pool.empty() ? make_node(name) : pool_node(name, pool);
      node.allocatable.cpu_milli = pick(std::vector<int64_t>{16000, 32000, 64000});
      node.capacity = node.allocatable;
      node.unschedulable = chance(0.1);
      if (chance(0.05)) node.conditions[0].status = "False";
      c.snapshot.nodes.push_back(node);
      if (chance(0.9)) {
        metrics::NodeUsage u;
        u.cpu.percent = real(0, 100);
        u.memory.percent = real(0, 100);
        c.usage.nodes[name] = u;
      } else {
        c.usage.unknown[name] = "no cpu series";
      }
      int64_t free_cpu = node.allocatable.cpu_milli;
      int pods = integer(0, 8);
      for (int p = 0; p < pods; ++p) {
        int64_t cpu = std::min<int64_t>(free_cpu, integer(1, 80) * 100);
        free_cpu -= cpu;
        std::string pod_name = name + "-p" + std::to_string(p);
        Pod pod =
            owned_pod(pod_name, name, cpu, "rs" + std::to_string(integer(0, 5)), pick(kNamespaces));
        if (!pool.empty()) seed_pool_rules(pod, pool == "hybrid" ? pick(kPools) : pool);
        if (pod.node_affinity->required) {
          // seed_pool_rules("") would require an empty pool: keep the pod plain instead.
          if (pod.tolerations.front().value.empty()) {
            pod.node_affinity = model::NodeAffinity{};
            pod.tolerations.edit().clear();
            pod.tolerations.edit().push_back(tolerate("maip.mxsf.io/node.usage", "hybrid"));
          }
        }
        pod.priority = pick(std::vector<int32_t>{0, 100, 5000, kPriorityThreshold, 20000});
        pod.meta.creation_timestamp = "2024-01-0" + std::to_string(integer(1, 9)) + "T00:00:00Z";
        if (chance(0.3)) {
          c.usage.pods[pod.key()] = {real(0, 8000), real(0, 4.0 * (1 << 30))};
        }
        c.snapshot.pods.push_back(pod);
      }
    }
    if (chance(0.3)) c.policy.max_pods_to_evict_per_node = integer(1, 3);
    if (chance(0.3)) c.policy.max_pods_to_evict_per_namespace = integer(1, 4);
    if (chance(0.3)) c.policy.max_pods_to_evict_total = integer(1, 6);
    return c;
  }

  policy::Percentages watermarks(double low, double high) {
    return {{"cpu", real(low, high)}, {"memory", real(low, high)}};
  }

  policy::LoadAwareArgs load_aware_args() {
    policy::LoadAwareArgs args;
    args.thresholds = watermarks(10, 45);
    args.target_thresholds = watermarks(50, 95);
    args.metrics.min_node_coverage = 50;
    args.use_deviation_thresholds = chance(0.2);
    if (args.use_deviation_thresholds) {
      args.thresholds = watermarks(0, 20);
      args.target_thresholds = watermarks(0, 20);
    }
    if (chance(0.5)) {
      args.node_pools.push_back(
          {"training", "maip.mxsf.io/node.usage=training", watermarks(10, 45), watermarks(50, 95)});
    }
    args.resource_weights = {{"cpu", real(0.1, 5)}, {"memory", real(0.1, 5)}};
    if (chance(0.3)) args.eviction_limits.node = integer(1, 3);
    if (chance(0.3)) args.eviction_limits.namespace_ = integer(1, 3);
    if (chance(0.3)) args.eviction_limits.workload = integer(1, 2);
    args.number_of_nodes = chance(0.2) ? 1 : 0;
    return args;
  }

  policy::NodeUtilizationArgs low_node_utilization_args() {
    policy::NodeUtilizationArgs args;
    args.thresholds = {{"cpu", real(5, 30)}};
    args.target_thresholds = {{"cpu", real(40, 80)}};
    if (chance(0.3)) args.eviction_limit_node = integer(1, 3);
    if (chance(0.5)) args.metrics_utilization.source = "KubernetesMetrics";
    return args;
  }

 private:
  std::mt19937 rng_;
};

void add_profile(policy::Policy& policy, const std::string& plugin, policy::PluginArgs args) {
  policy::DefaultEvictorArgs evictor = default_evictor();
  evictor.priority_threshold.value = kPriorityThreshold;
  evictor.node_fit = true;
  policy::Profile profile;
  profile.name = "balance";
  profile.plugin_config = {{"DefaultEvictor", evictor}, {plugin, std::move(args)}};
  profile.plugins.balance.enabled = {plugin};
  policy.profiles.push_back(std::move(profile));
}

std::string plan_text(const Snapshot& snapshot, const strategies::Plan& plan) {
  std::ostringstream out;
  for (const auto& e : plan.evictions) {
    out << "evict " << snapshot.pods[e.pod].key() << " " << e.node << "->" << e.target << " ("
        << e.landing << ") " << e.reason << "\n";
  }
  for (const auto& s : plan.skipped)
    out << "skip " << snapshot.pods[s.pod].key() << " " << s.reason << "\n";
  for (const auto& n : plan.nodes) {
    out << "node " << n.node << " " << strategies::to_string(n.node_class) << " " << n.why << " "
        << n.cpu_after.value_or(-1) << " " << n.memory_after.value_or(-1) << "\n";
  }
  for (const auto& note : plan.notes) out << "note " << note << "\n";
  return out.str();
}

// The pod's estimated load as the plan reads it: own usage when known, else requests.
std::pair<double, double> load_of(const placement::ClusterIndex& index,
                                  const metrics::UsageMap& usage, PodId pod) {
  auto it = usage.pods.find(index.snapshot().pods[pod].key());
  if (it != usage.pods.end()) return {it->second.cpu_milli, it->second.memory_bytes};
  const ResourceList& requests = index.requests(pod);
  return {static_cast<double>(requests.cpu_milli), static_cast<double>(requests.memory)};
}

struct Limits {
  std::optional<uint32_t> node, namespace_, workload;
};

// Every invariant over one plan. `real_usage`: targets are capped on measured usage plus
// estimated loads (LoadAware, LNU with metrics); otherwise on requests.
void check_plan(const RandomCluster& c, const placement::ClusterIndex& index,
                const strategies::Plan& plan, const Limits& plugin_limits, bool real_usage) {
  const Snapshot& s = c.snapshot;
  placement::Placer placer(index);
  placement::Ledger ledger(s.nodes.size());
  std::map<NodeId, uint32_t> per_node;
  std::map<std::string, uint32_t> per_namespace, per_workload;
  std::map<NodeId, std::pair<double, double>> added;  // target -> cpu, memory percent added
  for (const strategies::EvictionDecision& e : plan.evictions) {
    const Pod& pod = s.pods[e.pod];
    INFO("eviction of " << pod.key() << ": " << e.reason);
    REQUIRE(e.target != placement::kNoNode);
    placement::Verdict verdict = placer.fits(e.pod, e.target, ledger);
    CHECK(verdict.describe() == "fits");
    // The plan counts the pod where the scheduler model says its replacement lands: never back
    // on the source, never on a hot node, a node that admits it.
    const NodeId placed = e.landing != placement::kNoNode ? e.landing : e.target;
    if (placed != e.target) {
      CHECK(placer.fits(e.pod, placed, ledger).describe() == "fits");
      CHECK(plan.nodes[placed].node_class != strategies::NodeClass::kOverutilized);
      CHECK(plan.nodes[placed].node_class != strategies::NodeClass::kUnknown);
    }
    CHECK(placed != e.node);
    ledger.reserve(e.pod, e.node, placed, index.requests(e.pod));

    CHECK(strategies::pod_priority(s, pod) < kPriorityThreshold);

    for (NodeId node : {e.node, e.target, placed}) {
      const std::string& name = s.nodes[node].meta.name;
      CHECK(c.usage.find(name) != nullptr);
      CHECK(s.nodes[node].conditions[0].status == "True");
    }
    CHECK(plan.nodes[e.node].node_class == strategies::NodeClass::kOverutilized);
    // A predicted landing is the target (LoadAware counts the pod where it lands; checked above
    // as `placed`); else the target is an underutilized node.
    if (e.landing != placement::kNoNode) {
      CHECK(e.target == e.landing);
      CHECK(plan.nodes[e.landing].node_class != strategies::NodeClass::kOverutilized);
    } else {
      CHECK(plan.nodes[e.target].node_class == strategies::NodeClass::kUnderutilized);
    }

    ++per_node[e.node];
    ++per_namespace[pod.meta.namespace_];
    ++per_workload[pod.meta.namespace_ + "/" + pod.owners[0].name];
    std::optional<uint32_t> node_limit = plugin_limits.node;
    if (c.policy.max_pods_to_evict_per_node &&
        (!node_limit || *c.policy.max_pods_to_evict_per_node < *node_limit)) {
      node_limit = c.policy.max_pods_to_evict_per_node;
    }
    if (node_limit) CHECK(per_node[e.node] <= *node_limit);
    if (c.policy.max_pods_to_evict_per_namespace) {
      CHECK(per_namespace[pod.meta.namespace_] <= *c.policy.max_pods_to_evict_per_namespace);
    }
    if (plugin_limits.namespace_) {
      CHECK(per_namespace[pod.meta.namespace_] <= *plugin_limits.namespace_);
    }
    if (plugin_limits.workload) {
      CHECK(per_workload[pod.meta.namespace_ + "/" + pod.owners[0].name] <=
            *plugin_limits.workload);
    }

    const Node& target = s.nodes[placed];
    std::pair<double, double> load =
        real_usage ? load_of(index, c.usage, e.pod)
                   : std::pair<double, double>{static_cast<double>(index.requests(e.pod).cpu_milli),
                                               static_cast<double>(index.requests(e.pod).memory)};
    added[placed].first += 100.0 * load.first / static_cast<double>(target.allocatable.cpu_milli);
    added[placed].second += 100.0 * load.second / static_cast<double>(target.allocatable.memory);
  }
  if (c.policy.max_pods_to_evict_total) {
    CHECK(plan.evictions.size() <= *c.policy.max_pods_to_evict_total);
  }
  for (const auto& [target, extra] : added) {
    const strategies::NodeState& state = plan.nodes[target];
    const metrics::NodeUsage* usage = c.usage.find(s.nodes[target].meta.name);
    REQUIRE(usage != nullptr);
    double cpu_base = real_usage ? usage->cpu.percent
                                 : 100.0 * static_cast<double>(index.requested(target).cpu_milli) /
                                       static_cast<double>(s.nodes[target].allocatable.cpu_milli);
    INFO("target " << s.nodes[target].meta.name);
    if (auto cap = state.target_thresholds.find("cpu"); cap != state.target_thresholds.end()) {
      CHECK(cpu_base + extra.first <= cap->second + 1e-6);
    }
    if (real_usage) {
      if (auto cap = state.target_thresholds.find("memory"); cap != state.target_thresholds.end()) {
        CHECK(usage->memory.percent + extra.second <= cap->second + 1e-6);
      }
      REQUIRE(state.cpu_after.has_value());
      CHECK(*state.cpu_after == Approx(usage->cpu.percent + extra.first));
    }
  }
}

}  // namespace

TEST_CASE("LoadAware plans over random clusters keep every invariant") {
  // With landing prediction (the default) and without it (every target the core accepts).
  const bool predict = GENERATE(true, false);
  INFO("landing prediction " << (predict ? "on" : "off"));
  strategies::PlanOptions options;
  options.predict_landing = predict;
  size_t evictions = 0, plans_with_evictions = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    Generator gen(seed);
    RandomCluster c = gen.cluster();
    policy::LoadAwareArgs args = gen.load_aware_args();
    add_profile(c.policy, "LoadAware", args);
    placement::ClusterIndex index(c.snapshot, strategies::placement_options(c.policy));
    strategies::Plan plan = strategies::make_plan(index, c.usage, c.policy, options);
    check_plan(
        c, index, plan,
        {args.eviction_limits.node, args.eviction_limits.namespace_, args.eviction_limits.workload},
        true);
    // Static watermarks are the configured ones: the pool's for its nodes, else the plugin's.
    if (!args.use_deviation_thresholds) {
      for (const strategies::NodeState& state : plan.nodes) {
        if (state.node_class == strategies::NodeClass::kUnknown ||
            state.node_class == strategies::NodeClass::kUnclassified) {
          continue;
        }
        const std::string* pool =
            c.snapshot.nodes[state.node].meta.labels.find("maip.mxsf.io/node.usage");
        bool training = !args.node_pools.empty() && pool != nullptr && *pool == "training";
        CHECK(state.target_thresholds ==
              (training ? args.node_pools[0].target_thresholds : args.target_thresholds));
      }
    }
    strategies::Plan again = strategies::make_plan(index, c.usage, c.policy, options);
    CHECK(plan_text(c.snapshot, plan) == plan_text(c.snapshot, again));
    evictions += plan.evictions.size();
    plans_with_evictions += !plan.evictions.empty();
  }
  // The generator must exercise the planner, not only its early exits. Seeds 1..300 gave 132
  // evictions in 56 plans without prediction when written, 71 in 37 with it (the scheduler model
  // sends many replacements back to their source or to hot nodes: those pods stay).
  CHECK(plans_with_evictions >= (predict ? 25u : 40u));
  CHECK(evictions >= (predict ? 50u : 100u));
}

TEST_CASE("LowNodeUtilization plans over random clusters keep every invariant") {
  size_t evictions = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    Generator gen(seed + 100000);
    RandomCluster c = gen.cluster();
    policy::NodeUtilizationArgs args = gen.low_node_utilization_args();
    add_profile(c.policy, "LowNodeUtilization", args);
    bool real_usage = args.metrics_utilization.source == "KubernetesMetrics";
    if (!real_usage) {
      // Requests-based: every node is known to the plugin; the usage data must not matter.
      for (const auto& entry : c.usage.unknown) c.usage.nodes[entry.first] = {};
      c.usage.unknown.clear();
    }
    placement::ClusterIndex index(c.snapshot, strategies::placement_options(c.policy));
    strategies::Plan plan = strategies::make_plan(index, c.usage, c.policy);
    check_plan(c, index, plan, {args.eviction_limit_node, std::nullopt, std::nullopt}, real_usage);
    strategies::Plan again = strategies::make_plan(index, c.usage, c.policy);
    CHECK(plan_text(c.snapshot, plan) == plan_text(c.snapshot, again));
    evictions += plan.evictions.size();
  }
  CHECK(evictions >= 200);  // 364 when written
}

TEST_CASE(
    "mixed plans share one usage account: every target stays within its watermark with "
    "the whole plan so far, load in and load out") {
  // A deschedule plugin (RemovePodsViolatingNodeTaints, on nodes newly tainted for maintenance)
  // and LoadAware in one plan. Replayed here from the plan alone: each eviction's pod leaves its
  // node and lands where it is placed; at that moment the node it lands on, with the pod, must be
  // within its watermarks (LoadAware's targetThresholds where it classified the node, else 100%).
  size_t deschedule_moves = 0, balance_moves = 0, freed_targets = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    INFO("seed " << seed);
    Generator gen(seed + 200000);
    RandomCluster c = gen.cluster();
    if (c.usage.nodes.empty()) continue;  // no usage at all: no usage check to verify
    // Two maintenance groups; each pod tolerates one of them, so a pod leaving a node of one
    // group may free room for a pod of the other group to land there.
    const std::vector<std::string> groups = {"a", "b"};
    for (Node& node : c.snapshot.nodes) {
      if (gen.chance(0.4)) {
        node.taints.push_back({"maintenance", gen.pick(groups), TaintEffect::kNoSchedule});
      }
    }
    for (Pod& pod : c.snapshot.pods)
      pod.tolerations.edit().push_back(tolerate("maintenance", gen.pick(groups)));
    add_profile(c.policy, "LoadAware", gen.load_aware_args());
    policy::Profile taints;
    taints.name = "taints";
    policy::DefaultEvictorArgs evictor = default_evictor();
    evictor.priority_threshold.value = kPriorityThreshold;
    evictor.node_fit = true;
    taints.plugin_config = {{"DefaultEvictor", evictor},
                            {"RemovePodsViolatingNodeTaints", policy::NodeTaintsArgs{}}};
    taints.plugins.deschedule.enabled = {"RemovePodsViolatingNodeTaints"};
    c.policy.profiles.push_back(std::move(taints));
    placement::ClusterIndex index(c.snapshot, strategies::placement_options(c.policy));
    strategies::Plan plan = strategies::make_plan(index, c.usage, c.policy);

    const Snapshot& s = c.snapshot;
    std::vector<std::optional<std::pair<double, double>>> now(s.nodes.size());
    std::vector<bool> lost_load(s.nodes.size(), false);
    for (NodeId node = 0; node < s.nodes.size(); ++node) {
      if (const metrics::NodeUsage* u = c.usage.find(s.nodes[node].meta.name)) {
        now[node] = {u->cpu.percent, u->memory.percent};
      }
    }
    auto cap = [&](NodeId node, const char* resource) {
      const auto& high = plan.nodes[node].target_thresholds;
      auto it = high.find(resource);
      return it == high.end() ? 100.0 : it->second;
    };
    for (const strategies::EvictionDecision& e : plan.evictions) {
      INFO("eviction of " << s.pods[e.pod].key() << " by " << e.strategy << ": " << e.reason);
      const NodeId placed = e.placed();
      REQUIRE(placed != placement::kNoNode);
      const std::pair<double, double> load = load_of(index, c.usage, e.pod);
      auto share = [&](NodeId node) {
        return std::pair<double, double>{
            100.0 * load.first / static_cast<double>(s.nodes[node].allocatable.cpu_milli),
            100.0 * load.second / static_cast<double>(s.nodes[node].allocatable.memory)};
      };
      // Some node's usage is measured: a target's must be known.
      REQUIRE(now[placed].has_value());
      const auto [cpu_in, memory_in] = share(placed);
      CHECK(now[placed]->first + cpu_in <= cap(placed, "cpu") + 1e-6);
      CHECK(now[placed]->second + memory_in <= cap(placed, "memory") + 1e-6);
      if (e.strategy == "LoadAware") {
        ++balance_moves;
      } else {
        ++deschedule_moves;
        freed_targets += lost_load[placed] ? 1 : 0;
      }
      if (now[e.node]) {
        const auto [cpu_out, memory_out] = share(e.node);
        now[e.node]->first = std::max(0.0, now[e.node]->first - cpu_out);
        now[e.node]->second = std::max(0.0, now[e.node]->second - memory_out);
        lost_load[e.node] = true;
      }
      now[placed]->first += cpu_in;
      now[placed]->second += memory_in;
    }
    // The report's after-columns are that same account.
    for (const strategies::EvictionDecision& e : plan.evictions) {
      for (NodeId node : {e.node, e.placed()}) {
        const strategies::NodeState& state = plan.nodes[node];
        if (!now[node] || state.figures != strategies::Figures::kUsage) continue;
        INFO("node " << s.nodes[node].meta.name);
        REQUIRE(state.cpu_after.has_value());
        CHECK(*state.cpu_after == Approx(now[node]->first).margin(1e-6));
        CHECK(*state.memory_after == Approx(now[node]->second).margin(1e-6));
      }
    }
  }
  std::cout << "mixed plans: " << deschedule_moves << " deschedule moves (" << freed_targets
            << " onto a node the plan had taken load from), " << balance_moves
            << " LoadAware moves\n";
  CHECK(deschedule_moves >= 100);
  CHECK(balance_moves >= 10);
  CHECK(freed_targets >= 5);
}

// Property test: on random clusters (fixed seeds), the Placer's verdict for every (pod, node)
// pair equals an independent brute-force check written here from the Kubernetes rules.
#include <catch2/catch.hpp>

#include <random>

#include "builders.h"
#include "placement/cluster_index.h"
#include "placement/placer.h"

using namespace loadshift::testing;

namespace {

const std::vector<std::string> kPools = {"training", "inference", "hybrid"};
const std::vector<std::string> kZones = {"a", "b", "c"};
const std::vector<std::string> kKeys = {"maip.mxsf.io/node.usage", "zone", "gpus", "disk"};

struct Random {
  std::mt19937 engine;
  explicit Random(uint32_t seed) : engine(seed) {}
  int between(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(engine); }
  bool chance(double p) { return std::bernoulli_distribution(p)(engine); }
  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[between(0, static_cast<int>(items.size()) - 1)];
  }
};

std::string random_value(Random& r, const std::string& key) {
  if (key == "maip.mxsf.io/node.usage") return r.pick(kPools);
  if (key == "zone") return r.pick(kZones);
  if (key == "gpus") return r.pick(std::vector<std::string>{"0", "4", "8", "x"});
  return r.pick(std::vector<std::string>{"ssd", "hdd"});
}

Node random_node(Random& r, int i) {
  Node node = make_node("n" + std::to_string(i), r.between(1, 16) * 1000,
                        int64_t{r.between(1, 64)} << 30, r.between(1, 12));
  if (r.chance(0.8)) {
    std::string pool = r.pick(kPools);
    node.meta.labels.set("maip.mxsf.io/node.usage", pool);
    if (r.chance(0.7)) node.taints.push_back({"maip.mxsf.io/node.usage", pool, TaintEffect::kNoSchedule});
  }
  node.meta.labels.set("zone", r.pick(kZones));
  if (r.chance(0.5)) node.meta.labels.set("gpus", random_value(r, "gpus"));
  if (r.chance(0.3)) node.meta.labels.set("disk", random_value(r, "disk"));
  if (r.chance(0.3)) {
    TaintEffect effect = static_cast<TaintEffect>(r.between(0, 2));
    node.taints.push_back({"dedicated", r.pick(kZones), effect});
  }
  if (r.chance(0.1)) node.unschedulable = true;
  if (r.chance(0.1)) node.conditions[0].status = "False";
  if (r.chance(0.05)) node.meta.deleting = true;
  if (r.chance(0.3)) node.allocatable.set("example.com/dev", r.between(0, 3));
  return node;
}

NodeSelectorRequirement random_requirement(Random& r) {
  const std::string& key = r.pick(kKeys);
  auto op = static_cast<SelectorOperator>(r.between(0, 5));
  std::vector<std::string> values;
  if (op == SelectorOperator::kGt || op == SelectorOperator::kLt) {
    values.push_back(r.pick(std::vector<std::string>{"0", "4", "7", "1.5"}));
  } else if (op == SelectorOperator::kIn || op == SelectorOperator::kNotIn) {
    int n = r.between(1, 2);
    for (int i = 0; i < n; ++i) values.push_back(random_value(r, key));
  }
  return req(key, op, values);
}

Pod random_pod(Random& r, int i, int node_count) {
  std::string node = r.chance(0.85) ? "n" + std::to_string(r.between(0, node_count - 1)) : "";
  Pod pod = make_pod("p" + std::to_string(i), r.between(0, 4) * 500,
                     int64_t{r.between(0, 8)} << 30, node);
  if (r.chance(0.1)) pod.phase = r.chance(0.5) ? PodPhase::kSucceeded : PodPhase::kFailed;
  if (r.chance(0.2)) pod.containers[0].requests.set("example.com/dev", r.between(1, 2));
  if (r.chance(0.2)) {
    Container init;
    init.requests.cpu_milli = r.between(0, 6) * 500;
    pod.init_containers.push_back(init);
  }
  if (r.chance(0.6)) {
    std::string pool = r.pick(kPools);
    pod.tolerations.push_back(tolerate("maip.mxsf.io/node.usage", pool,
                                       r.chance(0.5) ? std::optional(TaintEffect::kNoSchedule)
                                                     : std::nullopt));
  }
  if (r.chance(0.2)) {
    pod.tolerations.push_back(Toleration{r.chance(0.3) ? "" : "dedicated",
                                         TolerationOperator::kExists, "",
                                         r.chance(0.5) ? std::optional(TaintEffect::kNoSchedule)
                                                       : std::nullopt,
                                         std::nullopt});
  }
  if (r.chance(0.05)) {
    pod.tolerations.push_back(Toleration{"node.kubernetes.io/unschedulable",
                                         TolerationOperator::kExists, "", std::nullopt,
                                         std::nullopt});
  }
  if (r.chance(0.2)) pod.node_selector.set("zone", r.pick(kZones));
  if (r.chance(0.5)) {
    std::vector<NodeSelectorTerm> terms(r.between(0, 2));
    for (auto& term : terms) {
      int n = r.between(0, 2);
      for (int k = 0; k < n; ++k) term.match_expressions.push_back(random_requirement(r));
      if (r.chance(0.15)) {
        term.match_fields.push_back(req("metadata.name",
                                        r.chance(0.5) ? SelectorOperator::kIn : SelectorOperator::kNotIn,
                                        {"n" + std::to_string(r.between(0, node_count - 1))}));
      }
    }
    pod.node_affinity.required = terms;
  }
  if (r.chance(0.1)) pod.host_ports.push_back(r.pick(std::vector<int32_t>{80, 443}));
  if (r.chance(0.03)) pod.pod_affinity.required_anti_affinity_terms = 1;
  return pod;
}

// ---- the independent brute force ---------------------------------------------------------

bool bf_tolerated(const Pod& pod, const Taint& t) {
  for (const Toleration& tol : pod.tolerations) {
    bool effect_ok = !tol.effect.has_value() || *tol.effect == t.effect;
    bool key_ok = tol.key.empty() ? tol.op == TolerationOperator::kExists : tol.key == t.key;
    bool value_ok = tol.op == TolerationOperator::kExists || tol.value == t.value;
    if (effect_ok && key_ok && value_ok) return true;
  }
  return false;
}

bool bf_integer(const std::string& s, long long& v) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  }
  v = std::stoll(s);
  return true;
}

bool bf_requirement(const NodeSelectorRequirement& q, const Node& n) {
  auto labels = n.meta.labels.items();
  const std::string* value = nullptr;
  for (const auto& [k, v] : labels) {
    if (k == q.key) value = &v;
  }
  bool listed = false;
  for (const auto& v : q.values) listed = listed || (value && *value == v);
  switch (q.op) {
    case SelectorOperator::kIn: return listed;
    case SelectorOperator::kNotIn: return !listed;
    case SelectorOperator::kExists: return value != nullptr;
    case SelectorOperator::kDoesNotExist: return value == nullptr;
    default: {
      long long have, bound;
      if (!value || q.values.size() != 1 || !bf_integer(*value, have) ||
          !bf_integer(q.values[0], bound))
        return false;
      return q.op == SelectorOperator::kGt ? have > bound : have < bound;
    }
  }
}

bool bf_term(const NodeSelectorTerm& t, const Node& n) {
  if (t.match_expressions.empty() && t.match_fields.empty()) return false;
  for (const auto& q : t.match_expressions) {
    if (!bf_requirement(q, n)) return false;
  }
  for (const auto& f : t.match_fields) {
    bool listed = std::count(f.values.begin(), f.values.end(), n.meta.name) > 0;
    if (f.op == SelectorOperator::kIn ? !listed : listed) return false;
  }
  return true;
}

bool brute_force_fits(const Snapshot& s, size_t pod_index, size_t node_index,
                      const std::vector<std::pair<size_t, size_t>>& planned) {
  const Pod& pod = s.pods[pod_index];
  const Node& node = s.nodes[node_index];
  if (pod.node_name == node.meta.name) return false;
  for (auto [p, n] : planned) {
    if (p == pod_index && n == node_index) return false;
  }
  if (pod.pod_affinity.required_affinity_terms + pod.pod_affinity.required_anti_affinity_terms)
    return false;
  const NodeCondition* ready = node.condition("Ready");
  if (node.meta.deleting || !ready || ready->status != "True") return false;
  if (node.unschedulable &&
      !bf_tolerated(pod, Taint{"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule}))
    return false;
  for (const Taint& t : node.taints) {
    if (t.effect != TaintEffect::kPreferNoSchedule && !bf_tolerated(pod, t)) return false;
  }
  for (const auto& [k, v] : pod.node_selector.items()) {
    const std::string* have = node.meta.labels.find(k);
    if (!have || *have != v) return false;
  }
  if (pod.node_affinity.required) {
    bool any = false;
    for (const auto& t : *pod.node_affinity.required) any = any || bf_term(t, node);
    if (!any) return false;
  }
  // Resources: sum the live pods on the node and the planned moves to it.
  long long cpu = 0, mem = 0, dev = 0, count = 0;
  std::vector<int32_t> ports;
  auto charge = [&](const Pod& p) {
    ResourceList r = effective_requests(p);
    cpu += r.cpu_milli;
    mem += r.memory;
    dev += r.get("example.com/dev");
    count += 1;
  };
  for (const Pod& p : s.pods) {
    if (p.node_name != node.meta.name || p.terminated()) continue;
    charge(p);
    ports.insert(ports.end(), p.host_ports.begin(), p.host_ports.end());
  }
  for (auto [p, n] : planned) {
    if (n == node_index) charge(s.pods[p]);
  }
  ResourceList want = effective_requests(pod);
  if (count + 1 > node.allocatable.pods) return false;
  if (want.cpu_milli > 0 && want.cpu_milli > node.allocatable.cpu_milli - cpu) return false;
  if (want.memory > 0 && want.memory > node.allocatable.memory - mem) return false;
  long long want_dev = want.get("example.com/dev");
  if (want_dev > 0 && want_dev > node.allocatable.get("example.com/dev") - dev) return false;
  for (int32_t port : pod.host_ports) {
    if (std::count(ports.begin(), ports.end(), port)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("placer verdicts equal a brute-force check on random clusters", "[placer][property]") {
  size_t pairs = 0, feasible_pairs = 0, memo_rows = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Random r(seed);
    Snapshot snapshot;
    int node_count = r.between(3, 12);
    for (int i = 0; i < node_count; ++i) snapshot.nodes.push_back(random_node(r, i));
    int pod_count = r.between(5, 40);
    for (int i = 0; i < pod_count; ++i) {
      Pod pod = random_pod(r, i, node_count);
      if (i > 0 && r.chance(0.4)) {
        // Same scheduling constraints as an earlier pod: one constraint class, one memo row.
        const Pod& earlier = snapshot.pods[r.between(0, i - 1)];
        pod.tolerations = earlier.tolerations;
        pod.node_selector = earlier.node_selector;
        pod.node_affinity = earlier.node_affinity;
      }
      snapshot.pods.push_back(std::move(pod));
    }
    ClusterIndex index(snapshot);
    memo_rows += index.memo_rows();
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size());
    std::vector<std::pair<size_t, size_t>> planned;
    // A few random planned moves, each onto a node where the pod fits at that point.
    for (int k = 0; k < 5; ++k) {
      PodId pod = r.between(0, pod_count - 1);
      NodeId node = r.between(0, node_count - 1);
      if (ledger.planned_node(pod) != kNoNode || !placer.feasible(pod, node, ledger)) continue;
      ledger.reserve(pod, index.node_of(pod), node, index.requests(pod));
      planned.emplace_back(pod, node);
    }
    for (PodId p = 0; p < snapshot.pods.size(); ++p) {
      if (ledger.planned_node(p) != kNoNode) continue;  // moved pods are checked from their source
      for (NodeId n = 0; n < snapshot.nodes.size(); ++n) {
        bool expected = brute_force_fits(snapshot, p, n, planned);
        Verdict verdict = placer.fits(p, n, ledger);
        INFO("seed " << seed << " pod " << snapshot.pods[p].meta.name << " node "
                     << snapshot.nodes[n].meta.name << ": " << verdict.describe());
        REQUIRE(placer.feasible(p, n, ledger) == expected);
        REQUIRE(placer.feasible(p, n, ledger) == expected);  // now from the memo, if kept
        REQUIRE(verdict.fits() == expected);
        ++pairs;
        feasible_pairs += expected;
      }
    }
  }
  // The generator must exercise both outcomes in earnest.
  CHECK(pairs > 2000);
  CHECK(memo_rows > 40);
  CHECK(feasible_pairs > pairs / 20);
  CHECK(feasible_pairs < pairs / 2);
}

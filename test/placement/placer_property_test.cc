// Property test: on random clusters (fixed seeds), the Placer's verdict for every (pod, node)
// pair equals an independent brute-force check written here from the Kubernetes rules.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <map>
#include <random>
#include <regex>

#include "builders.h"
#include "placement/cluster_index.h"
#include "placement/placer.h"

using namespace loadshift::testing;

namespace {

const std::vector<std::string> kPools = {"training", "inference", "hybrid"};
const std::vector<std::string> kZones = {"a", "b", "c"};
const std::vector<std::string> kKeys = {"maip.mxsf.io/node.usage", "zone", "gpus", "disk"};
const std::vector<std::string> kApps = {"web", "db"};
// Claims pods may use; the cluster's PVCs, PVs and CSINodes are made by add_storage.
const std::vector<std::string> kClaims = {"zonal", "zonal", "csi-1", "csi-2", "csi-1",
                                          "csi-2", "unbound", "missing", "lost-volume",
                                          "prebound", "marked"};

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
  if (r.chance(0.5)) node.meta.labels.set("topology.kubernetes.io/zone", r.pick(kZones));
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
    values.push_back(
        r.pick(std::vector<std::string>{"0", "4", "7", "1.5", "99999999999999999999", "-1"}));
  } else if (op == SelectorOperator::kIn || op == SelectorOperator::kNotIn) {
    int n = r.between(r.chance(0.05) ? 0 : 1, 2);
    for (int i = 0; i < n; ++i) {
      // Now and then a value that is not a valid label value: the scheduler's parser refuses it.
      values.push_back(r.chance(0.04) ? r.pick(std::vector<std::string>{"trail-", "-x", "a b"})
                                      : random_value(r, key));
    }
  } else if (r.chance(0.05)) {
    values.push_back("stray");  // Exists / DoesNotExist take no values
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
  if (r.chance(0.6)) pod.meta.labels.set("app", r.pick(kApps));
  if (r.chance(0.1)) {
    PreferredSchedulingTerm preferred;
    preferred.weight = r.between(0, 3);
    preferred.preference.match_expressions.push_back(random_requirement(r));
    pod.node_affinity.preferred.push_back(preferred);
  }
  if (r.chance(0.05)) {
    PodAffinityTerm term;
    if (r.chance(0.9)) {
      term.label_selector = LabelSelector{};
      term.label_selector->match_labels.set("app", r.pick(kApps));
    }
    term.topology_key = r.pick(std::vector<std::string>{"zone", "kubernetes.io/hostname", "disk"});
    if (r.chance(0.2)) term.namespaces = {r.pick(std::vector<std::string>{"default", "other"})};
    pod.pod_anti_affinity.required.push_back(term);
  }
  if (r.chance(0.12)) {
    Volume volume;
    volume.name = "data";
    volume.kind = kVolumePersistentClaim;
    volume.claim_name = r.pick(kClaims);
    pod.volumes.push_back(volume);
  }
  if (r.chance(0.03)) {
    Volume scratch;
    scratch.name = "scratch";
    scratch.kind = kVolumeEphemeral;
    pod.volumes.push_back(scratch);
  }
  return pod;
}

// PVCs, PVs and CSINodes for the claims of kClaims: a zonal volume with random node affinity,
// two CSI volumes, an unbound claim, a claim whose volume is gone ("missing" has no claim).
void add_storage(Random& r, Snapshot& snapshot) {
  auto claim = [&](const std::string& name, const std::string& volume) {
    PersistentVolumeClaim pvc;
    pvc.meta.namespace_ = "default";
    pvc.meta.name = name;
    pvc.volume_name = volume;
    pvc.phase = volume.empty() ? "Pending" : "Bound";
    if (!volume.empty()) pvc.meta.annotations.set("pv.kubernetes.io/bind-completed", "yes");
    snapshot.persistent_volume_claims.push_back(pvc);
  };
  claim("zonal", "pv-zonal");
  claim("csi-1", "pv-csi-1");
  claim("csi-2", "pv-csi-2");
  claim("unbound", "");
  claim("lost-volume", "pv-gone");
  claim("prebound", "pv-csi-1");  // phase Bound but no annotation: not bound for the scheduler
  snapshot.persistent_volume_claims.back().meta.annotations = {};
  claim("marked", "pv-csi-2");  // complete by the annotation
  snapshot.persistent_volume_claims.back().phase = "Pending";
  snapshot.persistent_volume_claims.back().meta.annotations.set("pv.kubernetes.io/bind-completed",
                                                                "yes");
  PersistentVolume zonal;
  zonal.meta.name = "pv-zonal";
  std::vector<NodeSelectorTerm> terms(r.between(0, 2));
  for (auto& term : terms) {
    term.match_expressions.push_back(random_requirement(r));
    if (r.chance(0.2)) {
      term.match_fields.push_back(req("metadata.name", SelectorOperator::kNotIn, {"n0"}));
    }
  }
  if (r.chance(0.8)) zonal.node_affinity = terms;
  if (r.chance(0.9)) {
    zonal.meta.labels.set("topology.kubernetes.io/zone",
                          r.pick(std::vector<std::string>{"a", "b", "a__c"}));
  }
  snapshot.persistent_volumes.push_back(zonal);
  for (const char* handle : {"1", "2"}) {
    PersistentVolume pv;
    pv.meta.name = std::string("pv-csi-") + handle;
    pv.csi_driver = "ebs.csi.aws.com";
    pv.csi_volume_handle = std::string("vol-") + handle;
    snapshot.persistent_volumes.push_back(pv);
  }
  for (Node& node : snapshot.nodes) {
    if (r.chance(0.5)) {
      CsiNode csi;
      csi.meta.name = node.meta.name;
      csi.drivers.push_back(CsiNodeDriver{"ebs.csi.aws.com", r.between(0, 2)});
      if (r.chance(0.2)) csi.drivers.back().allocatable_count.reset();
      snapshot.csi_nodes.push_back(csi);
    }
    if (r.chance(0.2)) {
      node.allocatable.set("attachable-volumes-csi-ebs.csi.aws.com", r.between(0, 1));
    }
  }
}

// ---- the independent brute force ---------------------------------------------------------

// Written from the rules (labels.NewRequirement, validation.IsValidLabelValue), not the code.
bool bf_label_value(const std::string& v) {
  static const std::regex kValue("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  return v.size() <= 63 && std::regex_match(v, kValue);
}

bool bf_int64(const std::string& s, long long& v) {
  static const std::regex kInteger("[-+]?[0-9]+");
  if (!std::regex_match(s, kInteger)) return false;
  errno = 0;
  v = std::strtoll(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}

bool bf_parses(const NodeSelectorRequirement& q) {
  long long ignored;
  switch (q.op) {
    case SelectorOperator::kIn:
    case SelectorOperator::kNotIn:
      return !q.values.empty() && std::all_of(q.values.begin(), q.values.end(), bf_label_value);
    case SelectorOperator::kExists:
    case SelectorOperator::kDoesNotExist:
      return q.values.empty();
    default:
      return q.values.size() == 1 && bf_label_value(q.values[0]) && bf_int64(q.values[0], ignored);
  }
}

bool bf_term_parses(const NodeSelectorTerm& t) {
  for (const auto& q : t.match_expressions) {
    if (!bf_parses(q)) return false;
  }
  for (const auto& f : t.match_fields) {
    bool in_or_not = f.op == SelectorOperator::kIn || f.op == SelectorOperator::kNotIn;
    if (!in_or_not || f.values.size() != 1) return false;
  }
  return true;
}

bool bf_tolerated(const Pod& pod, const Taint& t) {
  for (const Toleration& tol : pod.tolerations) {
    bool effect_ok = !tol.effect.has_value() || *tol.effect == t.effect;
    bool key_ok = tol.key.empty() ? tol.op == TolerationOperator::kExists : tol.key == t.key;
    bool value_ok = tol.op == TolerationOperator::kExists || tol.value == t.value;
    if (effect_ok && key_ok && value_ok) return true;
  }
  return false;
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
      if (!value || q.values.size() != 1 || !bf_int64(*value, have) ||
          !bf_int64(q.values[0], bound))
        return false;
      return q.op == SelectorOperator::kGt ? have > bound : have < bound;
    }
  }
}

bool bf_term(const NodeSelectorTerm& t, const Node& n) {
  if (t.match_expressions.empty() && t.match_fields.empty()) return false;
  if (!bf_term_parses(t)) return false;
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
  if (!pod.pod_affinity.required.empty() || !pod.pod_anti_affinity.required.empty())
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
  // A preferred term of non-zero weight that does not parse: the pod is never moved.
  for (const auto& preferred : pod.node_affinity.preferred) {
    if (preferred.weight != 0 && !bf_term_parses(preferred.preference)) return false;
  }
  // Existing pods' required anti-affinity, in the domain of the node they run on.
  auto node_named = [&](const std::string& name) -> const Node* {
    for (const Node& n : s.nodes) {
      if (n.meta.name == name) return &n;
    }
    return nullptr;
  };
  for (size_t e = 0; e < s.pods.size(); ++e) {
    const Pod& existing = s.pods[e];
    const Node* home = node_named(existing.node_name);
    if (e == pod_index || existing.terminated() || home == nullptr) continue;
    for (const PodAffinityTerm& term : existing.pod_anti_affinity.required) {
      const std::string* domain = home->meta.labels.find(term.topology_key);
      const std::string* here = node.meta.labels.find(term.topology_key);
      if (!domain || !here || *domain != *here || !term.label_selector) continue;
      if (!matches(*term.label_selector, pod.meta.labels)) continue;
      bool same_namespace =
          term.namespaces.empty()
              ? existing.meta.namespace_ == pod.meta.namespace_
              : std::count(term.namespaces.begin(), term.namespaces.end(), pod.meta.namespace_) > 0;
      if (same_namespace) return false;
    }
  }
  // Claims: each must be bound to a volume in the snapshot whose node affinity (read on a node
  // without a name) admits the node; CSI volumes must fit the node's attach limit.
  auto volume_of = [&](const Pod& p, const Volume& v) -> const PersistentVolume* {
    for (const auto& pvc : s.persistent_volume_claims) {
      if (pvc.meta.namespace_ != p.meta.namespace_ || pvc.meta.name != v.claim_name) continue;
      bool complete = pvc.meta.annotations.find("pv.kubernetes.io/bind-completed") != nullptr;
      for (const auto& pv : s.persistent_volumes) {
        if (!pvc.meta.deleting && complete && !pvc.volume_name.empty() &&
            pv.meta.name == pvc.volume_name)
          return &pv;
      }
    }
    return nullptr;
  };
  Node nameless = node;
  nameless.meta.name = "";
  std::vector<std::string> wanted;
  for (const Volume& v : pod.volumes) {
    if (v.kind == kVolumeEphemeral) return false;  // its new claim's binding is unknown
    if (v.kind != kVolumePersistentClaim) continue;
    const PersistentVolume* pv = volume_of(pod, v);
    if (pv == nullptr) return false;
    if (pv->node_affinity) {
      bool any = false;
      for (const auto& t : *pv->node_affinity) any = any || bf_term(t, nameless);
      if (!any) return false;
    }
    if (!pv->csi_driver.empty()) wanted.push_back(pv->csi_driver + "/" + pv->csi_volume_handle);
    // VolumeZone, for the one label the generator sets: a zoned node must be in a listed zone.
    const std::string* volume_zone = pv->meta.labels.find("topology.kubernetes.io/zone");
    const std::string* node_zone = node.meta.labels.find("topology.kubernetes.io/zone");
    if (volume_zone && node_zone) {
      std::string listed = "__" + *volume_zone + "__";
      if (listed.find("__" + *node_zone + "__") == std::string::npos) return false;
    }
  }
  std::vector<std::string> attached;
  auto attach = [&](const Pod& p) {
    for (const Volume& v : p.volumes) {
      const PersistentVolume* pv = nullptr;
      if (v.kind == kVolumePersistentClaim) {
        pv = volume_of(p, v);
      } else if (v.kind == kVolumeEphemeral) {
        // A generic ephemeral volume's claim is named <pod>-<volume>; bound, it counts too.
        Volume as_claim = v;
        as_claim.claim_name = p.meta.name + "-" + v.name;
        pv = volume_of(p, as_claim);
      }
      if (pv && !pv->csi_driver.empty()) {
        attached.push_back(pv->csi_driver + "/" + pv->csi_volume_handle);
      }
    }
  };
  for (const Pod& p : s.pods) {
    if (p.node_name == node.meta.name && !p.terminated()) attach(p);
  }
  for (auto [p, n] : planned) {
    if (n == node_index) attach(s.pods[p]);
  }
  std::sort(attached.begin(), attached.end());
  attached.erase(std::unique(attached.begin(), attached.end()), attached.end());
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  long long added = 0;
  for (const auto& w : wanted) added += !std::binary_search(attached.begin(), attached.end(), w);
  std::optional<long long> limit;
  for (const auto& [name, amount] : node.allocatable.scalars()) {
    if (name == "attachable-volumes-csi-ebs.csi.aws.com") limit = amount;
  }
  for (const CsiNode& csi : s.csi_nodes) {
    if (csi.meta.name != node.meta.name) continue;
    for (const auto& d : csi.drivers) {
      if (d.name == "ebs.csi.aws.com" && d.allocatable_count) limit = *d.allocatable_count;
    }
  }
  if (added > 0 && limit && static_cast<long long>(attached.size()) + added > *limit) return false;
  return true;
}

}  // namespace

TEST_CASE("placer verdicts equal a brute-force check on random clusters", "[placer][property]") {
  size_t pairs = 0, feasible_pairs = 0, memo_rows = 0;
  // How often the rules of issue 10 refused a pair: the generator must reach each of them.
  std::map<std::string, size_t> refused_by;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Random r(seed);
    Snapshot snapshot;
    int node_count = r.between(3, 12);
    for (int i = 0; i < node_count; ++i) snapshot.nodes.push_back(random_node(r, i));
    add_storage(r, snapshot);
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
        for (const Rejection& failure : verdict.failures) {
          auto says = [&](const char* text) {
            return failure.reason.find(text) != std::string::npos;
          };
          if (says("matches no node")) ++refused_by["parse"];
          if (says("does not parse")) ++refused_by["preferred"];
          if (says("persistentvolumeclaim")) ++refused_by["claim"];
          ++refused_by[std::string(to_string(failure.rule))];
        }
        ++pairs;
        feasible_pairs += expected;
      }
    }
  }
  // The generator must exercise both outcomes in earnest.
  CHECK(pairs > 2000);
  CHECK(memo_rows > 40);
  INFO(feasible_pairs << " of " << pairs << " pairs feasible");
  CHECK(feasible_pairs > pairs / 20);
  CHECK(feasible_pairs < pairs / 2);
  for (const char* rule : {"parse", "preferred", "claim", "ExistingPodsAntiAffinity",
                           "VolumeBinding", "VolumeZone", "VolumeLimits"}) {
    INFO(rule << " refused " << refused_by[rule] << " of " << pairs << " pairs");
    CHECK(refused_by[rule] > 0);
  }
}

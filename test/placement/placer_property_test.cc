// Property test: on random clusters (fixed seeds), the Placer's verdict for every (pod, node)
// pair equals an independent brute-force check written here from the Kubernetes rules.
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <regex>
#include <set>

#include "placement/cluster_index.h"
#include "placement/placer.h"
#include "test/model/builders.h"

using namespace loadshift::testing;

namespace {

const std::vector<std::string> kPools = {"training", "inference", "hybrid"};
const std::vector<std::string> kZones = {"a", "b", "c"};
const std::vector<std::string> kKeys = {"maip.mxsf.io/node.usage", "zone", "gpus", "disk"};
const std::vector<std::string> kApps = {"web", "db"};
const std::vector<std::string> kNamespaces = {"default", "other"};
const std::vector<std::string> kTermKeys = {"zone", "kubernetes.io/hostname", "disk"};
const std::vector<std::string> kSpreadKeys = {"zone", "kubernetes.io/hostname", "disk",
                                              "topology.kubernetes.io/zone"};
// Claims pods may use; the cluster's PVCs, PVs and CSINodes are made by add_storage.
const std::vector<std::string> kClaims = {"zonal",       "zonal",    "csi-1",   "csi-2",
                                          "csi-1",       "csi-2",    "unbound", "missing",
                                          "lost-volume", "prebound", "marked"};

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
    if (r.chance(0.7))
      node.taints.push_back({"maip.mxsf.io/node.usage", pool, TaintEffect::kNoSchedule});
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

// A label selector over pods: mostly app=<one of kApps> (`own`, when given, half the time: a
// workload's terms usually select its own pods), sometimes null (selects no pod) or {} (every pod).
std::optional<LabelSelector> random_pod_selector(Random& r, const std::string* own) {
  if (r.chance(0.05)) return std::nullopt;
  LabelSelector selector;
  if (r.chance(0.12)) return selector;
  selector.match_labels.set("app", own != nullptr && r.chance(0.5) ? *own : r.pick(kApps));
  return selector;
}

// A PodAffinityTerm: keys zone (every node), kubernetes.io/hostname (every node) and disk (some
// nodes); sometimes listed namespaces, sometimes namespaceSelector {} (every namespace), now and
// then one that selects by the Namespaces' labels (the snapshot has Namespaces on half the
// seeds; without them the selector cannot be evaluated).
PodAffinityTerm random_pod_term(Random& r, const Pod& owner) {
  PodAffinityTerm term;
  term.label_selector = random_pod_selector(r, owner.meta.labels.find("app"));
  term.topology_key = r.pick(kTermKeys);
  if (r.chance(0.2)) {
    term.namespaces = {r.pick(kNamespaces)};
    if (r.chance(0.3)) term.namespaces.push_back(r.pick(kNamespaces));
  }
  if (r.chance(0.1)) {
    term.namespace_selector = LabelSelector{};
  } else if (r.chance(0.08)) {
    term.namespace_selector = LabelSelector{};
    term.namespace_selector->match_labels.set("team", "a");
  }
  return term;
}

// podAffinity / podAntiAffinity (required and preferred) and topologySpreadConstraints, each
// often enough that every rule both passes and refuses on most seeds.
void add_inter_pod_rules(Random& r, Pod& pod) {
  auto required = [&](std::vector<PodAffinityTerm>& terms) {
    int n = r.chance(0.8) ? 1 : 2;
    for (int k = 0; k < n; ++k) terms.push_back(random_pod_term(r, pod));
  };
  auto preferred = [&](std::vector<WeightedPodAffinityTerm>& terms) {
    int n = r.between(1, 2);
    for (int k = 0; k < n; ++k) {
      terms.push_back(WeightedPodAffinityTerm{r.between(1, 100), random_pod_term(r, pod)});
    }
  };
  if (r.chance(0.1)) required(pod.pod_affinity.required);
  if (r.chance(0.1)) required(pod.pod_anti_affinity.required);
  if (r.chance(0.1)) preferred(pod.pod_affinity.preferred);
  if (r.chance(0.1)) preferred(pod.pod_anti_affinity.preferred);
  if (r.chance(0.2)) {
    int n = r.chance(0.7) ? 1 : 2;
    for (int k = 0; k < n; ++k) {
      TopologySpreadConstraint c;
      c.max_skew = r.between(1, 2);
      c.topology_key = r.pick(kSpreadKeys);
      c.when_unsatisfiable = r.chance(0.75) ? UnsatisfiableAction::kDoNotSchedule
                                            : UnsatisfiableAction::kScheduleAnyway;
      c.label_selector = random_pod_selector(r, pod.meta.labels.find("app"));
      c.min_domains = r.pick(std::vector<int32_t>{1, 1, 3, 4});
      c.node_affinity_policy = r.chance(0.5) ? InclusionPolicy::kHonor : InclusionPolicy::kIgnore;
      c.node_taints_policy = r.chance(0.5) ? InclusionPolicy::kHonor : InclusionPolicy::kIgnore;
      // API validation forbids matchLabelKeys with a null labelSelector.
      if (c.label_selector && r.chance(0.3)) c.match_label_keys = {"app"};
      pod.topology_spread.push_back(c);
    }
  }
}

Pod random_pod(Random& r, int i, int node_count) {
  std::string node = r.chance(0.85) ? "n" + std::to_string(r.between(0, node_count - 1)) : "";
  Pod pod = make_pod("p" + std::to_string(i), r.between(0, 4) * 500, int64_t{r.between(0, 8)} << 30,
                     node);
  if (r.chance(0.1)) pod.phase = r.chance(0.5) ? PodPhase::kSucceeded : PodPhase::kFailed;
  if (r.chance(0.2)) pod.containers.edit()[0].requests.set("example.com/dev", r.between(1, 2));
  if (r.chance(0.2)) {
    Container init;
    init.requests.cpu_milli = r.between(0, 6) * 500;
    pod.init_containers.push_back(init);
  }
  if (r.chance(0.6)) {
    std::string pool = r.pick(kPools);
    pod.tolerations.edit().push_back(
        tolerate("maip.mxsf.io/node.usage", pool,
                 r.chance(0.5) ? std::optional(TaintEffect::kNoSchedule) : std::nullopt));
  }
  if (r.chance(0.2)) {
    pod.tolerations.edit().push_back(Toleration{
        r.chance(0.3) ? "" : "dedicated", TolerationOperator::kExists, "",
        r.chance(0.5) ? std::optional(TaintEffect::kNoSchedule) : std::nullopt, std::nullopt});
  }
  if (r.chance(0.05)) {
    pod.tolerations.edit().push_back(Toleration{"node.kubernetes.io/unschedulable",
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
        term.match_fields.push_back(
            req("metadata.name", r.chance(0.5) ? SelectorOperator::kIn : SelectorOperator::kNotIn,
                {"n" + std::to_string(r.between(0, node_count - 1))}));
      }
    }
    pod.node_affinity.edit().required = terms;
  }
  if (r.chance(0.1)) pod.host_ports.push_back(r.pick(std::vector<int32_t>{80, 443}));
  if (r.chance(0.6)) pod.meta.labels.set("app", r.pick(kApps));
  if (r.chance(0.1)) {
    PreferredSchedulingTerm preferred;
    preferred.weight = r.between(0, 3);
    preferred.preference.match_expressions.push_back(random_requirement(r));
    pod.node_affinity.edit().preferred.push_back(preferred);
  }
  if (r.chance(0.3)) pod.meta.namespace_ = "other";
  if (r.chance(0.08)) pod.meta.deleting = true;
  add_inter_pod_rules(r, pod);
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

}  // namespace

#include "placer_brute_force.h"

using namespace loadshift::placement;

TEST_CASE("placer verdicts equal a brute-force check on random clusters", "[placer][property]") {
  size_t pairs = 0, feasible_pairs = 0, memo_rows = 0;
  // How often the rules of issue 10 refused a pair: the generator must reach each of them.
  std::map<std::string, size_t> refused_by;
  // How often the inter-pod exceptions decided a pair (brute force's view).
  size_t first_pod_passed = 0, first_pod_fits = 0, min_domains_refused = 0;
  size_t ignore_changed_domains = 0, ignore_changed_verdict = 0;
  // Pairs the inter-pod rules refused alone (every other rule passed), and feasible pairs where
  // they had something to decide.
  std::map<std::string, size_t> refused_only_by, passed_by;
  const std::vector<Rule> kInterPodRules = {Rule::kInterPodAffinity, Rule::kPodAffinity,
                                            Rule::kPodAntiAffinity, Rule::kExistingPodsAntiAffinity,
                                            Rule::kPodTopologySpread};
  for (uint32_t seed = 1; seed <= 100; ++seed) {
    Random r(seed);
    Snapshot snapshot;
    int node_count = r.between(3, 12);
    for (int i = 0; i < node_count; ++i) snapshot.nodes.push_back(random_node(r, i));
    add_storage(r, snapshot);
    if (r.chance(0.5)) {
      // Namespaces with labels: "default" in team a, "other" in team a or b.
      for (const std::string& name : kNamespaces) {
        Namespace ns;
        ns.meta.name = name;
        ns.meta.labels.set("team", name == "default" || r.chance(0.5) ? "a" : "b");
        snapshot.namespaces.push_back(ns);
      }
    }
    int pod_count = r.between(5, 40);
    for (int i = 0; i < pod_count; ++i) {
      Pod pod = random_pod(r, i, node_count);
      if (i > 0 && r.chance(0.4)) {
        // Same scheduling constraints as an earlier pod: one constraint class, one memo row.
        const Pod& earlier = snapshot.pods[r.between(0, i - 1)];
        pod.tolerations = earlier.tolerations;
        pod.node_selector = earlier.node_selector;
        pod.node_affinity = earlier.node_affinity;
        if (r.chance(0.5)) {
          // A replica: the same namespace, labels and inter-pod rules (shared counts).
          pod.meta.namespace_ = earlier.meta.namespace_;
          pod.meta.labels = earlier.meta.labels;
          pod.pod_affinity = earlier.pod_affinity;
          pod.pod_anti_affinity = earlier.pod_anti_affinity;
          pod.topology_spread = earlier.topology_spread;
        }
      }
      snapshot.pods.push_back(std::move(pod));
    }
    ClusterIndex index(snapshot);
    memo_rows += index.memo_rows();
    Placer placer(index);
    Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
    std::vector<std::pair<size_t, size_t>> planned;
    // A few random planned moves, each onto a node where the pod fits at that point; now and
    // then a planned pod is planned again elsewhere (the ledger replaces its move).
    for (int k = 0; k < 8; ++k) {
      PodId pod = r.between(0, pod_count - 1);
      NodeId node = r.between(0, node_count - 1);
      NodeId was = ledger.planned_node(pod);
      if ((was != kNoNode && !r.chance(0.5)) || !placer.feasible(pod, node, ledger)) continue;
      ledger.reserve(pod, index.node_of(pod), node, index.requests(pod));
      std::erase_if(planned, [&](const auto& move) { return move.first == pod; });
      planned.emplace_back(pod, node);
    }
    for (PodId p = 0; p < snapshot.pods.size(); ++p) {
      for (NodeId n = 0; n < snapshot.nodes.size(); ++n) {
        InterPodFindings inter_pod = bf_inter_pod(snapshot, p, n, planned);
        bool other_rules = brute_force_fits(snapshot, p, n, planned);
        bool expected = other_rules && inter_pod.failed.empty();
        Verdict verdict = placer.fits(p, n, ledger);
        INFO("seed " << seed << " pod " << snapshot.pods[p].meta.name << " node "
                     << snapshot.nodes[n].meta.name << ": " << verdict.describe());
        REQUIRE(placer.feasible(p, n, ledger) == expected);
        REQUIRE(placer.feasible(p, n, ledger) == expected);  // now from the memo, if kept
        REQUIRE(verdict.fits() == expected);
        // Rule by rule: the Placer lists every failing inter-pod rule, as the brute force.
        std::set<Rule> listed;
        for (const Rejection& failure : verdict.failures) {
          if (std::count(kInterPodRules.begin(), kInterPodRules.end(), failure.rule)) {
            listed.insert(failure.rule);
          }
        }
        for (Rule rule : kInterPodRules) {
          INFO("inter-pod rule " << to_string(rule));
          CHECK(listed.count(rule) == inter_pod.failed.count(rule));
        }
        for (const Rejection& failure : verdict.failures) {
          auto says = [&](const char* text) {
            return failure.reason.find(text) != std::string::npos;
          };
          if (says("matches no node")) ++refused_by["parse"];
          if (says("does not parse")) ++refused_by["preferred"];
          if (says("persistentvolumeclaim")) ++refused_by["claim"];
          ++refused_by[std::string(to_string(failure.rule))];
        }
        if (other_rules) {
          for (Rule rule : inter_pod.failed) ++refused_only_by[std::string(to_string(rule))];
        }
        if (expected) {
          for (Rule rule : inter_pod.applied) ++passed_by[std::string(to_string(rule))];
        }
        first_pod_passed += inter_pod.first_pod_passed;
        first_pod_fits += inter_pod.first_pod_passed && expected;
        min_domains_refused += inter_pod.min_domains_refused;
        ignore_changed_domains += inter_pod.ignore_changed_domains;
        ignore_changed_verdict += inter_pod.ignore_changed_verdict;
        ++pairs;
        feasible_pairs += expected;
      }
    }
  }
  // The generator must exercise both outcomes in earnest.
  CHECK(pairs > 2000);
  CHECK(memo_rows > 40);
  INFO(feasible_pairs << " of " << pairs << " pairs feasible");
  // The rules before the inter-pod ones admit about 6% of the pairs; the inter-pod rules refuse
  // about a third of those.
  CHECK(feasible_pairs > pairs / 30);
  CHECK(feasible_pairs < pairs / 2);
  for (const char* rule : {"parse", "preferred", "claim", "ExistingPodsAntiAffinity",
                           "VolumeBinding", "VolumeZone", "VolumeLimits", "PodAffinity",
                           "PodAntiAffinity", "PodTopologySpread", "InterPodAffinity"}) {
    INFO(rule << " refused " << refused_by[rule] << " of " << pairs << " pairs, "
              << refused_only_by[rule] << " alone");
    CHECK(refused_by[rule] > 0);
  }
  // Each inter-pod rule must also decide pairs on its own, not only where others refuse too,
  // and pass feasible pairs where it had something to decide.
  for (const char* rule :
       {"PodAffinity", "PodAntiAffinity", "ExistingPodsAntiAffinity", "PodTopologySpread"}) {
    INFO(rule << " alone refused " << refused_only_by[rule] << " pairs, passed " << passed_by[rule]
              << " feasible ones");
    CHECK(refused_only_by[rule] > 0);
    CHECK(passed_by[rule] > 0);
  }
  INFO("first pod of a group passed "
       << first_pod_passed << " (" << first_pod_fits << " fit); minDomains decided "
       << min_domains_refused << " refusals; an Ignore policy "
       << "changed the domains " << ignore_changed_domains << " times, the verdict "
       << ignore_changed_verdict);
  CHECK(first_pod_fits > 0);
  CHECK(min_domains_refused > 0);
  CHECK(ignore_changed_domains > 0);
  CHECK(ignore_changed_verdict > 0);
}

// The brute force itself, on the scheduler's worked cases (PodTopologySpread filter cases and
// InterPodAffinity's first pod of a group), so a
// misreading shared with the Placer does not go unseen.
TEST_CASE("the brute force follows the worked cases", "[placer][property]") {
  auto zone_node = [](const std::string& name, const std::string& zone) {
    Node node = make_node(name);
    node.meta.labels.set("zone", zone);
    return node;
  };
  auto web_pod = [](const std::string& name, const std::string& node) {
    Pod pod = make_pod(name, 100, 1 << 20, node);
    pod.meta.labels.set("app", "web");
    return pod;
  };
  TopologySpreadConstraint spread;
  spread.topology_key = "zone";
  spread.label_selector = LabelSelector{};
  spread.label_selector->match_labels.set("app", "web");
  // By node, '+' where the inter-pod rules pass, as the brute force and the Placer see it.
  auto verdicts = [](const Snapshot& s, size_t pod) {
    ClusterIndex index(s);
    Placer placer(index);
    Ledger ledger(s.nodes.size(), &index.pod_topology());
    std::string brute, placed;
    for (NodeId n = 0; n < s.nodes.size(); ++n) {
      brute += bf_inter_pod(s, pod, n, {}).failed.empty() ? '+' : '-';
      Verdict verdict = placer.fits(static_cast<PodId>(pod), n, ledger);
      bool inter_pod_failed = std::any_of(
          verdict.failures.begin(), verdict.failures.end(), [](const Rejection& failure) {
            return failure.rule == Rule::kPodAffinity || failure.rule == Rule::kPodAntiAffinity ||
                   failure.rule == Rule::kExistingPodsAntiAffinity ||
                   failure.rule == Rule::kPodTopologySpread;
          });
      placed += inter_pod_failed ? '-' : '+';
    }
    CHECK(placed == brute);
    return brute;
  };
  SECTION("zones a, b, c with 1, 1, 0 matching pods: only c") {
    Snapshot s;
    s.nodes = {zone_node("a", "a"), zone_node("b", "b"), zone_node("c", "c")};
    s.pods.push_back(web_pod("p1", "a"));
    s.pods.push_back(web_pod("p2", "b"));
    s.pods.push_back(web_pod("new", ""));
    s.pods.back().topology_spread = {spread};
    CHECK(verdicts(s, 2) == "--+");
  }
  SECTION("a=2, b=2, minDomains 3: no node; with an empty zone c, only c") {
    Snapshot s;
    s.nodes = {zone_node("a", "a"), zone_node("b", "b")};
    for (const char* n : {"a", "a", "b", "b"}) s.pods.push_back(web_pod("p", n));
    s.pods.push_back(web_pod("new", ""));
    s.pods.back().topology_spread = {spread};
    s.pods.back().topology_spread[0].min_domains = 3;
    CHECK(verdicts(s, 4) == "--");
    s.nodes.push_back(zone_node("c", "c"));
    CHECK(verdicts(s, 4) == "--+");
  }
  SECTION("nodeSelector zone In [a, b], a=2, b=1: Honor admits b, Ignore none") {
    Snapshot s;
    s.nodes = {zone_node("a", "a"), zone_node("b", "b"), zone_node("c", "c")};
    for (const char* n : {"a", "a", "b"}) s.pods.push_back(web_pod("p", n));
    Pod pod = web_pod("new", "");
    NodeSelectorTerm term;
    term.match_expressions.push_back(req("zone", SelectorOperator::kIn, {"a", "b"}));
    pod.node_affinity.edit().required = std::vector<NodeSelectorTerm>{term};
    pod.topology_spread = {spread};
    s.pods.push_back(pod);
    CHECK(verdicts(s, 3) == "-++");  // c: 0 + 1 - 1 (node affinity refuses it, not spread)
    s.pods.back().topology_spread[0].node_affinity_policy = InclusionPolicy::kIgnore;
    CHECK(verdicts(s, 3) == "--+");
  }
  SECTION("the first pod of a group, and the second") {
    Snapshot s;
    s.nodes = {zone_node("a", "a"), make_node("b")};  // b has no zone
    Pod first = web_pod("first", "");
    PodAffinityTerm term;
    term.label_selector = spread.label_selector;
    term.topology_key = "zone";
    first.pod_affinity.required = {term};
    s.pods.push_back(first);
    CHECK(verdicts(s, 0) == "+-");  // no web pod anywhere; b lacks the key
    s.pods.push_back(web_pod("other-zone", ""));
    s.pods.back().meta.namespace_ = "other";  // not selected: the term's namespace is default
    s.pods.back().node_name = "a";
    CHECK(verdicts(s, 0) == "+-");
    s.pods[1].meta.namespace_ = "default";
    s.nodes.push_back(zone_node("c", "c"));
    s.pods[1].node_name = "c";
    CHECK(verdicts(s, 0) == "--+");  // a group exists: only its zone
  }
}

// The independent brute force of placer_property_test.cc: every placement rule written again from
// the Kubernetes rules (the scheduler's filters), with direct loops and no placement-core code.
// Included by that test only (its helpers live in an anonymous namespace there).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "test/model/builders.h"

namespace {

using namespace loadshift::placement;

using namespace loadshift::testing;

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
    case SelectorOperator::kIn:
      return listed;
    case SelectorOperator::kNotIn:
      return !listed;
    case SelectorOperator::kExists:
      return value != nullptr;
    case SelectorOperator::kDoesNotExist:
      return value == nullptr;
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

// nodeSelector AND required node affinity (GetRequiredNodeAffinity(pod).Match(node)).
bool bf_required_node_affinity(const Pod& pod, const Node& node) {
  for (const auto& [k, v] : pod.node_selector.items()) {
    const std::string* have = node.meta.labels.find(k);
    if (!have || *have != v) return false;
  }
  if (pod.node_affinity->required) {
    bool any = false;
    for (const auto& t : *pod.node_affinity->required) any = any || bf_term(t, node);
    if (!any) return false;
  }
  return true;
}

// Every NoSchedule / NoExecute taint tolerated (nodeTaintsPolicy Honor).
bool bf_taints_tolerated(const Pod& pod, const Node& node) {
  for (const Taint& t : node.taints) {
    if (t.effect != TaintEffect::kPreferNoSchedule && !bf_tolerated(pod, t)) return false;
  }
  return true;
}

// metav1.LabelSelectorAsSelector(selector).Matches(labels): matchLabels and matchExpressions ANDed.
bool bf_selects(const LabelSelector& selector, const StringMap& labels) {
  auto value_of = [&](const std::string& key) -> const std::string* {
    for (const auto& [k, v] : labels.items()) {
      if (k == key) return &v;
    }
    return nullptr;
  };
  for (const auto& [k, v] : selector.match_labels.items()) {
    const std::string* have = value_of(k);
    if (!have || *have != v) return false;
  }
  for (const auto& e : selector.match_expressions) {
    const std::string* have = value_of(e.key);
    bool listed = have && std::count(e.values.begin(), e.values.end(), *have) > 0;
    if (e.op == "In"             ? !listed
        : e.op == "NotIn"        ? listed
        : e.op == "Exists"       ? !have
        : e.op == "DoesNotExist" ? have != nullptr
                                 : true)
      return false;
  }
  return true;
}

bool bf_empty_selector(const LabelSelector& s) {
  return s.match_labels.empty() && s.match_expressions.empty();
}

// Whether `term` of `owner` selects `target` (framework.AffinityTerm.Matches). Namespaces: the
// listed ones, or the owner's when there are none and no namespaceSelector; or one whose
// Namespace's labels the namespaceSelector selects: {} selects every namespace, and so is any
// other taken to when the snapshot has no Namespaces.
bool bf_term_selects(const PodAffinityTerm& term, const Pod& owner, const Pod& target,
                     const std::vector<Namespace>& namespaces) {
  if (!term.label_selector || !bf_selects(*term.label_selector, target.meta.labels)) return false;
  const std::string& ns = target.meta.namespace_;
  const bool listed = std::count(term.namespaces.begin(), term.namespaces.end(), ns) > 0;
  if (term.namespace_selector) {
    if (listed || bf_empty_selector(*term.namespace_selector) || namespaces.empty()) return true;
    for (const Namespace& n : namespaces) {
      if (n.meta.name == ns && bf_selects(*term.namespace_selector, n.meta.labels)) return true;
    }
    return false;
  }
  if (term.namespaces.empty()) return ns == owner.meta.namespace_;
  return listed;
}

// What the brute force found for the inter-pod rules of one (pod, node) pair.
struct InterPodFindings {
  std::set<Rule> failed;   // kInterPodAffinity (cannot evaluate), kPodAffinity, kPodAntiAffinity,
                           // kExistingPodsAntiAffinity, kPodTopologySpread
  std::set<Rule> applied;  // the rules that had something to decide for this pair
  bool first_pod_passed = false;  // required affinity passed only as the first pod of its group
  // A spread refusal that only minDomains caused: fewer domains than minDomains (but some), and
  // with the true minimum the constraint would have passed.
  bool min_domains_refused = false;
  // A constraint with an Ignore policy whose domains differ from those Honor would give.
  bool ignore_changed_domains = false;
  bool ignore_changed_verdict = false;  // ... and the constraint's verdict with them
};

// InterPodAffinity and PodTopologySpread DoNotSchedule in the plan's view:
// a pod counts at its planned node when planned, else at its node; only live pods bound to a
// known node count; the pod being placed never counts. Direct loops over all pods and nodes.
InterPodFindings bf_inter_pod(const Snapshot& s, size_t pod_index, size_t node_index,
                              const std::vector<std::pair<size_t, size_t>>& planned) {
  InterPodFindings found;
  const Pod& pod = s.pods[pod_index];
  const Node& node = s.nodes[node_index];
  auto label = [](const Node* n, const std::string& key) -> const std::string* {
    return n == nullptr ? nullptr : n->meta.labels.find(key);
  };
  // loc(q): the node the plan has each pod on, or null.
  std::vector<const Node*> loc(s.pods.size(), nullptr);
  for (size_t q = 0; q < s.pods.size(); ++q) {
    for (const Node& n : s.nodes) {
      if (n.meta.name == s.pods[q].node_name) loc[q] = &n;
    }
  }
  for (auto [p, n] : planned) loc[p] = &s.nodes[n];
  auto counted = [&](size_t q) {
    return q != pod_index && !s.pods[q].terminated() && loc[q] != nullptr;
  };

  // ---- InterPodAffinity: the pod's required affinity.
  const auto& affinity = pod.pod_affinity.required;
  for (const PodAffinityTerm& t : affinity) {
    if (t.namespace_selector && !bf_empty_selector(*t.namespace_selector) && s.namespaces.empty()) {
      found.failed.insert(Rule::kInterPodAffinity);  // cannot be evaluated: the pod is unmovable
      return found;
    }
  }
  if (!affinity.empty()) {
    found.applied.insert(Rule::kPodAffinity);
    auto matches_all = [&](const Pod& q) {
      for (const PodAffinityTerm& t : affinity) {
        if (!bf_term_selects(t, pod, q, s.namespaces)) return false;
      }
      return true;
    };
    bool keys_present = true, pods_exist = true;
    for (const PodAffinityTerm& t : affinity) {
      const std::string* here = label(&node, t.topology_key);
      if (here == nullptr) {
        keys_present = false;
        continue;
      }
      bool some = false;
      for (size_t q = 0; q < s.pods.size(); ++q) {
        const std::string* there = counted(q) ? label(loc[q], t.topology_key) : nullptr;
        some = some || (there && *there == *here && matches_all(s.pods[q]));
      }
      pods_exist = pods_exist && some;
    }
    if (!keys_present) {
      found.failed.insert(Rule::kPodAffinity);
    } else if (!pods_exist) {
      // The first pod of a group: no pod anywhere (on a node with one of the keys) matches all
      // the terms, and the pod matches them itself.
      bool group_exists = false;
      for (size_t q = 0; q < s.pods.size(); ++q) {
        if (!counted(q) || !matches_all(s.pods[q])) continue;
        for (const PodAffinityTerm& t : affinity) {
          group_exists = group_exists || label(loc[q], t.topology_key) != nullptr;
        }
      }
      // While the evicted pod terminates the scheduler still counts it on the node it ran on
      // (a live pod; a finished one is not counted): then it is the group's one member.
      const Node* old_node = nullptr;
      for (const Node& n : s.nodes) {
        if (!pod.terminated() && n.meta.name == pod.node_name) old_node = &n;
      }
      bool old_counted = false, old_shares_domains = true;
      for (const PodAffinityTerm& t : affinity) {
        const std::string* old_value = label(old_node, t.topology_key);
        const std::string* here = label(&node, t.topology_key);
        old_counted = old_counted || old_value != nullptr;
        old_shares_domains = old_shares_domains && old_value && here && *old_value == *here;
      }
      if (!group_exists && matches_all(pod) && !old_counted) {
        found.first_pod_passed = true;
      } else if (!(!group_exists && matches_all(pod) && old_shares_domains)) {
        found.failed.insert(Rule::kPodAffinity);
      }
    }
  }
  // ---- The pod's required anti-affinity: a node without the key is not constrained.
  for (const PodAffinityTerm& t : pod.pod_anti_affinity.required) {
    const std::string* here = label(&node, t.topology_key);
    if (here == nullptr) continue;
    found.applied.insert(Rule::kPodAntiAffinity);
    for (size_t q = 0; q < s.pods.size(); ++q) {
      const std::string* there = counted(q) ? label(loc[q], t.topology_key) : nullptr;
      if (there && *there == *here && bf_term_selects(t, pod, s.pods[q], s.namespaces)) {
        found.failed.insert(Rule::kPodAntiAffinity);
      }
    }
  }
  // ---- Existing pods' required anti-affinity selecting the pod, in their (planned) domain.
  for (size_t e = 0; e < s.pods.size(); ++e) {
    if (!counted(e)) continue;
    for (const PodAffinityTerm& t : s.pods[e].pod_anti_affinity.required) {
      const std::string* there = label(loc[e], t.topology_key);
      const std::string* here = label(&node, t.topology_key);
      if (!there || !here || !bf_term_selects(t, s.pods[e], pod, s.namespaces)) continue;
      found.applied.insert(Rule::kExistingPodsAntiAffinity);
      if (*there == *here) found.failed.insert(Rule::kExistingPodsAntiAffinity);
    }
  }

  // ---- PodTopologySpread, the DoNotSchedule constraints.
  std::vector<const TopologySpreadConstraint*> hard;
  for (const auto& c : pod.topology_spread) {
    if (c.when_unsatisfiable == UnsatisfiableAction::kDoNotSchedule) hard.push_back(&c);
  }
  if (!hard.empty()) found.applied.insert(Rule::kPodTopologySpread);
  for (const TopologySpreadConstraint* c : hard) {
    // The selector, with matchLabelKeys merged from the pod's own labels.
    std::optional<LabelSelector> selector = c->label_selector;
    if (selector) {
      for (const std::string& key : c->match_label_keys) {
        if (const std::string* v = pod.meta.labels.find(key)) {
          selector->match_expressions.push_back(LabelSelectorRequirement{key, "In", {*v}});
        }
      }
    }
    auto selects = [&](const Pod& q) { return selector && bf_selects(*selector, q.meta.labels); };
    // Nodes counted: every key of the pod's DoNotSchedule constraints, and the policies.
    auto eligible = [&](const Node& m, bool honor_affinity, bool honor_taints) {
      for (const TopologySpreadConstraint* other : hard) {
        if (label(&m, other->topology_key) == nullptr) return false;
      }
      if (honor_affinity && !bf_required_node_affinity(pod, m)) return false;
      if (honor_taints && !bf_taints_tolerated(pod, m)) return false;
      return true;
    };
    // The verdict of this constraint with the given policies; its domains in `domains`.
    auto verdict = [&](bool honor_affinity, bool honor_taints, std::set<std::string>& domains,
                       bool& min_domains_decided) {
      domains.clear();
      for (const Node& m : s.nodes) {
        if (eligible(m, honor_affinity, honor_taints)) domains.insert(*label(&m, c->topology_key));
      }
      auto count_in = [&](const std::string& value) {
        long long n = 0;
        for (size_t q = 0; q < s.pods.size(); ++q) {
          const Pod& other = s.pods[q];
          if (!counted(q) || other.meta.deleting || other.meta.namespace_ != pod.meta.namespace_)
            continue;
          if (!eligible(*loc[q], honor_affinity, honor_taints)) continue;
          if (*label(loc[q], c->topology_key) == value && selects(other)) ++n;
        }
        return n;
      };
      const std::string* here = label(&node, c->topology_key);
      if (here == nullptr) return false;  // the node lacks the key
      long long true_min = std::numeric_limits<long long>::max();
      for (const std::string& d : domains) true_min = std::min(true_min, count_in(d));
      bool too_few = static_cast<long long>(domains.size()) < c->min_domains;
      long long minimum = too_few ? 0 : true_min;
      long long self = selects(pod) ? 1 : 0;
      long long matching = count_in(*here);
      bool pass = matching + self - minimum <= c->max_skew;
      min_domains_decided =
          !pass && too_few && !domains.empty() && matching + self - true_min <= c->max_skew;
      return pass;
    };
    const bool honor_affinity = c->node_affinity_policy == InclusionPolicy::kHonor;
    const bool honor_taints = c->node_taints_policy == InclusionPolicy::kHonor;
    std::set<std::string> domains;
    bool min_domains_decided = false;
    bool pass = verdict(honor_affinity, honor_taints, domains, min_domains_decided);
    if (!pass) found.failed.insert(Rule::kPodTopologySpread);
    found.min_domains_refused = found.min_domains_refused || min_domains_decided;
    if (!honor_affinity || !honor_taints) {
      std::set<std::string> honored;
      bool ignored_decided = false;
      bool honored_pass = verdict(true, true, honored, ignored_decided);
      found.ignore_changed_domains = found.ignore_changed_domains || honored != domains;
      found.ignore_changed_verdict = found.ignore_changed_verdict || honored_pass != pass;
    }
  }
  return found;
}

bool brute_force_fits(const Snapshot& s, size_t pod_index, size_t node_index,
                      const std::vector<std::pair<size_t, size_t>>& planned) {
  const Pod& pod = s.pods[pod_index];
  const Node& node = s.nodes[node_index];
  if (pod.node_name == node.meta.name) return false;
  for (auto [p, n] : planned) {
    if (p == pod_index && n == node_index) return false;
  }
  const NodeCondition* ready = node.condition("Ready");
  if (node.meta.deleting || !ready || ready->status != "True") return false;
  if (node.unschedulable &&
      !bf_tolerated(pod, Taint{"node.kubernetes.io/unschedulable", "", TaintEffect::kNoSchedule}))
    return false;
  if (!bf_taints_tolerated(pod, node)) return false;
  if (!bf_required_node_affinity(pod, node)) return false;
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
  for (const auto& preferred : pod.node_affinity->preferred) {
    if (preferred.weight != 0 && !bf_term_parses(preferred.preference)) return false;
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

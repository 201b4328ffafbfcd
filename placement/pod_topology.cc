#include "placement/pod_topology.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "placement/cluster_index.h"
#include "placement/predicates.h"

namespace loadshift::placement {
namespace {

bool empty_selector(const model::LabelSelector& selector) {
  return selector.match_labels.empty() && selector.match_expressions.empty();
}

// A namespaceSelector other than null and {} when the snapshot has no Namespaces to select from.
bool namespace_selector_unknown(const model::PodAffinityTerm& term,
                                const model::Snapshot& snapshot) {
  return term.namespace_selector && !empty_selector(*term.namespace_selector) &&
         snapshot.namespaces.empty();
}

// The pods `term` of `owner` selects, in the scheduler's namespaces: `namespaces` and those the
// namespaceSelector selects by the Namespaces' labels; the owner's own when the term has neither;
// every namespace with a namespaceSelector {}. One that cannot be evaluated (no Namespaces in
// the snapshot) is taken to select every namespace.
PodFilter term_filter(const model::PodAffinityTerm& term, const model::Pod& owner,
                      const model::Snapshot& snapshot) {
  PodFilter filter;
  filter.selector = term.label_selector;
  filter.namespaces = term.namespaces;
  if (term.namespace_selector) {
    if (empty_selector(*term.namespace_selector) || snapshot.namespaces.empty()) {
      filter.namespaces.clear();
      filter.all_namespaces = true;
      return filter;
    }
    for (const model::Namespace& ns : snapshot.namespaces) {
      if (matches(*term.namespace_selector, ns.meta.labels))
        filter.namespaces.push_back(ns.meta.name);
    }
  } else if (filter.namespaces.empty()) {
    filter.namespaces.push_back(owner.meta.namespace_);
  }
  std::sort(filter.namespaces.begin(), filter.namespaces.end());
  filter.namespaces.erase(std::unique(filter.namespaces.begin(), filter.namespaces.end()),
                          filter.namespaces.end());
  return filter;
}

// The constraint's selector with matchLabelKeys merged from the pod's labels, as the scheduler
// merges them (a null selector with merged keys selects by those keys alone).
std::optional<model::LabelSelector> spread_selector(const model::TopologySpreadConstraint& c,
                                                    const model::Pod& pod) {
  std::optional<model::LabelSelector> selector = c.label_selector;
  for (const std::string& key : c.match_label_keys) {
    const std::string* value = pod.meta.labels.find(key);
    if (value == nullptr) continue;
    if (!selector) selector.emplace();
    selector->match_expressions.push_back(model::LabelSelectorRequirement{key, "In", {*value}});
  }
  return selector;
}

void append_raw(std::string& key, uint32_t value) {
  key.append(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace

int64_t TopologySlot::base_count(DomainId domain) const {
  auto it = std::lower_bound(base.begin(), base.end(), domain,
                             [](const auto& entry, DomainId d) { return entry.first < d; });
  return it != base.end() && it->first == domain ? it->second : 0;
}

int64_t PodTopology::own_weight(PodId pod, uint32_t slot) const {
  int64_t weight = 0;  // a pod with two equal terms counts twice in their slot
  for (const Contribution& c : contributions(pod)) {
    if (c.slot == slot) weight += c.weight;
  }
  return weight;
}

bool PodTopology::counts_on(uint32_t slot, NodeId node) const {
  if (node == kNoNode) return false;
  const TopologySlot& s = slots_[slot];
  if (domains_.domain(s.key, node) == kNoTopologyDomain) return false;
  return !s.spread() || eligible_nodes_[s.eligibility][node] != 0;
}

class PodTopologyBuilder {
 public:
  PodTopologyBuilder(PodTopology& out, const model::Snapshot& snapshot,
                     const std::vector<NodeId>& node_of_pod)
      : out_(out), snapshot_(snapshot), node_of_pod_(node_of_pod) {}

  void build() {
    const auto& pods = snapshot_.pods;
    // Every pod gets the rules it is checked against (a finished pod too, should anyone ask);
    // only live pods count in slots.
    std::vector<PodId> all(pods.size());
    bool any_rules = false;
    for (PodId id = 0; id < pods.size(); ++id) {
      const model::Pod& pod = pods[id];
      all[id] = id;
      any_rules = any_rules || !pod.pod_affinity.empty() || !pod.pod_anti_affinity.empty() ||
                  !pod.topology_spread.empty();
    }
    if (!any_rules) return;
    out_.domains_ = TopologyDomains(snapshot_.nodes);
    out_.rules_of_pod_.assign(pods.size(), PodTopology::kNoRules);
    for (PodId id : all) add_pod(id);
    groups_ = LabelGroups(snapshot_, all);
    select_contributors();
    count_bases();
    // Contributions, by pod.
    std::sort(contributions_.begin(), contributions_.end(),
              [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    out_.contribution_offsets_.assign(pods.size() + 1, 0);
    for (const auto& [pod, slot, weight] : contributions_) {
      ++out_.contribution_offsets_[pod + 1];
      out_.contributions_.push_back(Contribution{slot, weight});
    }
    for (size_t i = 1; i < out_.contribution_offsets_.size(); ++i) {
      out_.contribution_offsets_[i] += out_.contribution_offsets_[i - 1];
    }
  }

 private:
  enum class Kind : char {
    kMatch = 'M',       // pods a term selects
    kAll = 'A',         // pods all of a pod's affinity terms select
    kOwnerAnti = 'O',   // owners of a required anti-affinity term (contributions given)
    kOwnerScore = 'W',  // weights of existing pods' score terms (contributions given)
    kSpread = 'S',      // pods of a spread constraint, not terminating, on counted nodes
  };
  struct SlotDef {
    Kind kind;
    std::vector<PodFilter> filters;
  };

  uint32_t slot(Kind kind, std::vector<PodFilter> filters, TopologyKeyId key, uint32_t eligibility,
                const std::string& what) {
    std::string id(1, static_cast<char>(kind));
    append_raw(id, key);
    append_raw(id, eligibility);
    for (const PodFilter& f : filters) {
      std::string fk = f.key();
      append_raw(id, static_cast<uint32_t>(fk.size()));
      id += fk;
    }
    auto [it, inserted] = slot_of_key_.emplace(id, static_cast<uint32_t>(defs_.size()));
    if (inserted) {
      defs_.push_back(SlotDef{kind, std::move(filters)});
      TopologySlot& s = out_.slots_.emplace_back();
      s.key = key;
      s.eligibility = eligibility;
      s.what = what;
    }
    return it->second;
  }

  PodInterRules& rules_for(PodId pod) {
    uint32_t& index = out_.rules_of_pod_[pod];
    if (index == PodTopology::kNoRules) {
      index = static_cast<uint32_t>(out_.rules_.size());
      out_.rules_.emplace_back();
    }
    return out_.rules_[index];
  }

  // The nodes a spread constraint of `pod` counts: those with every key of the pod's constraints
  // of the same action, and passing the constraint's inclusion policies.
  uint32_t eligibility(PodId pod_id, const model::TopologySpreadConstraint& c) {
    const model::Pod& pod = snapshot_.pods[pod_id];
    std::vector<TopologyKeyId> keys;
    for (const model::TopologySpreadConstraint& other : pod.topology_spread) {
      if (other.when_unsatisfiable == c.when_unsatisfiable) {
        keys.push_back(out_.domains_.intern(other.topology_key));
      }
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    const bool honor_affinity = c.node_affinity_policy == model::InclusionPolicy::kHonor;
    const bool honor_taints = c.node_taints_policy == model::InclusionPolicy::kHonor;
    std::string id;
    id += honor_affinity ? 'a' : '-';
    id += honor_taints ? 't' : '-';
    for (TopologyKeyId k : keys) append_raw(id, k);
    if (honor_affinity || honor_taints) {
      std::string constraints;
      write_constraints_key(pod, constraints);
      id += constraints;
    }
    auto [it, inserted] =
        eligibility_of_key_.emplace(id, static_cast<uint32_t>(out_.eligible_nodes_.size()));
    if (!inserted) return it->second;
    std::vector<uint8_t>& nodes = out_.eligible_nodes_.emplace_back(snapshot_.nodes.size(), 0);
    for (NodeId n = 0; n < snapshot_.nodes.size(); ++n) {
      const model::Node& node = snapshot_.nodes[n];
      bool ok = std::all_of(keys.begin(), keys.end(), [&](TopologyKeyId k) {
        return out_.domains_.domain(k, n) != kNoTopologyDomain;
      });
      ok = ok && (!honor_affinity || (check_node_selector(pod, node, nullptr) &&
                                      check_node_affinity(pod, node, nullptr)));
      ok = ok && (!honor_taints || check_taints(pod, node, nullptr));
      nodes[n] = ok ? 1 : 0;
    }
    return it->second;
  }

  void add_pod(PodId id) {
    const model::Pod& pod = snapshot_.pods[id];
    if (pod.pod_affinity.empty() && pod.pod_anti_affinity.empty() && pod.topology_spread.empty()) {
      return;
    }
    auto key_of = [&](const std::string& name) { return out_.domains_.intern(name); };
    // Its own required terms.
    for (const model::PodAffinityTerm& term : pod.pod_anti_affinity.required) {
      PodFilter filter = term_filter(term, pod, snapshot_);
      std::string what = "pod(s) matching " + filter.describe();
      rules_for(id).anti.push_back(
          slot(Kind::kMatch, {filter}, key_of(term.topology_key), kEveryNode, what));
    }
    if (!pod.pod_affinity.required.empty()) {
      std::vector<PodFilter> filters;
      bool evaluable = true;
      for (const model::PodAffinityTerm& term : pod.pod_affinity.required) {
        evaluable = evaluable && !namespace_selector_unknown(term, snapshot_);
        filters.push_back(term_filter(term, pod, snapshot_));
      }
      PodInterRules& rules = rules_for(id);
      if (!evaluable) {
        rules.unmovable =
            "a required pod affinity term has a namespaceSelector, and the snapshot has no "
            "Namespaces to select from; not moved";
      } else {
        std::string what = "pod(s) matching all of the pod's affinity terms (";
        for (size_t i = 0; i < filters.size(); ++i) {
          what += (i ? "; " : "") + filters[i].describe();
        }
        what += ")";
        rules.affinity_self_match = std::all_of(filters.begin(), filters.end(),
                                                [&](const PodFilter& f) { return f.selects(pod); });
        for (const model::PodAffinityTerm& term : pod.pod_affinity.required) {
          uint32_t s = slot(Kind::kAll, filters, key_of(term.topology_key), kEveryNode, what);
          rules_for(id).affinity.push_back(s);
        }
      }
    }
    // Its own preferred terms (score).
    auto preferred = [&](const std::vector<model::WeightedPodAffinityTerm>& terms, int64_t sign) {
      for (const model::WeightedPodAffinityTerm& w : terms) {
        if (namespace_selector_unknown(w.term, snapshot_) || w.weight == 0) continue;
        PodFilter filter = term_filter(w.term, pod, snapshot_);
        uint32_t s = slot(Kind::kMatch, {filter}, key_of(w.term.topology_key), kEveryNode,
                          "pod(s) matching " + filter.describe());
        rules_for(id).scored.push_back(ScoredSlot{s, sign * w.weight});
      }
    };
    preferred(pod.pod_affinity.preferred, 1);
    preferred(pod.pod_anti_affinity.preferred, -1);
    // As an existing pod (a live one): its required anti-affinity refuses others; its other
    // terms score.
    if (pod.terminated()) {
      add_spread_constraints(id);
      return;
    }
    for (const model::PodAffinityTerm& term : pod.pod_anti_affinity.required) {
      PodFilter filter = term_filter(term, pod, snapshot_);
      uint32_t s = slot(Kind::kOwnerAnti, {filter}, key_of(term.topology_key), kEveryNode,
                        "pod(s) with required anti-affinity against " + filter.describe() +
                            " (this pod matches)");
      contributions_.emplace_back(id, s, 1);
    }
    auto owner_score = [&](const model::PodAffinityTerm& term, int64_t weight) {
      if (namespace_selector_unknown(term, snapshot_) || weight == 0) return;
      PodFilter filter = term_filter(term, pod, snapshot_);
      uint32_t s = slot(Kind::kOwnerScore, {filter}, key_of(term.topology_key), kEveryNode,
                        "existing pods' affinity terms to " + filter.describe());
      contributions_.emplace_back(id, s, weight);
    };
    for (const model::PodAffinityTerm& term : pod.pod_affinity.required) {
      owner_score(term, kHardPodAffinityWeight);
    }
    for (const model::WeightedPodAffinityTerm& w : pod.pod_affinity.preferred)
      owner_score(w.term, w.weight);
    for (const model::WeightedPodAffinityTerm& w : pod.pod_anti_affinity.preferred) {
      owner_score(w.term, -int64_t{w.weight});
    }
    add_spread_constraints(id);
  }

  void add_spread_constraints(PodId id) {
    const model::Pod& pod = snapshot_.pods[id];
    auto key_of = [&](const std::string& name) { return out_.domains_.intern(name); };
    for (uint32_t i = 0; i < pod.topology_spread.size(); ++i) {
      const model::TopologySpreadConstraint& c = pod.topology_spread[i];
      PodFilter filter;
      filter.namespaces = {pod.meta.namespace_};
      filter.selector = spread_selector(c, pod);
      const bool hard = c.when_unsatisfiable == model::UnsatisfiableAction::kDoNotSchedule;
      uint32_t s = slot(Kind::kSpread, {filter}, key_of(c.topology_key), eligibility(id, c),
                        "pod(s) matching " + filter.describe() + " on the nodes constraint " +
                            std::to_string(i) + " counts");
      SpreadTerm term{s, c.max_skew, c.min_domains,
                      filter.selector && matches(*filter.selector, pod.meta.labels), i};
      (hard ? rules_for(id).spread : rules_for(id).soft_spread).push_back(term);
    }
  }

  void select_contributors() {
    for (uint32_t s = 0; s < defs_.size(); ++s) {
      const SlotDef& def = defs_[s];
      std::vector<PodId> selected = groups_.select(def.filters.front());
      if (def.filters.size() > 1) {
        std::erase_if(selected, [&](PodId p) {
          return !std::all_of(def.filters.begin() + 1, def.filters.end(),
                              [&](const PodFilter& f) { return f.selects(snapshot_.pods[p]); });
        });
      }
      for (PodId p : selected) {
        const bool counts = !snapshot_.pods[p].terminated();
        switch (def.kind) {
          case Kind::kMatch:
          case Kind::kAll:
            if (counts) contributions_.emplace_back(p, s, 1);
            break;
          case Kind::kSpread:
            if (counts && !snapshot_.pods[p].meta.deleting) contributions_.emplace_back(p, s, 1);
            break;
          case Kind::kOwnerAnti:
            rules_for(p).existing_anti.push_back(s);
            break;
          case Kind::kOwnerScore:
            rules_for(p).scored.push_back(ScoredSlot{s, 1});
            break;
        }
      }
    }
  }

  void count_bases() {
    std::vector<std::unordered_map<DomainId, int64_t>> counts(out_.slots_.size());
    for (const auto& [pod, s, weight] : contributions_) {
      NodeId node = node_of_pod_[pod];
      if (!out_.counts_on(s, node)) continue;
      counts[s][out_.domains_.domain(out_.slots_[s].key, node)] += weight;
    }
    std::map<std::pair<uint32_t, TopologyKeyId>, uint32_t> domains_of_eligibility;
    for (uint32_t s = 0; s < out_.slots_.size(); ++s) {
      TopologySlot& slot = out_.slots_[s];
      for (const auto& [domain, count] : counts[s]) {
        if (count != 0) slot.base.emplace_back(domain, count);
        slot.total += count;
      }
      std::sort(slot.base.begin(), slot.base.end());
      if (!slot.spread()) continue;
      for (const auto& [domain, count] : slot.base) slot.ascending.emplace_back(count, domain);
      std::sort(slot.ascending.begin(), slot.ascending.end());
      auto [it, inserted] =
          domains_of_eligibility.emplace(std::pair{slot.eligibility, slot.key}, 0);
      if (inserted) {
        std::vector<uint8_t> seen(out_.domains_.domain_count(slot.key), 0);
        for (NodeId n = 0; n < snapshot_.nodes.size(); ++n) {
          if (!out_.eligible_nodes_[slot.eligibility][n]) continue;
          DomainId d = out_.domains_.domain(slot.key, n);
          if (d != kNoTopologyDomain && !seen[d]) {
            seen[d] = 1;
            ++it->second;
          }
        }
      }
      slot.eligible_domains = it->second;
    }
  }

  PodTopology& out_;
  const model::Snapshot& snapshot_;
  const std::vector<NodeId>& node_of_pod_;
  LabelGroups groups_;
  std::unordered_map<std::string, uint32_t> slot_of_key_;
  std::unordered_map<std::string, uint32_t> eligibility_of_key_;
  std::vector<SlotDef> defs_;
  std::vector<std::tuple<PodId, uint32_t, int64_t>> contributions_;
};

PodTopology::PodTopology(const model::Snapshot& snapshot, const std::vector<NodeId>& node_of_pod) {
  PodTopologyBuilder(*this, snapshot, node_of_pod).build();
}

}  // namespace loadshift::placement

#include "placement/inter_pod_rules.h"

#include <cmath>
#include <string>

#include "placement/topology_counts.h"

namespace loadshift::placement {
namespace {

bool reject(Reasons* out, Rule rule, std::string reason) {
  if (out != nullptr) out->push_back(Rejection{rule, std::move(reason)});
  return false;
}

std::string counted(int64_t count, const TopologySlot& slot, const TopologyDomains& domains,
                    DomainId domain) {
  return std::to_string(count) + " " + slot.what + " in " + domains.describe(slot.key, domain);
}

}  // namespace

bool check_inter_pod(const PodTopology& topology, const PodInterRules& rules, PodId pod, NodeId at,
                     NodeId origin, NodeId node, const Ledger& ledger, Reasons* out) {
  if (rules.unmovable) return reject(out, Rule::kInterPodAffinity, *rules.unmovable);
  const TopologyDomains& domains = topology.domains();
  const SlotCounts counts(topology, ledger.topology_counts(), pod, at);
  bool ok = true;
  auto fail = [&](Rule rule, auto&& reason) {
    ok = false;
    if (out != nullptr) out->push_back(Rejection{rule, reason()});
    return out != nullptr;  // keep going only when reasons are collected
  };

  // Required affinity: every key present, and a matching pod in each domain (or none anywhere).
  if (!rules.affinity.empty()) {
    bool keys_present = true;
    bool pods_exist = true;
    for (size_t i = 0; i < rules.affinity.size(); ++i) {
      const TopologySlot& slot = topology.slot(rules.affinity[i]);
      DomainId d = domains.domain(slot.key, node);
      if (d == kNoTopologyDomain) {
        keys_present = false;
        if (!fail(Rule::kPodAffinity, [&] {
              return "pod affinity term " + std::to_string(i) + ": the node has no label " +
                     domains.key_name(slot.key);
            }))
          return false;
        continue;
      }
      if (counts.count(rules.affinity[i], d) <= 0) pods_exist = false;
    }
    if (keys_present && !pods_exist) {
      bool none_anywhere = true;
      for (uint32_t s : rules.affinity) none_anywhere = none_anywhere && counts.total(s) <= 0;
      if (none_anywhere && rules.affinity_self_match && origin != kNoNode) {
        // The first pod of a group, but a running one: while the evicted pod terminates the
        // scheduler still counts it where it runs, so the replacement must share every term's
        // domain with that node (a node that lacks a key counts nowhere: then the rule is the
        // first pod's again, or, with some keys only, no node passes until the pod is gone).
        bool origin_counted = false, origin_has_all = true, same_domains = true;
        for (uint32_t s : rules.affinity) {
          const TopologySlot& slot = topology.slot(s);
          DomainId from = domains.domain(slot.key, origin);
          if (from == kNoTopologyDomain) {
            origin_has_all = false;
            continue;
          }
          origin_counted = true;
          same_domains = same_domains && from == domains.domain(slot.key, node);
        }
        if (origin_counted && !(origin_has_all && same_domains)) {
          if (!fail(Rule::kPodAffinity, [&] {
                std::string start =
                    "the pod is the only one its affinity terms select: while it terminates the "
                    "scheduler counts it on its node, so ";
                if (!origin_has_all) {
                  return start +
                         "no node passes until it is gone (its node has only some of the "
                         "terms' keys)";
                }
                std::string where;
                for (uint32_t s : rules.affinity) {
                  const TopologySlot& slot = topology.slot(s);
                  where += (where.empty() ? "" : ", ") +
                           domains.describe(slot.key, domains.domain(slot.key, origin));
                }
                return start + "its replacement goes back to " + where;
              }))
            return false;
        }
      } else if (!(none_anywhere && rules.affinity_self_match)) {
        const TopologySlot& first = topology.slot(rules.affinity.front());
        if (!fail(Rule::kPodAffinity, [&] {
              std::string where;
              for (uint32_t s : rules.affinity) {
                const TopologySlot& slot = topology.slot(s);
                DomainId d = domains.domain(slot.key, node);
                where += (where.empty() ? "" : ", ") + domains.describe(slot.key, d) + ": " +
                         std::to_string(counts.count(s, d));
              }
              return "no " + first.what + " in the node's domains (" + where + ")";
            }))
          return false;
      }
    }
  }
  for (size_t i = 0; i < rules.anti.size(); ++i) {
    const TopologySlot& slot = topology.slot(rules.anti[i]);
    DomainId d = domains.domain(slot.key, node);
    if (d == kNoTopologyDomain) continue;
    int64_t c = counts.count(rules.anti[i], d);
    if (c > 0 && !fail(Rule::kPodAntiAffinity, [&] {
          return "pod anti-affinity term " + std::to_string(i) + ": " +
                 counted(c, slot, domains, d);
        }))
      return false;
  }
  for (uint32_t s : rules.existing_anti) {
    const TopologySlot& slot = topology.slot(s);
    DomainId d = domains.domain(slot.key, node);
    if (d == kNoTopologyDomain) continue;
    int64_t c = counts.count(s, d);
    if (c > 0 &&
        !fail(Rule::kExistingPodsAntiAffinity, [&] { return counted(c, slot, domains, d); }))
      return false;
  }
  for (const SpreadTerm& term : rules.spread) {
    const TopologySlot& slot = topology.slot(term.slot);
    DomainId d = domains.domain(slot.key, node);
    if (d == kNoTopologyDomain) {
      if (!fail(Rule::kPodTopologySpread, [&] {
            return "topology spread constraint " + std::to_string(term.index) +
                   ": the node has no label " + domains.key_name(slot.key);
          }))
        return false;
      continue;
    }
    const int64_t matching = counts.count(term.slot, d);
    const int64_t minimum =
        slot.eligible_domains < static_cast<uint32_t>(std::max(term.min_domains, 0))
            ? 0
            : counts.minimum(term.slot);
    const int64_t self = term.self_match ? 1 : 0;
    if (matching + self - minimum > term.max_skew && !fail(Rule::kPodTopologySpread, [&] {
          return "topology spread constraint " + std::to_string(term.index) + ": " +
                 counted(matching, slot, domains, d) + " + " + std::to_string(self) +
                 " (this pod) - minimum " + std::to_string(minimum) + " over " +
                 std::to_string(slot.eligible_domains) + " domain(s)" +
                 (slot.eligible_domains < static_cast<uint32_t>(std::max(term.min_domains, 0))
                      ? " (fewer than minDomains " + std::to_string(term.min_domains) + ")"
                      : std::string()) +
                 " > maxSkew " + std::to_string(term.max_skew);
        }))
      return false;
  }
  return ok;
}

InterPodScore score_inter_pod(const PodTopology& topology, const PodInterRules& rules, PodId pod,
                              NodeId at, NodeId node, const Ledger& ledger) {
  InterPodScore score;
  const TopologyDomains& domains = topology.domains();
  const SlotCounts counts(topology, ledger.topology_counts(), pod, at);
  for (const ScoredSlot& scored : rules.scored) {
    DomainId d = domains.domain(topology.slot(scored.slot).key, node);
    if (d != kNoTopologyDomain) score.affinity += scored.weight * counts.count(scored.slot, d);
  }
  for (const SpreadTerm& term : rules.soft_spread) {
    const TopologySlot& slot = topology.slot(term.slot);
    DomainId d = domains.domain(slot.key, node);
    if (d == kNoTopologyDomain) {
      score.spread_missing_key = true;
      continue;
    }
    const double weight = std::log(static_cast<double>(slot.eligible_domains) + 2);
    score.spread += static_cast<double>(counts.count(term.slot, d)) * weight + term.max_skew - 1;
  }
  return score;
}

}  // namespace loadshift::placement

// RemovePodsViolatingTopologySpreadConstraint (kubernetes-sigs descheduler,
// topologyspreadconstraint.go, as of v0.32): pods of domains that hold more than their
// constraint's maxSkew over the smallest domain move towards the ideal average.
//
// The pods counted ("listed") are those on the in-scope nodes that the profile's evictability
// filter admits and the plugin's namespaces and labelSelector select, as upstream counts only
// those; pods the plan already moved count nowhere (upstream sees them terminating). Per
// namespace (in name order), the constraints are those of the listed pods whose whenUnsatisfiable
// is in `constraints`, each with its selector merged with matchLabelKeys from its own pod's labels
// and with that pod's nodeSelector, required node affinity and tolerations for the node
// inclusion policies (Honor affinity: nodeSelector and required affinity match; Honor taints: no
// untolerated NoSchedule or NoExecute taint); equal ones count once. minDomains is not read, as
// upstream does not support it here. Per constraint:
//  1. the domains are the topologyKey values of the in-scope nodes that pass the inclusion
//     policies (empty domains included); a listed pod, not terminating, that the selector selects,
//     on an in-scope node with the key, counts in its node's domain (even when the node fails the
//     policies);
//  2. when max - min <= maxSkew nothing moves; else, with idealAvg = pods / domains and the domains
//     sorted by size (ties: value order), i from the smallest and j from the largest: when j holds
//     no more than idealAvg, j steps down; when j - i <= maxSkew, i steps up; else
//     min(ceil(j - idealAvg), ceil(idealAvg - i), ceil((j - i - maxSkew) / 2)) pods of j are
//     chosen and count as moved to i;
//  3. within a domain, pods without nodeSelector or node affinity go first, lowest priority first,
//     then by name from the last.
// Each chosen pod is evicted (in the order chosen) to a target the placement core accepts: with
// topologyBalanceNodeFit, a node of a domain below idealAvg that passes the inclusion policies
// (upstream's nodesBelowIdealAvg); without it, any node outside the domain the pod leaves.
// Upstream evicts without a target when topologyBalanceNodeFit is false, and picks the pods of
// highest priority first (its comment says lowest): see docs/strategies.md.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "placement/cluster_index.h"
#include "placement/predicates.h"
#include "strategies/deschedule_targets.h"
#include "strategies/labelled_pods.h"
#include "strategies/plugins.h"
#include "strategies/pod_order.h"

namespace loadshift::strategies {
namespace {

using model::InclusionPolicy;
using model::Pod;
using model::TopologySpreadConstraint;

const std::string kStrategy = "RemovePodsViolatingTopologySpreadConstraint";

// One constraint as upstream's topologySpreadConstraint holds it: the spec, its pod (for the
// inclusion policies and reasons) and the selector with matchLabelKeys merged in.
struct Constraint {
  const TopologySpreadConstraint* spec = nullptr;
  PodId owner = 0;
  std::optional<model::LabelSelector> selector;
};

// The selector of `spec` with key=value added for each matchLabelKeys key the pod has. A null
// selector stays null (selects nothing), as upstream's mergeLabelSetWithSelector leaves it.
std::optional<model::LabelSelector> merged_selector(const TopologySpreadConstraint& spec,
                                                    const Pod& owner) {
  std::optional<model::LabelSelector> selector = spec.label_selector;
  if (!selector) return selector;
  for (const std::string& key : spec.match_label_keys) {
    if (const std::string* value = owner.meta.labels.find(key)) {
      selector->match_expressions.push_back({key, "In", {*value}});
    }
  }
  return selector;
}

// ---- an exact text of a constraint, to count equal ones once --------------------------------

void append_requirements(std::string& out,
                         const std::vector<model::NodeSelectorRequirement>& reqs) {
  for (const model::NodeSelectorRequirement& r : reqs) {
    out += r.key + " " + std::string(model::to_string(r.op)) + " [";
    for (const std::string& v : r.values) out += v + ",";
    out += "],";
  }
}

// Upstream compares its constraints whole (reflect.DeepEqual); the pod's affinity and
// tolerations are part of them. They are left out here when their policy is Ignore, where they
// change nothing (as upstream does since PR #1719).
std::string constraint_key(const Constraint& c, const Pod& owner) {
  const TopologySpreadConstraint& spec = *c.spec;
  std::string key = std::to_string(spec.max_skew) + ";" + spec.topology_key + ";";
  key += selector_key(c.selector) + ";";
  if (spec.node_affinity_policy == InclusionPolicy::kHonor) {
    key += "affinity:";
    for (const auto& [k, v] : owner.node_selector.items()) key += k + "=" + v + ",";
    if (owner.node_affinity->required) {
      for (const model::NodeSelectorTerm& term : *owner.node_affinity->required) {
        key += "{";
        append_requirements(key, term.match_expressions);
        key += "|";
        append_requirements(key, term.match_fields);
        key += "}";
      }
    } else {
      key += "none";
    }
    key += ";";
  }
  if (spec.node_taints_policy == InclusionPolicy::kHonor) {
    key += "tolerations:";
    for (const model::Toleration& t : owner.tolerations) {
      key += t.key + (t.op == model::TolerationOperator::kExists ? " exists " : " = ") + t.value +
             " " + (t.effect ? std::string(model::to_string(*t.effect)) : "*") + " " +
             (t.toleration_seconds ? std::to_string(*t.toleration_seconds) : "-") + ",";
    }
    key += ";";
  }
  return key;
}

// Whether `node` passes the constraint's node inclusion policies.
bool included(const Constraint& c, const Pod& owner, const model::Node& node) {
  if (c.spec->node_affinity_policy == InclusionPolicy::kHonor &&
      !(placement::check_node_selector(owner, node, nullptr) &&
        placement::check_node_affinity(owner, node, nullptr))) {
    return false;
  }
  return c.spec->node_taints_policy != InclusionPolicy::kHonor ||
         placement::check_taints(owner, node, nullptr);
}

bool has_selector_or_affinity(const Pod& pod) {
  return !pod.node_selector.empty() || pod.node_affinity->required.has_value() ||
         !pod.node_affinity->preferred.empty();
}

std::string average_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

// Where the pods one constraint chose may go, shared by those pods.
struct TargetRule {
  std::string key;
  double ideal = 0;
  bool below_only = true;                 // topologyBalanceNodeFit
  std::vector<char> below;                // per node: in a domain below idealAvg, included
  std::vector<char> included;             // per node: passes the inclusion policies
  std::map<std::string, size_t> size_of;  // domain sizes when the constraint was balanced
};

// A pod a constraint chose, with why.
struct Chosen {
  PodId pod = 0;
  std::string domain;  // the value of the domain it leaves
  std::string why;
  std::shared_ptr<const TargetRule> rule;
};

struct Domain {
  std::string value;
  std::vector<PodId> pods;  // the last goes first
};

class Balancer {
 public:
  // `listed`: the pods counted, added in node order.
  Balancer(const PlanContext& ctx, const policy::TopologySpreadArgs& args,
           const LabelledPods& listed)
      : ctx_(ctx), args_(args), listed_(listed) {}

  // Chooses the pods of namespace `ns` that move for its constraints; `pods` are its listed pods,
  // in node order.
  void balance_namespace(const std::string& ns, const std::vector<PodId>& pods) {
    const model::Snapshot& snapshot = ctx_.snapshot();
    std::vector<Constraint> constraints;
    std::set<std::string> seen;
    for (PodId pod : pods) {
      const Pod& p = snapshot.pods[pod];
      for (const TopologySpreadConstraint& spec : p.topology_spread) {
        if (std::find(args_.constraints.begin(), args_.constraints.end(),
                      spec.when_unsatisfiable) == args_.constraints.end()) {
          continue;
        }
        Constraint c{&spec, pod, merged_selector(spec, p)};
        if (seen.insert(constraint_key(c, p)).second) constraints.push_back(std::move(c));
      }
    }
    for (const Constraint& c : constraints) balance(c, ns);
  }

  std::vector<Chosen>& chosen() { return chosen_; }

 private:
  void balance(const Constraint& c, const std::string& ns) {
    const model::Snapshot& snapshot = ctx_.snapshot();
    const Pod& owner = snapshot.pods[c.owner];
    const std::string& key = c.spec->topology_key;
    auto rule = std::make_shared<TargetRule>();
    rule->key = key;
    rule->below_only = args_.topology_balance_node_fit;
    rule->below.assign(snapshot.nodes.size(), 0);
    rule->included.assign(snapshot.nodes.size(), 0);
    std::map<std::string, std::vector<PodId>> domains;
    const std::vector<const std::string*>& values = node_values(key);
    const std::vector<char>& passes = included_nodes(c, owner);
    for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
      if (!ctx_.in_scope(node)) continue;
      const std::string* value = values[node];
      if (value == nullptr || !passes[node]) continue;
      rule->included[node] = 1;
      domains[*value];
    }
    size_t total = 0;
    if (!c.selector) return;  // selects no pod: every domain is empty
    for (PodId pod : listed_.select(ns, *c.selector)) {
      if (snapshot.pods[pod].meta.deleting) continue;
      const std::string* value = values[ctx_.index().node_of(pod)];
      if (value == nullptr) continue;
      domains[*value].push_back(pod);
      ++total;
    }
    if (domains.empty()) return;
    size_t smallest = SIZE_MAX, largest = 0;
    for (const auto& [value, members] : domains) {
      smallest = std::min(smallest, members.size());
      largest = std::max(largest, members.size());
    }
    if (largest - smallest <= static_cast<size_t>(c.spec->max_skew)) return;  // balanced

    rule->ideal = static_cast<double>(total) / static_cast<double>(domains.size());
    std::vector<Domain> sorted;
    for (auto& [value, members] : domains) {
      rule->size_of[value] = members.size();
      sorted.push_back({value, order_pods(std::move(members))});
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const Domain& a, const Domain& b) {
      return a.pods.size() < b.pods.size();
    });
    for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
      if (!rule->included[node]) continue;
      const std::string& value = *values[node];
      rule->below[node] = static_cast<double>(rule->size_of[value]) < rule->ideal ? 1 : 0;
    }

    const double ideal = rule->ideal;
    const int64_t max_skew = c.spec->max_skew;
    size_t i = 0, j = sorted.size() - 1;
    while (i < j) {
      if (static_cast<double>(sorted[j].pods.size()) <= ideal) --j;
      const int64_t size_i = static_cast<int64_t>(sorted[i].pods.size());
      const int64_t size_j = static_cast<int64_t>(sorted[j].pods.size());
      const int64_t skew = size_j - size_i;
      if (skew <= max_skew) {
        ++i;
        continue;
      }
      const double above = std::ceil(static_cast<double>(size_j) - ideal);
      const double below = std::ceil(ideal - static_cast<double>(size_i));
      const double half = std::ceil(static_cast<double>(skew - max_skew) / 2.0);
      const int64_t move = static_cast<int64_t>(std::min(std::min(above, below), half));
      if (move <= 0) {
        ++i;
        continue;
      }
      const std::string why =
          "topology spread constraint of " + owner.key() + " (topologyKey " + key + ", maxSkew " +
          std::to_string(max_skew) + ", selector " + selector_text(c.selector) + "): " + key + "=" +
          sorted[j].value + " holds " + std::to_string(size_j) + ", " + key + "=" +
          sorted[i].value + " " + std::to_string(size_i) + " (ideal average " +
          average_text(ideal) + " over " + std::to_string(sorted.size()) + " domains)";
      std::vector<PodId>& from = sorted[j].pods;
      const size_t first = from.size() - static_cast<size_t>(move);
      for (size_t k = first; k < from.size(); ++k) {
        if (chosen_pods_.insert(from[k]).second) {
          chosen_.push_back({from[k], sorted[j].value, why, rule});
        }
      }
      sorted[i].pods.insert(sorted[i].pods.end(), from.begin() + first, from.end());
      from.resize(first);
    }
  }

  // Upstream's sortDomains order: pods with a nodeSelector or node affinity first (kept longest),
  // then the others; within each, higher priority first; then names, so that the last pod (the
  // first to go) is the lowest priority without node constraints, the greatest name of its peers.
  std::vector<PodId> order_pods(std::vector<PodId> pods) const {
    const model::Snapshot& snapshot = ctx_.snapshot();
    struct Entry {
      bool constrained;
      PodRank rank;
    };
    std::vector<Entry> entries;
    entries.reserve(pods.size());
    for (PodId pod : pods) {
      entries.push_back({has_selector_or_affinity(snapshot.pods[pod]), rank_of(snapshot, pod)});
    }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.constrained != b.constrained) return a.constrained;
      if (a.rank.priority != b.rank.priority) return a.rank.priority > b.rank.priority;
      return a.rank.key < b.rank.key;
    });
    for (size_t k = 0; k < entries.size(); ++k) pods[k] = entries[k].rank.pod;
    return pods;
  }

  const PlanContext& ctx_;
  const policy::TopologySpreadArgs& args_;
  const LabelledPods& listed_;
  std::vector<Chosen> chosen_;
  // Per topology key, every node's value (nullptr: absent); per inclusion class, the nodes that
  // pass the policies. Constraints of many workloads share both.
  std::unordered_map<std::string, std::vector<const std::string*>> values_of_key_;
  std::unordered_map<std::string, std::vector<char>> included_of_class_;

  const std::vector<const std::string*>& node_values(const std::string& key) {
    auto [it, inserted] = values_of_key_.try_emplace(key);
    if (inserted) {
      const model::Snapshot& snapshot = ctx_.snapshot();
      it->second.reserve(snapshot.nodes.size());
      for (const model::Node& node : snapshot.nodes) {
        it->second.push_back(node.meta.labels.find(key));
      }
    }
    return it->second;
  }

  const std::vector<char>& included_nodes(const Constraint& c, const Pod& owner) {
    std::string key;
    placement::write_constraints_key(owner, key);
    key += c.spec->node_affinity_policy == InclusionPolicy::kHonor ? 'a' : '-';
    key += c.spec->node_taints_policy == InclusionPolicy::kHonor ? 't' : '-';
    auto [it, inserted] = included_of_class_.try_emplace(key);
    if (inserted) {
      const model::Snapshot& snapshot = ctx_.snapshot();
      it->second.reserve(snapshot.nodes.size());
      for (const model::Node& node : snapshot.nodes) {
        it->second.push_back(included(c, owner, node) ? 1 : 0);
      }
    }
    return it->second;
  }
  std::set<PodId> chosen_pods_;
};

// Whether `rule` refuses `node` as a target of a pod leaving the domain `from`.
bool refuses(const PlanContext& ctx, const TargetRule& rule, const std::string& from, NodeId node) {
  if (rule.below_only) return !rule.below[node];
  const std::string* value = ctx.snapshot().nodes[node].meta.labels.find(rule.key);
  return value != nullptr && *value == from;
}

// Why `rule` refuses `node` (refuses() is true).
std::string refusal(const PlanContext& ctx, const TargetRule& rule, const std::string& from,
                    NodeId node) {
  if (!rule.below_only) return "in " + rule.key + "=" + from + ", the domain the pod leaves";
  const std::string* value = ctx.snapshot().nodes[node].meta.labels.find(rule.key);
  if (value == nullptr) return "no label " + rule.key;
  if (!rule.included[node]) return "not counted by the constraint's node inclusion policies";
  auto it = rule.size_of.find(*value);
  return rule.key + "=" + *value + " holds " +
         std::to_string(it == rule.size_of.end() ? 0 : it->second) +
         ", not below the ideal average " + average_text(rule.ideal);
}

}  // namespace

void run_topology_spread(const policy::TopologySpreadArgs& args, const ProfileScope& scope,
                         PlanContext& ctx) {
  if (scope.filter == nullptr) {
    ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                               " has no evictability filter; nothing planned for it");
    return;
  }
  const model::Snapshot& snapshot = ctx.snapshot();
  // The listed pods by namespace, in node order, then by name (not the order of the API's list).
  std::map<std::string, std::vector<PodId>> by_namespace;
  LabelledPods listed(snapshot);
  std::vector<PodId> on_node;
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    on_node.clear();
    for (PodId pod : ctx.index().pods_on(node)) {
      const Pod& p = snapshot.pods[pod];
      if (ctx.planned(pod) || !args_select_pod(p, args.namespaces, args.label_selector)) continue;
      if (scope.filter->reject_reason(pod, WorkloadSwitches{})) continue;  // not listed upstream
      on_node.push_back(pod);
    }
    std::sort(on_node.begin(), on_node.end(), [&](PodId a, PodId b) {
      const model::ObjectMeta& x = snapshot.pods[a].meta;
      const model::ObjectMeta& y = snapshot.pods[b].meta;
      return std::tie(x.namespace_, x.name) < std::tie(y.namespace_, y.name);
    });
    for (PodId pod : on_node) {
      by_namespace[snapshot.pods[pod].meta.namespace_].push_back(pod);
      listed.add(pod);
    }
  }
  Balancer balancer(ctx, args, listed);
  for (const auto& [ns, pods] : by_namespace) balancer.balance_namespace(ns, pods);

  std::vector<Chosen>& chosen = balancer.chosen();
  DescheduleTargets targets(ctx, scope);
  for (size_t k = 0; k < chosen.size(); ++k) {
    const Chosen& c = chosen[k];
    if (ctx.total_limit_reached()) {
      // As upstream, the plugin stops here: this pod is skipped with the limit, the rest are one
      // note.
      ctx.skip(
          c.pod, kStrategy,
          ctx.limit_reason(c.pod, nullptr).value_or(Skip{SkipCode::kTotalLimit, "total limit"}));
      if (chosen.size() - k > 1) {
        ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy + ": " +
                                   std::to_string(chosen.size() - k - 1) +
                                   " more pod(s) selected, not evicted: "
                                   "maxNoOfPodsToEvictTotal reached");
      }
      return;
    }
    if (ctx.planned(c.pod) || !admit_for_eviction(ctx, scope, c.pod, kStrategy)) continue;
    const std::string why = node_with_pool(ctx, ctx.index().node_of(c.pod)) + ": " + c.why;
    NodeRule rule{[&](NodeId node) { return refuses(ctx, *c.rule, c.domain, node); },
                  [&](NodeId node) { return refusal(ctx, *c.rule, c.domain, node); }};
    TargetFound target = targets.best(c.pod, targets.candidates(), &rule);
    if (!target.node) {
      ctx.skip(c.pod, kStrategy, SkipCode::kNoTarget,
               "no node fits: " + why + "; " + target.why_not);
      continue;
    }
    std::string reason = why + " -> " + snapshot.nodes[*target.node].meta.name;
    if (!target.usage_after.empty()) reason += " (" + target.usage_after + ")";
    ctx.evict(c.pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
  }
}

}  // namespace loadshift::strategies

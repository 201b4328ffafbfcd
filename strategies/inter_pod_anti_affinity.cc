// RemovePodsViolatingInterPodAntiAffinity (kubernetes-sigs descheduler, pod_antiaffinity.go, as
// of v0.32): a pod whose own required anti-affinity selects another pod of its topology domain
// is evicted, to a target the placement core accepts.
//
// The pods looked at are those on the in-scope nodes that the plugin's namespaces and
// labelSelector select and that the plan has not moved yet; they are also the only pods that count
// as the other pod (as upstream: a labelSelector hides peers too). A pod violates when one of its
// requiredDuringScheduling anti-affinity terms selects another such pod (the term's namespaces,
// or the pod's own namespace when the term lists none; namespaceSelector is ignored, as upstream
// ignores it; a null labelSelector selects nothing) in the same domain: the same node always, else
// another node with the term's topologyKey at the same value. Only the pod's own terms count,
// not the other pod's (upstream's direction). Per node, in snapshot order, the pods go lowest
// priority first (then QoS class, prefer-no-eviction last, then name); once a pod is planned it no
// longer counts as anyone's peer, so of two pods that repel each other only the first goes. A pod
// planned by an earlier plugin counts nowhere.
//
// Upstream evicts without a target; loadshift never evicts a pod the placement core cannot place:
// the core checks the target against the pod's anti-affinity (and every other rule) with the
// moves planned so far.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "strategies/deschedule_targets.h"
#include "strategies/labelled_pods.h"
#include "strategies/plugins.h"
#include "strategies/pod_order.h"

namespace loadshift::strategies {
namespace {

const std::string kStrategy = "RemovePodsViolatingInterPodAntiAffinity";

// A pod's term that selects another pod of its domain.
struct Conflict {
  size_t term = 0;
  PodId peer = 0;
  NodeId peer_node = placement::kNoNode;
};

class Violations {
 public:
  // `listed`: the pods the plugin looks at (and so the possible peers), added in node order.
  Violations(const PlanContext& ctx, const LabelledPods& listed) : ctx_(ctx), listed_(listed) {}

  // The first of `pod`'s required anti-affinity terms (in order) that selects a listed pod the
  // plan has not moved, in the pod's domain (the first such pod in node order).
  std::optional<Conflict> find(PodId pod) {
    const model::Snapshot& snapshot = ctx_.snapshot();
    const model::Pod& p = snapshot.pods[pod];
    const NodeId home = ctx_.index().node_of(pod);
    const std::vector<model::PodAffinityTerm>& terms = p.pod_anti_affinity.required;
    for (size_t t = 0; t < terms.size(); ++t) {
      const model::PodAffinityTerm& term = terms[t];
      if (!term.label_selector) continue;  // null selects nothing
      const std::string* value = snapshot.nodes[home].meta.labels.find(term.topology_key);
      for (PodId q : selected_by(term, p)) {
        if (q == pod || ctx_.planned(q)) continue;
        const NodeId n = ctx_.index().node_of(q);
        // The same node always counts; another node when both have the key at the same value.
        if (n != home) {
          if (value == nullptr) continue;
          const std::string* other = snapshot.nodes[n].meta.labels.find(term.topology_key);
          if (other == nullptr || *other != *value) continue;
        }
        return Conflict{t, q, n};
      }
    }
    return std::nullopt;
  }

  // "required anti-affinity term 0 (topologyKey zone, selector app=web) selects apps/web-1 on n2
  // (zone=a)".
  std::string describe(PodId pod, const Conflict& c) const {
    const model::Snapshot& snapshot = ctx_.snapshot();
    const model::PodAffinityTerm& term = snapshot.pods[pod].pod_anti_affinity.required[c.term];
    std::string text = "required anti-affinity term " + std::to_string(c.term) + " (topologyKey " +
                       term.topology_key + ", selector " + selector_text(term.label_selector) +
                       ") selects " + snapshot.pods[c.peer].key() + " on ";
    const model::Node& peer_node = snapshot.nodes[c.peer_node];
    if (c.peer_node == ctx_.index().node_of(pod)) return text + "the same node";
    text += peer_node.meta.name;
    if (const std::string* v = peer_node.meta.labels.find(term.topology_key)) {
      text += " (" + term.topology_key + "=" + *v + ")";
    }
    return text;
  }

 private:
  // The listed pods `term` of `owner` selects, in node order; the replicas of a workload share
  // their terms, so each distinct term is matched once.
  const std::vector<PodId>& selected_by(const model::PodAffinityTerm& term,
                                        const model::Pod& owner) {
    std::vector<std::string> namespaces = term.namespaces;
    if (namespaces.empty()) namespaces.push_back(owner.meta.namespace_);
    std::sort(namespaces.begin(), namespaces.end());
    std::string key;
    for (const std::string& ns : namespaces) key += ns + " ";
    key += "\t" + selector_key(term.label_selector);
    auto [it, added] = selected_.try_emplace(std::move(key));
    if (added) it->second = listed_.select(namespaces, *term.label_selector);
    return it->second;
  }

  const PlanContext& ctx_;
  const LabelledPods& listed_;
  std::map<std::string, std::vector<PodId>> selected_;  // by namespaces and selector
};

}  // namespace

void run_inter_pod_anti_affinity(const policy::InterPodAntiAffinityArgs& args,
                                 const ProfileScope& scope, PlanContext& ctx) {
  if (scope.filter == nullptr) {
    ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                               " has no evictability filter; nothing planned for it");
    return;
  }
  const model::Snapshot& snapshot = ctx.snapshot();
  // The pods looked at, which are also the only possible peers.
  std::vector<char> listed(snapshot.pods.size(), 0);
  LabelledPods peers(snapshot);
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    for (PodId pod : ctx.index().pods_on(node)) {
      if (args_select_pod(snapshot.pods[pod], args.namespaces, args.label_selector)) {
        listed[pod] = 1;
        peers.add(pod);
      }
    }
  }
  Violations violations(ctx, peers);
  DescheduleTargets targets(ctx, scope);
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    // The node's pods that have terms of their own, lowest priority first.
    std::vector<PodRank> order;
    for (PodId pod : ctx.index().pods_on(node)) {
      if (listed[pod] && !ctx.planned(pod) &&
          !snapshot.pods[pod].pod_anti_affinity.required.empty()) {
        order.push_back(rank_of(snapshot, pod));
      }
    }
    std::sort(order.begin(), order.end(), evicted_before_upstream);
    for (size_t i = 0; i < order.size(); ++i) {
      const PodId pod = order[i].pod;
      std::optional<Conflict> conflict = violations.find(pod);
      if (!conflict) continue;
      if (ctx.total_limit_reached()) {
        // As upstream, the plugin stops here: this pod is skipped with the limit, the rest are one
        // note. Nothing moves any more, so the violations left are exactly those counted now.
        ctx.skip(
            pod, kStrategy,
            ctx.limit_reason(pod, nullptr).value_or(Skip{SkipCode::kTotalLimit, "total limit"}));
        size_t more = 0;
        for (size_t k = i + 1; k < order.size(); ++k) more += violations.find(order[k].pod) ? 1 : 0;
        for (NodeId later = node + 1; later < snapshot.nodes.size(); ++later) {
          if (!ctx.in_scope(later)) continue;
          for (PodId q : ctx.index().pods_on(later)) {
            if (listed[q] && !ctx.planned(q) &&
                !snapshot.pods[q].pod_anti_affinity.required.empty() && violations.find(q)) {
              ++more;
            }
          }
        }
        if (more > 0) {
          ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy + ": " +
                                     std::to_string(more) +
                                     " more pod(s) selected, not evicted: "
                                     "maxNoOfPodsToEvictTotal reached");
        }
        return;
      }
      if (!admit_for_eviction(ctx, scope, pod, kStrategy)) continue;
      const std::string why =
          node_with_pool(ctx, node) + ": " + violations.describe(pod, *conflict);
      // The placement core checks the target against the pod's anti-affinity; no rule of ours.
      TargetFound target = targets.best(pod, targets.candidates());
      if (!target.node) {
        ctx.skip(pod, kStrategy, SkipCode::kNoTarget,
                 "no node fits: " + why + "; " + target.why_not);
        continue;
      }
      std::string reason = why + " -> " + snapshot.nodes[*target.node].meta.name;
      if (!target.usage_after.empty()) reason += " (" + target.usage_after + ")";
      ctx.evict(pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
    }
  }
}

}  // namespace loadshift::strategies

// RemoveDuplicates (kubernetes-sigs descheduler, removeduplicates.go, as of v0.32): copies of
// one workload on one node are spread over the nodes they may run on.
//
// Only pods the profile's evictability filter admits count, as upstream lists them. A pod with no
// owner, or with an owner of a kind in excludeOwnerKinds, is never a duplicate. Per node, two pods
// are duplicates when their keys are equal: namespace/kind/name/image for every owner reference
// and every container image, sorted. Per owner key (the owner and its sorted images), the target
// nodes are the in-scope nodes whose taints, nodeSelector and required node affinity admit the
// duplicates (a constraint class adds its nodes only when it admits more than one); with fewer than
// two nothing moves. Each node keeps at most ceil(copies of the owner / target nodes) of them; the
// rest are evicted, to a target the placement core accepts that holds fewer than that share of
// the owner's pods (counting the moves planned so far). Upstream evicts without a target; loadshift
// never evicts a pod the placement core cannot place.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "placement/cluster_index.h"
#include "placement/predicates.h"
#include "strategies/deschedule_targets.h"
#include "strategies/plugins.h"

namespace loadshift::strategies {
namespace {

const std::string kStrategy = "RemoveDuplicates";

bool excluded_owner(const model::Pod& pod, const std::vector<std::string>& kinds) {
  return std::any_of(pod.owners.begin(), pod.owners.end(), [&](const model::OwnerReference& o) {
    return std::find(kinds.begin(), kinds.end(), o.kind) != kinds.end();
  });
}

std::vector<std::string> sorted_images(const model::Pod& pod) {
  std::vector<std::string> images;
  for (const model::Container& c : pod.containers) images.push_back(c.image);
  std::sort(images.begin(), images.end());
  return images;
}

// The pod's duplicate key: namespace/kind/name/image per owner and image, sorted.
std::vector<std::string> duplicate_key(const model::Pod& pod,
                                       const std::vector<std::string>& images) {
  std::vector<std::string> key;
  for (const model::OwnerReference& owner : pod.owners) {
    for (const std::string& image : images) {
      key.push_back(pod.meta.namespace_ + "/" + owner.kind + "/" + owner.name + "/" + image);
    }
  }
  std::sort(key.begin(), key.end());
  return key;
}

// One key per owner reference: namespace/kind/name#images.
std::vector<std::string> owner_keys(const model::Pod& pod, const std::vector<std::string>& images) {
  std::string joined;
  for (const std::string& image : images) joined += (joined.empty() ? "" : "#") + image;
  std::vector<std::string> out;
  for (const model::OwnerReference& owner : pod.owners) {
    out.push_back(pod.meta.namespace_ + "/" + owner.kind + "/" + owner.name + "#" + joined);
  }
  return out;
}

// Whether `node` admits `pod` by taints, nodeSelector and required node affinity (upstream's
// target-node rule; resources are the placement core's business).
bool admits(const model::Pod& pod, const model::Node& node) {
  return placement::check_taints(pod, node, nullptr) &&
         placement::check_node_selector(pod, node, nullptr) &&
         placement::check_node_affinity(pod, node, nullptr);
}

struct OwnerGroup {
  size_t copies = 0;                         // listed pods of the owner, on every node
  std::map<NodeId, std::vector<PodId>> dup;  // per node: the duplicates past the first copy
  std::map<NodeId, size_t> on_node;          // listed pods of the owner per node (sparse: a
                                             // cluster has many owners on few nodes each)
};

}  // namespace

void run_remove_duplicates(const policy::RemoveDuplicatesArgs& args, const ProfileScope& scope,
                           PlanContext& ctx) {
  if (scope.filter == nullptr) {
    ctx.plan().notes.push_back("profile " + scope.name + ": " + kStrategy +
                               " has no evictability filter; nothing planned for it");
    return;
  }
  const model::Snapshot& snapshot = ctx.snapshot();
  std::map<std::string, OwnerGroup> groups;
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (!ctx.in_scope(node)) continue;
    std::set<std::vector<std::string>> seen;  // duplicate keys met on this node
    for (PodId pod : ctx.index().pods_on(node)) {
      const model::Pod& p = snapshot.pods[pod];
      if (ctx.planned(pod) || !args_select_pod(p, args.namespaces, std::nullopt)) continue;
      if (scope.filter->reject_reason(pod, WorkloadSwitches{})) continue;  // not listed upstream
      if (p.owners.empty() || excluded_owner(p, args.exclude_owner_kinds)) continue;
      std::vector<std::string> images = sorted_images(p);
      std::vector<std::string> keys = owner_keys(p, images);
      for (const std::string& key : keys) {
        OwnerGroup& group = groups[key];
        ++group.copies;
        ++group.on_node[node];
      }
      if (seen.insert(duplicate_key(p, images)).second) continue;  // the node's first copy
      for (const std::string& key : keys) groups[key].dup[node].push_back(pod);
    }
  }

  // The nodes that admit a pod depend only on its scheduling constraints: found once per class.
  std::map<std::string, std::vector<NodeId>> admitting_of_class;
  std::string class_key;
  auto admitting_nodes = [&](const model::Pod& p) -> const std::vector<NodeId>& {
    placement::write_constraints_key(p, class_key);
    auto [it, inserted] = admitting_of_class.try_emplace(class_key);
    if (inserted) {
      for (NodeId n = 0; n < snapshot.nodes.size(); ++n) {
        if (ctx.in_scope(n) && admits(p, snapshot.nodes[n])) it->second.push_back(n);
      }
    }
    return it->second;
  };
  DescheduleTargets targets(ctx, scope);
  for (auto& [key, group] : groups) {
    if (group.dup.empty()) continue;
    // Target nodes: the nodes that admit the duplicates, for each constraint class among them
    // that more than one node admits.
    std::set<NodeId> target_nodes;
    std::set<const std::vector<NodeId>*> classes_seen;
    for (const auto& [node, pods] : group.dup) {
      for (PodId pod : pods) {
        const std::vector<NodeId>& admitting = admitting_nodes(snapshot.pods[pod]);
        if (!classes_seen.insert(&admitting).second || admitting.size() < 2) continue;
        target_nodes.insert(admitting.begin(), admitting.end());
      }
    }
    if (target_nodes.size() < 2) {
      for (const auto& [node, pods] : group.dup) {
        for (PodId pod : pods) {
          if (ctx.planned(pod)) continue;
          ctx.skip(pod, kStrategy, SkipCode::kNoSpread,
                   "a duplicate of " + key + " on " + node_with_pool(ctx, node) +
                       ", but fewer than two nodes admit its copies (taints, nodeSelector, "
                       "node affinity): nothing to spread over");
        }
      }
      continue;
    }
    const size_t share = (group.copies + target_nodes.size() - 1) / target_nodes.size();
    std::map<NodeId, size_t> count = group.on_node;  // the owner's pods per node, with moves
    auto copies_on = [&count](NodeId n) -> size_t {
      auto it = count.find(n);
      return it == count.end() ? 0 : it->second;
    };
    for (const auto& [node, pods] : group.dup) {
      // The node keeps `share` copies: its first one and share - 1 duplicates.
      if (pods.size() + 1 <= share) continue;
      for (size_t i = share - 1; i < pods.size(); ++i) {
        PodId pod = pods[i];
        if (ctx.planned(pod)) continue;  // a pod of two owners moves once
        if (!admit_for_eviction(ctx, scope, pod, kStrategy)) continue;
        const std::string why = node_with_pool(ctx, node) + " holds " +
                                std::to_string(copies_on(node)) + " copies of " + key +
                                " (at most " + std::to_string(share) + " per node over " +
                                std::to_string(target_nodes.size()) + " nodes)";
        NodeRule spread{[&](NodeId target) {
                          return !target_nodes.count(target) || copies_on(target) >= share;
                        },
                        [&](NodeId target) {
                          return target_nodes.count(target)
                                     ? "already holds " + std::to_string(copies_on(target)) +
                                           " copies"
                                     : std::string("not a node the duplicates may run on");
                        }};
        TargetFound target =
            targets.best(pod, targets.candidates(), &spread);
        if (!target.node) {
          ctx.skip(pod, kStrategy, SkipCode::kNoTarget,
                   "no node fits: " + why + "; " + target.why_not);
          continue;
        }
        std::string reason = why + " -> " + snapshot.nodes[*target.node].meta.name;
        if (!target.usage_after.empty()) reason += " (" + target.usage_after + ")";
        ctx.evict(pod, *target.node, scope.name, kStrategy, std::move(reason), nullptr);
        --count[node];
        ++count[*target.node];
      }
    }
  }
}

}  // namespace loadshift::strategies

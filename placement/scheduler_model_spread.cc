// The scheduler model's system-default topology spreading (scheduler_model.h): kube-scheduler's
// PodTopologySpread with defaultingType System — for a pod without constraints of its own whose
// owner is a ReplicaSet, StatefulSet or ReplicationController, ScheduleAnyway over
// kubernetes.io/hostname (maxSkew 3) and topology.kubernetes.io/zone (maxSkew 5), the selector
// being its owner's pods (helper.DefaultSelector; Services are not in the snapshot). As in
// podtopologyspread/scoring.go: terminating and finished pods do not count, so neither does the
// evicted original; system defaults ignore no node (a node without a zone gets the hostname part
// only, and the zone-less nodes form a domain of their own for the zone weight); each node scores
// count x ln(domains + 2) + maxSkew - 1 per constraint, rounded, normalised as
// 100 (max + min - score) / max.
#include <algorithm>
#include <cmath>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "placement/placer.h"
#include "placement/scheduler_model.h"

namespace loadshift::placement {
namespace {

constexpr std::string_view kZoneLabel = "topology.kubernetes.io/zone";
constexpr int64_t kHostnameSkew = 3, kZoneSkew = 5;

bool spread_by_default(const model::OwnerReference& owner) {
  return owner.kind == "ReplicaSet" || owner.kind == "StatefulSet" ||
         owner.kind == "ReplicationController";
}

std::string owner_name(const model::Pod& pod, const model::OwnerReference& owner) {
  return pod.meta.namespace_ + "/" + owner.kind + "/" + owner.name;
}

}  // namespace

void SchedulerModel::index_owners_and_zones() {
  const model::Snapshot& snapshot = index_.snapshot();
  // Each owner numbered (by uid, or by namespace/kind/name for a reference without one), then its
  // pods laid out together: owner_members_[owner_start_[o] .. owner_start_[o + 1]).
  std::unordered_map<std::string_view, uint32_t> owners;
  owners.reserve(snapshot.pods.size() / 4 + 1);
  std::deque<std::string> names;  // the keys of owners without a uid, while numbering
  owner_of_.assign(snapshot.pods.size(), kNoOwner);
  std::vector<uint32_t> count;
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    const model::OwnerReference* owner = snapshot.pods[pod].controller();
    if (owner == nullptr || !spread_by_default(*owner)) continue;
    std::string_view key = owner->uid;
    if (key.empty()) {
      std::string name = owner_name(snapshot.pods[pod], *owner);
      auto known = owners.find(name);
      key = known != owners.end() ? known->first
                                  : std::string_view(names.emplace_back(std::move(name)));
    }
    auto [it, added] = owners.try_emplace(key, static_cast<uint32_t>(count.size()));
    if (added) count.push_back(0);
    owner_of_[pod] = it->second;
    ++count[it->second];
  }
  owner_start_.assign(count.size() + 1, 0);
  for (size_t o = 0; o < count.size(); ++o) owner_start_[o + 1] = owner_start_[o] + count[o];
  owner_members_.resize(owner_start_.back());
  std::vector<uint32_t> next(owner_start_.begin(), owner_start_.end() - 1);
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    if (owner_of_[pod] != kNoOwner) owner_members_[next[owner_of_[pod]]++] = pod;
  }
  std::unordered_map<std::string_view, int32_t> zones;
  zone_of_.assign(snapshot.nodes.size(), -1);
  for (NodeId node = 0; node < snapshot.nodes.size(); ++node) {
    if (const std::string* zone = snapshot.nodes[node].meta.labels.find(kZoneLabel)) {
      zone_of_[node] = zones.try_emplace(*zone, static_cast<int32_t>(zones.size())).first->second;
    }
  }
  zone_count_ = zones.size();
  host_count_.assign(snapshot.nodes.size(), 0);
  occupied_score_.assign(snapshot.nodes.size(), 0);
}

bool SchedulerModel::default_spreading(PodId pod) const {
  const model::Pod& p = index_.snapshot().pods[pod];
  if (!profile_.system_default_spreading || p.scheduler_name == "volcano" ||
      !p.topology_spread.empty()) {
    return false;
  }
  const model::OwnerReference* owner = p.controller();
  return owner != nullptr && spread_by_default(*owner);
}

SchedulerModel::DefaultSpread::DefaultSpread(const SchedulerModel& model, PodId pod,
                                             std::span<const size_t> per_slot, size_t candidates,
                                             const std::function<bool(NodeId)>& is_candidate,
                                             const Ledger& ledger)
    : model_(model), empty_(per_slot.size(), kMaxNodeScore) {
  const model::Snapshot& snapshot = model.index_.snapshot();
  std::vector<int64_t> in_zone(model.zone_count_, 0);
  if (const uint32_t owner = model.owner_of_[pod]; owner != kNoOwner) {
    const Placer placer(model.index_);
    for (uint32_t i = model.owner_start_[owner]; i < model.owner_start_[owner + 1]; ++i) {
      const PodId member = model.owner_members_[i];
      const model::Pod& m = snapshot.pods[member];
      if (member == pod || m.terminated() || m.meta.deleting) continue;
      NodeId at = ledger.planned_node(member);
      if (at == kNoNode) at = model.index_.node_of(member);
      if (at == kNoNode) continue;
      if (model.host_count_[at]++ == 0) occupied_.push_back(at);
      // Only nodes the incoming pod's node rules allow count toward a zone (NodeAffinityPolicy
      // Honor; loadshift's node rules also check taints, which the scheduler ignores here).
      if (model.zone_of_[at] >= 0 && placer.node_rules_pass(pod, at)) ++in_zone[model.zone_of_[at]];
    }
  }
  if (candidates == 0) return;
  size_t domains = 0;
  for (size_t count : per_slot) domains += count > 0 ? 1 : 0;
  const double host_weight = std::log(static_cast<double>(candidates) + 2);
  const double zone_weight = std::log(static_cast<double>(domains) + 2);
  auto raw = [&](int64_t on_host, size_t slot) {
    double score = static_cast<double>(on_host) * host_weight + (kHostnameSkew - 1);
    if (slot > 0) score += static_cast<double>(in_zone[slot - 1]) * zone_weight + (kZoneSkew - 1);
    return static_cast<int64_t>(std::llround(score));
  };
  // The extremes over the candidates: the occupied candidates, and each zone slot that holds a
  // candidate without the owner's pods.
  std::vector<size_t> occupied_in_slot(per_slot.size(), 0);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (NodeId node : occupied_) {
    if (!is_candidate(node)) continue;
    const size_t slot = model.zone_slot(node);
    ++occupied_in_slot[slot];
    const int64_t r = raw(model.host_count_[node], slot);
    model.occupied_score_[node] = r;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  for (size_t slot = 0; slot < per_slot.size(); ++slot) {
    empty_[slot] = raw(0, slot);
    if (per_slot[slot] > occupied_in_slot[slot]) {
      lo = std::min(lo, empty_[slot]);
      hi = std::max(hi, empty_[slot]);
    }
  }
  auto normalise = [lo, hi](int64_t r) {
    return hi == 0 ? kMaxNodeScore : kMaxNodeScore * (hi + lo - r) / hi;
  };
  for (int64_t& score : empty_) score = normalise(score);
  for (NodeId node : occupied_)
    model.occupied_score_[node] = normalise(model.occupied_score_[node]);
}

SchedulerModel::DefaultSpread::~DefaultSpread() {
  for (NodeId node : occupied_) {
    model_.host_count_[node] = 0;
    model_.occupied_score_[node] = 0;
  }
}

int64_t SchedulerModel::DefaultSpread::score(NodeId node) const {
  return model_.host_count_[node] != 0 ? model_.occupied_score_[node]
                                       : empty_[model_.zone_slot(node)];
}

}  // namespace loadshift::placement

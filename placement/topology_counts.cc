#include "placement/topology_counts.h"

#include <algorithm>
#include <limits>

namespace loadshift::placement {

void TopologyCounts::add(uint32_t slot, DomainId domain, int64_t weight) {
  if (entry_of_slot_.size() <= slot) entry_of_slot_.resize(topology_->slot_count(), 0);
  uint32_t& entry = entry_of_slot_[slot];
  if (entry == 0) {
    entries_.emplace_back();
    entry = static_cast<uint32_t>(entries_.size());
  }
  Entry& e = entries_[entry - 1];
  e.total += weight;
  for (auto& [d, delta] : e.deltas) {
    if (d == domain) {
      delta += weight;
      return;
    }
  }
  e.deltas.emplace_back(domain, weight);
}

void TopologyCounts::move(PodId pod, NodeId from, NodeId to) {
  if (topology_ == nullptr || from == to) return;
  for (const Contribution& c : topology_->contributions(pod)) {
    const TopologyKeyId key = topology_->slot(c.slot).key;
    if (topology_->counts_on(c.slot, from)) {
      add(c.slot, topology_->domains().domain(key, from), -c.weight);
    }
    if (topology_->counts_on(c.slot, to)) {
      add(c.slot, topology_->domains().domain(key, to), c.weight);
    }
  }
}

std::span<const std::pair<DomainId, int64_t>> TopologyCounts::touched(uint32_t slot) const {
  if (slot >= entry_of_slot_.size() || entry_of_slot_[slot] == 0) return {};
  return entries_[entry_of_slot_[slot] - 1].deltas;
}

int64_t TopologyCounts::delta(uint32_t slot, DomainId domain) const {
  for (const auto& [d, delta] : touched(slot)) {
    if (d == domain) return delta;
  }
  return 0;
}

int64_t TopologyCounts::total_delta(uint32_t slot) const {
  if (slot >= entry_of_slot_.size() || entry_of_slot_[slot] == 0) return 0;
  return entries_[entry_of_slot_[slot] - 1].total;
}

std::pair<int64_t, DomainId> SlotCounts::own(uint32_t slot) const {
  if (!topology_.counts_on(slot, at_)) return {0, kNoTopologyDomain};
  int64_t weight = topology_.own_weight(pod_, slot);
  if (weight == 0) return {0, kNoTopologyDomain};
  return {weight, topology_.domains().domain(topology_.slot(slot).key, at_)};
}

int64_t SlotCounts::count(uint32_t slot, DomainId domain) const {
  if (domain == kNoTopologyDomain) return 0;
  int64_t value = topology_.slot(slot).base_count(domain) + counts_.delta(slot, domain);
  auto [weight, own_domain] = own(slot);
  if (own_domain == domain) value -= weight;
  return value;
}

int64_t SlotCounts::total(uint32_t slot) const {
  int64_t value = topology_.slot(slot).total + counts_.total_delta(slot);
  auto [weight, own_domain] = own(slot);
  if (own_domain != kNoTopologyDomain) value -= weight;
  return value;
}

int64_t SlotCounts::minimum(uint32_t slot) const {
  const TopologySlot& s = topology_.slot(slot);
  if (s.eligible_domains == 0) return 0;
  auto [weight, own_domain] = own(slot);
  std::span<const std::pair<DomainId, int64_t>> touched = counts_.touched(slot);
  auto is_touched = [&](DomainId d) {
    return d == own_domain ||
           std::any_of(touched.begin(), touched.end(), [&](const auto& t) { return t.first == d; });
  };
  // The domains the plan or the pod changed, read one by one.
  int64_t lowest = std::numeric_limits<int64_t>::max();
  size_t zero_domains_touched = 0;
  auto visit = [&](DomainId d) {
    int64_t base = s.base_count(d);
    if (base == 0) ++zero_domains_touched;
    lowest = std::min(lowest, count(slot, d));
  };
  for (const auto& [d, delta] : touched) visit(d);
  if (own_domain != kNoTopologyDomain &&
      std::none_of(touched.begin(), touched.end(),
                   [&](const auto& t) { return t.first == own_domain; })) {
    visit(own_domain);
  }
  // The others keep their base count: 0 for a counted domain without pods, else the smallest
  // untouched entry of `ascending`.
  const size_t zero_domains = s.eligible_domains - s.base.size();
  if (zero_domains > zero_domains_touched) return std::min<int64_t>(lowest, 0);
  for (const auto& [base, d] : s.ascending) {
    if (!is_touched(d)) return std::min(lowest, base);
  }
  return lowest == std::numeric_limits<int64_t>::max() ? 0 : lowest;
}

}  // namespace loadshift::placement

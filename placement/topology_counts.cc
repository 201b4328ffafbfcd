#include "placement/topology_counts.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace loadshift::placement {

namespace {

using Deltas = std::vector<std::pair<DomainId, int64_t>>;

Deltas::const_iterator find_domain(const Deltas& deltas, DomainId domain) {
  return std::lower_bound(deltas.begin(), deltas.end(), domain,
                          [](const auto& entry, DomainId d) { return entry.first < d; });
}

// The smallest count of an untouched, non-empty domain of `slot` (its `ascending` entries skip
// the touched ones), or nullopt when every non-empty domain was touched.
std::optional<int64_t> smallest_untouched(const TopologySlot& slot, const Deltas& deltas) {
  for (const auto& [base, d] : slot.ascending) {
    auto it = find_domain(deltas, d);
    if (it == deltas.end() || it->first != d) return base;
  }
  return std::nullopt;
}

}  // namespace

void TopologyCounts::add(uint32_t slot, DomainId domain, int64_t weight) {
  if (entry_of_slot_.size() <= slot) entry_of_slot_.resize(topology_->slot_count(), 0);
  uint32_t& entry = entry_of_slot_[slot];
  if (entry == 0) {
    entries_.emplace_back();
    entry = static_cast<uint32_t>(entries_.size());
  }
  Entry& e = entries_[entry - 1];
  e.total += weight;
  auto it = e.deltas.begin() + (find_domain(e.deltas, domain) - e.deltas.cbegin());
  if (it != e.deltas.end() && it->first == domain) {
    it->second += weight;
  } else {
    e.deltas.emplace(it, domain, weight);
  }
  if (topology_->slot(slot).spread()) e.minimum = compute_minimum(slot, e);
}

int64_t TopologyCounts::compute_minimum(uint32_t slot, const Entry& entry) const {
  const TopologySlot& s = topology_->slot(slot);
  if (s.eligible_domains == 0) return 0;
  // The touched domains, read one by one.
  int64_t lowest = std::numeric_limits<int64_t>::max();
  size_t empty_touched = 0;  // touched domains without pods at first
  for (const auto& [d, delta] : entry.deltas) {
    const int64_t base = s.base_count(d);
    if (base == 0) ++empty_touched;
    lowest = std::min(lowest, base + delta);
  }
  // The others keep their base count: 0 for a counted domain without pods, else the smallest
  // untouched entry of `ascending`.
  const size_t empty_domains = s.eligible_domains - s.base.size();
  if (empty_domains > empty_touched) return std::min<int64_t>(lowest, 0);
  if (std::optional<int64_t> base = smallest_untouched(s, entry.deltas)) {
    return std::min(lowest, *base);
  }
  return lowest == std::numeric_limits<int64_t>::max() ? 0 : lowest;
}

std::optional<int64_t> TopologyCounts::minimum(uint32_t slot) const {
  if (slot < entry_of_slot_.size() && entry_of_slot_[slot] != 0) {
    return entries_[entry_of_slot_[slot] - 1].minimum;
  }
  return std::nullopt;
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
  if (slot >= entry_of_slot_.size() || entry_of_slot_[slot] == 0) return 0;
  const Deltas& deltas = entries_[entry_of_slot_[slot] - 1].deltas;
  auto it = find_domain(deltas, domain);
  return it != deltas.end() && it->first == domain ? it->second : 0;
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
  // The plan's minimum, or the base one: 0 with a counted domain without pods.
  int64_t lowest = counts_.minimum(slot).value_or(
      s.eligible_domains > s.base.size() || s.ascending.empty() ? 0 : s.ascending.front().first);
  // Taking the pod's own weight out of its domain lowers that one count only.
  auto [weight, own_domain] = own(slot);
  if (own_domain != kNoTopologyDomain) lowest = std::min(lowest, count(slot, own_domain));
  return lowest;
}

}  // namespace loadshift::placement

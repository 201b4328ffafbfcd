// TopologyCounts: how the moves of a plan change the counts of PodTopology's slots.
//
// Owned by the Ledger: when the plan moves a pod, each slot the pod counts in loses its weight
// in the domain it leaves and gains it in the domain it enters (on the nodes the slot counts).
// Only touched slots hold deltas, so an unplanned cluster costs nothing and a read is the base
// count plus, for a touched slot, a short scan.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "placement/pod_topology.h"

namespace loadshift::placement {

class TopologyCounts {
 public:
  TopologyCounts() = default;
  // `topology` (may be null: nothing is counted) must outlive this object.
  explicit TopologyCounts(const PodTopology* topology) : topology_(topology) {}

  // `pod` leaves `from` and enters `to` (either may be kNoNode).
  void move(PodId pod, NodeId from, NodeId to);

  // The change of `slot`'s count in `domain` (O(log touched domains)), and of its total.
  int64_t delta(uint32_t slot, DomainId domain) const;
  int64_t total_delta(uint32_t slot) const;
  // The domains of `slot` the plan touched, with their changes, by domain.
  std::span<const std::pair<DomainId, int64_t>> touched(uint32_t slot) const;
  // Spread slots the plan touched: the smallest count over the slot's counted domains as the plan
  // changed them (0 without domains), kept up to date by move(), so a read is O(1); nullopt for
  // an untouched slot (its minimum is the base one, PodTopology's business).
  std::optional<int64_t> minimum(uint32_t slot) const;

 private:
  struct Entry {
    std::vector<std::pair<DomainId, int64_t>> deltas;  // sorted by domain
    int64_t total = 0;
    int64_t minimum = 0;  // spread slots
  };
  void add(uint32_t slot, DomainId domain, int64_t weight);
  int64_t compute_minimum(uint32_t slot, const Entry& entry) const;
  const PodTopology* topology_ = nullptr;
  std::vector<uint32_t> entry_of_slot_;  // 0: untouched; else index + 1 into entries_
  std::vector<Entry> entries_;
};

// Counts of a slot as the plan sees them, for one pod being placed: the base count plus the
// plan's changes, minus the pod's own weight where it is now (the scheduler never counts the pod
// it places).
class SlotCounts {
 public:
  SlotCounts(const PodTopology& topology, const TopologyCounts& counts, PodId pod, NodeId at)
      : topology_(topology), counts_(counts), pod_(pod), at_(at) {}

  int64_t count(uint32_t slot, DomainId domain) const;
  int64_t total(uint32_t slot) const;
  // The smallest count over the slot's counted domains (spread slots); 0 without domains.
  int64_t minimum(uint32_t slot) const;

 private:
  // The pod's weight in `slot` where it is now, and that domain (kNoTopologyDomain when not
  // counted).
  std::pair<int64_t, DomainId> own(uint32_t slot) const;
  const PodTopology& topology_;
  const TopologyCounts& counts_;
  PodId pod_;
  NodeId at_;
};

}  // namespace loadshift::placement

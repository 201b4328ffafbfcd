#include "placement/ledger.h"

#include <algorithm>
#include <atomic>

namespace loadshift::placement {
namespace {

void subtract(model::ResourceList& from, const model::ResourceList& amount) {
  from.cpu_milli -= amount.cpu_milli;
  from.memory -= amount.memory;
  from.ephemeral_storage -= amount.ephemeral_storage;
  from.pods -= amount.pods;
  for (const auto& [name, value] : amount.scalars()) from.add(name, -value);
}

std::atomic<uint64_t> next_ledger_id{1};

}  // namespace

Ledger::Ledger(size_t node_count, const PodTopology* topology)
    : reserved_(node_count),
      incoming_(node_count),
      topology_(topology),
      counts_(topology),
      id_(next_ledger_id.fetch_add(1, std::memory_order_relaxed)) {}

void Ledger::reserve(PodId pod, NodeId from, NodeId to, const model::ResourceList& requests) {
  if (pod >= move_of_pod_.size()) move_of_pod_.resize(static_cast<size_t>(pod) + 1, kNoMove);
  if (size_t existing = move_of_pod_[pod]; existing != kNoMove) {
    PlannedMove& old = moves_[existing];
    counts_.move(pod, old.to, to);
    subtract(reserved_[old.to], requested_[existing]);
    auto& list = incoming_[old.to];
    list.erase(std::find(list.begin(), list.end(), pod));
    touched_.push_back(old.to);
    old = PlannedMove{pod, from, to};
    requested_[existing] = requests;
  } else {
    counts_.move(pod, from, to);
    move_of_pod_[pod] = moves_.size();
    moves_.push_back(PlannedMove{pod, from, to});
    requested_.push_back(requests);
  }
  reserved_[to].add_all(requests);
  incoming_[to].push_back(pod);
  touched_.push_back(to);
}

NodeId Ledger::planned_node(PodId pod) const {
  if (pod >= move_of_pod_.size() || move_of_pod_[pod] == kNoMove) return kNoNode;
  return moves_[move_of_pod_[pod]].to;
}

}  // namespace loadshift::placement

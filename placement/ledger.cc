#include "placement/ledger.h"

#include <algorithm>

namespace loadshift::placement {
namespace {

void subtract(ResourceList& from, const ResourceList& amount) {
  from.cpu_milli -= amount.cpu_milli;
  from.memory -= amount.memory;
  from.ephemeral_storage -= amount.ephemeral_storage;
  from.pods -= amount.pods;
  for (const auto& [name, value] : amount.scalars()) from.add(name, -value);
}

}  // namespace

void Ledger::reserve(PodId pod, NodeId from, NodeId to, const ResourceList& requests) {
  auto existing = move_of_pod_.find(pod);
  if (existing != move_of_pod_.end()) {
    PlannedMove& old = moves_[existing->second];
    subtract(reserved_[old.to], requested_[existing->second]);
    auto& list = incoming_[old.to];
    list.erase(std::find(list.begin(), list.end(), pod));
    old = PlannedMove{pod, from, to};
    requested_[existing->second] = requests;
  } else {
    move_of_pod_.emplace(pod, moves_.size());
    moves_.push_back(PlannedMove{pod, from, to});
    requested_.push_back(requests);
  }
  reserved_[to].add_all(requests);
  incoming_[to].push_back(pod);
}

NodeId Ledger::planned_node(PodId pod) const {
  if (moves_.empty()) return kNoNode;
  auto it = move_of_pod_.find(pod);
  return it == move_of_pod_.end() ? kNoNode : moves_[it->second].to;
}

}  // namespace loadshift::placement

#include "model/model.h"

#include <algorithm>

namespace loadshift::model {

StringMap::StringMap(std::vector<std::pair<std::string, std::string>> pairs) {
  // Stable sort keeps input order among equal keys, so the last one can win.
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<std::string, std::string>> items;
  items.reserve(pairs.size());
  for (auto& pair : pairs) {
    if (!items.empty() && items.back().first == pair.first) {
      items.back().second = std::move(pair.second);
    } else {
      items.push_back(std::move(pair));
    }
  }
  if (!items.empty()) items_ = std::move(items);
}

const std::string* StringMap::find(std::string_view key) const {
  auto it = std::lower_bound(items_.begin(), items_.end(), key,
                             [](const auto& item, std::string_view k) { return item.first < k; });
  return it != items_.end() && it->first == key ? &it->second : nullptr;
}

void StringMap::set(std::string key, std::string value) {
  std::vector<std::pair<std::string, std::string>>& items = items_.edit();
  auto it = std::lower_bound(items.begin(), items.end(), key,
                             [](const auto& item, const std::string& k) { return item.first < k; });
  if (it != items.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    items.insert(it, {std::move(key), std::move(value)});
  }
}

std::string_view to_string(TaintEffect effect) {
  switch (effect) {
    case TaintEffect::kNoSchedule: return "NoSchedule";
    case TaintEffect::kPreferNoSchedule: return "PreferNoSchedule";
    case TaintEffect::kNoExecute: return "NoExecute";
  }
  return "?";
}

std::string_view to_string(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::kIn: return "In";
    case SelectorOperator::kNotIn: return "NotIn";
    case SelectorOperator::kExists: return "Exists";
    case SelectorOperator::kDoesNotExist: return "DoesNotExist";
    case SelectorOperator::kGt: return "Gt";
    case SelectorOperator::kLt: return "Lt";
  }
  return "?";
}

std::string_view to_string(PodPhase phase) {
  switch (phase) {
    case PodPhase::kPending: return "Pending";
    case PodPhase::kRunning: return "Running";
    case PodPhase::kSucceeded: return "Succeeded";
    case PodPhase::kFailed: return "Failed";
    case PodPhase::kUnknown: return "Unknown";
  }
  return "?";
}

const NodeCondition* Node::condition(std::string_view type) const {
  for (const NodeCondition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

std::string_view Node::internal_ip() const {
  for (const NodeAddress& a : addresses) {
    if (a.type == "InternalIP") return a.address;
  }
  return {};
}

const OwnerReference* Pod::controller() const {
  for (const OwnerReference& owner : owners) {
    if (owner.controller) return &owner;
  }
  return nullptr;
}

ResourceList effective_requests(const Pod& pod) {
  // Regular containers run together; restartable init containers (sidecars) keep running once
  // started, so they add to everything after them.
  ResourceList containers;
  for (const Container& c : pod.containers) containers.add_all(c.requests);
  ResourceList sidecars;
  ResourceList init_peak;
  for (const Container& c : pod.init_containers) {
    if (c.restart_always) {
      sidecars.add_all(c.requests);
      init_peak.max_all(sidecars);
    } else {
      ResourceList during = sidecars;
      during.add_all(c.requests);
      init_peak.max_all(during);
    }
  }
  containers.add_all(sidecars);
  containers.max_all(init_peak);
  containers.add_all(pod.overhead);
  containers.pods = 1;
  return containers;
}

bool matches(const LabelSelector& selector, const StringMap& labels) {
  for (const auto& [key, value] : selector.match_labels.items()) {
    const std::string* found = labels.find(key);
    if (found == nullptr || *found != value) return false;
  }
  for (const LabelSelectorRequirement& req : selector.match_expressions) {
    const std::string* found = labels.find(req.key);
    bool in_values =
        found != nullptr && std::find(req.values.begin(), req.values.end(), *found) != req.values.end();
    if (req.op == "In") {
      if (!in_values) return false;
    } else if (req.op == "NotIn") {
      if (in_values) return false;
    } else if (req.op == "Exists") {
      if (found == nullptr) return false;
    } else if (req.op == "DoesNotExist") {
      if (found != nullptr) return false;
    } else {
      return false;  // an unknown operator selects nothing
    }
  }
  return true;
}

}  // namespace loadshift::model

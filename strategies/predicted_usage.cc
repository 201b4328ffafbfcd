#include "strategies/predicted_usage.h"

#include <algorithm>
#include <cstdio>

namespace loadshift::strategies {

double PodAmounts::amount(std::string_view resource) const {
  if (resource == model::kCpu) return cpu_milli;
  if (resource == model::kMemory) return memory_bytes;
  if (resource == model::kPods) return 1;
  return requests == nullptr ? 0 : static_cast<double>(requests->get(resource));
}

namespace {

// `value` with up to `decimals` decimals, without trailing zeros: 0.5, 4, 1.25.
std::string trimmed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  std::string out = buffer;
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

}  // namespace

std::string amount_text(std::string_view resource, double amount) {
  if (resource == model::kCpu) return trimmed(amount / 1000.0, 2) + " cpu";
  if (resource == model::kPods) {
    return trimmed(amount, 0) + (amount == 1 ? " pod" : " pods");
  }
  if (resource == model::kMemory || resource == model::kEphemeralStorage ||
      resource.starts_with("hugepages-")) {
    constexpr double kMi = 1024.0 * 1024.0;
    constexpr double kGi = kMi * 1024.0;
    std::string unit = amount >= kGi   ? trimmed(amount / kGi, 1) + "Gi"
                       : amount >= kMi ? trimmed(amount / kMi, 0) + "Mi"
                                       : trimmed(amount, 0) + " bytes";
    return unit + " " + std::string(resource);
  }
  return trimmed(amount, 2) + " " + std::string(resource);
}

PodAmounts requested_load(const placement::ClusterIndex& index, PodId pod) {
  const model::ResourceList& requests = index.requests(pod);
  PodAmounts out;
  out.cpu_milli = static_cast<double>(requests.cpu_milli);
  out.memory_bytes = static_cast<double>(requests.memory);
  out.requests = &requests;
  return out;
}

double allocatable_of(const model::Node& node, std::string_view resource) {
  int64_t amount = node.allocatable.get(resource);
  if (amount <= 0) amount = node.capacity.get(resource);
  return static_cast<double>(std::max<int64_t>(amount, 0));
}

double percent_of(const model::Node& node, std::string_view resource, double amount) {
  double allocatable = allocatable_of(node, resource);
  if (allocatable <= 0) return amount <= 0 ? 0 : 1e9;
  return 100.0 * amount / allocatable;
}

PredictedUsage::PredictedUsage(const model::Snapshot& snapshot, std::vector<std::string> resources)
    : snapshot_(&snapshot),
      resources_(std::move(resources)),
      usage_(snapshot.nodes.size()),
      by_index_(snapshot.nodes.size() * resources_.size(), 0.0),
      known_(snapshot.nodes.size(), false) {}

void PredictedUsage::copy_to_index(NodeId node) {
  const Percentages& usage = usage_[node];
  for (size_t i = 0; i < resources_.size(); ++i) {
    auto it = usage.find(resources_[i]);
    by_index_[node * resources_.size() + i] = it == usage.end() ? 0 : it->second;
  }
}

void PredictedUsage::set(NodeId node, const Percentages& usage) {
  Percentages& mine = usage_[node];
  mine.clear();
  for (const std::string& resource : resources_) {
    auto it = usage.find(resource);
    mine[resource] = it == usage.end() ? 0 : it->second;
  }
  copy_to_index(node);
  known_[node] = true;
}

Percentages PredictedUsage::share(NodeId node, const PodAmounts& load) const {
  Percentages out;
  const model::Node& n = snapshot_->nodes[node];
  for (const std::string& resource : resources_) {
    out[resource] = percent_of(n, resource, load.amount(resource));
  }
  return out;
}

void PredictedUsage::move(NodeId from, NodeId to, const PodAmounts& load) {
  if (from != placement::kNoNode && known_[from]) {
    const model::Node& n = snapshot_->nodes[from];
    for (size_t i = 0; i < resources_.size(); ++i) {
      const std::string& resource = resources_[i];
      double& now = usage_[from][resource];
      const double before = now;
      now = std::max(0.0, now - percent_of(n, resource, load.amount(resource)));
      if (uncertain_.empty()) continue;
      // The fraction that surely left: cpu and memory are measured against capacity, so of a
      // measured load its share of capacity (allocatable <= capacity), of an estimate from
      // requests nothing; other resources are figured from requests on both sides: all of it.
      double sure = 1.0;
      if (resource == model::kCpu || resource == model::kMemory) {
        const double capacity = static_cast<double>(n.capacity.get(resource));
        const double allocatable = allocatable_of(n, resource);
        sure = !load.measured             ? 0.0
               : capacity > allocatable   ? allocatable / capacity
                                          : 1.0;
      }
      uncertain_[from * resources_.size() + i] += (before - now) * (1.0 - sure);
    }
    copy_to_index(from);
  }
  if (to != placement::kNoNode && known_[to]) {
    for (auto& [resource, value] : share(to, load)) usage_[to][resource] += value;
    copy_to_index(to);
  }
}

void PredictedUsage::apply(const EvictionDecision& decision, const PodAmounts& load) {
  if (snapshot_->pods[decision.pod].terminated()) return;
  move(decision.node, decision.placed(), load);
}

}  // namespace loadshift::strategies

#include "strategies/predicted_usage.h"

#include <algorithm>
#include <cstdio>

namespace loadshift::strategies {

double PodAmounts::amount(std::string_view resource) const {
  if (resource == placement::kCpu) return cpu_milli;
  if (resource == placement::kMemory) return memory_bytes;
  if (resource == placement::kPods) return 1;
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
  if (resource == placement::kCpu) return trimmed(amount / 1000.0, 2) + " cpu";
  if (resource == placement::kPods) {
    return trimmed(amount, 0) + (amount == 1 ? " pod" : " pods");
  }
  if (resource == placement::kMemory || resource == placement::kEphemeralStorage ||
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

PodAmounts estimated_load(const PlanContext& ctx, PodId pod) {
  PodLoad load = ctx.pod_load(pod);
  PodAmounts out;
  out.cpu_milli = load.cpu_milli;
  out.memory_bytes = load.memory_bytes;
  out.measured = load.measured;
  out.requests = &ctx.index().requests(pod);
  return out;
}

PodAmounts requested_load(const placement::ClusterIndex& index, PodId pod) {
  const placement::ResourceList& requests = index.requests(pod);
  PodAmounts out;
  out.cpu_milli = static_cast<double>(requests.cpu_milli);
  out.memory_bytes = static_cast<double>(requests.memory);
  out.requests = &requests;
  return out;
}

double allocatable_of(const placement::Node& node, std::string_view resource) {
  int64_t amount = node.allocatable.get(resource);
  if (amount <= 0) amount = node.capacity.get(resource);
  return static_cast<double>(std::max<int64_t>(amount, 0));
}

double percent_of(const placement::Node& node, std::string_view resource, double amount) {
  double allocatable = allocatable_of(node, resource);
  if (allocatable <= 0) return amount <= 0 ? 0 : 1e9;
  return 100.0 * amount / allocatable;
}

PredictedUsage::PredictedUsage(const placement::Snapshot& snapshot,
                               std::vector<std::string> resources)
    : snapshot_(snapshot),
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
  const placement::Node& n = snapshot_.nodes[node];
  for (const std::string& resource : resources_) {
    out[resource] = percent_of(n, resource, load.amount(resource));
  }
  return out;
}

void PredictedUsage::move(NodeId from, NodeId to, const PodAmounts& load) {
  if (from != placement::kNoNode && known_[from]) {
    for (auto& [resource, value] : share(from, load)) {
      double& now = usage_[from][resource];
      now = std::max(0.0, now - value);
    }
    copy_to_index(from);
  }
  if (to != placement::kNoNode && known_[to]) {
    for (auto& [resource, value] : share(to, load)) usage_[to][resource] += value;
    copy_to_index(to);
  }
}

void PredictedUsage::apply_plan(const Plan& plan, const std::function<PodAmounts(PodId)>& load) {
  for (const EvictionDecision& decision : plan.evictions) {
    // A finished pod was never counted on its node (no usage, no requests): removing it frees
    // nothing.
    if (snapshot_.pods[decision.pod].terminated()) continue;
    move(decision.node, decision.placed(), load(decision.pod));
  }
}

void record_move_after(PlanContext& ctx, PodId pod, NodeId from, NodeId to) {
  PodAmounts load = estimated_load(ctx, pod);
  auto shift = [&](NodeId node, double sign) {
    if (node == placement::kNoNode) return;
    NodeState& state = ctx.node_state(node);
    const placement::Node& n = ctx.snapshot().nodes[node];
    if (state.cpu) {
      double before = state.cpu_after.value_or(*state.cpu);
      state.cpu_after =
          std::max(0.0, before + sign * percent_of(n, placement::kCpu, load.cpu_milli));
    }
    if (state.memory) {
      double before = state.memory_after.value_or(*state.memory);
      state.memory_after =
          std::max(0.0, before + sign * percent_of(n, placement::kMemory, load.memory_bytes));
    }
  };
  shift(from, -1);
  shift(to, +1);
}

}  // namespace loadshift::strategies

// TargetCaps: the target search's dense form of the plugins' targetThresholds gives the same
// answer as reading the maps (the first resource by name that the pod would push over its cap),
// for caps that differ per node, resources the predicted usage does not track, nodes without
// any of a resource, and after moves.
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "strategies/target_search.h"
#include "test/model/builders.h"

namespace {

using namespace loadshift;
using loadshift::testing::make_node;
using placement::NodeId;
using strategies::PodAmounts;
using strategies::PredictedUsage;
using strategies::TargetCaps;

// The rule as the maps state it: usage now (0 when not tracked) plus the pod's share of the
// node's allocatable (a node with none of a resource takes no pod that needs some).
std::string over_by_maps(const model::Node& node, const policy::Percentages& now,
                         const policy::Percentages& cap, const PodAmounts& load) {
  for (const auto& [resource, limit] : cap) {
    auto it = now.find(resource);
    double before = it == now.end() ? 0 : it->second;
    int64_t allocatable = node.allocatable.get(resource);
    if (allocatable <= 0) allocatable = node.capacity.get(resource);
    double amount = load.amount(resource);
    double share = allocatable > 0 ? 100.0 * amount / static_cast<double>(allocatable)
                   : amount > 0    ? 1e9
                                   : 0;
    if (before + share > limit) return resource;
  }
  return "";
}

std::string over_by_caps(const TargetCaps& caps, const PredictedUsage& predicted, NodeId node,
                         const PodAmounts& load) {
  std::vector<double> amounts = caps.amounts(load);
  const std::string* resource = caps.exceeded(node, amounts, predicted);
  return resource == nullptr ? "" : *resource;
}

}  // namespace

TEST_CASE("TargetCaps: per-node caps, untracked resources, nodes without a resource",
          "[target_search]") {
  model::Snapshot snapshot;
  snapshot.nodes = {make_node("a", 10000), make_node("b", 20000), make_node("c", 10000),
                    make_node("d", 10000)};
  snapshot.nodes[1].allocatable.set("nvidia.com/gpu", 8);
  snapshot.nodes[1].capacity.set("nvidia.com/gpu", 8);
  PredictedUsage predicted(snapshot, {"cpu", "memory"});
  predicted.set(0, {{"cpu", 70}, {"memory", 10}});
  predicted.set(1, {{"cpu", 70}, {"memory", 10}});
  predicted.set(2, {{"cpu", 10}, {"memory", 89}});
  // d stays unknown: its usage reads as 0.
  std::vector<policy::Percentages> high = {
      {{"cpu", 80}, {"memory", 90}}, {{"cpu", 80}, {"nvidia.com/gpu", 50}}, {{"memory", 90}}, {}};
  TargetCaps caps(snapshot, high, predicted);

  model::ResourceList requests;
  requests.set("nvidia.com/gpu", 4);
  PodAmounts pod{
      .cpu_milli = 1500, .memory_bytes = 2.0 * (int64_t{1} << 30), .requests = &requests};

  // a: 70% + 15% cpu > 80.
  CHECK(over_by_caps(caps, predicted, 0, pod) == "cpu");
  // b: 70% + 7.5% cpu fits; 4 of 8 GPUs is 50%, not over 50.
  CHECK(over_by_caps(caps, predicted, 1, pod) == "");
  // c: only memory is capped: 89% + 2 GiB of 128 GiB (1.56%) > 90.
  CHECK(over_by_caps(caps, predicted, 2, pod) == "memory");
  // d: no caps at all.
  CHECK(over_by_caps(caps, predicted, 3, pod) == "");

  // A GPU cap on a node with no GPUs: the pod needs some, so it never fits there.
  high[0] = {{"nvidia.com/gpu", 90}};
  TargetCaps gpu_caps(snapshot, high, predicted);
  CHECK(over_by_caps(gpu_caps, predicted, 0, pod) == "nvidia.com/gpu");
  requests.set("nvidia.com/gpu", 5);
  CHECK(over_by_caps(gpu_caps, predicted, 1, pod) == "nvidia.com/gpu");

  // The caps read the predicted usage as it is now: a move onto b pushes it over.
  predicted.move(placement::kNoNode, 1, PodAmounts{.cpu_milli = 1000});
  requests.set("nvidia.com/gpu", 0);
  CHECK(over_by_caps(gpu_caps, predicted, 1, pod) == "cpu");
}

TEST_CASE("TargetCaps agrees with the maps on random caps and usage", "[target_search]") {
  std::mt19937 random(7);
  const std::vector<std::string> names = {"cpu", "memory", "pods", "nvidia.com/gpu"};
  for (int round = 0; round < 200; ++round) {
    model::Snapshot snapshot;
    size_t node_count = 1 + random() % 6;
    for (size_t n = 0; n < node_count; ++n) {
      model::Node node = make_node(
          "n" + std::to_string(n), static_cast<int64_t>(1000 + random() % 64000),
          static_cast<int64_t>(1 + random() % 256) << 30, static_cast<int64_t>(random() % 4 * 50));
      if (random() % 2) node.allocatable.set("nvidia.com/gpu", static_cast<int64_t>(random() % 9));
      node.capacity = node.allocatable;
      snapshot.nodes.push_back(node);
    }
    std::vector<std::string> tracked = {"cpu", "memory"};
    if (random() % 2) tracked.push_back("pods");
    PredictedUsage predicted(snapshot, tracked);
    std::vector<policy::Percentages> high(node_count);
    for (NodeId n = 0; n < node_count; ++n) {
      if (random() % 4) {
        policy::Percentages now;
        for (const std::string& r : tracked) now[r] = static_cast<double>(random() % 100);
        predicted.set(n, now);
      }
      for (const std::string& r : names) {
        if (random() % 3) high[n][r] = static_cast<double>(random() % 101);
      }
      if (random() % 10 == 0) high[n]["cpu"] = std::numeric_limits<double>::infinity();
    }
    TargetCaps caps(snapshot, high, predicted);
    model::ResourceList requests;
    requests.set("nvidia.com/gpu", static_cast<int64_t>(random() % 3));
    PodAmounts pod{.cpu_milli = static_cast<double>(random() % 8000),
                   .memory_bytes = static_cast<double>(random() % (int64_t{32} << 30)),
                   .requests = &requests};
    for (int step = 0; step < 3; ++step) {
      for (NodeId n = 0; n < node_count; ++n) {
        INFO("round " << round << " step " << step << " node " << n);
        CHECK(over_by_caps(caps, predicted, n, pod) ==
              over_by_maps(snapshot.nodes[n], predicted.of(n), high[n], pod));
      }
      // Moves after the table was built: the caps read the usage as it is then.
      PodAmounts moved{.cpu_milli = static_cast<double>(random() % 4000),
                       .memory_bytes = static_cast<double>(random() % (int64_t{8} << 30))};
      predicted.move(static_cast<NodeId>(random() % node_count),
                     static_cast<NodeId>(random() % node_count), moved);
    }
  }
}

// Node-usage pools: nodes carry a pool label and taint (key configurable, by default
// `maip.mxsf.io/node.usage` = inference | training | hybrid); pods say where they may run through
// required node affinity and tolerations, and where they would rather run through preferred
// affinity. A training pod may run on training and hybrid nodes, never on inference nodes.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::placement {

inline constexpr std::string_view kDefaultPoolLabel = "maip.mxsf.io/node.usage";

// True when a node in pool `pool` passes the pod's required affinity as far as the pool key is
// concerned (requirements on other keys are ignored): some term whose pool-key expressions all
// accept `pool`. Pods without required affinity accept every pool.
bool affinity_allows_pool(const model::Pod& pod, std::string_view pool_key,
                          const std::string& pool);

struct PodPools {
  // Pools (among `known_pools`) the pod may run in: its affinity allows them and it tolerates a
  // NoSchedule pool taint of that value.
  std::vector<std::string> allowed;
  // Pools of the highest-weight preferred term that names the pool key with In (its own pool);
  // empty when the pod states no preference. Pools in `allowed` but not here are the pools the
  // pod merely tolerates (e.g. hybrid).
  std::vector<std::string> preferred;
};
PodPools pod_pools(const model::Pod& pod, std::string_view pool_key,
                   std::span<const std::string> known_pools);

// The usage-pool rule: a node with pool label value v admits the pod only when the pod's
// affinity allows v and the pod tolerates the node's pool taints. Nodes without the label pass.
// `known_pools` (the pool values present in the cluster) only serve the reason's wording.
bool check_usage_pool(const model::Pod& pod, const model::Node& node, std::string_view pool_key,
                      std::span<const std::string> known_pools, Reasons* out);

}  // namespace loadshift::placement

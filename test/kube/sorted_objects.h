// A snapshot's Pods and Nodes as sorted copies (by namespace/name, by name): what two reads of the
// same cluster compare equal as, whatever order each read them in.
#pragma once

#include <algorithm>
#include <vector>

#include "model/model.h"

namespace loadshift::testing {

inline std::vector<model::Pod> sorted_pods(const model::Snapshot& snapshot) {
  std::vector<model::Pod> pods(snapshot.pods.begin(), snapshot.pods.end());
  std::sort(pods.begin(), pods.end(),
            [](const model::Pod& a, const model::Pod& b) { return a.key() < b.key(); });
  return pods;
}

inline std::vector<model::Node> sorted_nodes(const model::Snapshot& snapshot) {
  std::vector<model::Node> nodes(snapshot.nodes.begin(), snapshot.nodes.end());
  std::sort(nodes.begin(), nodes.end(),
            [](const model::Node& a, const model::Node& b) { return a.meta.name < b.meta.name; });
  return nodes;
}

}  // namespace loadshift::testing

// Test helper: one node's score among the scheduler model's scores.
#pragma once

#include <catch2/catch.hpp>

#include <vector>

#include "placement/scheduler_model.h"

namespace loadshift::testing {

inline const placement::NodeScore& score_of(const std::vector<placement::NodeScore>& scores,
                                            placement::NodeId node) {
  for (const placement::NodeScore& s : scores) {
    if (s.node == node) return s;
  }
  FAIL("node " << node << " not scored");
  return scores.front();
}

}  // namespace loadshift::testing

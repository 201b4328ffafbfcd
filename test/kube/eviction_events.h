// loadshift's eviction Events as the controller writes them (controller/workload_moves.h), for
// tests that seed the fake API server with earlier moves.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "model/rfc3339.h"

namespace loadshift::testing {

// An eviction Event of pod `name` in namespace `ns`, `related` to the ReplicaSet `owner`, at `at`;
// without the node annotations (an older loadshift's) unless the caller adds them.
inline nlohmann::json eviction_event(const std::string& name, const std::string& ns,
                                     const std::string& owner,
                                     std::chrono::system_clock::time_point at) {
  return {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"eventTime", model::format_micro_time(at)},
      {"reportingController", "loadshift.io/descheduler"},
      {"reportingInstance", "loadshift-0"},
      {"action", "Descheduled"},
      {"reason", "LoadAware"},
      {"type", "Normal"},
      {"regarding", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"namespace", ns}, {"name", name}}},
      {"related",
       {{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"namespace", ns}, {"name", owner}}}};
}

}  // namespace loadshift::testing

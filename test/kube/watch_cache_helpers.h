// Helpers of the watch cache's tests: quick options, waiting for a condition, a pod to send.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "kube/watch_cache.h"

namespace loadshift::testing::watch_cache {

using loadshift::kube::WatchCache;
using loadshift::kube::WatchCacheOptions;

inline WatchCacheOptions quick() {
  WatchCacheOptions options;
  options.list.page_size = 7;
  options.first_backoff = std::chrono::milliseconds(50);
  options.max_backoff = std::chrono::milliseconds(200);
  options.crd_recheck = std::chrono::seconds(1);
  options.watch_timeout = std::chrono::seconds(30);
  return options;
}

// Waits (generously: this is about correctness, not speed) until `done` holds.
inline bool eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 300; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

inline bool has_pod(const WatchCache& cache, const std::string& name) {
  loadshift::model::Snapshot s = cache.snapshot();
  return std::any_of(s.pods.begin(), s.pods.end(),
                     [&](const auto& pod) { return pod.meta.name == name; });
}

inline nlohmann::json pod(const std::string& name, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}},
          {"spec",
           {{"nodeName", node},
            {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", "100m"}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

}  // namespace loadshift::testing::watch_cache

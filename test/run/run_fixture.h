// The controller against the fake API server and a fake Prometheus: the bundled seed cluster
// (te3 runs hot, its two low-priority ReplicaSet pods are the plan's evictions), pods Ready as
// the API serves them, and every part of `loadshift run` wired as run_controller wires it.
#pragma once

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "controller/controller_metrics.h"
#include "controller/descheduling_loop.h"
#include "controller/leader_election.h"
#include "controller/policy_watcher.h"
#include "controller/structured_log.h"
#include "kube/api_client.h"
#include "kube/watch_cache.h"
#include "metrics/self_metrics.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/seed_cluster.h"
#include "test/metrics/fake_prometheus.h"

namespace loadshift::testing {

namespace fs = std::filesystem;

struct RunTempDir {
  fs::path dir =
      fs::temp_directory_path() / ("loadshift-run-test-" + std::to_string(std::random_device{}()));
  RunTempDir() { fs::create_directories(dir); }
  ~RunTempDir() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    // Written aside and renamed, as a ConfigMap volume swaps its files.
    std::string tmp = path(name + ".tmp");
    std::ofstream(tmp) << text;
    fs::rename(tmp, path(name));
    return path(name);
  }
};

// The seed's LoadAware policy, bare, with `top_level` lines added (e.g. gracePeriodSeconds).
inline std::string seed_policy(const std::string& top_level = "",
                               const std::string& target_cpu = "80",
                               const std::string& metrics_extra = "") {
  return "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\n" + top_level +
         "profiles:\n- name: kube-system\n  pluginConfig:\n  - name: DefaultEvictor\n"
         "    args: {ignorePvcPods: true, nodeFit: true, priorityThreshold: {value: 10000}}\n"
         "  - name: LoadAware\n    args:\n"
         "      evictableNamespaces: {exclude: [default]}\n"
         "      metrics: {address: \"http://prometheus.invalid:9090\", type: Prometheus" +
         metrics_extra +
         "}\n"
         "      targetThresholds: {cpu: " +
         target_cpu +
         ", memory: 85}\n"
         "      thresholds: {cpu: 30, memory: 30}\n"
         "  plugins:\n    balance: {enabled: [LoadAware]}\n";
}

// Seed usage: te3 at 92% cpu, the others between 12% and 55%.
inline FakeResponse seed_usage_answer(const FakeRequest& r) {
  std::string q = r.form("query");
  const std::map<std::string, std::pair<const char*, const char*>> usage = {
      {"te1", {"45", "50"}}, {"te2", {"55", "60"}}, {"te3", {"92", "70"}}, {"te4", {"25", "28"}},
      {"te5", {"20", "25"}}, {"te6", {"12", "18"}}, {"te7", {"48", "40"}}, {"te8", {"15", "22"}}};
  std::vector<std::pair<std::map<std::string, std::string>, std::string>> samples;
  if (q.find("container") == std::string::npos) {  // node queries, not the pod ones
    bool memory = q.find("memory") != std::string::npos || q.find("Mem") != std::string::npos;
    for (const auto& [node, values] : usage) {
      samples.push_back({{{"instance", node}}, memory ? values.second : values.first});
    }
  }
  return FakeResponse{200, vector_body(samples)};
}

// Serves the seed cluster with every running pod Ready (the seed file has no conditions; a real
// API server always has them).
inline void serve_ready_seed(FakeApiServer& server) {
  serve_seed_cluster(server);
  std::vector<nlohmann::json> pods = server.objects("/api/v1/pods");
  for (nlohmann::json& pod : pods) {
    if (pod["status"].value("phase", "") != "Running") continue;
    pod["status"]["conditions"] = nlohmann::json::array({{{"type", "Ready"}, {"status", "True"}}});
    pod["metadata"].erase("resourceVersion");
  }
  server.set_objects("/api/v1/pods", std::move(pods));
}

// The seed cluster served Ready, a Prometheus answering the seed usage, a temp dir:
//   SeedCluster world;
//   auto& [server, prometheus, tmp] = world;
struct SeedCluster {
  FakeApiServer server;
  FakePrometheus prometheus;
  RunTempDir tmp;
  explicit SeedCluster(FakeApiServerOptions options = {}) : server(std::move(options)) {
    serve_ready_seed(server);
    prometheus.set_handler(seed_usage_answer);
  }
};

// A PodDisruptionBudget that allows no disruption of the seed's low-priority ReplicaSet (both
// hot pods): every eviction of them is refused with a 429.
inline nlohmann::json blocking_pdb() {
  return nlohmann::json::parse(R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget",
      "metadata":{"name":"lpw","namespace":"load-test","generation":1},
      "spec":{"minAvailable":2,"selector":{"matchLabels":{"app":"low-priority-app"}}},
      "status":{"observedGeneration":1,"disruptionsAllowed":0,"currentHealthy":2,"desiredHealthy":2,
                "expectedPods":2}})");
}

inline const std::string kHotPodA = "low-priority-workload-5f6b7-k2x9p";
inline const std::string kHotPodB = "low-priority-workload-5f6b7-m4n8q";

inline kube::WatchCacheOptions fast_cache() {
  kube::WatchCacheOptions options;
  options.first_backoff = std::chrono::milliseconds(100);
  options.max_backoff = std::chrono::milliseconds(200);
  return options;
}

// Polls `condition` every 20 ms for up to `seconds`.
template <typename F>
bool eventually(F condition, double seconds = 10) {
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

// The requests of `server` whose method and path match.
inline size_t count_requests(const FakeApiServer& server, const std::string& method,
                             const std::string& path_part) {
  size_t n = 0;
  for (const RecordedRequest& r : server.requests()) {
    if (r.method == method && r.path.find(path_part) != std::string::npos) ++n;
  }
  return n;
}

// Reads a prometheus-cpp registry in the text format.
std::string scrape(prometheus::Registry& registry);

// One replica of the controller, as run_controller builds it, on `server` and `prometheus`.
struct Replica {
  RunTempDir& tmp;
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  kube::ApiClient client;
  kube::WatchCache cache;
  controller::PolicyWatcher policy;
  controller::ControllerMetrics metrics{*registry, "test"};
  metrics::SelfMetrics self_metrics{registry};
  std::unique_ptr<controller::LeaderElector> elector;
  std::atomic<bool> stop{false};
  std::unique_ptr<controller::DeschedulingLoop> loop;

  Replica(FakeApiServer& server, const FakePrometheus& prometheus, RunTempDir& dir,
          const std::string& policy_file, controller::LoopSettings settings = {},
          std::optional<controller::LeaderElectionConfig> election = std::nullopt,
          const std::string& token = "admin-token",
          kube::WatchCacheOptions cache_options = fast_cache())
      : tmp(dir),
        client(access_to(server, token), fast_client()),
        cache(client, cache_options),
        policy(policy_file, *registry) {
    policy::LoadResult initial = policy.load_initial();
    INFO((initial.errors.empty() ? std::string() : initial.errors.front().to_string()));
    REQUIRE(initial.ok());
    if (election) {
      elector = std::make_unique<controller::LeaderElector>(client, *election);
      elector->start();
    }
    if (settings.prometheus_url.empty()) settings.prometheus_url = prometheus.url();
    loop = std::make_unique<controller::DeschedulingLoop>(
        client, cache, policy, metrics, self_metrics, elector.get(), settings, stop);
    cache.start();
    REQUIRE(cache.wait_synced(std::chrono::milliseconds(10000)));
  }

  controller::CycleOutcome cycle() { return loop->run_cycle(); }
};

inline controller::LeaderElectionConfig fast_election(const std::string& identity) {
  controller::LeaderElectionConfig config;
  config.namespace_ = "kube-system";
  config.name = "loadshift";
  config.identity = identity;
  config.lease_duration = std::chrono::milliseconds(3000);
  config.renew_deadline = std::chrono::milliseconds(1000);
  config.retry_period = std::chrono::milliseconds(200);
  return config;
}

// Captures the controller's log lines (text) for the lifetime of the object.
struct LogCapture {
  std::ostringstream lines;
  LogCapture() { controller::configure_logging(controller::LogFormat::kText, &lines); }
  ~LogCapture() { controller::configure_logging(controller::LogFormat::kText); }
  std::string text() const { return lines.str(); }
};

}  // namespace loadshift::testing

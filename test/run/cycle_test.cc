// One replica's cycles against the fake API server: what it evicts, how, and when it evicts
// nothing.
#include <nlohmann/json.hpp>

#include "controller/pod_evictor.h"
#include "model/rfc3339.h"
#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<nlohmann::json> eviction_bodies(const FakeApiServer& server) {
  std::vector<nlohmann::json> out;
  for (const RecordedRequest& r : server.writes()) {
    if (r.path.find("/eviction") != std::string::npos) out.push_back(nlohmann::json::parse(r.body));
  }
  return out;
}

std::vector<nlohmann::json> events(const FakeApiServer& server) {
  return server.objects("/apis/events.k8s.io/v1/events");
}

bool has_pod(const FakeApiServer& server, const std::string& name) {
  for (const nlohmann::json& pod : server.objects("/api/v1/pods")) {
    if (pod["metadata"]["name"] == name) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a cycle evicts the planned pods through the Eviction API, with Events", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy("gracePeriodSeconds: 7\n"));
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;  // no workload limit: both pods of the ReplicaSet
  Replica replica(server, prometheus, tmp, policy, settings);

  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  CHECK(outcome.result == "evicted");
  CHECK(outcome.planned == 2);
  CHECK(outcome.evicted == 2);

  std::vector<nlohmann::json> bodies = eviction_bodies(server);
  REQUIRE(bodies.size() == 2);
  for (const nlohmann::json& body : bodies) {
    CHECK(body["apiVersion"] == "policy/v1");
    CHECK(body["kind"] == "Eviction");
    const std::string name = body["metadata"]["name"];
    CHECK(body["deleteOptions"]["preconditions"]["uid"] == "uid-" + name);
    CHECK(body["deleteOptions"]["gracePeriodSeconds"] == 7);
  }
  CHECK_FALSE(has_pod(server, kHotPodA));
  CHECK_FALSE(has_pod(server, kHotPodB));
  // Never a DELETE, never anything but evictions and Events.
  for (const RecordedRequest& r : server.writes()) {
    CHECK(r.method == "POST");
    bool eviction = r.path.find("/eviction") != std::string::npos;
    bool event = r.path.find("/apis/events.k8s.io/v1/namespaces/load-test/events") == 0;
    CHECK((eviction || event));
  }
  std::vector<nlohmann::json> written = events(server);
  REQUIRE(written.size() == 2);
  for (const nlohmann::json& e : written) {
    CHECK(e["type"] == "Normal");
    CHECK(e["reason"] == "LoadAware");
    CHECK(e["action"] == "Descheduled");
    CHECK(e["regarding"]["kind"] == "Pod");
    CHECK_THAT(e["note"].get<std::string>(), Contains("pod evicted from node te3 by loadshift"));
    CHECK_THAT(e["note"].get<std::string>(), Contains("te3 cpu"));
  }
  std::string metrics = scrape(*replica.registry);
  CHECK_THAT(metrics,
             Contains("descheduler_pods_evicted_total{namespace=\"load-test\",node=\"te3\","
                      "profile=\"kube-system\",result=\"success\",strategy=\"LoadAware\"} 2"));
  CHECK_THAT(metrics, Contains("loadshift_cycles_total{result=\"evicted\"} 1"));
  CHECK_THAT(metrics, Contains("loadshift_evictions_by_owner_total{namespace=\"load-test\","
                               "owner=\"low-priority-workload-5f6b7\",owner_kind=\"ReplicaSet\","
                               "result=\"success\"} 2"));
  CHECK_THAT(
      metrics,
      Contains("loadshift_node_class{class=\"overutilized\",node=\"te3\",pool=\"training\"} 1"));
  CHECK_THAT(metrics, Contains("loadshift_usage_node_coverage_ratio 1"));
  CHECK_THAT(metrics,
             Contains("descheduler_strategy_duration_seconds_count{profile=\"kube-system\","
                      "strategy=\"LoadAware\"} 1"));
}

TEST_CASE("at most N pods of one workload are in flight", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.workload_cooldown = std::chrono::seconds(0);  // the next cycle may move the other pod
  Replica replica(server, prometheus, tmp, policy, settings);  // default: 1 per workload

  SECTION("the second pod of the ReplicaSet waits for the next cycle") {
    // The plan itself keeps the limit (the report shows the same), the executor checks again.
    controller::CycleOutcome first = replica.cycle();
    CHECK(first.planned == 1);
    CHECK(first.evicted == 1);
    CHECK(first.skipped == 0);
    CHECK(eviction_bodies(server).size() == 1);
    // The cache sees the first pod go; the other one is Ready: the next cycle may move it.
    REQUIRE(eventually([&] { return replica.cache.pod("load-test", kHotPodA) == std::nullopt; }));
    controller::CycleOutcome second = replica.cycle();
    CHECK(second.evicted == 1);
    CHECK(eviction_bodies(server).size() == 2);
  }
  SECTION("a pod of the workload that is not Ready counts as in flight") {
    std::vector<nlohmann::json> pods = server.objects("/api/v1/pods");
    for (nlohmann::json& pod : pods) {
      if (pod["metadata"]["name"] == kHotPodB) {
        pod["status"]["conditions"][0]["status"] = "False";
        pod["metadata"].erase("resourceVersion");
        server.upsert("/api/v1/pods", pod);
      }
    }
    REQUIRE(eventually([&] {
      auto pod = replica.cache.pod("load-test", kHotPodB);
      return pod && pod->ready == false;
    }));
    controller::CycleOutcome outcome = replica.cycle();
    // The not-Ready pod itself may go (it serves nothing); the Ready one must wait for it.
    CHECK(outcome.evicted == 1);
    std::vector<nlohmann::json> bodies = eviction_bodies(server);
    REQUIRE(bodies.size() == 1);
    CHECK(bodies[0]["metadata"]["name"] == kHotPodB);
  }
  SECTION("a terminating pod of the workload counts as in flight") {
    std::vector<nlohmann::json> pods = server.objects("/api/v1/pods");
    for (nlohmann::json& pod : pods) {
      if (pod["metadata"]["name"] == "low-priority-workload-5f6b7-x7y8z" ||
          pod["metadata"]["name"] == kHotPodB) {
        continue;
      }
    }
    // A third pod of the ReplicaSet, on another node, being deleted.
    nlohmann::json third;
    for (nlohmann::json& pod : pods) {
      if (pod["metadata"]["name"] == kHotPodA) third = pod;
    }
    third["metadata"]["name"] = "low-priority-workload-5f6b7-zzzzz";
    third["metadata"]["uid"] = "uid-zzzzz";
    third["metadata"]["deletionTimestamp"] = "2026-11-24T00:00:00Z";
    third["metadata"].erase("resourceVersion");
    third["spec"]["nodeName"] = "te1";
    server.upsert("/api/v1/pods", third);
    REQUIRE(eventually([&] {
      return replica.cache.pod("load-test", "low-priority-workload-5f6b7-zzzzz").has_value();
    }));
    controller::CycleOutcome outcome = replica.cycle();
    CHECK(outcome.planned == 0);  // the plan sees the third pod in flight
    CHECK(outcome.evicted == 0);
    CHECK(eviction_bodies(server).empty());
  }
  SECTION("the two ReplicaSets of a Deployment's rollout are one workload") {
    // A is of ReplicaSet web-aaa, B of web-bbb (labels pod-template-hash aaa / bbb), B not Ready.
    std::vector<nlohmann::json> pods = server.objects("/api/v1/pods");
    for (nlohmann::json& pod : pods) {
      std::string name = pod["metadata"]["name"];
      if (name != kHotPodA && name != kHotPodB) continue;
      std::string hash = name == kHotPodA ? "aaa" : "bbb";
      pod["metadata"]["labels"]["pod-template-hash"] = hash;
      pod["metadata"]["ownerReferences"][0]["name"] = "web-" + hash;
      pod["metadata"]["ownerReferences"][0]["uid"] = "uid-rs-" + hash;
      if (name == kHotPodB) pod["status"]["conditions"][0]["status"] = "False";
      pod["metadata"].erase("resourceVersion");
      server.upsert("/api/v1/pods", pod);
    }
    REQUIRE(eventually([&] {
      auto b = replica.cache.pod("load-test", kHotPodB);
      auto a = replica.cache.pod("load-test", kHotPodA);
      return a && b && b->ready == false && a->meta.labels.find("pod-template-hash") != nullptr;
    }));
    controller::CycleOutcome outcome = replica.cycle();
    // B (not Ready) may go; A must wait: Deployment web already has B in flight.
    CHECK(outcome.evicted == 1);
    std::vector<nlohmann::json> bodies = eviction_bodies(server);
    REQUIRE(bodies.size() == 1);
    CHECK(bodies[0]["metadata"]["name"] == kHotPodB);
    CHECK_THAT(scrape(*replica.registry),
               Contains("loadshift_evictions_by_owner_total{namespace=\"load-test\",owner=\"web\","
                        "owner_kind=\"Deployment\",result=\"success\"} 1"));
  }
}

TEST_CASE("a PodDisruptionBudget that forbids the eviction is recorded and the pod skipped",
          "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  server.set_objects("/apis/policy/v1/poddisruptionbudgets", {blocking_pdb()});
  std::string policy =
      tmp.write("policy.yaml", seed_policy("evictionFailureEventNotification: true\n"));
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings);

  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.planned == 2);
  CHECK(outcome.evicted == 0);
  CHECK(outcome.failed == 2);
  CHECK(has_pod(server, kHotPodA));
  CHECK(has_pod(server, kHotPodB));
  // One attempt each: a PDB's 429 is not retried.
  CHECK(eviction_bodies(server).size() == 2);
  std::vector<nlohmann::json> written = events(server);
  REQUIRE(written.size() == 2);
  for (const nlohmann::json& e : written) {
    CHECK(e["type"] == "Warning");
    CHECK(e["reason"] == "EvictionFailed");
    CHECK_THAT(e["note"].get<std::string>(), Contains("disruption budget"));
  }
  std::string metrics = scrape(*replica.registry);
  CHECK_THAT(metrics, Contains("result=\"error\",strategy=\"LoadAware\"} 2"));
  CHECK_THAT(metrics, Contains("loadshift_evictions_skipped_total{reason=\"pdb\"} 2"));
}

TEST_CASE("the evictor: 404, a replaced pod, retries of 5xx", "[run]") {
  FakeApiServer server;
  serve_ready_seed(server);
  kube::ApiClient client(access_to(server), fast_client());
  controller::PodEvictorOptions options;
  options.first_backoff = std::chrono::milliseconds(10);
  controller::PodEvictor evictor(client, options);
  model::Pod pod;
  pod.meta.namespace_ = "load-test";
  pod.meta.name = kHotPodA;
  pod.meta.uid = "uid-" + kHotPodA;
  auto allowed = [] { return std::string(); };

  SECTION("429 from API Priority and Fairness: a failure, not a PDB, and not retried") {
    server.fail_next("/api/v1/namespaces/load-test/pods/" + kHotPodA + "/eviction", 429, 1, 1);
    controller::EvictionOutcome outcome = evictor.evict(pod, allowed);
    CHECK(outcome.result == controller::EvictionResult::kFailed);
    CHECK(outcome.attempts == 1);
    CHECK(count_requests(server, "POST", "/eviction") == 1);
    CHECK(has_pod(server, kHotPodA));
  }
  SECTION("no permission: nothing is sent") {
    controller::EvictionOutcome outcome =
        evictor.evict(pod, [] { return std::string("lease lost"); });
    CHECK(outcome.stopped);
    CHECK(outcome.attempts == 0);
    CHECK(count_requests(server, "POST", "/eviction") == 0);
  }
  SECTION("a pod recreated under the same name is never hit") {
    model::Pod stale = pod;
    stale.meta.uid = "uid-of-an-older-pod";
    controller::EvictionOutcome outcome = evictor.evict(stale, allowed);
    CHECK(outcome.result == controller::EvictionResult::kReplaced);
    CHECK(outcome.attempts == 1);
    CHECK(has_pod(server, kHotPodA));
  }
  SECTION("404: already gone") {
    server.remove("/api/v1/pods", "load-test", kHotPodA);
    CHECK(evictor.evict(pod, allowed).result == controller::EvictionResult::kGone);
  }
  SECTION("500 twice, then evicted") {
    server.fail_next("/api/v1/namespaces/load-test/pods/" + kHotPodA + "/eviction", 500, 2);
    controller::EvictionOutcome outcome = evictor.evict(pod, allowed);
    CHECK(outcome.result == controller::EvictionResult::kEvicted);
    CHECK(outcome.attempts == 3);
    CHECK_FALSE(has_pod(server, kHotPodA));
  }
  SECTION("500 for good: failed after max_attempts, with the API's answer") {
    server.fail_next("/api/v1/namespaces/load-test/pods/" + kHotPodA + "/eviction", 500, 5);
    controller::EvictionOutcome outcome = evictor.evict(pod, allowed);
    CHECK(outcome.result == controller::EvictionResult::kFailed);
    CHECK(outcome.attempts == 3);
    CHECK_THAT(outcome.detail, Contains("500"));
    CHECK(has_pod(server, kHotPodA));
  }
  SECTION("an Event names the pod and its uid") {
    CHECK(evictor.post_event(pod, {"Normal", "LoadAware", "moved", "", ""}).empty());
    std::vector<nlohmann::json> written = events(server);
    REQUIRE(written.size() == 1);
    CHECK(written[0]["regarding"]["uid"] == pod.meta.uid);
    CHECK(written[0]["reportingController"] == "loadshift.io/descheduler");
  }
}

TEST_CASE("the policy's eviction limits hold in the controller", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  auto [limit, result] = GENERATE(table<std::string, std::string>(
      {{"maxNoOfPodsToEvictPerNode", "maximum number of evicted pods per node reached"},
       {"maxNoOfPodsToEvictPerNamespace", "maximum number of evicted pods per namespace reached"},
       {"maxNoOfPodsToEvictTotal",
        "maximum number of evicted pods per a descheduling cycle reached"}}));
  INFO(limit);
  std::string policy = tmp.write("policy.yaml", seed_policy(limit + ": 1\n"));
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings);
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.evicted == 1);
  CHECK(eviction_bodies(server).size() == 1);
  CHECK_THAT(scrape(*replica.registry), Contains("result=\"" + result + "\""));
}

TEST_CASE("dry run: the plan is logged and nothing is written", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  std::ostringstream log;
  controller::configure_logging(controller::LogFormat::kJson, &log);
  controller::LoopSettings settings;
  settings.dry_run = true;
  // Both pods of the ReplicaSet in one plan (by default one pod per workload is in flight).
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings);
  controller::CycleOutcome outcome = replica.cycle();
  controller::configure_logging(controller::LogFormat::kText);
  CHECK(outcome.planned == 2);
  CHECK(outcome.evicted == 0);
  CHECK(server.writes().empty());
  CHECK_THAT(log.str(), Contains("\"msg\":\"would evict (dry run)\""));
  CHECK_THAT(log.str(), Contains(kHotPodA));
  CHECK_THAT(log.str(), Contains("Evictions (2)"));  // the report's table, in the log
  // Every line is one JSON object.
  std::istringstream lines(log.str());
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(nlohmann::json::parse(line, nullptr, false).is_object());
  }
}

TEST_CASE("Prometheus down: nothing evicted, and back by itself", "[run]") {
  FakeApiServer server;
  serve_ready_seed(server);
  FakePrometheus prometheus;
  std::atomic<bool> down{true};
  prometheus.set_handler([&](const FakeRequest& r) {
    if (down) return FakeResponse{503, "Service Unavailable", "text/plain"};
    return seed_usage_answer(r);
  });
  RunTempDir tmp;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  Replica replica(server, prometheus, tmp, policy);
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.result == "skipped");
  CHECK(outcome.skip_reason == "usage_fetch_failed");
  CHECK_THAT(outcome.why, Contains("503"));
  CHECK(server.writes().empty());
  CHECK_THAT(replica.loop->readiness().detail, Contains("why: usage fetch"));
  std::string metrics = scrape(*replica.registry);
  CHECK_THAT(metrics, Contains("loadshift_cycles_skipped_total{reason=\"usage_fetch_failed\"} 1"));
  CHECK_THAT(metrics, Contains("loadshift_usage_fetch_errors_total 1"));

  down = false;
  outcome = replica.cycle();
  CHECK(outcome.result == "evicted");
}

TEST_CASE("a lost API server connection: the cache goes stale, nothing is evicted, it recovers",
          "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.cache_max_staleness_seconds = 3;
  // Every watch ends after 1 s, so a healthy collection answers at least every second.
  kube::WatchCacheOptions cache = fast_cache();
  cache.watch_timeout = std::chrono::seconds(1);
  Replica replica(server, prometheus, tmp, policy, settings, std::nullopt, "admin-token", cache);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK(replica.cache.stats().max_seconds_since_contact < 3);
  // The pods watch breaks and every reconnect fails for several seconds (the client tries 5
  // times per reconnect, the cache backs off 200 ms between reconnects).
  server.fail_next("/api/v1/pods", 500, 150);
  server.drop_watches("/api/v1/pods");
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.result == "skipped");
  CHECK(outcome.skip_reason == "cache_stale");
  CHECK(count_requests(server, "POST", "/eviction") == 0);
  // Back: the cache relists or rewatches by itself, and the next cycle evicts.
  REQUIRE(eventually([&] { return replica.cache.stats().max_seconds_since_contact < 2; }, 20));
  outcome = replica.cycle();
  CHECK(outcome.result == "evicted");
}

TEST_CASE("an unsynced or unreadable cache plans nothing", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  Replica replica(server, prometheus, tmp, policy);
  nlohmann::json broken = server.objects("/api/v1/pods").front();
  broken["metadata"].erase("resourceVersion");
  broken["metadata"]["name"] = "broken";
  broken["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", "lots"}}}};
  server.upsert("/api/v1/pods", broken);
  REQUIRE(eventually([&] { return !replica.cache.decode_errors().empty(); }));
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.result == "skipped");
  CHECK(outcome.skip_reason == "cache_unreadable_objects");
  CHECK_THAT(outcome.why, Contains("broken"));
  CHECK(server.writes().empty());
}

TEST_CASE("the policy reloads: a valid new one applies, an invalid one keeps the old", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy("", "95"));  // te3 at 92% is fine
  controller::LoopSettings settings;
  settings.plan.workload_cooldown = std::chrono::seconds(0);  // the third cycle plans the other pod
  Replica replica(server, prometheus, tmp, policy, settings);
  CHECK(replica.cycle().planned == 0);
  CHECK_THAT(scrape(*replica.registry), Contains("loadshift_policy_valid 1"));

  tmp.write("policy.yaml", seed_policy("", "80"));  // now it is hot
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.planned == 1);  // one pod of the ReplicaSet in flight at a time
  CHECK(outcome.evicted == 1);

  tmp.write("policy.yaml",
            "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles: 7\n");
  outcome = replica.cycle();
  CHECK(outcome.result != "skipped");
  CHECK(outcome.planned >= 1);  // the 80% policy still runs
  std::string metrics = scrape(*replica.registry);
  CHECK_THAT(metrics, Contains("loadshift_policy_reloads_total{result=\"failure\"} 1"));
  CHECK_THAT(metrics, Contains("loadshift_policy_reloads_total{result=\"success\"} 1"));
  CHECK_THAT(metrics, Contains("loadshift_policy_valid 0"));

  // Fixed again: valid, and counted as a second successful reload.
  tmp.write("policy.yaml", seed_policy("", "80"));
  replica.cycle();
  metrics = scrape(*replica.registry);
  CHECK_THAT(metrics, Contains("loadshift_policy_valid 1"));
  CHECK_THAT(metrics, Contains("loadshift_policy_reloads_total{result=\"success\"} 2"));
}

TEST_CASE("a changed target or a moved pod is not evicted on the old plan", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings);
  // Plan on the cache as it is, then change the world before the executor runs.
  model::Snapshot snapshot = replica.cache.snapshot();
  placement::ClusterIndex index(snapshot);
  strategies::Plan plan;
  strategies::EvictionDecision decision;
  decision.strategy = "LoadAware";
  decision.profile = "kube-system";
  for (placement::PodId id = 0; id < snapshot.pods.size(); ++id) {
    if (snapshot.pods[id].meta.name == kHotPodA || snapshot.pods[id].meta.name == kHotPodB) {
      decision.pod = id;
      decision.node = index.node_id("te3");
      decision.target = index.node_id("te8");
      plan.evictions.push_back(decision);
    }
  }
  REQUIRE(plan.evictions.size() == 2);
  kube::ApiClient& client = replica.client;
  controller::PodEvictor evictor(client, {});
  controller::PlanExecutor executor(replica.cache, evictor, replica.metrics, {0, false});
  auto allowed = [] { return std::string(); };

  SECTION("the executor checks the in-flight limit again (this plan was made without it)") {
    controller::PlanExecutor limited(replica.cache, evictor, replica.metrics, {1, false});
    controller::ExecutionSummary summary = limited.execute(index, plan, allowed);
    CHECK(summary.evicted == 1);
    CHECK(summary.skipped == 1);
    CHECK_THAT(summary.evictions[1].detail, Contains("pod(s) in flight"));
    CHECK_THAT(scrape(*replica.registry),
               Contains("loadshift_evictions_skipped_total{reason=\"workload_in_flight\"} 1"));
  }
  SECTION("the target was tainted since the plan") {
    nlohmann::json te8;
    for (const nlohmann::json& node : server.objects("/api/v1/nodes")) {
      if (node["metadata"]["name"] == "te8") te8 = node;
    }
    te8["spec"]["taints"].push_back(
        {{"key", "maintenance"}, {"value", "true"}, {"effect", "NoSchedule"}});
    te8["metadata"].erase("resourceVersion");
    size_t taints = replica.cache.node("te8")->taints.size();
    server.upsert("/api/v1/nodes", te8);
    REQUIRE(eventually([&] { return replica.cache.node("te8")->taints.size() == taints + 1; }));
    controller::ExecutionSummary summary = executor.execute(index, plan, allowed);
    CHECK(summary.evicted == 0);
    CHECK(summary.skipped == 2);
    CHECK_THAT(summary.evictions[0].detail, Contains("target changed since the plan: node te8"));
    CHECK(server.writes().empty());
  }
  SECTION("a pod arrived on the target since the plan") {
    nlohmann::json newcomer = server.objects("/api/v1/pods").front();
    newcomer["metadata"] = {{"name", "newcomer"}, {"namespace", "load-test"}, {"uid", "uid-new"}};
    newcomer["spec"]["nodeName"] = "te8";
    server.upsert("/api/v1/pods", newcomer);
    REQUIRE(eventually([&] { return replica.cache.pod("load-test", "newcomer").has_value(); }));
    controller::ExecutionSummary summary = executor.execute(index, plan, allowed);
    CHECK(summary.evicted == 0);
    CHECK_THAT(summary.evictions[0].detail, Contains("pod load-test/newcomer arrived on te8"));
  }
  SECTION("the pod was replaced under the same name") {
    nlohmann::json pod;
    for (const nlohmann::json& p : server.objects("/api/v1/pods")) {
      if (p["metadata"]["name"] == kHotPodA) pod = p;
    }
    pod["metadata"]["uid"] = "uid-recreated";
    pod["metadata"].erase("resourceVersion");
    server.upsert("/api/v1/pods", pod);
    REQUIRE(eventually(
        [&] { return replica.cache.pod("load-test", kHotPodA)->meta.uid == "uid-recreated"; }));
    controller::ExecutionSummary summary = executor.execute(index, plan, allowed);
    CHECK(summary.evicted == 1);  // the other pod
    bool said = false;
    for (const auto& e : summary.evictions)
      said |= e.detail.find("pod replaced") != std::string::npos;
    CHECK(said);
    CHECK(has_pod(server, kHotPodA));
  }
  SECTION("permission withdrawn: nothing from there on") {
    // Asked three times for the first eviction (before the checks, before the attempt, right
    // before the request leaves), then gone.
    int calls = 0;
    controller::ExecutionSummary summary = executor.execute(
        index, plan, [&] { return ++calls <= 3 ? std::string() : std::string("lease lost"); });
    CHECK(summary.evicted == 1);
    CHECK(summary.stopped == "lease lost");
    CHECK(count_requests(server, "POST", "/eviction") == 1);
  }
}

TEST_CASE("a finished pod that RemoveFailedPods chose is evicted, without a target", "[run]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  // kHotPodA failed two hours ago (out of cpu at admission, as the kubelet says it).
  std::vector<nlohmann::json> pods = server.objects("/api/v1/pods");
  bool found = false;
  for (nlohmann::json& pod : pods) {
    if (pod["metadata"]["name"] != kHotPodA) continue;
    found = true;
    pod["status"]["phase"] = "Failed";
    pod["status"]["reason"] = "OutOfcpu";
    pod["status"].erase("conditions");
    pod["metadata"]["creationTimestamp"] =
        model::format_rfc3339(std::chrono::system_clock::now() - std::chrono::hours(2));
  }
  REQUIRE(found);
  // Its sibling is not Ready: the per-workload limit (1 in flight) would hold a running pod
  // back, but a finished one serves nothing and goes.
  for (nlohmann::json& pod : pods) {
    if (pod["metadata"]["name"] != kHotPodB) continue;
    pod["status"]["conditions"] = nlohmann::json::array({{{"type", "Ready"}, {"status", "False"}}});
  }
  server.set_objects("/api/v1/pods", std::move(pods));
  std::string policy = tmp.write(
      "policy.yaml",
      "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: failed\n"
      "  pluginConfig:\n  - name: RemoveFailedPods\n    args: {reasons: [OutOfcpu]}\n"
      "  plugins:\n    deschedule: {enabled: [RemoveFailedPods]}\n");
  Replica replica(server, prometheus, tmp, policy);
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.planned == 1);
  CHECK(outcome.evicted == 1);
  std::vector<nlohmann::json> bodies = eviction_bodies(server);
  REQUIRE(bodies.size() == 1);
  CHECK(bodies[0]["metadata"]["name"] == kHotPodA);
  CHECK_FALSE(has_pod(server, kHotPodA));
}

// Several replicas: only the Lease holder evicts; failover; an expired lease stops evictions
// mid-cycle; stopping releases the lease.
#include <nlohmann/json.hpp>

#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

nlohmann::json lease(const FakeApiServer& server) {
  for (const nlohmann::json& l : server.objects("/apis/coordination.k8s.io/v1/leases")) {
    if (l["metadata"]["name"] == "loadshift") return l;
  }
  return nullptr;
}

std::string holder(const FakeApiServer& server) {
  nlohmann::json l = lease(server);
  if (!l.is_object()) return "<none>";
  return l["spec"].value("holderIdentity", "");
}

// Eviction POSTs sent with `token`.
size_t evictions_by(const FakeApiServer& server, const std::string& token) {
  size_t n = 0;
  for (const RecordedRequest& r : server.requests()) {
    auto auth = r.headers.find("authorization");
    if (r.method == "POST" && r.path.find("/eviction") != std::string::npos &&
        auth != r.headers.end() && auth->second == "Bearer " + token) {
      ++n;
    }
  }
  return n;
}

FakeApiServerOptions two_tokens() {
  FakeApiServerOptions options;
  options.tokens = {{"admin-token", "admin"}, {"a-token", "admin"}, {"b-token", "admin"}};
  return options;
}

}  // namespace

TEST_CASE("leader election: one leader evicts, the standby does not, failover", "[run][leader]") {
  SeedCluster world(two_tokens());
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;

  auto a = std::make_unique<Replica>(server, prometheus, tmp, policy, settings,
                                     fast_election("replica-a"), "a-token");
  REQUIRE(eventually([&] { return a->elector->is_leader(); }));
  Replica b(server, prometheus, tmp, policy, settings, fast_election("replica-b"), "b-token");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // b has read the lease
  CHECK(holder(server) == "replica-a");
  CHECK_FALSE(b.elector->is_leader());
  CHECK(b.elector->observed_holder() == "replica-a");

  controller::CycleOutcome standby = b.cycle();
  CHECK(standby.result == "standby");
  CHECK_THAT(standby.why, Contains("the lease is held by replica-a"));
  controller::Readiness ready = b.loop->readiness();
  CHECK(ready.ready);  // a standby is ready: it is doing its job
  CHECK_THAT(ready.detail, Contains("role: standby"));
  CHECK(evictions_by(server, "b-token") == 0);
  // A standby's status page shows no plan, and says whose lease it is.
  CHECK(b.loop->published_plan().view == nullptr);
  CHECK_THAT(b.loop->published_plan().status, Contains("the lease is held by replica-a"));

  SECTION("only the leader evicts") {
    controller::CycleOutcome leading = a->cycle();
    CHECK(leading.evicted == 2);
    CHECK(evictions_by(server, "a-token") == 2);
    CHECK(evictions_by(server, "b-token") == 0);
    CHECK_THAT(scrape(*a->registry), Contains("loadshift_leader 1"));
  }
  SECTION("the leader is killed (no release): the standby takes over after the lease lapses") {
    auto started = std::chrono::steady_clock::now();
    a.reset();  // its elector stops without releasing, as a killed process would
    CHECK(holder(server) == "replica-a");
    REQUIRE(eventually([&] { return b.elector->is_leader(); }, 10));
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK(waited >= 2.0);  // not before the 3 s lease lapsed, as b saw it (less a's last renewal)
    CHECK(holder(server) == "replica-b");
    CHECK(lease(server)["spec"]["leaseTransitions"] == 1);
    controller::CycleOutcome outcome = b.cycle();
    CHECK(outcome.evicted == 2);
    CHECK(evictions_by(server, "b-token") == 2);
  }
  SECTION("the leader stops and releases: the standby takes over at once") {
    a->cycle();  // a plans: its plan and usage are exported
    CHECK_THAT(scrape(*a->registry), Contains("loadshift_usage_node_coverage_ratio 1"));
    CHECK_THAT(scrape(*a->registry), Contains("loadshift_soft_tainted_nodes 0"));
    REQUIRE(a->loop->published_plan().view != nullptr);
    CHECK(a->loop->published_plan().view->content.evictions.size() == 2);
    CHECK_THAT(scrape(*a->registry), Contains("loadshift_node_class{"));
    CHECK_THAT(scrape(*a->registry), Contains("loadshift_node_utilization_ratio{"));
    a->elector->stop_and_release();
    CHECK(holder(server) == "");
    CHECK_FALSE(a->elector->is_leader());
    auto started = std::chrono::steady_clock::now();
    REQUIRE(eventually([&] { return b.elector->is_leader(); }, 5));
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK(waited < 2.5);  // a retry period or a few, not the 3 s lease
    CHECK(holder(server) == "replica-b");
    // a, a standby now, no longer exports its last plan: only the leader's would stand.
    CHECK(a->cycle().result == "standby");
    CHECK(a->loop->published_plan().view == nullptr);  // its page drops the plan too
    const std::string old = scrape(*a->registry);
    CHECK(old.find("loadshift_node_class{") == std::string::npos);
    CHECK(old.find("loadshift_node_utilization_ratio{") == std::string::npos);
    CHECK(old.find("loadshift_load_aware_coverage_ratio{") == std::string::npos);
    CHECK(old.find("loadshift_usage_node_coverage_ratio ") == std::string::npos);
    CHECK(old.find("loadshift_soft_tainted_nodes ") == std::string::npos);
    CHECK(old.find("loadshift_cooling_workloads ") == std::string::npos);
    CHECK_THAT(old, Contains("loadshift_nodes{class=\"overutilized\"} 0"));
  }
}

TEST_CASE("a lease that cannot be renewed stops evictions mid-cycle", "[run][leader]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  controller::LoopSettings settings;
  settings.plan.max_in_flight_per_workload = 0;
  Replica replica(server, prometheus, tmp, policy, settings, fast_election("replica-a"));
  REQUIRE(eventually([&] { return replica.elector->is_leader(); }));

  // From now on the API refuses every Lease request, and every eviction answers 500: the evictor
  // retries (0.5 s, then 1 s) and asks for permission before each attempt. Within about a second
  // of the last renewal the permission is gone, and no request goes out after that.
  server.fail_next("/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", 500, 10000);
  server.fail_next("/api/v1/namespaces/load-test/pods/", 500, 100);
  controller::CycleOutcome outcome = replica.cycle();
  CHECK(outcome.planned == 2);
  CHECK(outcome.evicted == 0);
  CHECK_THAT(outcome.why, Contains("lease lost"));
  size_t posts = count_requests(server, "POST", "/eviction");
  CHECK(posts >= 1);
  CHECK(posts <= 2);  // attempt 3 would be 1.5 s after the cycle began: past the 1 s deadline
  CHECK_FALSE(replica.elector->is_leader());
}

TEST_CASE("token rotation mid-run: the client reads the new token and goes on", "[run]") {
  FakeApiServerOptions options;
  options.tokens = {{"first-token", "admin"}};
  FakeApiServer server(options);
  serve_ready_seed(server);
  FakePrometheus prometheus;
  prometheus.set_handler(seed_usage_answer);
  RunTempDir tmp;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  std::string token_file = tmp.write("token", "first-token\n");
  kube::ClusterAccess access = access_to(server, "");
  access.credentials = kube::Credentials::from_token_file(token_file);
  kube::ApiClient client(access, fast_client());
  REQUIRE(client.send("GET", "/api/v1/namespaces/load-test/pods/" + kHotPodA, "").ok());
  server.set_token("second-token", "admin");
  server.remove_token("first-token");
  tmp.write("token", "second-token\n");
  controller::PodEvictor evictor(client, {});
  model::Pod pod;
  pod.meta.namespace_ = "load-test";
  pod.meta.name = kHotPodA;
  pod.meta.uid = "uid-" + kHotPodA;
  CHECK(evictor.evict(pod, [] { return std::string(); }).result ==
        controller::EvictionResult::kEvicted);
}

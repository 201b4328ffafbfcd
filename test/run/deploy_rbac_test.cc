// The RBAC of deploy/base is enough, and no more is used: the controller runs a full cycle (cache,
// leader election, the Prometheus token Secret, evictions, Events) as a user that holds exactly
// the ClusterRole and Role that test/deploy/render_test.sh rendered from the manifests. The rules
// file comes from ctest (the fixture deploy_rules runs the render test first); this case is
// hidden ("[.]") from plain runs of run_tests and run by the ctest entry run_deploy_rbac.
#include <cstdlib>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

std::vector<FakeRbacRule> rules_of(const std::string& file) {
  std::ifstream in(file);
  REQUIRE(in.good());
  nlohmann::json rules = nlohmann::json::parse(in);
  std::vector<FakeRbacRule> out;
  for (const nlohmann::json& r : rules) {
    if (!r["nonResourceURLs"].empty()) continue;  // discovery: the fake serves it to everyone
    FakeRbacRule rule;
    rule.verbs = r["verbs"].get<std::vector<std::string>>();
    rule.resources = r["resources"].get<std::vector<std::string>>();
    rule.api_groups = r["apiGroups"].get<std::vector<std::string>>();
    rule.namespace_ = r["namespace"].get<std::string>();
    rule.resource_names = r["resourceNames"].get<std::vector<std::string>>();
    out.push_back(std::move(rule));
  }
  REQUIRE_FALSE(out.empty());
  return out;
}

}  // namespace

TEST_CASE("the controller needs nothing beyond deploy/base's RBAC", "[.][rbac]") {
  const char* file = std::getenv("LOADSHIFT_DEPLOY_RULES");
  REQUIRE(file != nullptr);
  FakeApiServerOptions options;
  options.tokens = {{"admin-token", "admin"},
                    {"sa-token", "system:serviceaccount:loadshift:loadshift"}};
  options.rules["system:serviceaccount:loadshift:loadshift"] = rules_of(file);
  FakeApiServer server(options);
  serve_ready_seed(server);
  server.set_objects("/api/v1/secrets",
                     {nlohmann::json::parse(R"({"apiVersion":"v1","kind":"Secret",
        "metadata":{"name":"loadshift-prometheus-token","namespace":"loadshift"},
        "data":{"prometheusAuthToken":"czNjcmV0LXRva2Vu"}})")});  // "s3cret-token"
  FakePrometheus prometheus;
  std::atomic<int> with_token{0};
  prometheus.set_handler([&](const FakeRequest& r) {
    if (r.header("authorization") == "Bearer s3cret-token") ++with_token;
    return seed_usage_answer(r);
  });
  RunTempDir tmp;
  std::string policy =
      tmp.write("policy.yaml",
                seed_policy("metricsProviders:\n- source: Prometheus\n  prometheus:\n    url: " +
                            prometheus.url() +
                            "\n    authToken:\n      secretReference: {namespace: loadshift, name: "
                            "loadshift-prometheus-token}\n"));
  controller::LeaderElectionConfig election = fast_election("replica-a");
  election.namespace_ = "loadshift";
  Replica replica(server, prometheus, tmp, policy, {}, election, "sa-token");
  REQUIRE(eventually([&] { return replica.elector->is_leader(); }));
  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  CHECK(outcome.result == "evicted");
  CHECK(outcome.evicted == 1);
  CHECK(with_token > 0);
  // Nothing the service account asked for was refused.
  for (const RecordedRequest& r : server.requests()) {
    INFO(r.method << " " << r.path);
    CHECK(r.status != 403);
  }
  CHECK(replica.cache.decode_errors().empty());
  CHECK(replica.cache.stats().errors.empty());
}

TEST_CASE("the Prometheus token Secret is read every cycle", "[run]") {
  FakeApiServer server;
  serve_ready_seed(server);
  auto secret = [](const std::string& base64) {
    return nlohmann::json{{"apiVersion", "v1"},
                          {"kind", "Secret"},
                          {"metadata", {{"name", "prom"}, {"namespace", "monitoring"}}},
                          {"data", {{"prometheusAuthToken", base64}}}};
  };
  server.set_objects("/api/v1/secrets", {secret("Zmlyc3Q=")});  // "first"
  FakePrometheus prometheus;
  std::mutex seen_mutex;
  std::set<std::string> seen;
  prometheus.set_handler([&](const FakeRequest& r) {
    std::lock_guard<std::mutex> lock(seen_mutex);
    seen.insert(r.header("authorization"));
    return seed_usage_answer(r);
  });
  RunTempDir tmp;
  std::string policy = tmp.write(
      "policy.yaml",
      seed_policy(
          "metricsProviders:\n- source: Prometheus\n  prometheus:\n    url: " + prometheus.url() +
              "\n    authToken:\n      secretReference: {namespace: monitoring, name: prom}\n",
          "95"));
  Replica replica(server, prometheus, tmp, policy);
  CHECK(replica.cycle().result == "nothing_to_do");
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    CHECK(seen == std::set<std::string>{"Bearer first"});
    seen.clear();
  }
  server.set_objects("/api/v1/secrets", {secret("c2Vjb25k")});  // "second"
  CHECK(replica.cycle().result == "nothing_to_do");
  {
    std::lock_guard<std::mutex> lock(seen_mutex);
    CHECK(seen == std::set<std::string>{"Bearer second"});
  }
  SECTION("a Secret without the key: nothing is fetched, the cycle says why") {
    nlohmann::json bad = secret("c2Vjb25k");
    bad["data"] = {{"token", "c2Vjb25k"}};
    server.set_objects("/api/v1/secrets", {bad});
    controller::CycleOutcome outcome = replica.cycle();
    CHECK(outcome.result == "skipped");
    CHECK(outcome.skip_reason == "usage_secret");
    CHECK_THAT(outcome.why, Contains("expected the key data.prometheusAuthToken"));
  }
  SECTION("a missing Secret: the cycle says which") {
    server.set_objects("/api/v1/secrets", {});
    controller::CycleOutcome outcome = replica.cycle();
    CHECK(outcome.skip_reason == "usage_secret");
    CHECK_THAT(outcome.why, Contains("Secret monitoring/prom"));
    CHECK_THAT(outcome.why, Contains("404"));
  }
}

TEST_CASE("an RBAC from before Namespaces were read still runs, with a warning each cycle",
          "[.][rbac]") {
  const char* file = std::getenv("LOADSHIFT_DEPLOY_RULES");
  REQUIRE(file != nullptr);
  std::vector<FakeRbacRule> rules = rules_of(file);
  size_t removed = 0;
  for (FakeRbacRule& rule : rules) removed += std::erase(rule.resources, std::string("namespaces"));
  REQUIRE(removed == 1);
  FakeApiServerOptions options;
  options.tokens = {{"admin-token", "admin"},
                    {"sa-token", "system:serviceaccount:loadshift:loadshift"}};
  options.rules["system:serviceaccount:loadshift:loadshift"] = rules;
  FakeApiServer server(options);
  serve_ready_seed(server);
  FakePrometheus prometheus;
  prometheus.set_handler([](const FakeRequest& r) { return seed_usage_answer(r); });
  RunTempDir tmp;
  std::string policy =
      tmp.write("policy.yaml",
                seed_policy("metricsProviders:\n- source: Prometheus\n  prometheus:\n    url: " +
                            prometheus.url() + "\n"));
  std::ostringstream log;
  controller::configure_logging(controller::LogFormat::kJson, &log);
  Replica replica(server, prometheus, tmp, policy, {}, std::nullopt, "sa-token");
  controller::CycleOutcome outcome = replica.cycle();
  controller::configure_logging(controller::LogFormat::kText);
  INFO(outcome.why);
  CHECK(outcome.result == "evicted");
  CHECK(replica.cache.stats().not_permitted == std::vector<std::string>{"Namespaces"});
  CHECK_THAT(log.str(), Contains("\"msg\":\"cache warning\"") &&
                            Contains("refuses to list or watch Namespaces (403)"));
}

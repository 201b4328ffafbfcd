// The per-workload cool-down (--workload-cooldown): kept in memory after every accepted
// eviction, rebuilt from loadshift's own Events after a restart, and a refused Events list that
// only warns.
#include <nlohmann/json.hpp>

#include "controller/workload_moves.h"
#include "model/rfc3339.h"
#include "test/kube/eviction_events.h"
#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

const std::string kWorkload = "load-test/ReplicaSet/low-priority-workload-5f6b7";

size_t evictions_sent(const FakeApiServer& server) {
  size_t n = 0;
  for (const RecordedRequest& r : server.writes()) {
    if (r.path.find("/eviction") != std::string::npos && r.status == 201) ++n;
  }
  return n;
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Usage after the two moves: te3 cooled down, te8 (which received the replacements) runs hot.
FakeResponse usage_te8_hot(const FakeRequest& r) {
  std::string q = r.form("query");
  const std::map<std::string, std::pair<const char*, const char*>> usage = {
      {"te1", {"45", "50"}}, {"te2", {"55", "60"}}, {"te3", {"20", "30"}}, {"te4", {"25", "28"}},
      {"te5", {"20", "25"}}, {"te6", {"12", "18"}}, {"te7", {"20", "20"}}, {"te8", {"95", "70"}}};
  std::vector<std::pair<std::map<std::string, std::string>, std::string>> samples;
  if (q.find("container") == std::string::npos) {
    bool memory = q.find("memory") != std::string::npos || q.find("Mem") != std::string::npos;
    for (const auto& [node, values] : usage) {
      samples.push_back({{{"instance", node}}, memory ? values.second : values.first});
    }
  }
  return FakeResponse{200, vector_body(samples)};
}

// The ReplicaSet's replacement for an evicted pod: a copy of `original` named `name` on `node`,
// created now and Ready, as the ReplicaSet controller and the scheduler would leave it.
nlohmann::json replacement_of(nlohmann::json original, const std::string& name,
                              const std::string& node) {
  original["metadata"]["name"] = name;
  original["metadata"]["uid"] = "uid-" + name;
  original["metadata"]["creationTimestamp"] =
      model::format_rfc3339(std::chrono::system_clock::now());
  original["metadata"].erase("resourceVersion");
  original["metadata"].erase("deletionTimestamp");
  original["spec"]["nodeName"] = node;
  return original;
}

}  // namespace

TEST_CASE(
    "cool-down: two pods of one workload leave the hot node in two cycles; a replacement "
    "is not moved again",
    "[run][cooldown]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  controller::LoopSettings settings;  // the defaults: 30m cool-down, 1 pod in flight
  REQUIRE_FALSE(settings.plan.workload_cooldown.has_value());  // the policy's: 30m by default
  nlohmann::json pod_a;
  for (const nlohmann::json& pod : server.objects("/api/v1/pods")) {
    if (pod["metadata"]["name"] == kHotPodA) pod_a = pod;
  }
  REQUIRE(pod_a.is_object());

  auto first = std::make_unique<Replica>(server, prometheus, tmp, policy, settings);
  controller::CycleOutcome outcome = first->cycle();
  INFO(outcome.why);
  CHECK(outcome.evicted == 1);  // the other pod waits: one pod in flight per workload
  REQUIRE(evictions_sent(server) == 1);

  // The Event names the workload in `related` and the move in its annotations.
  std::vector<nlohmann::json> events = server.objects("/apis/events.k8s.io/v1/events");
  REQUIRE(events.size() == 1);
  CHECK(events[0]["related"] == nlohmann::json({{"apiVersion", "apps/v1"},
                                                {"kind", "ReplicaSet"},
                                                {"namespace", "load-test"},
                                                {"name", "low-priority-workload-5f6b7"},
                                                {"uid", "uid-low-priority-workload-5f6b7"}}));
  CHECK(events[0]["metadata"]["annotations"] ==
        nlohmann::json({{"loadshift.io/from-node", "te3"}, {"loadshift.io/to-node", "te8"}}));

  // The first pod is gone and its replacement runs on te8; the second leaves te3 next cycle:
  // relief goes on, the cool-down does not hold it.
  REQUIRE(eventually([&] { return first->cache.pod("load-test", kHotPodA) == std::nullopt; }));
  server.upsert("/api/v1/pods", replacement_of(pod_a, "low-priority-workload-5f6b7-r3pl1", "te8"));
  REQUIRE(eventually([&] {
    return first->cache.pod("load-test", "low-priority-workload-5f6b7-r3pl1") != std::nullopt;
  }));
  outcome = first->cycle();
  INFO(outcome.why);
  CHECK(outcome.evicted == 1);
  CHECK(evictions_sent(server) == 2);
  CHECK_THAT(scrape(*first->registry), Contains("loadshift_cooling_workloads 1"));
  REQUIRE(eventually([&] { return first->cache.pod("load-test", kHotPodB) == std::nullopt; }));

  // Now te8, which received the replacement, runs hot: moving it off te8 would undo the move.
  prometheus.set_handler(usage_te8_hot);
  const std::string undo = "workload cooling down: a pod of " + kWorkload + " moved te3 -> te8";
  outcome = first->cycle();
  INFO(outcome.why);
  CHECK(evictions_sent(server) == 2);
  CHECK_THAT(log.text(), Contains(undo));
  first.reset();

  SECTION("a restarted controller reads the moves back from the Events and still refuses") {
    Replica second(server, prometheus, tmp, policy, settings);
    outcome = second.cycle();
    INFO(outcome.why);
    CHECK(evictions_sent(server) == 2);
    CHECK_THAT(log.text(), Contains("workload cool-down rebuilt"));
    CHECK_THAT(log.text(), Contains("workloads=1"));
    CHECK(count_requests(server, "GET", "/apis/events.k8s.io/v1/events") >= 1);
  }
  SECTION("without the cool-down no refusal is the cool-down's") {
    // (The replacement has no other target here: its taints allow only te3 and te8.)
    const size_t before = occurrences(log.text(), "cooling down pod=");
    settings.plan.workload_cooldown = std::chrono::seconds(0);
    Replica second(server, prometheus, tmp, policy, settings);
    outcome = second.cycle();
    INFO(outcome.why);
    CHECK(occurrences(log.text(), "cooling down pod=") == before);
    CHECK(evictions_sent(server) == 2);
  }
  SECTION(
      "Events of an older loadshift, without the move's nodes: the replacement is known by its "
      "start") {
    std::vector<nlohmann::json> stored = server.objects("/apis/events.k8s.io/v1/events");
    for (nlohmann::json& e : stored) {
      e["metadata"].erase("annotations");
      e["metadata"].erase("resourceVersion");
    }
    server.set_objects("/apis/events.k8s.io/v1/events", stored);
    Replica second(server, prometheus, tmp, policy, settings);
    outcome = second.cycle();
    INFO(outcome.why);
    CHECK(evictions_sent(server) == 2);
    CHECK_THAT(log.text(), Contains("started on te8 since; moving one off te8 would undo it"));
  }
  SECTION("Events of an older loadshift, without `related`, are ignored") {
    std::vector<nlohmann::json> stored = server.objects("/apis/events.k8s.io/v1/events");
    for (nlohmann::json& e : stored) {
      e.erase("related");
      e["metadata"].erase("resourceVersion");
    }
    server.set_objects("/apis/events.k8s.io/v1/events", stored);
    const size_t before = occurrences(log.text(), "cooling down pod=");
    Replica second(server, prometheus, tmp, policy, settings);
    outcome = second.cycle();
    INFO(outcome.why);
    CHECK(occurrences(log.text(), "cooling down pod=") == before);
    CHECK_THAT(log.text(), Contains("without_related=2"));
  }
}

TEST_CASE("cool-down: an Event reads back as a move with its nodes; a finished pod's is none",
          "[run][cooldown]") {
  const auto at = std::chrono::system_clock::now() - std::chrono::minutes(3);
  nlohmann::json event = eviction_event("a", "ns1", "web-1", at);
  event["metadata"]["annotations"] = {{"loadshift.io/from-node", "te3"},
                                      {"loadshift.io/to-node", "te8"}};
  strategies::WorkloadMove move;
  CHECK(controller::workload_of_event(event, &move) == "ns1/ReplicaSet/web-1");
  CHECK(move.from == "te3");
  CHECK(move.to == "te8");
  CHECK(std::chrono::abs(move.at - at) < std::chrono::milliseconds(1));
  event["metadata"]["annotations"] = {{"loadshift.io/finished", "true"}};
  CHECK(controller::workload_of_event(event, &move).empty());
}

TEST_CASE("cool-down: a refused Events list warns and the controller still evicts",
          "[run][cooldown]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  // An Event from a minute ago says the workload just moved; the list of Events is refused.
  server.upsert("/apis/events.k8s.io/v1/events",
                eviction_event("earlier", "load-test", "low-priority-workload-5f6b7",
                               std::chrono::system_clock::now() - std::chrono::minutes(1)));
  server.fail_next("/apis/events.k8s.io/v1/events", 403);
  Replica replica(server, prometheus, tmp, policy);

  controller::CycleOutcome outcome = replica.cycle();
  INFO(outcome.why);
  CHECK(outcome.result == "evicted");
  CHECK(outcome.evicted == 1);
  CHECK_THAT(log.text(), Contains("workload cool-down not rebuilt"));
  CHECK_THAT(log.text(), Contains("403"));
  CHECK_THAT(log.text(), Contains("grant list on events.k8s.io events"));
}

TEST_CASE("rebuild_workload_moves keeps loadshift's eviction Events within the window",
          "[run][cooldown]") {
  FakeApiServer server;
  const auto now = std::chrono::system_clock::now();
  using std::chrono::minutes;
  std::vector<nlohmann::json> events;
  events.push_back(eviction_event("a1", "ns1", "web-1", now - minutes(20)));
  events.push_back(eviction_event("a2", "ns1", "web-1", now - minutes(5)));  // the later one
  events.push_back(eviction_event("b", "ns2", "db-1", now - minutes(45)));   // outside 30m
  nlohmann::json series = eviction_event("c", "ns3", "api-1", now - minutes(50));
  series["series"] = {{"count", 2},
                      {"lastObservedTime", model::format_micro_time(now - minutes(2))}};
  events.push_back(series);  // its series is recent
  nlohmann::json other = eviction_event("d", "ns4", "x-1", now);
  other["reportingController"] = "someone-else";
  events.push_back(other);
  nlohmann::json warning = eviction_event("e", "ns5", "y-1", now);
  warning["type"] = "Warning";
  events.push_back(warning);
  nlohmann::json old_style = eviction_event("f", "ns6", "z-1", now);
  old_style.erase("related");
  events.push_back(old_style);
  server.set_objects("/apis/events.k8s.io/v1/events", events);

  kube::ApiClient client(access_to(server, "admin-token"), fast_client());
  controller::MovesRebuild read =
      controller::rebuild_workload_moves(client, now, std::chrono::minutes(30), 2);
  INFO(read.error);
  REQUIRE(read.error.empty());
  CHECK(read.events == 7);
  CHECK(read.without_related == 1);
  CHECK(read.used == 3);
  REQUIRE(read.moves.size() == 2);
  auto close_to = [](std::chrono::system_clock::time_point a,
                     std::chrono::system_clock::time_point b) {
    return std::chrono::abs(a - b) < std::chrono::milliseconds(1);
  };
  REQUIRE(read.moves.count("ns1/ReplicaSet/web-1") == 1);
  REQUIRE(read.moves.at("ns1/ReplicaSet/web-1").size() == 2);  // oldest first
  CHECK(close_to(read.moves.at("ns1/ReplicaSet/web-1")[0].at, now - minutes(20)));
  CHECK(close_to(read.moves.at("ns1/ReplicaSet/web-1")[1].at, now - minutes(5)));
  REQUIRE(read.moves.count("ns3/ReplicaSet/api-1") == 1);
  REQUIRE(read.moves.at("ns3/ReplicaSet/api-1").size() == 1);
  CHECK(close_to(read.moves.at("ns3/ReplicaSet/api-1")[0].at, now - minutes(2)));
  CHECK(read.moves.at("ns3/ReplicaSet/api-1")[0].from.empty());  // no annotations: not known
  CHECK(count_requests(server, "GET", "/apis/events.k8s.io/v1/events") == 4);  // 4 pages of 2

  strategies::WorkloadMoves moves = read.moves;
  controller::prune_workload_moves(moves, now + minutes(26), std::chrono::minutes(30));
  CHECK(moves.size() == 1);  // web-1 (5 min ago) reached its 30 min
  CHECK(moves.count("ns3/ReplicaSet/api-1") == 1);

  server.fail_next("/apis/events.k8s.io/v1/events", 403);
  controller::MovesRebuild refused =
      controller::rebuild_workload_moves(client, now, std::chrono::minutes(30), 2);
  CHECK(refused.moves.empty());
  CHECK_THAT(refused.error, Contains("403"));
}

TEST_CASE("cool-down: a standby that takes over reads the leader's Events", "[run][cooldown]") {
  FakeApiServerOptions options;
  options.tokens = {{"admin-token", "admin"}, {"a-token", "admin"}, {"b-token", "admin"}};
  SeedCluster world(options);
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  LogCapture log;
  auto a = std::make_unique<Replica>(server, prometheus, tmp, policy, controller::LoopSettings{},
                                     fast_election("replica-a"), "a-token");
  REQUIRE(eventually([&] { return a->elector->is_leader(); }));
  Replica b(server, prometheus, tmp, policy, controller::LoopSettings{}, fast_election("replica-b"),
            "b-token");
  CHECK(b.cycle().result == "standby");

  nlohmann::json pod_a;
  for (const nlohmann::json& pod : server.objects("/api/v1/pods")) {
    if (pod["metadata"]["name"] == kHotPodA) pod_a = pod;
  }
  controller::CycleOutcome outcome = a->cycle();
  CHECK(outcome.evicted == 1);  // the other pod waits (in flight)
  a.reset();                    // killed: b takes over when the lease lapses
  REQUIRE(eventually([&] { return b.elector->is_leader(); }, 10));
  REQUIRE(eventually([&] { return b.cache.pod("load-test", kHotPodA) == std::nullopt; }));
  // The replacement landed on te8, which now runs hot: b knows the move from a's Event.
  server.upsert("/api/v1/pods", replacement_of(pod_a, "low-priority-workload-5f6b7-r3pl1", "te8"));
  REQUIRE(eventually([&] {
    return b.cache.pod("load-test", "low-priority-workload-5f6b7-r3pl1") != std::nullopt;
  }));
  prometheus.set_handler(usage_te8_hot);
  outcome = b.cycle();
  INFO(outcome.why);
  CHECK(evictions_sent(server) == 1);
  CHECK_THAT(log.text(), Contains("workloads=1"));
  CHECK_THAT(log.text(),
             Contains("workload cooling down: a pod of " + kWorkload + " moved te3 -> te8"));
}

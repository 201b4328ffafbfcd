// The watch cache against the fake API server: the first sync, events, a relist after 410, a
// reconnect after a dropped stream, CRDs that come later, errors kept visible.
#include <catch2/catch.hpp>

#include <thread>

#include "kube/watch_cache.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/read_rules.h"
#include "test/kube/seed_cluster.h"
#include "test/kube/watch_cache_helpers.h"

using namespace loadshift::kube;
using Catch::Matchers::Contains;
using loadshift::testing::FakeApiServer;
using loadshift::testing::fast_client;
using namespace loadshift::testing::watch_cache;

TEST_CASE("watch cache: first sync, then events keep it current", "[kube][cache]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCache cache(client, quick());
  CHECK_FALSE(cache.synced());
  CHECK(cache.unsynced().size() == plan_collections().size());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  CHECK(cache.unsynced().empty());
  loadshift::model::Snapshot first = cache.snapshot();
  CHECK(first.nodes.size() == 8);
  CHECK(first.pods.size() == 20);
  CHECK(first.hyper_nodes.size() == 7);
  CHECK(first.priority_classes.size() == 2);
  CHECK(cache.decode_errors().empty());

  // ADDED, MODIFIED, DELETED.
  server.upsert("/api/v1/pods", pod("newcomer", "te1"));
  CHECK(eventually([&] { return has_pod(cache, "newcomer"); }));
  server.upsert("/api/v1/pods", pod("newcomer", "te2"));
  CHECK(eventually([&] {
    for (const auto& p : cache.snapshot().pods)
      if (p.meta.name == "newcomer") return p.node_name == "te2";
    return false;
  }));
  REQUIRE(server.remove("/api/v1/pods", "default", "newcomer"));
  CHECK(eventually([&] { return !has_pod(cache, "newcomer"); }));
  CHECK(cache.snapshot().pods.size() == 20);
  CHECK(cache.stats().events >= 3);
  CHECK(cache.stats().relists == 0);
}

TEST_CASE("watch cache: a dropped stream reconnects where it left off; 410 relists",
          "[kube][cache]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  REQUIRE(eventually([&] { return server.watchers("/api/v1/pods") == 1; }));

  auto pod_watch_requests = [&] {
    size_t n = 0;
    for (const auto& r : server.requests())
      n += r.path == "/api/v1/pods" && r.query.find("watch=1") != std::string::npos;
    return n;
  };

  // Cut the stream: the cache watches again from its resourceVersion and misses nothing.
  size_t watches = pod_watch_requests();
  server.drop_watches("/api/v1/pods");
  server.upsert("/api/v1/pods", pod("while-away", "te3"));
  CHECK(eventually([&] { return has_pod(cache, "while-away"); }));
  CHECK(pod_watch_requests() > watches);
  CHECK(cache.stats().relists == 0);

  // The watch window passes (compaction) while the cache cannot watch (the server refuses it a
  // few times): 410 once it is back, then a fresh list that has the gap's changes.
  REQUIRE(eventually([&] { return server.watchers("/api/v1/pods") == 1; }));
  server.fail_next("/api/v1/pods", 500, 8);
  server.drop_watches("/api/v1/pods");
  server.remove("/api/v1/pods", "default", "while-away");  // happens during the gap
  server.upsert(
      "/api/v1/nodes",
      nlohmann::json{{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "te9"}}}});
  server.compact();
  CHECK(eventually([&] { return cache.stats().relists >= 1; }));
  CHECK(eventually([&] { return !has_pod(cache, "while-away"); }));
  CHECK(cache.snapshot().pods.size() == 20);
  // Every list, the relist after 410 too, came from the watch cache: the first ones at
  // resourceVersion=0, the relist not older than the version the cache held (no etcd read).
  size_t pod_lists = 0, from_zero = 0, not_older = 0;
  for (const auto& r : server.requests()) {
    if (r.path != "/api/v1/pods" || r.query.find("watch=1") != std::string::npos) continue;
    ++pod_lists;
    from_zero += r.query.find("resourceVersion=0") != std::string::npos;
    not_older += r.query.find("resourceVersionMatch=NotOlderThan") != std::string::npos &&
                 r.query.find("limit=") == std::string::npos;
  }
  CHECK(from_zero == 1);
  CHECK(not_older >= 1);
  CHECK(from_zero + not_older == pod_lists);
  CHECK(cache.stats().consistent_lists == 0);
  CHECK(cache.stats().cache_lists == server.cache_lists());
}

TEST_CASE("watch cache: lists from the API server's watch cache; a refusal reads consistently",
          "[kube][cache][source]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  // The pods' list from the cache is refused once (an API server that does not serve
  // resourceVersion=0, say): that one list is read consistently, page by page.
  server.fail_next("/api/v1/pods", 400);
  WatchCacheOptions options = quick();
  options.watch_list = false;  // the lists' sources are the point here
  options.list.page_size = 7;
  WatchCache cache(client, options);
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  CHECK(cache.snapshot().pods.size() == 20);
  CHECK(cache.stats().consistent_lists == 1);
  CHECK(cache.stats().cache_lists == plan_collections().size() - 1);
  CHECK(server.cache_lists() == plan_collections().size() - 1);
  std::vector<std::string> pod_lists;
  for (const auto& r : server.requests()) {
    if (r.path == "/api/v1/pods" && r.query.find("watch=1") == std::string::npos) {
      pod_lists.push_back(r.query);
    }
  }
  // Refused at resourceVersion=0, then 20 pods in pages of 7 with no resourceVersion.
  REQUIRE(pod_lists.size() == 4);
  CHECK_THAT(pod_lists[0], Contains("resourceVersion=0"));
  for (size_t k = 1; k < 4; ++k) {
    INFO(pod_lists[k]);
    CHECK(pod_lists[k].find("resourceVersion") == std::string::npos);
    CHECK_THAT(pod_lists[k], Contains("limit=7"));
  }
}

TEST_CASE("watch cache: a CRD installed later is picked up", "[kube][cache]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  server.set_group_version_installed("topology.volcano.sh/v1alpha1", false);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));  // not installed counts as synced
  CHECK(cache.snapshot().hyper_nodes.empty());
  server.set_group_version_installed("topology.volcano.sh/v1alpha1", true);
  CHECK(eventually([&] { return cache.snapshot().hyper_nodes.size() == 7; }));
}

TEST_CASE("watch cache: Namespaces it may not list are empty and synced, the reason kept",
          "[kube][cache]") {
  loadshift::testing::FakeApiServerOptions options;
  options.tokens = {{"tester-token", "tester"}};
  // Everything the read needs but Namespaces (an RBAC written before loadshift read them).
  options.rules["tester"] = loadshift::testing::read_rules({});
  FakeApiServer server(options);
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server, "tester-token"), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(10)));
  CHECK(cache.snapshot().namespaces.empty());
  CHECK_FALSE(cache.snapshot().pods.empty());
  bool noted = false;
  for (const std::string& e : cache.stats().errors) {
    noted = noted || (e.rfind("Namespaces: ", 0) == 0 && e.find("403") != std::string::npos &&
                      e.find("(read without them)") != std::string::npos);
  }
  CHECK(noted);
  // Granted later (the RBAC fixed): the next recheck lists them.
  server.set_rules("tester", loadshift::testing::read_rules({"list", "watch"}));
  server.set_objects("/api/v1/namespaces",
                     {nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "load-test"}})")});
  CHECK(eventually([&] { return cache.snapshot().namespaces.size() == 1; }));
}

TEST_CASE("watch cache: Namespaces it may list but not watch are refused too, never stale",
          "[kube][cache]") {
  loadshift::testing::FakeApiServerOptions options;
  options.tokens = {{"tester-token", "tester"}};
  options.rules["tester"] = loadshift::testing::read_rules({"list"});  // no watch
  FakeApiServer server(options);
  loadshift::testing::serve_seed_cluster(server);
  server.set_objects("/api/v1/namespaces",
                     {nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "load-test"}})")});
  ApiClient client(loadshift::testing::access_to(server, "tester-token"), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(10)));
  // The watch is refused: named as not permitted (its objects dropped until a list and a watch
  // succeed), and asked again every recheck (1 s here), not backed off as a failure.
  CHECK(eventually(
      [&] { return cache.stats().not_permitted == std::vector<std::string>{"Namespaces"}; }));
  auto namespace_lists = [&] {
    size_t n = 0;
    for (const auto& request : server.requests()) {
      n +=
          request.path == "/api/v1/namespaces" && request.query.find("watch=") == std::string::npos;
    }
    return n;
  };
  const size_t lists_before = namespace_lists();
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  CHECK(namespace_lists() >= lists_before + 2);
  CHECK(cache.synced());
  CHECK(cache.stats().not_permitted == std::vector<std::string>{"Namespaces"});
}

TEST_CASE("watch cache: a collection it may not list stays unsynced, with the reason",
          "[kube][cache]") {
  loadshift::testing::FakeApiServerOptions options;
  options.tokens = {{"tester-token", "tester"}};
  FakeApiServer server(options);
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server, "tester-token"), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  CHECK_FALSE(cache.wait_synced(std::chrono::milliseconds(1500)));
  std::vector<std::string> unsynced = cache.unsynced();
  CHECK(std::find(unsynced.begin(), unsynced.end(), "Nodes") != unsynced.end());
  CHECK(std::find(unsynced.begin(), unsynced.end(), "Pods") == unsynced.end());  // pods allowed
  CHECK(eventually([&] {
    for (const std::string& e : cache.stats().errors)
      if (e.rfind("Nodes: ", 0) == 0 && e.find("403 Forbidden") != std::string::npos) return true;
    return false;
  }));
}

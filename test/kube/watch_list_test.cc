// The watch cache's streaming watch-list (sendInitialEvents=true) against the fake API server:
// used where offered, the collection installed whole at its bookmark, the stream then a watch, a
// relist after 410 not older than what the cache held, and lists where a server refuses it.
#include <catch2/catch.hpp>

#include <string>

#include "kube/watch_cache.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/read_rules.h"
#include "test/kube/seed_cluster.h"
#include "test/kube/watch_cache_helpers.h"

using namespace loadshift::kube;
using Catch::Matchers::Contains;
using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using loadshift::testing::fast_client;
using namespace loadshift::testing::watch_cache;

namespace {

// The queries of the requests to `path`: its watch-lists, its plain watches, its lists.
struct PathRequests {
  std::vector<std::string> watch_lists, watches, lists;
};
PathRequests requests_to(const FakeApiServer& server, const std::string& path) {
  PathRequests out;
  for (const auto& r : server.requests()) {
    if (r.path != path) continue;
    if (r.query.find("sendInitialEvents=true") != std::string::npos) {
      out.watch_lists.push_back(r.query);
    } else if (r.query.find("watch=1") != std::string::npos) {
      out.watches.push_back(r.query);
    } else {
      out.lists.push_back(r.query);
    }
  }
  return out;
}

FakeApiServerOptions with_watch_list() {
  FakeApiServerOptions options;
  options.watch_list = true;
  return options;
}

}  // namespace

TEST_CASE(
    "watch cache: syncs by the watch-list where the server offers it; the stream goes on "
    "as the watch",
    "[kube][cache][watch-list]") {
  FakeApiServer server(with_watch_list());
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCacheOptions options = quick();
  options.watch_timeout = std::chrono::seconds(300);  // one stream for the whole test
  WatchCache cache(client, options);
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  loadshift::model::Snapshot first = cache.snapshot();
  CHECK(first.nodes.size() == 8);
  CHECK(first.pods.size() == 20);
  CHECK(first.hyper_nodes.size() == 7);
  CHECK(first.priority_classes.size() == 2);
  CHECK(cache.decode_errors().empty());

  // Every collection by a watch-list: no list at all, of either kind.
  const WatchCacheStats stats = cache.stats();
  CHECK(stats.watch_lists == plan_collections().size());
  CHECK(server.watch_lists() == plan_collections().size());
  CHECK_FALSE(stats.watch_list_refused);
  CHECK(stats.cache_lists == 0);
  CHECK(stats.consistent_lists == 0);
  CHECK(server.cache_lists() == 0);
  PathRequests pods = requests_to(server, "/api/v1/pods");
  CHECK(pods.lists.empty());
  REQUIRE(pods.watch_lists.size() == 1);
  CHECK_THAT(pods.watch_lists[0], Contains("resourceVersionMatch=NotOlderThan"));
  CHECK_THAT(pods.watch_lists[0], Contains("allowWatchBookmarks=true"));
  // The first sync reads the current state: no resourceVersion named.
  CHECK_THAT(pods.watch_lists[0], Contains("resourceVersion=&"));

  // After its bookmark the same stream is the watch: changes arrive without another request.
  server.upsert("/api/v1/pods", pod("newcomer", "te1"));
  CHECK(eventually([&] { return has_pod(cache, "newcomer"); }));
  REQUIRE(server.remove("/api/v1/pods", "default", "newcomer"));
  CHECK(eventually([&] { return !has_pod(cache, "newcomer"); }));
  pods = requests_to(server, "/api/v1/pods");
  CHECK(pods.watch_lists.size() == 1);
  CHECK(pods.watches.empty());
  CHECK(cache.stats().relists == 0);
}

TEST_CASE(
    "watch cache: after a cut stream it watches on; after 410 a watch-list not older than "
    "what it held",
    "[kube][cache][watch-list]") {
  FakeApiServer server(with_watch_list());
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  REQUIRE(eventually([&] { return server.watchers("/api/v1/pods") == 1; }));

  // A cut stream: a plain watch from the resourceVersion the cache holds, nothing missed.
  server.drop_watches("/api/v1/pods");
  server.upsert("/api/v1/pods", pod("while-away", "te3"));
  CHECK(eventually([&] { return has_pod(cache, "while-away"); }));
  PathRequests pods = requests_to(server, "/api/v1/pods");
  CHECK(pods.watch_lists.size() == 1);
  REQUIRE_FALSE(pods.watches.empty());
  CHECK(pods.watches[0].find("resourceVersion=&") == std::string::npos);
  CHECK(cache.stats().relists == 0);

  // The watch window passes while the cache cannot watch: 410, then a watch-list that names the
  // version the cache held (not older than it), and has the gap's changes.
  REQUIRE(eventually([&] { return server.watchers("/api/v1/pods") == 1; }));
  server.fail_next("/api/v1/pods", 500, 4);
  server.drop_watches("/api/v1/pods");
  server.remove("/api/v1/pods", "default", "while-away");
  server.compact();
  CHECK(eventually([&] { return cache.stats().relists >= 1; }));
  CHECK(eventually([&] { return !has_pod(cache, "while-away"); }));
  CHECK(cache.snapshot().pods.size() == 20);
  pods = requests_to(server, "/api/v1/pods");
  REQUIRE(pods.watch_lists.size() >= 2);
  CHECK(pods.watch_lists.back().find("resourceVersion=&") == std::string::npos);
  CHECK_THAT(pods.watch_lists.back(), Contains("resourceVersionMatch=NotOlderThan"));
  CHECK(pods.lists.empty());
  CHECK(cache.stats().cache_lists == 0);
}

TEST_CASE(
    "watch cache: a server without the watch-list is asked once, then every collection "
    "lists",
    "[kube][cache][watch-list]") {
  FakeApiServer server;  // as v1.27-v1.31 without the WatchList gate: 422
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCache cache(client, quick());
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  CHECK(cache.snapshot().pods.size() == 20);
  const WatchCacheStats stats = cache.stats();
  CHECK(stats.watch_list_refused);
  CHECK(stats.watch_lists == 0);
  CHECK(server.watch_lists() == 0);
  CHECK(stats.cache_lists == plan_collections().size());
  CHECK(cache.decode_errors().empty());
  CHECK(stats.errors.empty());  // a refusal is an answer, not an error
  // The collections that tried before the first refusal was known asked once each, no more.
  size_t refused = 0;
  for (const auto& r : server.requests()) {
    if (r.query.find("sendInitialEvents=true") == std::string::npos) continue;
    ++refused;
    CHECK(r.status == 422);
  }
  CHECK(refused >= 1);
  CHECK(refused <= plan_collections().size());
  PathRequests pods = requests_to(server, "/api/v1/pods");
  CHECK(pods.watch_lists.size() <= 1);
  REQUIRE(pods.lists.size() == 1);
  CHECK_THAT(pods.lists[0], Contains("resourceVersion=0"));

  // A relist after that lists again, without asking for the watch-list.
  REQUIRE(eventually([&] { return server.watchers("/api/v1/pods") == 1; }));
  server.fail_next("/api/v1/pods", 500, 4);
  server.drop_watches("/api/v1/pods");
  server.upsert("/api/v1/pods", pod("in-the-gap", "te1"));
  server.compact();
  CHECK(eventually([&] { return cache.stats().relists >= 1; }));
  CHECK(eventually([&] { return has_pod(cache, "in-the-gap"); }));
  CHECK(requests_to(server, "/api/v1/pods").watch_lists.size() == pods.watch_lists.size());
}

TEST_CASE("watch cache: with the watch-list off it always lists", "[kube][cache][watch-list]") {
  FakeApiServer server(with_watch_list());
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  WatchCacheOptions options = quick();
  options.watch_list = false;
  WatchCache cache(client, options);
  cache.start();
  REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
  CHECK(cache.snapshot().pods.size() == 20);
  CHECK(cache.stats().watch_lists == 0);
  CHECK(server.watch_lists() == 0);
  CHECK(cache.stats().cache_lists == plan_collections().size());
}

TEST_CASE("watch cache: a watch-list without its bookmark is taken for a server without it",
          "[kube][cache][watch-list]") {
  SECTION("events for longer than initial_events_timeout, no bookmark yet") {
    FakeApiServer server(with_watch_list());
    loadshift::testing::serve_seed_cluster(server);
    ApiClient client(loadshift::testing::access_to(server), fast_client());
    WatchCacheOptions options = quick();
    options.initial_events_timeout = std::chrono::seconds(0);  // the first event is too late
    WatchCache cache(client, options);
    cache.start();
    REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
    CHECK(cache.snapshot().pods.size() == 20);
    CHECK(cache.stats().watch_list_refused);
    // An empty collection's bookmark comes first, before any event could be late: only those
    // synced by their watch-list. The pods were listed.
    CHECK(cache.stats().watch_lists + cache.stats().cache_lists == plan_collections().size());
    CHECK(cache.stats().watch_lists < plan_collections().size());
    CHECK(requests_to(server, "/api/v1/pods").lists.size() == 1);
  }
  SECTION("a proxy drops the watch-list's options: the stream ends with no bookmark") {
    FakeApiServerOptions server_options = with_watch_list();
    server_options.drop_watch_list_options = true;
    FakeApiServer server(server_options);
    loadshift::testing::serve_seed_cluster(server);
    ApiClient client(loadshift::testing::access_to(server), fast_client());
    WatchCacheOptions options = quick();
    options.watch_timeout = std::chrono::seconds(1);  // the plain watch it got ends soon
    WatchCache cache(client, options);
    cache.start();
    // The ADDED events of that plain watch are never installed as a sync; the lists are.
    REQUIRE(cache.wait_synced(std::chrono::seconds(15)));
    CHECK(cache.snapshot().pods.size() == 20);
    CHECK(cache.stats().watch_list_refused);
    CHECK(cache.stats().watch_lists == 0);
    CHECK(cache.stats().cache_lists == plan_collections().size());
    CHECK(cache.decode_errors().empty());
  }
}

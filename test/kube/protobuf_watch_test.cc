// Pods and Nodes watched in protobuf from the fake API server (length-prefixed WatchEvent frames,
// as the real server sends a client that asks for protobuf): the cache holds what a JSON watch
// gives, through events, a watch-list, a 410 ERROR and an object it cannot read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "kube/watch_cache.h"
#include "model/protobuf_decode.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/seed_cluster.h"
#include "test/kube/sorted_objects.h"
#include "test/kube/watch_cache_helpers.h"

using namespace loadshift::kube;
using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using loadshift::testing::fast_client;
using loadshift::testing::sorted_nodes;
using loadshift::testing::sorted_pods;
using namespace loadshift::testing::watch_cache;

namespace {

// A seeded fake and a synced cache on it.
struct Watched {
  explicit Watched(FakeApiServerOptions server_options = {}, bool client_protobuf = true)
      : server(server_options), client(loadshift::testing::access_to(server), fast_client()) {
    loadshift::testing::serve_seed_cluster(server);
    WatchCacheOptions options = quick();
    options.list.protobuf = client_protobuf;
    cache.emplace(client, options);
    cache->start();
    REQUIRE(cache->wait_synced(std::chrono::seconds(15)));
    REQUIRE(eventually([&] {
      return server.watchers("/api/v1/pods") == 1 && server.watchers("/api/v1/nodes") == 1;
    }));
  }
  FakeApiServer server;
  ApiClient client;
  std::optional<WatchCache> cache;
};

// The same changes to a cluster: a pod added, moved, one with an unreadable request, a node
// added, a pod deleted.
void change(FakeApiServer& server) {
  server.upsert("/api/v1/pods", pod("newcomer", "te1"));
  server.upsert("/api/v1/pods", pod("newcomer", "te2"));
  nlohmann::json bad = pod("unreadable", "te1");
  bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  server.upsert("/api/v1/pods", bad);
  server.upsert("/api/v1/nodes", nlohmann::json{{"apiVersion", "v1"},
                                                {"kind", "Node"},
                                                {"metadata", {{"name", "te9"}}},
                                                {"status", {{"allocatable", {{"cpu", "4"}}}}}});
  server.upsert("/api/v1/pods", pod("last", "te9"));
  REQUIRE(server.remove("/api/v1/pods", "default", "newcomer"));
}

bool changed(const WatchCache& cache) {
  return has_pod(cache, "last") && !has_pod(cache, "newcomer") && !cache.decode_errors().empty();
}

}  // namespace

TEST_CASE("protobuf watch: events in protobuf keep the cache as a JSON watch does",
          "[kube][cache][protobuf]") {
  Watched protobuf;
  FakeApiServerOptions json_only;
  json_only.protobuf = false;
  Watched json(json_only);
  change(protobuf.server);
  change(json.server);
  REQUIRE(eventually([&] { return changed(*protobuf.cache) && changed(*json.cache); }));
  // Both watches of Pods and Nodes were protobuf streams (counted by the cache at their first
  // bytes); the JSON server sent none.
  CHECK(protobuf.cache->stats().protobuf_watches >= 2);
  CHECK(protobuf.server.protobuf_watches() >= 2);
  CHECK(json.cache->stats().protobuf_watches == 0);
  CHECK(json.server.protobuf_watches() == 0);
  const size_t events_seen = protobuf.cache->stats().events;
  CHECK(events_seen >= 6);
  // Through the watch: no relist brought the changes.
  CHECK(protobuf.cache->stats().relists == 0);
  CHECK(json.cache->stats().relists == 0);
  loadshift::model::Snapshot a = protobuf.cache->snapshot(), b = json.cache->snapshot();
  CHECK(a.pods.size() == 21);
  CHECK(((sorted_pods(a) == sorted_pods(b))));
  CHECK(((sorted_nodes(a) == sorted_nodes(b))));
  // The unreadable pod is named with its field, the same from both.
  std::vector<loadshift::model::DecodeError> errors = protobuf.cache->decode_errors();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].to_string() == json.cache->decode_errors()[0].to_string());
  CHECK(errors[0].path == "spec.containers[0].resources.requests.cpu");
  // Fixed, it is read.
  protobuf.server.upsert("/api/v1/pods", pod("unreadable", "te1"));
  CHECK(eventually([&] { return protobuf.cache->decode_errors().empty(); }));
  CHECK(has_pod(*protobuf.cache, "unreadable"));

  // The watch window passes: the ERROR event (410, a protobuf Status) relists.
  protobuf.server.fail_next("/api/v1/pods", 500, 4);
  protobuf.server.drop_watches("/api/v1/pods");
  protobuf.server.remove("/api/v1/pods", "default", "last");  // during the gap
  protobuf.server.compact();
  CHECK(eventually([&] { return protobuf.cache->stats().relists >= 1; }));
  CHECK(eventually([&] { return !has_pod(*protobuf.cache, "last"); }));
  CHECK(protobuf.cache->stats().errors.empty());
}

TEST_CASE("protobuf watch: a client that does not ask for protobuf watches in JSON",
          "[kube][cache][protobuf]") {
  Watched json(FakeApiServerOptions{}, /*client_protobuf=*/false);
  CHECK(json.server.protobuf_watches() == 0);
  CHECK(json.server.protobuf_lists() == 0);
  json.server.upsert("/api/v1/pods", pod("newcomer", "te1"));
  CHECK(eventually([&] { return has_pod(*json.cache, "newcomer"); }));
  for (const auto& request : json.server.requests()) {
    auto accept = request.headers.find("accept");
    if (accept != request.headers.end()) {
      CHECK(accept->second.find("protobuf") == std::string::npos);
    }
  }
}

TEST_CASE("protobuf watch: a watch-list in protobuf syncs the cache at its bookmark",
          "[kube][cache][protobuf]") {
  FakeApiServerOptions options;
  options.watch_list = true;
  Watched protobuf(options);
  options.protobuf = false;
  Watched json(options);
  WatchCacheStats stats = protobuf.cache->stats();
  CHECK(stats.watch_lists == plan_collections().size());
  CHECK_FALSE(stats.watch_list_refused);
  CHECK(stats.cache_lists + stats.consistent_lists == 0);  // no list at all
  CHECK(protobuf.server.protobuf_lists() == 0);
  CHECK(stats.protobuf_watches >= 2);  // Pods and Nodes: their initial events in protobuf
  loadshift::model::Snapshot a = protobuf.cache->snapshot(), b = json.cache->snapshot();
  CHECK(a.pods.size() == 20);
  CHECK(((sorted_pods(a) == sorted_pods(b))));
  CHECK(((sorted_nodes(a) == sorted_nodes(b))));
  // The stream goes on as a watch.
  protobuf.server.upsert("/api/v1/pods", pod("newcomer", "te1"));
  CHECK(eventually([&] { return has_pod(*protobuf.cache, "newcomer"); }));
}

TEST_CASE("protobuf watch: an event the cache cannot read lists again, in either encoding",
          "[kube][cache][protobuf]") {
  for (bool protobuf_on : {true, false}) {
    INFO((protobuf_on ? "protobuf" : "JSON"));
    FakeApiServerOptions options;
    options.protobuf = protobuf_on;
    Watched watched(options);
    CHECK(watched.cache->stats().relists == 0);
    // Watching again from the same resourceVersion would bring the same bytes back: a list
    // reads past them.
    watched.server.send_unreadable_event("/api/v1/pods", "not an event");
    CHECK(eventually([&] { return watched.cache->stats().relists >= 1; }));
    watched.server.upsert("/api/v1/pods", pod("after", "te1"));
    CHECK(eventually([&] { return has_pod(*watched.cache, "after"); }));
    CHECK(watched.cache->snapshot().pods.size() == 21);
    CHECK(watched.cache->decode_errors().empty());
    CHECK(eventually([&] { return watched.cache->stats().errors.empty(); }));
  }
}

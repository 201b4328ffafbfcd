// Pods and Nodes read in protobuf from the fake API server (as kube-scheduler reads them): the
// same snapshot as in JSON, errors read from a protobuf Status, JSON where the server answers
// JSON or where a snapshot's files keep the bytes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "http/http_client.h"
#include "kube/cluster_reader.h"
#include "model/protobuf_decode.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/seed_cluster.h"
#include "test/kube/sorted_objects.h"

using namespace loadshift::kube;
using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using loadshift::testing::fast_client;
using loadshift::testing::sorted_pods;

namespace {

std::string accept_of(const loadshift::testing::RecordedRequest& request) {
  auto it = request.headers.find("accept");
  return it == request.headers.end() ? "" : it->second;
}

class KeepBytes : public PageObserver {
 public:
  void begin_page(const Collection&) override {}
  void page_bytes(std::string_view bytes) override { kept += bytes.size(); }
  void end_page(bool) override {}
  void restart(const Collection&) override {}
  size_t kept = 0;
};

}  // namespace

TEST_CASE("protobuf read: Pods and Nodes in protobuf, the same snapshot as in JSON",
          "[kube][read][protobuf]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ReadOptions options;
  options.source = ListSource::kConsistent;
  options.page_size = 3;  // pages, continue tokens and ListMeta in protobuf
  ClusterRead protobuf = read_cluster(client, options);
  CHECK(protobuf.errors.empty());
  size_t pod_pages = server.protobuf_lists();
  CHECK(pod_pages >= 7 + 1);  // 20 pods in pages of 3, the nodes

  size_t protobuf_asks = 0;
  for (const auto& request : server.requests()) {
    bool typed = request.path == "/api/v1/pods" || request.path == "/api/v1/nodes";
    INFO(request.path << " " << accept_of(request));
    if (typed) {
      CHECK(accept_of(request) == "application/vnd.kubernetes.protobuf, application/json");
      ++protobuf_asks;
    } else if (!request.query.empty()) {
      CHECK(accept_of(request) == "application/json");  // PDBs, CRDs, ...: JSON
    }
  }
  CHECK(protobuf_asks == pod_pages);

  options.protobuf = false;
  ClusterRead json = read_cluster(client, options);
  CHECK(server.protobuf_lists() == pod_pages);  // none more
  CHECK(json.errors.empty());
  CHECK((protobuf.snapshot.nodes == json.snapshot.nodes));
  CHECK(protobuf.snapshot.nodes.size() >= 5);
  CHECK((sorted_pods(protobuf.snapshot) == sorted_pods(json.snapshot)));
  CHECK(protobuf.snapshot.pods.size() == 20);
}

TEST_CASE("protobuf read: a server that answers JSON is read as JSON", "[kube][read][protobuf]") {
  FakeApiServerOptions no_protobuf;
  no_protobuf.protobuf = false;  // a proxy or an old aggregated server: JSON whatever is asked
  FakeApiServer server(no_protobuf);
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ClusterRead read = read_cluster(client);
  CHECK(read.errors.empty());
  CHECK(read.snapshot.pods.size() == 20);
  CHECK(server.protobuf_lists() == 0);
}

TEST_CASE("protobuf read: a snapshot's files get JSON", "[kube][read][protobuf]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  KeepBytes observer;
  ClusterRead read = read_cluster(client, ReadOptions{}, &observer);
  CHECK(read.errors.empty());
  CHECK(observer.kept > 0);
  CHECK(server.protobuf_lists() == 0);
}

TEST_CASE("protobuf read: a failed list's Status is read from protobuf", "[kube][read][protobuf]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  StreamOptions stream;
  stream.accept = std::string(loadshift::model::kProtobufContentType) + ", application/json";
  auto fail = [&](const std::string& path) -> ApiError {
    try {
      client.stream(
          path, [](std::string_view) { return true; }, stream);
    } catch (const ApiError& e) {
      return e;
    }
    FAIL("no error for " << path);
    return ApiError(0, "", "");
  };
  ApiError bad = fail("/api/v1/pods?limit=2&continue=not-a-token");
  CHECK(bad.status() == 400);
  CHECK(bad.reason() == "BadRequest");
  CHECK_THAT(bad.what(), Catch::Contains("continue key is not valid: not-a-token"));
  CHECK(server.protobuf_lists() == 1);

  // An expired continue token: 410 Expired, which makes a list start over.
  std::string first = client.get("/api/v1/pods?limit=2");
  auto at = first.find("\"continue\":\"");
  REQUIRE(at != std::string::npos);
  std::string token = first.substr(at + 12, first.find('"', at + 12) - at - 12);
  server.expire_continue_tokens();
  ApiError expired =
      fail("/api/v1/pods?limit=2&continue=" + loadshift::http::HttpClient::escape(token));
  CHECK(expired.status() == 410);
  CHECK(expired.reason() == "Expired");
  CHECK_THAT(expired.what(), Catch::Contains("The provided continue parameter is too old"));
}

// read_cluster() against the fake API server: pagination, the same Snapshot as the file,
// missing CRDs, an expired continue token mid-list, a page that breaks off, RBAC refusals.
#include <catch2/catch.hpp>

#include <map>

#include "cli/snapshot_files.h"
#include "kube/cluster_reader.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/read_rules.h"
#include "test/kube/seed_cluster.h"

using namespace loadshift::kube;
using loadshift::testing::FakeApiServer;
using loadshift::testing::fast_client;

namespace {

std::vector<std::string> pod_names(const loadshift::model::Snapshot& snapshot) {
  std::vector<std::string> names;
  for (const auto& pod : snapshot.pods) names.push_back(pod.meta.namespace_ + "/" + pod.meta.name);
  std::sort(names.begin(), names.end());
  return names;
}

loadshift::model::Snapshot seed_from_file() {
  loadshift::model::Snapshot snapshot;
  auto summary = loadshift::cli::read_snapshot_files(
      {std::string(LOADSHIFT_SOURCE_DIR) + "/examples/seed-cluster/cluster.yaml"}, &snapshot);
  REQUIRE(summary.ok());
  return snapshot;
}

// Calls `action` at the end of the first complete page of `collection`.
class AfterFirstPage : public PageObserver {
 public:
  AfterFirstPage(std::string collection, std::function<void()> action)
      : collection_(std::move(collection)), action_(std::move(action)) {}
  void begin_page(const Collection& c) override { current_ = c.path; }
  void page_bytes(std::string_view) override {}
  void end_page(bool complete) override {
    if (complete && current_ == collection_ && !done_) {
      done_ = true;
      action_();
    }
  }
  void restart(const Collection&) override { ++restarts; }
  int restarts = 0;

 private:
  std::string collection_, current_;
  std::function<void()> action_;
  bool done_ = false;
};

}  // namespace

TEST_CASE("cluster read: from the watch cache by default, one answer per collection",
          "[kube][read][source]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ReadOptions options;
  options.page_size = 3;  // ignored by a v1.28 watch cache, as by the fake server
  ClusterRead read = read_cluster(client, options);
  CHECK(read.errors.empty());
  CHECK(pod_names(read.snapshot) == pod_names(seed_from_file()));
  CHECK(read.consistent_fallbacks == 0);
  size_t lists = 0;
  for (const auto& request : server.requests()) {
    if (request.path.rfind("/api", 0) != 0 || request.query.empty()) continue;  // discovery
    ++lists;
    INFO(request.path << "?" << request.query);
    CHECK_THAT(request.query, Catch::Contains("resourceVersion=0"));
    CHECK(request.query.find("continue=") == std::string::npos);
  }
  CHECK(lists == plan_collections().size());
  CHECK(server.cache_lists() == lists);
}

TEST_CASE("cluster read: where the watch cache is refused, a consistent read",
          "[kube][read][source]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  for (int status : {400, 410, 504}) {
    INFO("refused with " << status);
    // (A 504 is not asked again: one refusal, then the consistent read.)
    server.fail_next("/api/v1/pods", status);
    ReadOptions options;
    options.page_size = 8;
    const size_t before = server.requests().size();
    ClusterRead read = read_cluster(client, options);
    CHECK(read.errors.empty());
    CHECK(pod_names(read.snapshot) == pod_names(seed_from_file()));
    CHECK(read.consistent_fallbacks == 1);
    std::vector<std::string> pods;
    const std::vector<loadshift::testing::RecordedRequest> requests = server.requests();
    for (size_t k = before; k < requests.size(); ++k) {
      if (requests[k].path == "/api/v1/pods") pods.push_back(requests[k].query);
    }
    // Refused at resourceVersion=0, then 20 pods in pages of 8, consistently.
    const size_t refusals = 1;
    REQUIRE(pods.size() == refusals + 3);
    CHECK_THAT(pods[0], Catch::Contains("resourceVersion=0"));
    for (size_t k = refusals; k < pods.size(); ++k) {
      CHECK(pods[k].find("resourceVersion") == std::string::npos);
      CHECK_THAT(pods[k], Catch::Contains("limit=8"));
    }
  }
  // Not a refusal of the source: the RBAC's answer stands either way.
  server.fail_next("/api/v1/nodes", 403);
  CHECK_THROWS_AS(read_cluster(client), ApiError);
}

TEST_CASE(
    "cluster read: not older than a version, from the cache; newer than the server's, "
    "consistently",
    "[kube][read][source]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  const Collection* pods = nullptr;
  for (const Collection& c : plan_collections()) {
    if (c.path == "/api/v1/pods") pods = &c;
  }
  REQUIRE(pods != nullptr);
  ReadOptions options;
  options.source = ListSource::kNotOlderThan;
  options.not_older_than = std::to_string(server.resource_version() - 1);
  ListResult fresh = list_collection(client, *pods, options);
  CHECK(fresh.source == ListSource::kNotOlderThan);
  CHECK(fresh.refused.empty());
  CHECK(fresh.snapshot.pods.size() == 20);
  CHECK(fresh.pages == 1);
  // A version the server has not reached (another replica's): 504 "Too large resource
  // version", then the consistent read.
  options.not_older_than = std::to_string(server.resource_version() + 100);
  const size_t before = server.requests().size();
  ListResult ahead = list_collection(client, *pods, options);
  // One 504, not asked again (a real cache waits 3 s before each), then the consistent read.
  CHECK(server.requests().size() - before == 2);
  CHECK(ahead.source == ListSource::kConsistent);
  CHECK_THAT(ahead.refused, Catch::Contains("Too large resource version"));
  CHECK(ahead.snapshot.pods.size() == 20);
}

TEST_CASE("cluster read: page by page, the same snapshot as the file", "[kube][read]") {
  FakeApiServer server;
  size_t served = loadshift::testing::serve_seed_cluster(server);
  REQUIRE(served == 41);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ReadOptions options;
  options.source = ListSource::kConsistent;
  options.page_size = 3;
  ClusterRead read = read_cluster(client, options);
  CHECK(read.errors.empty());
  CHECK(read.not_installed.empty());
  loadshift::model::Snapshot file = seed_from_file();
  CHECK(read.snapshot.nodes.size() == file.nodes.size());
  CHECK(pod_names(read.snapshot) == pod_names(file));
  CHECK(read.snapshot.hyper_nodes.size() == file.hyper_nodes.size());
  CHECK(read.snapshot.jobs.size() == file.jobs.size());
  CHECK(read.snapshot.pod_groups.size() == file.pod_groups.size());
  CHECK(read.snapshot.priority_classes.size() == file.priority_classes.size());
  // 20 pods in pages of 3: 7 pages, each asked with the previous page's continue token.
  size_t pod_pages = 0, with_continue = 0;
  for (const auto& request : server.requests()) {
    if (request.path != "/api/v1/pods") continue;
    ++pod_pages;
    with_continue += request.query.find("continue=") != std::string::npos;
    CHECK_THAT(request.query, Catch::Contains("limit=3"));
  }
  CHECK(pod_pages == 7);
  CHECK(with_continue == 6);
}

TEST_CASE("cluster read: Namespaces with their labels (for namespace selectors)", "[kube][read]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  server.set_objects("/api/v1/namespaces",
                     {nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "load-test", "labels": {"team": "perf"}}})"),
                      nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "default"}})")});
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ClusterRead read = read_cluster(client, ReadOptions{});
  CHECK(read.errors.empty());
  REQUIRE(read.snapshot.namespaces.size() == 2);
  std::map<std::string, std::string> teams;
  for (const auto& ns : read.snapshot.namespaces) {
    const std::string* team = ns.meta.labels.find("team");
    teams[ns.meta.name] = team != nullptr ? *team : "-";
  }
  CHECK(teams == std::map<std::string, std::string>{{"default", "-"}, {"load-test", "perf"}});
}

TEST_CASE("cluster read: CRDs that are not installed are noted, not errors", "[kube][read]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  server.set_group_version_installed("topology.volcano.sh/v1alpha1", false);
  server.set_group_version_installed("batch.volcano.sh/v1alpha1", false);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  ClusterRead read = read_cluster(client);
  CHECK(read.snapshot.hyper_nodes.empty());
  CHECK(read.snapshot.jobs.empty());
  CHECK(read.snapshot.pod_groups.size() == 2);
  CHECK(read.not_installed == std::vector<std::string>{"HyperNodes (topology.volcano.sh/v1alpha1)",
                                                       "Volcano Jobs (batch.volcano.sh/v1alpha1)"});
}

TEST_CASE("cluster read: an expired continue token starts the list over", "[kube][read]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  AfterFirstPage expire("/api/v1/pods", [&] { server.expire_continue_tokens(); });
  ReadOptions options;
  options.source = ListSource::kConsistent;
  options.page_size = 5;
  ClusterRead read = read_cluster(client, options, &expire);
  CHECK(read.restarts == 1);
  CHECK(expire.restarts == 1);
  CHECK(pod_names(read.snapshot) == pod_names(seed_from_file()));  // no pod twice, none lost
}

TEST_CASE("cluster read: a page that breaks off is asked again", "[kube][read]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server), fast_client());
  server.drop_next("/api/v1/pods", 1);
  ClusterRead read = read_cluster(client);
  CHECK(pod_names(read.snapshot) == pod_names(seed_from_file()));
}

TEST_CASE("cluster read: Namespaces the user may not list are noted, the read goes on",
          "[kube][read]") {
  loadshift::testing::FakeApiServerOptions options;
  options.tokens = {{"tester-token", "tester"}};
  // Everything the read needs but Namespaces (an RBAC written before loadshift read them).
  options.rules["tester"] = loadshift::testing::read_rules({});
  FakeApiServer server(options);
  loadshift::testing::serve_seed_cluster(server);
  server.set_objects("/api/v1/namespaces",
                     {nlohmann::json::parse(R"({"apiVersion": "v1", "kind": "Namespace",
                        "metadata": {"name": "load-test"}})")});
  ApiClient client(loadshift::testing::access_to(server, "tester-token"), fast_client());
  ClusterRead read = read_cluster(client);
  CHECK(read.errors.empty());
  CHECK(read.snapshot.namespaces.empty());
  CHECK_FALSE(read.snapshot.pods.empty());
  REQUIRE(read.not_permitted.size() == 1);
  CHECK_THAT(read.not_permitted[0],
             Catch::StartsWith("Namespaces (") && Catch::Contains("403 Forbidden"));
}

TEST_CASE("cluster read: a collection the user may not list stops the read", "[kube][read]") {
  loadshift::testing::FakeApiServerOptions options;
  options.tokens = {{"tester-token", "tester"}};
  FakeApiServer server(options);
  loadshift::testing::serve_seed_cluster(server);
  ApiClient client(loadshift::testing::access_to(server, "tester-token"), fast_client());
  CHECK_THROWS_WITH(read_cluster(client),
                    Catch::Contains("403 Forbidden") && Catch::Contains("\"nodes\""));
}

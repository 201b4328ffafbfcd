// The fake API server against a plain httplib client: it must answer like the recorded
// kube-apiserver (../shared/kube-api), or the kube client's tests prove nothing.
#include "test/kube/fake_api_server.h"

#include <httplib.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "test/kube/fake_api_responses.h"

using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using nlohmann::json;

namespace {

json pod(const std::string& ns, const std::string& name, const std::string& node = "te1") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", name}}}}},
          {"spec",
           {{"nodeName", node},
            {"containers", json::array({{{"name", "main"}, {"image", "busybox"}}})}}},
          {"status", {{"phase", "Running"}}}};
}

std::unique_ptr<httplib::SSLClient> client(const FakeApiServer& server,
                                           const std::string& token = "admin-token") {
  auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", server.port());
  c->set_ca_cert_path(server.ca_file().c_str());
  c->enable_server_certificate_verification(true);
  if (!token.empty()) c->set_bearer_token_auth(token.c_str());
  c->set_read_timeout(10, 0);
  return c;
}

json body_json(const httplib::Result& r) {
  return json::parse(r->body);
}

}  // namespace

TEST_CASE("fake API server: TLS with its CA, discovery and the recorded headers", "[fake]") {
  FakeApiServer server;
  REQUIRE(server.url() == "https://127.0.0.1:" + std::to_string(server.port()));
  auto c = client(server);
  auto r = c->Get("/api");
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(
      r->body ==
      R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"127.0.0.1:)" +
          std::to_string(server.port()) + "\"}]}\n");
  CHECK(r->get_header_value("Content-Type") == "application/json");
  CHECK(r->get_header_value("Cache-Control") == "no-cache, private");
  CHECK(r->has_header("Date"));
  CHECK(r->has_header("X-Kubernetes-Pf-Flowschema-Uid"));
  CHECK(r->get_header_value("Content-Length") == std::to_string(r->body.size()));

  auto apis = c->Get("/apis");
  REQUIRE(apis);
  auto groups = body_json(apis)["groups"];
  CHECK(groups[0]["name"] == "apiregistration.k8s.io");
  CHECK(apis->get_header_value("Transfer-Encoding") == "chunked");  // 3.5 KB, like 03
  bool volcano = false;
  for (const auto& g : groups) volcano = volcano || g["name"] == "topology.volcano.sh";
  CHECK(volcano);

  auto hn = c->Get("/apis/topology.volcano.sh/v1alpha1");
  REQUIRE(hn);
  CHECK(body_json(hn)["resources"][0]["name"] == "hypernodes");
  CHECK(body_json(hn)["resources"][0]["shortNames"] == json::array({"hn"}));

  // A client that does not trust the CA fails the handshake.
  httplib::SSLClient untrusting("127.0.0.1", server.port());
  untrusting.enable_server_certificate_verification(true);
  untrusting.set_ca_cert_path("/dev/null");
  CHECK_FALSE(untrusting.Get("/api"));
}

TEST_CASE("fake API server: a group/version that is not installed is 404 text/plain everywhere",
          "[fake]") {
  FakeApiServer server;
  server.set_group_version_installed("topology.volcano.sh/v1alpha1", false);
  auto c = client(server);
  for (const char* path :
       {"/apis/topology.volcano.sh/v1alpha1", "/apis/topology.volcano.sh/v1alpha1/hypernodes"}) {
    auto r = c->Get(path);
    REQUIRE(r);
    CHECK(r->status == 404);
    CHECK(r->body == "404 page not found\n");
    CHECK(r->get_header_value("Content-Type") == "text/plain; charset=utf-8");
    CHECK(r->get_header_value("X-Content-Type-Options") == "nosniff");
  }
  auto apis = c->Get("/apis");
  REQUIRE(apis);
  CHECK(apis->body.find("topology.volcano.sh") == std::string::npos);
  // A missing object of an installed resource is a JSON Status (41).
  auto missing = c->Get("/api/v1/namespaces/demo/pods/no-such-pod");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(
      missing->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"no-such-pod\" not found","reason":"NotFound","details":{"name":"no-such-pod","kind":"pods"},"code":404})"
      "\n");
}

TEST_CASE("fake API server: bearer tokens, 401 and 403 as recorded", "[fake]") {
  FakeApiServerOptions options;
  options.tokens["tester-token"] = "tester";
  FakeApiServer server(options);
  server.set_objects("/api/v1/pods", {pod("demo", "a")});

  auto bad = client(server, "not-a-valid-token")->Get("/api/v1/namespaces/demo/pods");
  REQUIRE(bad);
  CHECK(bad->status == 401);
  CHECK(
      bad->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401})"
      "\n");
  CHECK_FALSE(bad->has_header("X-Kubernetes-Pf-Flowschema-Uid"));  // rejected before APF
  auto none = client(server, "")->Get("/api/v1/pods");
  REQUIRE(none);
  CHECK(none->status == 401);

  auto tester = client(server, "tester-token");
  auto nodes = tester->Get("/api/v1/nodes");
  REQUIRE(nodes);
  CHECK(nodes->status == 403);
  CHECK(
      nodes->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"nodes is forbidden: User \"tester\" cannot list resource \"nodes\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"nodes"},"code":403})"
      "\n");
  CHECK(nodes->get_header_value("X-Content-Type-Options") == "nosniff");
  auto evict = tester->Post("/api/v1/namespaces/demo/pods/a/eviction",
                            R"({"apiVersion":"policy/v1","kind":"Eviction"})", "application/json");
  REQUIRE(evict);
  CHECK(evict->status == 403);
  CHECK(body_json(evict)["message"] ==
        "pods \"a\" is forbidden: User \"tester\" cannot create resource \"pods/eviction\" in API "
        "group \"\" in the namespace \"demo\"");
  CHECK(body_json(evict)["details"] == json{{"name", "a"}, {"kind", "pods"}});
  auto pods = tester->Get("/api/v1/namespaces/demo/pods?limit=1");
  REQUIRE(pods);
  CHECK(pods->status == 200);

  // Every request was recorded, headers lower-cased.
  auto requests = server.requests();
  REQUIRE(requests.size() == 5);
  CHECK(requests[0].headers.at("authorization") == "Bearer not-a-valid-token");
  CHECK(requests[3].method == "POST");
  CHECK(requests[3].body == R"({"apiVersion":"policy/v1","kind":"Eviction"})");
  CHECK(requests[4].path == "/api/v1/namespaces/demo/pods");
  CHECK(requests[4].query == "limit=1");
}

TEST_CASE("fake API server: a client certificate signed by the CA authenticates; mTLS requires one",
          "[fake]") {
  FakeApiServerOptions options;
  options.require_client_cert = true;
  FakeApiServer server(options);
  httplib::SSLClient with_cert("127.0.0.1", server.port(), server.client_cert_file(),
                               server.client_key_file());
  with_cert.set_ca_cert_path(server.ca_file().c_str());
  with_cert.enable_server_certificate_verification(true);
  auto r =
      with_cert.Get("/api/v1/nodes");  // no token: the certificate's user (group system:masters)
  REQUIRE(r);
  CHECK(r->status == 200);
  auto without = client(server);  // a valid token, but no certificate: the handshake fails
  CHECK_FALSE(without->Get("/api/v1/nodes"));
}

TEST_CASE("fake API server: pagination with continue tokens, a consistent snapshot, both framings",
          "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "e"), pod("demo", "b"), pod("demo", "d"),
                                      pod("demo", "a"), pod("other", "c")});
  const auto rv = std::to_string(server.resource_version());
  auto c = client(server);

  auto page1 = c->Get("/api/v1/pods?limit=2");
  REQUIRE(page1);
  REQUIRE(page1->status == 200);
  auto p1 = body_json(page1);
  CHECK(p1["kind"] == "PodList");
  CHECK(p1["apiVersion"] == "v1");
  CHECK(p1["metadata"]["resourceVersion"] == rv);
  CHECK(p1["metadata"]["remainingItemCount"] == 3);
  REQUIRE(p1["items"].size() == 2);
  CHECK(p1["items"][0]["metadata"]["name"] == "a");
  CHECK(p1["items"][1]["metadata"]["name"] == "b");
  CHECK_FALSE(p1["items"][0].contains("kind"));  // typed lists carry no kind per item
  CHECK(p1["items"][0]["metadata"]["resourceVersion"] == rv);
  auto token = loadshift::testing::decode_continue(p1["metadata"]["continue"]);
  REQUIRE(token);
  CHECK(token->rv == std::stoll(rv));
  CHECK(token->start == std::string("demo/b") + '\0');
  CHECK(page1->body.find(R"("start":"demo/b\u0000")") == std::string::npos);  // it is base64url
  CHECK(p1["metadata"]["continue"].get<std::string>().find('=') == std::string::npos);

  // Writes between pages do not show: the pages are of the first page's resourceVersion.
  server.upsert("/api/v1/pods", pod("demo", "bb"));
  server.remove("/api/v1/pods", "demo", "d");
  auto page2 =
      c->Get("/api/v1/pods?limit=2&continue=" + p1["metadata"]["continue"].get<std::string>());
  REQUIRE(page2);
  auto p2 = body_json(page2);
  CHECK(p2["metadata"]["resourceVersion"] == rv);
  REQUIRE(p2["items"].size() == 2);
  CHECK(p2["items"][0]["metadata"]["name"] == "d");
  CHECK(p2["items"][1]["metadata"]["name"] == "e");
  CHECK(p2["metadata"]["remainingItemCount"] == 1);
  auto page3 =
      c->Get("/api/v1/pods?limit=2&continue=" + p2["metadata"]["continue"].get<std::string>());
  REQUIRE(page3);
  auto p3 = body_json(page3);
  REQUIRE(p3["items"].size() == 1);
  CHECK(p3["items"][0]["metadata"]["namespace"] == "other");
  CHECK_FALSE(p3["metadata"].contains("continue"));
  CHECK_FALSE(p3["metadata"].contains("remainingItemCount"));

  // Without limit: everything current; a namespaced list: its namespace only, token relative to it.
  auto all = body_json(c->Get("/api/v1/pods"));
  CHECK(all["items"].size() == 5);  // a, b, bb, e, other/c
  CHECK(all["metadata"]["resourceVersion"] == std::to_string(server.resource_version()));
  auto demo = body_json(c->Get("/api/v1/namespaces/demo/pods?limit=1"));
  CHECK(demo["metadata"]["remainingItemCount"] == 3);
  CHECK(loadshift::testing::decode_continue(demo["metadata"]["continue"])->start ==
        std::string("a") + '\0');

  // Small answers carry Content-Length, large ones are chunked.
  auto small = c->Get("/api/v1/namespaces/demo/pods?limit=1");
  CHECK(small->has_header("Content-Length"));
  CHECK_FALSE(small->has_header("Transfer-Encoding"));
  std::vector<json> many;
  for (int i = 0; i < 300; ++i) many.push_back(pod("bulk", "p" + std::to_string(1000 + i)));
  server.set_objects("/api/v1/pods", many);
  auto large = c->Get("/api/v1/pods");
  REQUIRE(large);
  CHECK(large->get_header_value("Transfer-Encoding") == "chunked");
  CHECK_FALSE(large->has_header("Content-Length"));
  auto big = body_json(large);
  REQUIRE(big["items"].size() == 300);
  CHECK(big["items"][299]["metadata"]["name"] == "p1299");
  CHECK(large->body.back() == '\n');
}

TEST_CASE("fake API server: custom resources are listed unstructured, like 12", "[fake]") {
  FakeApiServer server;
  server.set_objects("/apis/topology.volcano.sh/v1alpha1/hypernodes",
                     {{{"metadata", {{"name", "s0"}}}, {"spec", {{"tier", 3}}}}});
  auto r = client(server)->Get("/apis/topology.volcano.sh/v1alpha1/hypernodes");
  REQUIRE(r);
  const auto rv = std::to_string(server.resource_version());
  CHECK(
      r->body ==
      R"({"apiVersion":"topology.volcano.sh/v1alpha1","items":[{"apiVersion":"topology.volcano.sh/v1alpha1","kind":"HyperNode","metadata":{"name":"s0","resourceVersion":")" +
          rv +
          R"("},"spec":{"tier":3}}],"kind":"HyperNodeList","metadata":{"continue":"","resourceVersion":")" +
          rv + "\"}}\n");
}

TEST_CASE("fake API server: expired continue tokens and compacted resourceVersions answer 410",
          "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "a"), pod("demo", "b"), pod("demo", "c")});
  auto c = client(server);
  auto first = body_json(c->Get("/api/v1/pods?limit=1"));
  const std::string token = first["metadata"]["continue"];
  server.expire_continue_tokens();
  auto expired = c->Get("/api/v1/pods?limit=1&continue=" + token);
  REQUIRE(expired);
  CHECK(expired->status == 410);
  auto status = body_json(expired);
  CHECK(status["reason"] == "Expired");
  CHECK(status["code"] == 410);
  CHECK(status["message"].get<std::string>().starts_with(
      "The provided continue parameter is too old"));
  auto fresh = loadshift::testing::decode_continue(status["metadata"]["continue"]);
  REQUIRE(fresh);
  CHECK(fresh->rv == -1);
  CHECK(fresh->start == std::string("demo/a") + '\0');
  // The fresh token goes on from the same key with the current state.
  auto rest =
      c->Get("/api/v1/pods?limit=5&continue=" + status["metadata"]["continue"].get<std::string>());
  REQUIRE(rest);
  CHECK(rest->status == 200);
  CHECK(body_json(rest)["items"].size() == 2);
  // A token issued after the expiry is good.
  auto again = body_json(c->Get("/api/v1/pods?limit=1"));
  CHECK(c->Get("/api/v1/pods?limit=1&continue=" + again["metadata"]["continue"].get<std::string>())
            ->status == 200);

  const auto old = std::to_string(server.resource_version());
  server.upsert("/api/v1/pods", pod("demo", "d"));
  server.compact();
  auto exact = c->Get("/api/v1/pods?resourceVersion=" + old + "&resourceVersionMatch=Exact");
  REQUIRE(exact);
  CHECK(exact->status == 410);
  CHECK(
      exact->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"The resourceVersion for the provided list is too old.","reason":"Expired","code":410})"
      "\n");
  CHECK(c->Get("/api/v1/pods?resourceVersion=" + old + "&limit=10")->status == 410);  // 18
  auto nolimit = c->Get("/api/v1/pods?resourceVersion=" + old);                       // 19
  REQUIRE(nolimit);
  CHECK(nolimit->status == 200);
  CHECK(body_json(nolimit)["items"].size() == 4);
  // Explicitly not older than it, with a limit: the current state, no 410.
  auto newer = c->Get("/api/v1/pods?resourceVersion=" + old +
                      "&resourceVersionMatch=NotOlderThan&limit=10");
  REQUIRE(newer);
  CHECK(newer->status == 200);
  CHECK(body_json(newer)["items"].size() == 4);
  // resourceVersion=0: the watch cache's whole list, the limit ignored, no continue token.
  auto cached = c->Get("/api/v1/pods?resourceVersion=0&limit=1");
  REQUIRE(cached);
  CHECK(body_json(cached)["items"].size() == 4);
  CHECK(body_json(cached)["metadata"].value("continue", "") == "");
  // Ahead of the server, Exact or not: 504 "Too large resource version".
  const auto ahead = std::to_string(server.resource_version() + 10);
  for (const std::string& query :
       {"resourceVersion=" + ahead, "resourceVersion=" + ahead + "&resourceVersionMatch=Exact",
        "resourceVersion=" + ahead + "&resourceVersionMatch=NotOlderThan"}) {
    INFO(query);
    auto answer = c->Get("/api/v1/pods?" + query);
    REQUIRE(answer);
    CHECK(answer->status == 504);
    CHECK(body_json(answer)["message"].get<std::string>().rfind("Too large resource version", 0) ==
          0);
  }
  // The parameter rules of the real server: 400.
  const std::string fresh_token = again["metadata"]["continue"].get<std::string>();
  const std::vector<std::string> invalid{"resourceVersionMatch=NotOlderThan",
                                         "resourceVersion=1&resourceVersionMatch=Newest",
                                         "limit=1&continue=" + fresh_token + "&resourceVersion=1",
                                         "resourceVersion=0&resourceVersionMatch=Exact"};
  for (const std::string& query : invalid) {
    INFO(query);
    auto answer = c->Get("/api/v1/pods?" + query);
    REQUIRE(answer);
    CHECK(answer->status == 400);
  }
}

TEST_CASE("fake API server: injected 401, 403, 429 with Retry-After, 500 and dropped connections",
          "[fake]") {
  FakeApiServer server;
  auto c = client(server);
  server.fail_next("/api/v1/nodes", 500);
  server.fail_next("/api/v1/nodes", 429, 2, 7);
  server.fail_next("/api/v1/pods", 403);
  server.fail_next("/api/v1/pods", 401);

  auto e500 = c->Get("/api/v1/nodes");
  REQUIRE(e500);
  CHECK(e500->status == 500);
  CHECK(body_json(e500)["reason"] == "InternalError");
  for (int i = 0; i < 2; ++i) {
    auto e429 = c->Get("/api/v1/nodes?limit=5");
    REQUIRE(e429);
    CHECK(e429->status == 429);
    CHECK(e429->get_header_value("Retry-After") == "7");
    CHECK(body_json(e429)["reason"] == "TooManyRequests");
    CHECK(body_json(e429)["details"]["retryAfterSeconds"] == 7);
  }
  CHECK(c->Get("/api/v1/nodes")->status == 200);  // the rules are used up

  auto e403 = c->Get("/api/v1/pods");
  REQUIRE(e403);
  CHECK(e403->status == 403);
  CHECK(
      e403->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"admin\" cannot list resource \"pods\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"pods"},"code":403})"
      "\n");
  CHECK(e403->get_header_value("X-Content-Type-Options") == "nosniff");
  auto e401 = c->Get("/api/v1/pods");
  REQUIRE(e401);
  CHECK(e401->status == 401);
  CHECK(body_json(e401)["message"] == "Unauthorized");
  CHECK_FALSE(e401->has_header("X-Kubernetes-Pf-Flowschema-Uid"));
  CHECK(c->Get("/api/v1/pods")->status == 200);

  // The prefix is a path prefix: a namespaced list is another path.
  server.fail_next("/api/v1/namespaces/demo/pods", 403);
  auto ns403 = c->Get("/api/v1/namespaces/demo/pods/web-1");
  REQUIRE(ns403);
  CHECK(body_json(ns403)["message"] ==
        "pods \"web-1\" is forbidden: User \"admin\" cannot get resource \"pods\" in API group "
        "\"\" in the namespace \"demo\"");
  CHECK(body_json(ns403)["details"] == json{{"name", "web-1"}, {"kind", "pods"}});

  server.drop_next("/api/v1/pods");
  auto dropped = c->Get("/api/v1/pods");
  CHECK_FALSE(dropped);
  auto after = client(server)->Get("/api/v1/pods");
  REQUIRE(after);
  CHECK(after->status == 200);
}

namespace {

// A watch in a thread: collects the stream's bytes (complete event lines) until it ends.
struct WatchRun {
  std::string data;
  std::mutex mu;
  std::atomic<bool> done{false};
  bool ok = false;
  int status = 0;
  std::thread thread;

  WatchRun(const FakeApiServer& server, std::string path) {
    thread = std::thread([this, &server, path] {
      auto c = client(server);
      c->set_read_timeout(30, 0);
      auto r = c->Get(path, [this](const char* d, size_t n) {
        std::lock_guard lock(mu);
        data.append(d, n);
        return true;
      });
      ok = static_cast<bool>(r);
      status = r ? r->status : 0;
      done = true;
    });
  }
  ~WatchRun() {
    if (thread.joinable()) thread.join();
  }
  std::vector<json> events() {
    std::lock_guard lock(mu);
    std::vector<json> out;
    size_t start = 0;
    for (size_t nl; (nl = data.find('\n', start)) != std::string::npos; start = nl + 1) {
      out.push_back(json::parse(data.substr(start, nl - start)));
    }
    return out;
  }
  bool wait_events(size_t n) {
    for (int i = 0; i < 500; ++i) {
      if (events().size() >= n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
};

bool wait_watchers(const FakeApiServer& server, const std::string& collection, size_t n) {
  for (int i = 0; i < 500; ++i) {
    if (server.watchers(collection) == n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

TEST_CASE(
    "fake API server: a watch streams ADDED, MODIFIED, DELETED and BOOKMARK, then ends at "
    "timeoutSeconds",
    "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "a")});
  const auto start = server.resource_version();
  WatchRun watch(server, "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(start) +
                             "&allowWatchBookmarks=true&timeoutSeconds=2");
  REQUIRE(wait_watchers(server, "/api/v1/pods", 1));
  server.send_bookmark("/api/v1/pods");  // nothing newer than the start: no bookmark (like 14)
  server.upsert("/api/v1/pods", pod("other", "b"));
  server.upsert("/api/v1/pods", pod("demo", "a", "te2"));
  server.remove("/api/v1/pods", "demo", "a");
  server.send_bookmark("/api/v1/pods");
  REQUIRE(watch.wait_events(4));
  auto t0 = std::chrono::steady_clock::now();
  while (!watch.done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
  CHECK(watch.ok);
  CHECK(watch.status == 200);
  auto events = watch.events();
  REQUIRE(events.size() == 4);
  CHECK(events[0]["type"] == "ADDED");
  CHECK(events[0]["object"]["kind"] == "Pod");
  CHECK(events[0]["object"]["apiVersion"] == "v1");
  CHECK(events[0]["object"]["metadata"]["name"] == "b");
  CHECK(events[1]["type"] == "MODIFIED");
  CHECK(events[1]["object"]["spec"]["nodeName"] == "te2");
  CHECK(events[2]["type"] == "DELETED");
  CHECK(events[2]["object"]["metadata"]["resourceVersion"] ==
        std::to_string(server.resource_version()));
  CHECK(
      events[3] ==
      json::parse(
          R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
          std::to_string(server.resource_version()) +
          R"(","creationTimestamp":null},"spec":{"containers":null},"status":{}}})"));
  CHECK(wait_watchers(server, "/api/v1/pods", 0));
}

TEST_CASE(
    "fake API server: a watch without resourceVersion starts with ADDED; a namespaced one "
    "filters",
    "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "a"), pod("other", "b")});
  WatchRun watch(server, "/api/v1/namespaces/demo/pods?watch=true&timeoutSeconds=1");
  REQUIRE(watch.wait_events(1));
  server.upsert("/api/v1/pods", pod("other", "c"));
  server.upsert("/api/v1/pods", pod("demo", "d"));
  REQUIRE(watch.wait_events(2));
  while (!watch.done) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto events = watch.events();
  REQUIRE(events.size() == 2);
  CHECK(events[0]["object"]["metadata"]["name"] == "a");
  CHECK(events[1]["object"]["metadata"]["name"] == "d");
}

TEST_CASE(
    "fake API server: a watch from a compacted resourceVersion gets 200 and one ERROR 410 event",
    "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "a")});
  const auto old = server.resource_version();
  server.upsert("/api/v1/pods", pod("demo", "b"));
  server.compact();
  WatchRun watch(
      server, "/api/v1/pods?watch=1&resourceVersion=" + std::to_string(old) + "&timeoutSeconds=20");
  watch.thread.join();
  CHECK(watch.status == 200);
  CHECK(
      watch.data ==
      R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: )" +
          std::to_string(old) + " (" + std::to_string(server.resource_version()) +
          R"x()","reason":"Expired","code":410}})x"
          "\n");
}

TEST_CASE("fake API server: watch streams are cut mid-stream by drop_next and drop_watches",
          "[fake]") {
  FakeApiServer server;
  server.set_objects("/api/v1/pods", {pod("demo", "a")});
  server.drop_next("/api/v1/pods");
  {
    WatchRun watch(server, "/api/v1/pods?watch=1&timeoutSeconds=20");
    watch.thread.join();
    CHECK_FALSE(watch.ok);              // no final zero-length chunk
    CHECK(watch.events().size() == 1);  // the initial ADDED went out first
  }
  WatchRun watch(server, "/api/v1/pods?watch=1&timeoutSeconds=20");
  REQUIRE(watch.wait_events(1));
  REQUIRE(server.watchers("/api/v1/pods") == 1);
  auto t0 = std::chrono::steady_clock::now();
  server.drop_watches("/api/v1/pods");
  watch.thread.join();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK_FALSE(watch.ok);
  CHECK(wait_watchers(server, "/api/v1/pods", 0));
}

TEST_CASE("fake API server: a watcher that goes away is forgotten", "[fake]") {
  FakeApiServer server;
  {
    httplib::SSLClient c("127.0.0.1", server.port());
    c.set_ca_cert_path(server.ca_file().c_str());
    c.set_bearer_token_auth("admin-token");
    std::atomic<bool> stop{false};
    std::thread t([&] {
      c.Get("/api/v1/nodes?watch=1&timeoutSeconds=20",
            [&](const char*, size_t) { return !stop.load(); });
    });
    REQUIRE(wait_watchers(server, "/api/v1/nodes", 1));
    stop = true;
    server.upsert("/api/v1/nodes", {{"metadata", {{"name", "te1"}}}});  // the receiver says stop
    t.join();
  }
  CHECK(wait_watchers(server, "/api/v1/nodes", 0));
}

TEST_CASE("fake API server: 150,000 pre-serialized pods are set and listed in pages",
          "[fake]") {
  FakeApiServer server;
  std::vector<std::string> pods;
  pods.reserve(150000);
  for (int i = 0; i < 150000; ++i) {
    pods.push_back(R"({"metadata":{"name":"p)" + std::to_string(i) + R"(","namespace":"ns)" +
                   std::to_string(i % 50) + R"("},"spec":{"nodeName":"n)" +
                   std::to_string(i % 5000) + R"("},"status":{"phase":"Running"}})");
  }
  server.set_objects_serialized("/api/v1/pods", pods);
  auto c = client(server);
  size_t seen = 0;
  std::string token;
  do {
    auto r = c->Get("/api/v1/pods?limit=5000" + (token.empty() ? "" : "&continue=" + token));
    REQUIRE(r);
    REQUIRE(r->status == 200);
    auto page = body_json(r);
    seen += page["items"].size();
    token = page["metadata"].value("continue", "");
  } while (!token.empty());
  CHECK(seen == 150000);  // how fast: bench_kube_sync, not a timed test (it flaked under ASan)
  auto one = body_json(c->Get("/api/v1/namespaces/ns7/pods/p7"));
  CHECK(one["kind"] == "Pod");
  CHECK(one["metadata"]["resourceVersion"] == std::to_string(server.resource_version()));
}

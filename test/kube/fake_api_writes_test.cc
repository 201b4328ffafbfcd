// The fake API server's writes against a plain httplib client: evictions (with
// PodDisruptionBudgets), leases, events, secrets, JSON Patch, RBAC rules and the request log, as
// the recorded kube-apiserver answers them (../shared/kube-api 20-36) and its patch handler.
#include <httplib.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "test/kube/fake_api_server.h"

using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using loadshift::testing::FakeRbacRule;
using nlohmann::json;

namespace {

json ready_pod(const std::string& ns, const std::string& name, json labels,
               const std::string& phase = "Running") {
  return {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}, {"labels", labels}}},
      {"spec",
       {{"nodeName", "te1"},
        {"containers", json::array({{{"name", "main"}, {"image", "busybox"}}})}}},
      {"status",
       {{"phase", phase}, {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json pdb(const std::string& name, json selector, int allowed, int desired = 2, int current = 2) {
  return {{"apiVersion", "policy/v1"},
          {"kind", "PodDisruptionBudget"},
          {"metadata", {{"name", name}, {"namespace", "demo"}}},
          {"spec", {{"selector", selector}}},
          {"status",
           {{"disruptionsAllowed", allowed},
            {"desiredHealthy", desired},
            {"currentHealthy", current}}}};
}

json eviction(const std::string& name, json delete_options = nullptr) {
  json e = {{"apiVersion", "policy/v1"},
            {"kind", "Eviction"},
            {"metadata", {{"name", name}, {"namespace", "demo"}}}};
  if (!delete_options.is_null()) e["deleteOptions"] = delete_options;
  return e;
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

httplib::Result evict(httplib::SSLClient& c, const std::string& name, json delete_options = nullptr,
                      const std::string& query = "") {
  return c.Post("/api/v1/namespaces/demo/pods/" + name + "/eviction" + query,
                eviction(name, delete_options).dump(), "application/json");
}

json body_json(const httplib::Result& r) {
  return json::parse(r->body);
}

constexpr char kSuccess[] =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201})"
    "\n";
constexpr char kPods[] = "/api/v1/pods";
constexpr char kPdbs[] = "/apis/policy/v1/poddisruptionbudgets";
constexpr char kLeases[] = "/apis/coordination.k8s.io/v1/namespaces/demo/leases";

// Reads a watch stream in a thread until it ends; events() parses the lines so far.
struct Watch {
  std::string data;
  std::mutex mu;
  std::thread thread;
  Watch(const FakeApiServer& server, const std::string& path) {
    thread = std::thread([this, &server, path] {
      client(server)->Get(path, [this](const char* d, size_t n) {
        std::lock_guard lock(mu);
        data.append(d, n);
        return true;
      });
    });
  }
  ~Watch() { thread.join(); }
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
    for (int i = 0; i < 500 && events().size() < n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return events().size() >= n;
  }
};

}  // namespace

TEST_CASE("fake API server: eviction answers 201, 404, 400 and 409 as recorded", "[fake]") {
  FakeApiServer server;
  server.set_objects(kPods, {ready_pod("demo", "web-1", {{"app", "web"}}),
                             ready_pod("demo", "web-2", {{"app", "web"}})});
  auto c = client(server);

  auto ok = evict(*c, "web-1");  // 22
  REQUIRE(ok);
  CHECK(ok->status == 201);
  CHECK(ok->body == kSuccess);
  CHECK(server.objects(kPods).size() == 1);  // removed at once by default

  auto missing = evict(*c, "no-such-pod");  // 25
  REQUIRE(missing);
  CHECK(missing->status == 404);
  CHECK(
      missing->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"no-such-pod\" not found","reason":"NotFound","details":{"name":"no-such-pod","kind":"pods"},"code":404})"
      "\n");

  auto mismatch =
      c->Post("/api/v1/namespaces/demo/pods/web-2/eviction", eviction("other-name").dump(),
              "application/json");  // 27
  REQUIRE(mismatch);
  CHECK(mismatch->status == 400);
  CHECK(
      mismatch->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"name in URL does not match name in Eviction object","reason":"BadRequest","code":400})"
      "\n");

  auto wrong_uid = evict(*c, "web-2", {{"preconditions", {{"uid", "not-it"}}}});
  REQUIRE(wrong_uid);
  CHECK(wrong_uid->status == 409);
  CHECK(body_json(wrong_uid)["reason"] == "Conflict");
  CHECK(body_json(wrong_uid)["message"] ==
        "Operation cannot be fulfilled on pods \"web-2\": StorageError: invalid object, Code: 4, "
        "Key: "
        "/registry/pods/demo/web-2, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
        "UID in "
        "precondition: not-it, UID in object meta: uid-web-2");
  CHECK(body_json(wrong_uid)["details"] == json{{"name", "web-2"}, {"kind", "pods"}});
  CHECK(server.objects(kPods).size() == 1);

  json beta = eviction("web-2");
  beta["apiVersion"] = "policy/v1beta1";  // 26
  auto v1beta1 =
      c->Post("/api/v1/namespaces/demo/pods/web-2/eviction", beta.dump(), "application/json");
  REQUIRE(v1beta1);
  CHECK(v1beta1->status == 201);
  CHECK(server.objects(kPods).empty());
}

TEST_CASE("fake API server: a dry-run eviction checks everything and changes nothing", "[fake]") {
  FakeApiServer server;
  server.set_objects(kPods, {ready_pod("demo", "web-1", {{"app", "web"}}),
                             ready_pod("demo", "db-1", {{"app", "db"}})});
  server.set_objects(kPdbs, {pdb("web", {{"matchLabels", {{"app", "web"}}}}, 1),
                             pdb("db", {{"matchLabels", {{"app", "db"}}}}, 0)});
  const auto rv = server.resource_version();
  auto c = client(server);
  auto body = evict(*c, "web-1", {{"dryRun", {"All"}}});  // 20
  REQUIRE(body);
  CHECK(body->status == 201);
  CHECK(body->body == kSuccess);
  auto query = evict(*c, "web-1", nullptr, "?dryRun=All");  // 21
  REQUIRE(query);
  CHECK(query->status == 201);
  CHECK(evict(*c, "db-1", nullptr, "?dryRun=All")->status == 429);  // the checks still run
  CHECK(evict(*c, "web-1", {{"dryRun", {"All"}}, {"preconditions", {{"uid", "x"}}}})->status ==
        409);
  CHECK(server.resource_version() == rv);
  CHECK(server.objects(kPods).size() == 2);
  CHECK(server.objects(kPdbs)[1]["status"]["disruptionsAllowed"] == 1);
}

TEST_CASE(
    "fake API server: PodDisruptionBudgets block (429), decrement or refuse (500) an eviction",
    "[fake]") {
  FakeApiServer server;
  server.set_objects(kPods, {ready_pod("demo", "db-1", {{"app", "db"}}),
                             ready_pod("demo", "web-1", {{"app", "web"}}),
                             ready_pod("demo", "web-2", {{"app", "web"}, {"tier", "front"}}),
                             ready_pod("demo", "job-1", {{"app", "web"}}, "Succeeded"),
                             ready_pod("demo", "cache-1", {{"app", "cache"}})});
  server.set_objects(
      kPdbs,
      {pdb("db", {{"matchLabels", {{"app", "db"}}}}, 0),
       pdb("web",
           {{"matchExpressions",
             json::array({{{"key", "app"}, {"operator", "In"}, {"values", {"web"}}}})}},
           1),
       pdb("front",
           {{"matchExpressions", json::array({{{"key", "tier"}, {"operator", "Exists"}}})}}, 5)});
  auto c = client(server);

  auto blocked = evict(*c, "db-1");  // 24
  REQUIRE(blocked);
  CHECK(blocked->status == 429);
  CHECK(
      blocked->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Cannot evict pod as it would violate the pod's disruption budget.","reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget","message":"The disruption budget db needs 2 healthy pods and has 2 currently"}]},"code":429})"
      "\n");
  CHECK_FALSE(blocked->has_header("Retry-After"));

  auto two = evict(*c, "web-2");  // matched by "web" and "front"
  REQUIRE(two);
  CHECK(two->status == 500);
  CHECK(
      two->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.","code":500})"
      "\n");

  Watch watch(server,
              "/apis/policy/v1/namespaces/demo/poddisruptionbudgets?watch=1&resourceVersion=" +
                  std::to_string(server.resource_version()) + "&timeoutSeconds=1");
  for (int i = 0; i < 500 && server.watchers(kPdbs) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(evict(*c, "web-1")->status == 201);
  REQUIRE(watch.wait_events(1));
  auto events = watch.events();
  CHECK(events[0]["type"] == "MODIFIED");
  CHECK(events[0]["object"]["metadata"]["name"] == "web");
  CHECK(events[0]["object"]["status"]["disruptionsAllowed"] == 0);
  CHECK(events[0]["object"]["status"]["disruptedPods"].contains("web-1"));
  const auto web = server.objects(kPdbs)[2];
  CHECK(web["metadata"]["name"] == "web");
  CHECK(web["status"]["disruptionsAllowed"] == 0);
  CHECK(web["status"]["disruptedPods"]["web-1"].get<std::string>().ends_with("Z"));

  CHECK(evict(*c, "job-1")->status == 201);    // Succeeded: no PDB check
  CHECK(evict(*c, "cache-1")->status == 201);  // no PDB
  CHECK(server.objects(kPods).size() == 2);    // db-1, web-2

  // A negative disruptionsAllowed is 403, as the apiserver answers it.
  server.upsert(kPdbs, pdb("db", {{"matchLabels", {{"app", "db"}}}}, -1));
  auto negative = evict(*c, "db-1");
  REQUIRE(negative);
  CHECK(negative->status == 403);
  CHECK(body_json(negative)["message"] ==
        "poddisruptionbudget.policy \"db\" is forbidden: pdb disruptions allowed is negative");
  // policy/v1: an empty selector matches every pod of the namespace.
  server.set_objects(kPdbs, {pdb("all", json::object(), 0)});
  CHECK(evict(*c, "db-1")->status == 429);
}

TEST_CASE("fake API server: an evicted pod may stay terminating until the test removes it",
          "[fake]") {
  FakeApiServerOptions options;
  options.evicted_pods_terminate = true;
  FakeApiServer server(options);
  server.set_objects(kPods, {ready_pod("demo", "web-1", {{"app", "web"}}),
                             ready_pod("demo", "web-2", {{"app", "web"}})});
  auto c = client(server);
  Watch watch(server, "/api/v1/namespaces/demo/pods?watch=1&resourceVersion=" +
                          std::to_string(server.resource_version()) + "&timeoutSeconds=1");
  for (int i = 0; i < 500 && server.watchers(kPods) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(evict(*c, "web-1")->status == 201);
  REQUIRE(evict(*c, "web-2", {{"gracePeriodSeconds", 5}})->status == 201);
  REQUIRE(evict(*c, "web-1")->status == 201);  // already terminating: no change
  REQUIRE(watch.wait_events(2));
  auto events = watch.events();
  CHECK(events[0]["type"] == "MODIFIED");
  CHECK(events[0]["object"]["metadata"]["deletionGracePeriodSeconds"] == 30);
  CHECK(events[0]["object"]["metadata"].contains("deletionTimestamp"));
  CHECK(events[0]["object"]["status"]["conditions"][1]["type"] == "DisruptionTarget");
  CHECK(events[0]["object"]["status"]["conditions"][1]["reason"] == "EvictionByEvictionAPI");
  CHECK(events[1]["object"]["metadata"]["deletionGracePeriodSeconds"] == 5);
  CHECK(server.objects(kPods).size() == 2);
  CHECK(server.remove(kPods, "demo", "web-1"));
  CHECK(server.objects(kPods).size() == 1);
  CHECK(evict(*c, "web-2", {{"gracePeriodSeconds", 0}})->status ==
        201);  // grace 0: removed at once
  CHECK(server.objects(kPods).empty());
}

TEST_CASE("fake API server: leases are created, read and updated with optimistic concurrency",
          "[fake]") {
  FakeApiServer server;
  auto c = client(server);
  const json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", {{"name", "loadshift"}, {"namespace", "demo"}}},
                      {"spec", {{"holderIdentity", "loadshift-0"}, {"leaseDurationSeconds", 15}}}};
  auto created = c->Post(kLeases, lease.dump(), "application/json");  // 28
  REQUIRE(created);
  CHECK(created->status == 201);
  auto first = body_json(created);
  CHECK(first["kind"] == "Lease");
  CHECK(first["apiVersion"] == "coordination.k8s.io/v1");
  CHECK(first["metadata"]["uid"].get<std::string>().size() == 36);
  CHECK(first["metadata"]["resourceVersion"] == std::to_string(server.resource_version()));
  CHECK(first["metadata"]["creationTimestamp"].get<std::string>().ends_with("Z"));

  auto exists = c->Post(kLeases, lease.dump(), "application/json");  // 32
  REQUIRE(exists);
  CHECK(exists->status == 409);
  CHECK(
      exists->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"leases.coordination.k8s.io \"loadshift\" already exists","reason":"AlreadyExists","details":{"name":"loadshift","group":"coordination.k8s.io","kind":"leases"},"code":409})"
      "\n");

  auto got = c->Get(std::string(kLeases) + "/loadshift");  // 29
  REQUIRE(got);
  CHECK(got->status == 200);
  CHECK(body_json(got) == first);
  auto none = c->Get(std::string(kLeases) + "/other");
  REQUIRE(none);
  CHECK(none->status == 404);
  CHECK(body_json(none)["message"] == "leases.coordination.k8s.io \"other\" not found");

  json renewed = first;
  renewed["spec"]["renewTime"] = "2026-11-24T17:57:29.250000Z";
  auto updated =
      c->Put(std::string(kLeases) + "/loadshift", renewed.dump(), "application/json");  // 30
  REQUIRE(updated);
  CHECK(updated->status == 200);
  auto second = body_json(updated);
  CHECK(second["metadata"]["resourceVersion"] != first["metadata"]["resourceVersion"]);
  CHECK(second["metadata"]["uid"] == first["metadata"]["uid"]);
  CHECK(second["spec"]["renewTime"] == "2026-11-24T17:57:29.250000Z");

  json stale = first;  // 31: the old resourceVersion
  stale["spec"]["holderIdentity"] = "loadshift-1";
  auto conflict = c->Put(std::string(kLeases) + "/loadshift", stale.dump(), "application/json");
  REQUIRE(conflict);
  CHECK(conflict->status == 409);
  CHECK(
      conflict->body ==
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on leases.coordination.k8s.io \"loadshift\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"loadshift","group":"coordination.k8s.io","kind":"leases"},"code":409})"
      "\n");
  auto leases = server.objects("/apis/coordination.k8s.io/v1/leases");
  REQUIRE(leases.size() == 1);
  CHECK(leases[0]["spec"]["holderIdentity"] == "loadshift-0");

  json unversioned = lease;  // a Lease update needs a resourceVersion
  CHECK(
      c->Put(std::string(kLeases) + "/loadshift", unversioned.dump(), "application/json")->status ==
      422);
  json fresh = lease;  // a PUT of a missing Lease creates it, like the apiserver
  fresh["metadata"]["name"] = "new";
  CHECK(c->Put(std::string(kLeases) + "/new", fresh.dump(), "application/json")->status == 201);
  CHECK(c->Put("/api/v1/namespaces/demo/configmaps/none", R"({"metadata":{"name":"none"}})",
               "application/json")
            ->status == 404);

  // Lists and watches of leases work like any collection.
  auto list = body_json(c->Get(kLeases));
  CHECK(list["kind"] == "LeaseList");
  CHECK(list["items"].size() == 2);
}

TEST_CASE("fake API server: events of both APIs are stored; secrets are served", "[fake]") {
  FakeApiServer server;
  auto c = client(server);
  const json v1 = {{"apiVersion", "events.k8s.io/v1"},
                   {"kind", "Event"},
                   {"metadata", {{"name", "db-1.loadshift.1"}, {"namespace", "demo"}}},
                   {"reason", "LoadAware"},
                   {"note", "pod evicted"},
                   {"regarding", {{"kind", "Pod"}, {"name", "db-1"}}}};
  auto a = c->Post("/apis/events.k8s.io/v1/namespaces/demo/events", v1.dump(),
                   "application/json");  // 33
  REQUIRE(a);
  CHECK(a->status == 201);
  auto echoed = body_json(a);
  CHECK(echoed["note"] == "pod evicted");
  CHECK(echoed["deprecatedSource"] == json::object());
  CHECK(echoed["deprecatedFirstTimestamp"].is_null());
  CHECK(echoed["metadata"].contains("uid"));
  const json core = {{"apiVersion", "v1"},
                     {"kind", "Event"},
                     {"metadata", {{"generateName", "db-1."}}},
                     {"involvedObject", {{"kind", "Pod"}, {"name", "db-1"}}},
                     {"reason", "Descheduled"},
                     {"count", 1}};
  auto b = c->Post("/api/v1/namespaces/demo/events", core.dump(), "application/json");  // 34
  REQUIRE(b);
  CHECK(b->status == 201);
  CHECK(body_json(b)["eventTime"].is_null());
  CHECK(body_json(b)["metadata"]["namespace"] == "demo");
  CHECK(body_json(b)["metadata"]["name"].get<std::string>().size() == 10);  // "db-1." + 5
  CHECK(server.objects("/apis/events.k8s.io/v1/events").size() == 1);
  auto stored = server.objects("/api/v1/events");
  REQUIRE(stored.size() == 1);
  CHECK(stored[0]["reason"] == "Descheduled");
  json elsewhere = core;
  elsewhere["metadata"]["namespace"] = "other";
  CHECK(c->Post("/api/v1/namespaces/demo/events", elsewhere.dump(), "application/json")->status ==
        400);

  server.set_objects("/api/v1/secrets", {{{"metadata", {{"name", "token"}, {"namespace", "demo"}}},
                                          {"data", {{"t", "eA=="}}}}});
  auto secret = c->Get("/api/v1/namespaces/demo/secrets/token");
  REQUIRE(secret);
  CHECK(secret->status == 200);
  CHECK(body_json(secret)["kind"] == "Secret");
  CHECK(body_json(secret)["data"]["t"] == "eA==");
}

TEST_CASE("fake API server: RBAC rules per user allow and deny, pods/eviction apart from pods",
          "[fake]") {
  FakeApiServerOptions options;
  options.tokens = {
      {"admin-token", "admin"}, {"evictor-token", "evictor"}, {"tester-token", "tester"}};
  options.rules["evictor"] = {
      FakeRbacRule{{"get", "list", "watch"}, {"pods"}, {""}, "", {}},
      FakeRbacRule{{"create"}, {"pods/eviction"}, {""}, "demo", {}},
      FakeRbacRule{{"get", "update"}, {"leases"}, {"coordination.k8s.io"}, "demo", {"loadshift"}}};
  FakeApiServer server(options);
  server.set_objects(
      kPods, {ready_pod("demo", "a", {{"app", "a"}}), ready_pod("other", "b", {{"app", "b"}})});
  auto evictor = client(server, "evictor-token");
  CHECK(evictor->Get("/api/v1/pods")->status == 200);
  CHECK(evict(*evictor, "a")->status == 201);
  auto elsewhere = evictor->Post("/api/v1/namespaces/other/pods/b/eviction", eviction("b").dump(),
                                 "application/json");
  REQUIRE(elsewhere);
  CHECK(elsewhere->status == 403);
  CHECK(body_json(elsewhere)["message"] ==
        "pods \"b\" is forbidden: User \"evictor\" cannot create resource \"pods/eviction\" in API "
        "group \"\" in the namespace \"other\"");
  CHECK(evictor->Post("/api/v1/namespaces/demo/pods", "{}", "application/json")->status ==
        403);  // pods, not pods/eviction
  CHECK(evictor->Get(std::string(kLeases) + "/loadshift")->status == 404);  // allowed, not there
  auto create = evictor->Post(kLeases, R"({"metadata":{"name":"loadshift"}})", "application/json");
  REQUIRE(create);
  CHECK(create->status == 403);  // resourceNames never allow a create
  CHECK(body_json(create)["message"] ==
        "leases.coordination.k8s.io is forbidden: User \"evictor\" cannot create resource "
        "\"leases\" in API group "
        "\"coordination.k8s.io\" in the namespace \"demo\"");
  CHECK(body_json(create)["details"] == json{{"group", "coordination.k8s.io"}, {"kind", "leases"}});
  CHECK(evictor->Get(std::string(kLeases) + "/other")->status == 403);
  CHECK(evictor->Get("/api/v1/nodes")->status == 403);

  // Default rules (tester): pods get/list/watch only; rules change at run time.
  auto tester = client(server, "tester-token");
  CHECK(tester->Get("/api/v1/pods")->status == 200);
  CHECK(evict(*tester, "a")->status == 403);
  server.set_rules("tester", {FakeRbacRule{{"*"}, {"*"}, {}, "", {}}});
  CHECK(tester->Get("/api/v1/nodes")->status == 200);
  server.set_rules("tester", {});
  CHECK(tester->Get("/api/v1/pods")->status == 403);
  server.clear_rules("tester");
  CHECK(tester->Get("/api/v1/pods")->status == 200);
}

TEST_CASE("fake API server: tokens rotate at run time", "[fake]") {
  FakeApiServer server;
  auto old_client = client(server, "old-token");
  CHECK(old_client->Get("/api/v1/nodes")->status == 401);
  server.set_token("old-token", "admin");
  CHECK(old_client->Get("/api/v1/nodes")->status == 200);
  server.set_token("new-token", "admin");
  server.remove_token("old-token");
  CHECK(old_client->Get("/api/v1/nodes")->status == 401);
  CHECK(client(server, "new-token")->Get("/api/v1/nodes")->status == 200);
}

TEST_CASE("fake API server: writes() logs every non-GET request with its status; fail_next on POST",
          "[fake]") {
  FakeApiServer server;
  server.set_objects(
      kPods, {ready_pod("demo", "a", {{"app", "a"}}), ready_pod("demo", "b", {{"app", "b"}})});
  auto c = client(server);
  server.fail_next("/api/v1/namespaces/demo/pods/a/eviction", 500, 2);
  server.fail_next(kLeases, 429, 1, 3);
  CHECK(evict(*c, "a")->status == 500);
  CHECK(evict(*c, "a")->status == 500);
  CHECK(c->Get("/api/v1/pods")->status == 200);
  CHECK(evict(*c, "a")->status == 201);
  auto limited = c->Post(kLeases, R"({"metadata":{"name":"l"}})", "application/json");
  REQUIRE(limited);
  CHECK(limited->status == 429);
  CHECK(limited->get_header_value("Retry-After") == "3");
  CHECK(c->Put(std::string(kLeases) + "/l", R"({"metadata":{"name":"l"}})", "application/json")
            ->status == 201);
  server.drop_next("/api/v1/namespaces/demo/pods/b/eviction");
  CHECK_FALSE(evict(*c, "b"));
  CHECK(client(server)->Delete("/api/v1/namespaces/demo/pods/b")->status == 405);

  auto writes = server.writes();
  REQUIRE(writes.size() == 7);
  CHECK(writes[0].method == "POST");
  CHECK(writes[0].path == "/api/v1/namespaces/demo/pods/a/eviction");
  CHECK(writes[0].status == 500);
  CHECK(json::parse(writes[0].body)["kind"] == "Eviction");
  CHECK(writes[2].status == 201);
  CHECK(writes[3].status == 429);
  CHECK(writes[4].method == "PUT");
  CHECK(writes[4].status == 201);
  CHECK(writes[5].status == 0);  // dropped: no answer
  CHECK(writes[6].method == "DELETE");
  CHECK(writes[6].status == 405);
  CHECK(server.requests().size() == 8);
  CHECK(server.requests()[2].status == 200);
}

TEST_CASE("fake API server: JSON Patch of a node (test, add, remove; 422, 415, 404, 403)",
          "[fake]") {
  FakeApiServerOptions options;
  options.tokens["lister-token"] = "lister";
  options.rules["lister"] = {FakeRbacRule{{"list", "get"}, {"nodes"}, {""}, "", {}}};
  FakeApiServer server(options);
  server.set_objects("/api/v1/nodes", {{{"apiVersion", "v1"},
                                        {"kind", "Node"},
                                        {"metadata", {{"name", "n1"}, {"uid", "uid-n1"}}},
                                        {"spec", json::object()}}});
  const std::string rv = server.objects("/api/v1/nodes")[0]["metadata"]["resourceVersion"];
  const json taint = {{"key", "loadshift.io/overutilized"}, {"effect", "PreferNoSchedule"}};
  auto c = client(server);
  auto patch = [&](const json& body, const char* type = "application/json-patch+json") {
    auto answer = c->Patch("/api/v1/nodes/n1", body.dump(), type);
    REQUIRE(answer);
    return std::make_pair(answer->status, answer->body);
  };
  const json add =
      json::array({{{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", rv}},
                   {{"op", "add"}, {"path", "/spec/taints"}, {"value", json::array({taint})}}});
  auto [status, body] = patch(add);
  CHECK(status == 200);
  json node = json::parse(body);
  CHECK(node["spec"]["taints"] == json::array({taint}));
  CHECK(node["metadata"]["resourceVersion"] != rv);
  CHECK(node["metadata"]["uid"] == "uid-n1");

  // The same patch again: its test of the old resourceVersion fails, nothing changes.
  std::tie(status, body) = patch(add);
  CHECK(status == 422);
  json failure = json::parse(body);
  CHECK(failure["reason"] == "Invalid");
  CHECK(failure["message"] == "the server rejected our request due to an error in our request");
  CHECK(failure["details"]["causes"][0]["message"] ==
        "testing value /metadata/resourceVersion failed: test failed");
  // A stale resourceVersion written by the patch is a 409; a missing path a 422.
  std::tie(status, body) = patch(
      json::array({{{"op", "replace"}, {"path", "/metadata/resourceVersion"}, {"value", "1"}}}));
  CHECK(status == 409);
  std::tie(status, body) = patch(json::array({{{"op", "remove"}, {"path", "/spec/taints/3"}}}));
  CHECK(status == 422);
  // Other patch types and shapes.
  std::tie(status, body) =
      patch(json::object({{"spec", {{"unschedulable", true}}}}), "application/merge-patch+json");
  CHECK(status == 415);
  std::tie(status, body) = patch(json::object({{"op", "add"}}));
  CHECK(status == 400);
  auto missing = c->Patch("/api/v1/nodes/n2", "[]", "application/json-patch+json");
  REQUIRE(missing);
  CHECK(missing->status == 404);
  // RBAC: the verb is patch.
  auto refused = client(server, "lister-token")
                     ->Patch("/api/v1/nodes/n1",
                             json::array({{{"op", "remove"}, {"path", "/spec/taints/0"}}}).dump(),
                             "application/json-patch+json");
  REQUIRE(refused);
  CHECK(refused->status == 403);
  CHECK_THAT(json::parse(refused->body)["message"].get<std::string>(),
             Catch::Matchers::Contains("cannot patch resource \"nodes\""));
  // What the server holds: the one taint, after all of that.
  CHECK(server.objects("/api/v1/nodes")[0]["spec"]["taints"] == json::array({taint}));
}

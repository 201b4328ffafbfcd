// ApiClient against the fake API server: TLS and its failures, tokens and client certificates,
// 401/403 messages, retries of 429/5xx and dropped connections, discovery of missing CRDs.
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "kube/api_client.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"

using namespace loadshift::kube;
using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;
using loadshift::testing::fast_client;

namespace {

nlohmann::json node(const std::string& name) {
  return {{"metadata", {{"name", name}}},
          {"status",
           {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

std::string error_of(const std::function<void()>& call, long* status = nullptr,
                     std::string* reason = nullptr) {
  try {
    call();
  } catch (const ApiError& e) {
    if (status != nullptr) *status = e.status();
    if (reason != nullptr) *reason = e.reason();
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("api client: TLS with the cluster's CA, a token, a list", "[kube][client]") {
  FakeApiServer server;
  server.set_objects("/api/v1/nodes", {node("a"), node("b")});
  ApiClient client(loadshift::testing::access_to(server, "admin-token", "test kubeconfig"),
                   fast_client());
  nlohmann::json list = nlohmann::json::parse(client.get("/api/v1/nodes"));
  CHECK(list["kind"] == "NodeList");
  REQUIRE(list["items"].size() == 2);
  CHECK(list["items"][0]["metadata"]["name"] == "a");
  auto requests = server.requests();
  REQUIRE_FALSE(requests.empty());
  CHECK(requests.back().headers["authorization"] == "Bearer admin-token");

  // The same from a CA given as data, and through tls-server-name (the certificate names
  // localhost; the connection still goes to 127.0.0.1).
  ClusterAccess data = loadshift::testing::access_to(server, "admin-token", "test kubeconfig");
  data.tls.ca_file.clear();
  data.tls.ca_pem = server.ca_pem();
  data.tls.server_name = "localhost";
  ApiClient by_data(data, fast_client());
  CHECK_NOTHROW(by_data.get("/api/v1/nodes"));
}

TEST_CASE("api client: errors a person can act on", "[kube][client]") {
  FakeApiServerOptions options;
  options.tokens = {{"admin-token", "admin"}, {"tester-token", "tester"}};
  FakeApiServer server(options);
  long status = 0;
  std::string reason;

  ApiClient wrong(loadshift::testing::access_to(server, "nobody", "test kubeconfig"),
                  fast_client());
  std::string refused = error_of([&] { wrong.get("/api/v1/nodes"); }, &status);
  CHECK(status == 401);
  CHECK_THAT(refused, Catch::Contains("GET " + server.url() +
                                      "/api/v1/nodes: the token was "
                                      "refused (401 Unauthorized); check a bearer token "
                                      "(test kubeconfig)"));

  ApiClient tester(loadshift::testing::access_to(server, "tester-token", "test kubeconfig"),
                   fast_client());
  std::string forbidden = error_of([&] { tester.get("/api/v1/nodes"); }, &status);
  CHECK(status == 403);
  CHECK_THAT(forbidden, Catch::Contains("User \\\"tester\\\" cannot list resource \\\"nodes\\\"") ||
                            Catch::Contains("User \"tester\" cannot list resource \"nodes\""));
  CHECK_THAT(forbidden, Catch::Contains("grant that RBAC verb and resource to the user"));

  // No CA: the server's certificate is not trusted; the message names what was trusted.
  ClusterAccess untrusted = loadshift::testing::access_to(server, "admin-token", "test kubeconfig");
  untrusted.tls.ca_file.clear();
  ApiClient no_ca(untrusted, fast_client());
  std::string tls = error_of([&] { no_ca.get("/api/v1/nodes"); }, &status, &reason);
  CHECK(status == 0);
  CHECK(reason == "Tls");
  CHECK_THAT(tls,
             Catch::Contains("TLS with 127.0.0.1:" + std::to_string(server.port()) + " failed"));
  CHECK_THAT(tls, Catch::Contains("trusting the system's CA bundle, verifying the server name "
                                  "127.0.0.1"));

  // insecure-skip-tls-verify: the same server without its CA is accepted.
  untrusted.tls.insecure_skip_verify = true;
  ApiClient insecure(untrusted, fast_client());
  CHECK_NOTHROW(insecure.get("/api/v1/nodes"));

  // A name the certificate does not carry.
  ClusterAccess wrong_name =
      loadshift::testing::access_to(server, "admin-token", "test kubeconfig");
  wrong_name.tls.server_name = "api.example.com";
  ApiClient misnamed(wrong_name, fast_client());
  CHECK_THAT(error_of([&] { misnamed.get("/api/v1/nodes"); }),
             Catch::Contains("verifying the server name api.example.com"));

  // Nothing listens: the server is named, after the retries.
  ClusterAccess closed;
  closed.server = "https://127.0.0.1:1";
  ApiClient nowhere(closed, fast_client());
  CHECK_THAT(error_of([&] { nowhere.get("/api/v1/nodes"); }, &status, &reason),
             Catch::Contains("cannot connect to the server 127.0.0.1:1"));
  CHECK(reason == "Connect");
  CHECK(nowhere.requests_sent() == 5);

  // A group/version that is not installed: discovery says so, it is not an error.
  server.set_group_version_installed("topology.volcano.sh/v1alpha1", false);
  ApiClient admin(loadshift::testing::access_to(server, "admin-token", "test kubeconfig"),
                  fast_client());
  CHECK_FALSE(admin.serves("topology.volcano.sh/v1alpha1"));
  CHECK(admin.serves("v1"));
  CHECK(admin.serves("policy/v1"));
}

TEST_CASE("api client: 429, 5xx and dropped connections are retried", "[kube][client]") {
  FakeApiServer server;
  server.set_objects("/api/v1/nodes", {node("a")});
  ApiClient client(loadshift::testing::access_to(server, "admin-token", "test kubeconfig"),
                   fast_client());

  server.fail_next("/api/v1/nodes", 429, 1, 0);
  CHECK_NOTHROW(client.get("/api/v1/nodes"));
  CHECK(client.requests_sent() == 2);

  server.fail_next("/api/v1/nodes", 500, 2);
  CHECK_NOTHROW(client.get("/api/v1/nodes"));
  CHECK(client.requests_sent() == 5);

  server.drop_next("/api/v1/nodes", 1);
  CHECK_NOTHROW(client.get("/api/v1/nodes"));
  CHECK(client.requests_sent() == 7);

  // Retry-After is honoured beyond the backoff ceiling (50 ms here): the client waits 1 s.
  server.fail_next("/api/v1/nodes", 429, 1, 1);
  auto asked = std::chrono::steady_clock::now();
  CHECK_NOTHROW(client.get("/api/v1/nodes"));
  CHECK(std::chrono::steady_clock::now() - asked >= std::chrono::milliseconds(950));

  // Past the attempts: the last answer, quoted.
  server.fail_next("/api/v1/nodes", 500, 10);
  long status = 0;
  std::string failed = error_of([&] { client.get("/api/v1/nodes"); }, &status);
  CHECK(status == 500);
  CHECK_THAT(failed, Catch::Contains("(after 5 attempts)"));
}

TEST_CASE("api client: client certificates (mutual TLS)", "[kube][client]") {
  FakeApiServerOptions options;
  options.require_client_cert = true;
  FakeApiServer server(options);
  server.set_objects("/api/v1/nodes", {node("a")});
  ClusterAccess access = loadshift::testing::access_to(server, "", "test kubeconfig");
  access.tls.client_cert_file = server.client_cert_file();
  access.tls.client_key_file = server.client_key_file();
  ApiClient client(access, fast_client());
  CHECK_NOTHROW(client.get("/api/v1/nodes"));

  // The same certificate as data (kubeconfig client-certificate-data / client-key-data).
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ClusterAccess data = loadshift::testing::access_to(server, "", "test kubeconfig");
  data.tls.client_cert_pem = read(server.client_cert_file());
  data.tls.client_key_pem = read(server.client_key_file());
  ApiClient by_data(data, fast_client());
  CHECK_NOTHROW(by_data.get("/api/v1/nodes"));

  // Without it the handshake fails.
  ApiClient without(loadshift::testing::access_to(server, "", "test kubeconfig"), fast_client());
  std::string reason;
  error_of([&] { without.get("/api/v1/nodes"); }, nullptr, &reason);
  CHECK((reason == "Tls" || reason == "Connect"));
}

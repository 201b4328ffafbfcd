// kubectl (a real Kubernetes build: client-go's typed clients ask for protobuf first) reads the
// fake API server's protobuf Pod lists as it reads their JSON: the fake's encoder, which the
// decoder's tests lean on, writes what real Go code decodes. `kubectl describe node` lists the
// node's pods through the typed client and prints their requests and limits per container.
// Needs kubectl on PATH (as test/deploy/render_test.sh does); fails with a message without it.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "test/kube/fake_api_server.h"
#include "test/kube/seed_cluster.h"

using loadshift::testing::FakeApiServer;
using loadshift::testing::FakeApiServerOptions;

namespace {

// stdout of `command`, and its exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buffer{};
  size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// `kubectl describe node NODE` against `server`.
std::string describe_node(const FakeApiServer& server, const std::string& node) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("loadshift-kubectl-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string config = (dir / "kubeconfig").string();
  std::ofstream(config) << "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                        << "clusters: [{name: c, cluster: {server: '" << server.url()
                        << "', certificate-authority: '" << server.ca_file() << "'}}]\n"
                        << "users: [{name: u, user: {token: admin-token}}]\n"
                        << "contexts: [{name: c, context: {cluster: c, user: u}}]\n";
  auto [out, status] = run("kubectl --kubeconfig " + config + " --cache-dir " +
                           (dir / "cache").string() + " describe node " + node + " 2>/dev/null");
  std::filesystem::remove_all(dir);
  INFO(out);
  REQUIRE(status == 0);
  return out;
}

}  // namespace

TEST_CASE("kubectl reads the fake's protobuf pod lists as their JSON",
          "[kube][protobuf][kubectl]") {
  auto [version, status] = run("kubectl version --client 2>&1");
  INFO("kubectl is needed on PATH: " << version);
  REQUIRE(status == 0);

  FakeApiServer protobuf;  // answers Pod and Node lists in protobuf when asked
  loadshift::testing::serve_seed_cluster(protobuf);
  FakeApiServerOptions json_only;
  json_only.protobuf = false;
  FakeApiServer json(json_only);
  loadshift::testing::serve_seed_cluster(json);

  std::string from_protobuf = describe_node(protobuf, "te1");
  std::string from_json = describe_node(json, "te1");
  CHECK(protobuf.protobuf_lists() >= 1);  // kubectl asked, and got, protobuf
  CHECK(json.protobuf_lists() == 0);
  // Each pod's namespace, name, requests and limits, as kubectl decoded them.
  CHECK_THAT(from_json, Catch::Contains("Non-terminated Pods:"));
  CHECK_THAT(from_json, Catch::Contains("training-job-worker-0"));
  CHECK_THAT(from_protobuf, Catch::Contains("128Gi (50%)"));  // gpu-trainer-0's quantities
  CHECK(from_protobuf == from_json);
}

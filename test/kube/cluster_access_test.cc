// Finding the cluster: kubeconfig fields, merged files, contexts, exec plugins, in-cluster
// service accounts with rotating tokens, and the errors a person gets when something is off.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "kube/cluster_access.h"

namespace fs = std::filesystem;
using namespace loadshift::kube;

namespace {

struct TempDir {
  fs::path dir =
      fs::temp_directory_path() / ("loadshift-kube-test-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string write(const std::string& name, const std::string& text) const {
    fs::path path = dir / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
};

// "hello" in base64.
constexpr const char* kHello = "aGVsbG8=";

std::string config(const std::string& body) {
  return "apiVersion: v1\nkind: Config\n" + body;
}

Environment no_env() {
  return Environment{};
}

}  // namespace

TEST_CASE("kubeconfig: every field of the cluster and the user", "[kube][config]") {
  TempDir tmp;
  std::string file = tmp.write("conf/config", config(R"(current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443/
    certificate-authority: certs/ca.pem
    tls-server-name: api.internal
    proxy-url: http://proxy:3128
- name: data-cluster
  cluster:
    server: https://10.0.0.2:6443
    certificate-authority-data: aGVsbG8=
    insecure-skip-tls-verify: true
users:
- name: token-user
  user:
    token: abc
    client-certificate: certs/client.pem
    client-key: /abs/client-key.pem
- name: data-user
  user:
    client-certificate-data: aGVsbG8=
    client-key-data: aGVsbG8=
    tokenFile: token.txt
contexts:
- name: prod
  context: {cluster: prod-cluster, user: token-user}
- name: data
  context: {cluster: data-cluster, user: data-user}
)"));
  tmp.write("conf/token.txt", "from-file\n");
  ClusterAccess prod = from_kubeconfig({file}, "");
  CHECK(prod.server == "https://10.0.0.1:6443");                        // trailing slash dropped
  CHECK(prod.tls.ca_file == (tmp.dir / "conf/certs/ca.pem").string());  // relative to the file
  CHECK(prod.tls.server_name == "api.internal");
  CHECK(prod.proxy == "http://proxy:3128");
  CHECK(prod.tls.client_cert_file == (tmp.dir / "conf/certs/client.pem").string());
  CHECK(prod.tls.client_key_file == "/abs/client-key.pem");
  CHECK(prod.credentials.authorization() == "Bearer abc");
  CHECK_THAT(prod.origin, Catch::Contains("context prod"));
  CHECK_FALSE(prod.tls.insecure_skip_verify);

  ClusterAccess data = from_kubeconfig({file}, "data");
  CHECK(data.tls.ca_pem == "hello");
  CHECK(data.tls.ca_file.empty());
  CHECK(data.tls.insecure_skip_verify);
  CHECK(data.tls.client_cert_pem == "hello");
  CHECK(data.tls.client_key_pem == "hello");
  CHECK(data.credentials.authorization() == "Bearer from-file");
  (void)kHello;
}

TEST_CASE("kubeconfig: $KUBECONFIG files merge as kubectl merges them", "[kube][config]") {
  TempDir tmp;
  std::string first = tmp.write("a", config(R"(current-context: a-ctx
clusters:
- name: shared
  cluster: {server: "https://first:6443"}
users:
- name: u
  user: {token: first-token}
contexts:
- name: a-ctx
  context: {cluster: shared, user: u}
)"));
  std::string second = tmp.write("b", config(R"(current-context: b-ctx
clusters:
- name: shared
  cluster: {server: "https://second:6443"}
- name: only-b
  cluster: {server: "https://only-b:6443"}
users:
- name: u
  user: {token: second-token}
contexts:
- name: b-ctx
  context: {cluster: only-b, user: u}
)"));
  Environment env;
  env.kubeconfig = first + ":" + (tmp.dir / "missing").string() + ":" + second;
  // The first file's current-context and the first definition of each name win; missing files
  // in the list are skipped.
  ClusterAccess a = find_cluster({}, env);
  CHECK(a.server == "https://first:6443");
  CHECK(a.credentials.authorization() == "Bearer first-token");
  ClusterAccess b = find_cluster({"", "b-ctx"}, env);
  CHECK(b.server == "https://only-b:6443");
  CHECK(b.credentials.authorization() == "Bearer first-token");  // user u from the first file

  // --kubeconfig wins over $KUBECONFIG.
  ClusterAccess explicit_file = find_cluster({second, ""}, env);
  CHECK(explicit_file.server == "https://only-b:6443");
}

TEST_CASE("kubeconfig: mistakes are named", "[kube][config]") {
  TempDir tmp;
  auto error_of = [&](const std::string& body, const std::string& context = "") {
    std::string file = tmp.write("bad", config(body));
    try {
      from_kubeconfig({file}, context);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("clusters: []\n"),
             Catch::Contains("no current-context is set; give --context"));
  CHECK_THAT(error_of("current-context: x\n"), Catch::Contains("context \"x\" is not defined"));
  CHECK_THAT(error_of("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n"),
             Catch::Contains("context x: cluster \"c\" is not defined"));
  CHECK_THAT(error_of("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: "
                      "u}\nclusters:\n- name: c\n  cluster: {server: \"https://s\"}\n"),
             Catch::Contains("user \"u\" is not defined"));
  CHECK_THAT(error_of("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n"
                      "clusters:\n- name: c\n  cluster: {server: \"s:6443\"}\n"),
             Catch::Contains("server \"s:6443\": expected an http(s) URL"));
  CHECK_THAT(error_of("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c}\n"
                      "clusters:\n- name: c\n  cluster: {server: \"https://s\", "
                      "certificate-authority-data: \"not base64!\"}\n"),
             Catch::Contains("certificate-authority-data: not base64"));
  CHECK_THAT(error_of("current-context: x\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                      "clusters:\n- name: c\n  cluster: {server: \"https://s\"}\nusers:\n- name: "
                      "u\n  user:\n    auth-provider: {name: gcp}\n"),
             Catch::Contains("auth-provider is not supported"));
  CHECK_THAT(error_of("clusters: [\n"), Catch::Contains("not YAML"));

  Environment env;
  env.kubeconfig = (tmp.dir / "nope").string();
  CHECK_THROWS_WITH(find_cluster({}, env), Catch::Contains("none of its files exists"));
  CHECK_THROWS_WITH(find_cluster({(tmp.dir / "nope").string(), ""}, no_env()),
                    Catch::Contains("--kubeconfig") && Catch::Contains("no such file"));
  CHECK_THROWS_WITH(find_cluster({}, no_env()), Catch::Contains("no cluster configured"));
}

TEST_CASE("kubeconfig: an exec plugin is run as kubectl runs it, and its token cached",
          "[kube][config][exec]") {
  TempDir tmp;
  std::string counter = (tmp.dir / "runs").string();
  // Prints an ExecCredential whose token names the run; it expires far in the future.
  std::string plugin =
      tmp.write("bin/credential",
                "#!/bin/sh\n"
                "echo run >> " +
                    counter +
                    "\n"
                    "n=$(wc -l < " +
                    counter +
                    ")\n"
                    "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 3;; esac\n"
                    "echo "
                    "\"{\\\"apiVersion\\\":\\\"client.authentication.k8s.io/"
                    "v1\\\",\\\"kind\\\":\\\"ExecCredential\\\",\\\"status\\\":{\\\"token\\\":"
                    "\\\"tok-$n-$EXTRA\\\",\\\"expirationTimestamp\\\":\\\"$EXPIRY\\\"}}\"\n");
  fs::permissions(plugin, fs::perms::owner_all);
  auto kubeconfig = [&](const std::string& expiry) {
    return tmp.write("config", config(R"(current-context: x
contexts:
- name: x
  context: {cluster: c, user: u}
clusters:
- name: c
  cluster: {server: "https://s:6443"}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/credential
      args: [get-token]
      env:
      - {name: EXTRA, value: e}
      - {name: EXPIRY, value: ")" + expiry +
                                      R"("}
)"));
  };
  // The kubeconfig's env wins over the caller's, as with kubectl.
  setenv("EXTRA", "from-the-shell", 1);
  ClusterAccess access = from_kubeconfig({kubeconfig("2200-01-01T00:00:00Z")}, "");
  CHECK(access.credentials.authorization() == "Bearer tok-1-e");
  unsetenv("EXTRA");
  CHECK(access.credentials.authorization() == "Bearer tok-1-e");  // cached until expiry
  access.credentials.invalidate();                                // e.g. after a 401
  CHECK(access.credentials.authorization() == "Bearer tok-2-e");

  // An expired credential is fetched again every time.
  ClusterAccess expired = from_kubeconfig({kubeconfig("2000-01-01T00:00:00Z")}, "");
  CHECK(expired.credentials.authorization() == "Bearer tok-3-e");
  CHECK(expired.credentials.authorization() == "Bearer tok-4-e");

  // A failing plugin is named with what it printed.
  std::string failing = tmp.write("bin/fail", "#!/bin/sh\necho 'login required' >&2\nexit 1\n");
  fs::permissions(failing, fs::perms::owner_all);
  std::string bad = tmp.write("bad-config", config(R"(current-context: x
contexts:
- name: x
  context: {cluster: c, user: u}
clusters:
- name: c
  cluster: {server: "https://s:6443"}
users:
- name: u
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: ./bin/fail}
)"));
  ClusterAccess broken = from_kubeconfig({bad}, "");
  CHECK_THROWS_WITH(broken.credentials.authorization(),
                    Catch::Contains("exited with status 1") && Catch::Contains("login required"));
}

TEST_CASE("in-cluster: service account token re-read when it rotates", "[kube][config]") {
  TempDir tmp;
  std::string token = tmp.write("sa/token", "first-token\n");
  tmp.write("sa/ca.crt", "ca");
  Environment env;
  env.service_host = "10.96.0.1";
  env.service_port = "443";
  env.service_account_dir = (tmp.dir / "sa").string();
  ClusterAccess access = find_cluster({}, env);
  CHECK(access.server == "https://10.96.0.1:443");
  CHECK(access.tls.ca_file == (tmp.dir / "sa/ca.crt").string());
  CHECK(access.origin == "in-cluster service account");
  CHECK(access.credentials.authorization() == "Bearer first-token");
  // The kubelet swaps in a new file (a new inode) when the projected token rotates.
  std::string next = tmp.write("sa/token.next", "second-token\n");
  fs::rename(next, token);
  CHECK(access.credentials.authorization() == "Bearer second-token");

  env.service_host = "fd00::1";
  CHECK(in_cluster(env).server == "https://[fd00::1]:443");
  env.service_account_dir = (tmp.dir / "missing").string();
  CHECK_THROWS_WITH(in_cluster(env), Catch::Contains("token is missing"));
  CHECK_THROWS_WITH(in_cluster(Environment{}), Catch::Contains("KUBERNETES_SERVICE_HOST"));
}

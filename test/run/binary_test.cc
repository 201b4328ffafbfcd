// `loadshift run` as a user runs it: the real binary against the fake API server and a fake
// Prometheus, its /healthz, /readyz and /metrics read over HTTP, SIGTERM at the end.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <httplib.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "test/run/run_fixture.h"

using namespace loadshift;
using namespace loadshift::testing;
using Catch::Matchers::Contains;

namespace {

std::string kubeconfig_for(const FakeApiServer& server, RunTempDir& tmp) {
  return tmp.write("kubeconfig",
                   "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
                   "clusters:\n- name: fake\n  cluster:\n    server: " +
                       server.url() + "\n    certificate-authority: " + server.ca_file() +
                       "\nusers:\n- name: u\n  user:\n    token: admin-token\n"
                       "contexts:\n- name: fake\n  context: {cluster: fake, user: u}\n");
}

// The binary, started with `args`; its stderr goes to a file we can read while it runs.
struct Process {
  pid_t pid = -1;
  std::string log_file;

  Process(const std::vector<std::string>& args, const std::string& log) : log_file(log) {
    pid = fork();
    if (pid == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 2);
      dup2(fd, 1);
      std::vector<char*> argv;
      std::string binary = LOADSHIFT_BINARY;
      argv.push_back(binary.data());
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
  }
  ~Process() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
  std::string log() const {
    std::ifstream in(log_file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // Waits for the exit; returns the exit code, or -1 after `seconds`.
  int wait_exit(double seconds) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return -1;
  }
};

}  // namespace

TEST_CASE("the real binary runs, serves /healthz /readyz /metrics, and stops on SIGTERM",
          "[run][binary]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  Process process({"run",
                   "--policy",
                   policy,
                   "--kubeconfig",
                   kubeconfig_for(server, tmp),
                   "--prometheus",
                   prometheus.url(),
                   "--descheduling-interval",
                   "1h",
                   "--metrics-addr",
                   "127.0.0.1:0",
                   "--leader-elect",
                   "--leader-elect-resource-namespace",
                   "kube-system",
                   "--leader-elect-lease-duration",
                   "6s",
                   "--leader-elect-renew-deadline",
                   "3s",
                   "--leader-elect-retry-period",
                   "500ms",
                   "--log-format",
                   "json"},
                  tmp.path("log"));
  int port = 0;
  REQUIRE(eventually(
      [&] {
        std::smatch m;
        std::string log = process.log();
        if (!std::regex_search(log, m, std::regex("\"metrics_port\":\"([0-9]+)\""))) return false;
        port = std::stoi(m[1]);
        return true;
      },
      10));
  httplib::Client http("127.0.0.1", port);
  auto health = http.Get("/healthz");
  REQUIRE(health);
  CHECK(health->status == 200);
  // The first cycle evicts one pod (one per workload by default), then /readyz is green.
  bool evicted = eventually([&] { return count_requests(server, "POST", "/eviction") >= 1; }, 15);
  INFO(process.log());
  REQUIRE(evicted);
  REQUIRE(eventually([&] {
    auto ready = http.Get("/readyz");
    return ready && ready->status == 200;
  }));
  auto ready = http.Get("/readyz");
  CHECK_THAT(ready->body, Contains("cache: synced"));
  CHECK_THAT(ready->body, Contains("role: leader"));
  auto metrics = http.Get("/metrics");
  REQUIRE(metrics);
  CHECK(metrics->status == 200);
  CHECK_THAT(metrics->body, Contains("descheduler_pods_evicted_total{namespace=\"load-test\""));
  CHECK_THAT(metrics->body, Contains("descheduler_loop_duration_seconds_count 1"));
  CHECK_THAT(metrics->body, Contains("descheduler_build_info{"));
  CHECK_THAT(metrics->body, Contains("loadshift_leader 1"));
  CHECK_THAT(metrics->body, Contains("loadshift_cache_objects{kind=\"Pod\"}"));
  bool held = false;
  for (const nlohmann::json& l : server.objects("/apis/coordination.k8s.io/v1/leases")) {
    held |= l["spec"].value("holderIdentity", "") != "";
  }
  CHECK(held);

  kill(process.pid, SIGTERM);
  int code = process.wait_exit(30);
  INFO(process.log());
  CHECK(code == 0);
  CHECK(count_requests(server, "POST", "/eviction") == 1);
  // The lease is released on the way out: holderIdentity emptied.
  bool released = false;
  for (const nlohmann::json& l : server.objects("/apis/coordination.k8s.io/v1/leases")) {
    released |=
        l["metadata"]["name"] == "loadshift" && l["spec"].value("holderIdentity", "x") == "";
  }
  CHECK(released);
  // One JSON object per line.
  std::istringstream lines(process.log());
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(nlohmann::json::parse(line, nullptr, false).is_object());
  }
}

// The page's embedded document (report_html.h): the text of <script id="loadshift-data">.
nlohmann::json page_document(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"loadshift-data\">";
  const size_t from = html.find(open);
  const size_t to = html.find("</script>", from);
  if (from == std::string::npos || to == std::string::npos) return nullptr;
  return nlohmann::json::parse(html.substr(from + open.size(), to - from - open.size()), nullptr,
                               false);
}

TEST_CASE("the real binary serves the last plan at / and /plan.json, read-only",
          "[run][binary][page]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  auto start = [&](std::vector<std::string> extra, int* port,
                   const std::string& prometheus_url = "") {
    std::vector<std::string> args{"run",
                                  "--policy",
                                  policy,
                                  "--kubeconfig",
                                  kubeconfig_for(server, tmp),
                                  "--prometheus",
                                  prometheus_url.empty() ? prometheus.url() : prometheus_url,
                                  "--descheduling-interval",
                                  "1h",
                                  "--metrics-addr",
                                  "127.0.0.1:0"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto process = std::make_unique<Process>(args, tmp.path("log-" + std::to_string(extra.size())));
    REQUIRE(eventually(
        [&] {
          std::smatch m;
          std::string log = process->log();
          if (!std::regex_search(log, m, std::regex("metrics_port=([0-9]+)"))) return false;
          *port = std::stoi(m[1]);
          return true;
        },
        10));
    return process;
  };
  // Waits for the first cycle's plan (until then /plan.json answers 503).
  auto planned = [](httplib::Client& http) {
    return eventually(
        [&] {
          auto plan = http.Get("/plan.json");
          return plan && plan->status == 200;
        },
        15);
  };
  SECTION("on by default: the HTML report and the JSON contract of the same plan") {
    int port = 0;
    auto process = start({}, &port);
    httplib::Client http("127.0.0.1", port);
    REQUIRE(planned(http));
    auto plan = http.Get("/plan.json");
    INFO(process->log());
    CHECK(plan->get_header_value("Content-Type") == "application/json");
    CHECK(plan->get_header_value("Cache-Control") == "no-store");
    nlohmann::json doc = nlohmann::json::parse(plan->body);
    REQUIRE(doc["nodes"].size() == 8);
    REQUIRE(doc["evictions"].size() == 1);  // one per workload by default
    CHECK(doc["evictions"][0]["node"] == "te3");
    CHECK(doc["summary"]["evictions"] == 1);
    for (const nlohmann::json& skip : doc["skipped"]) CHECK(skip["strategy"].is_string());

    auto page = http.Get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK(page->get_header_value("Content-Type") == "text/html; charset=utf-8");
    nlohmann::json data = page_document(page->body);
    REQUIRE(data.is_object());
    CHECK(data["report"] == doc);  // the page shows exactly the served contract
    CHECK(data["kind"] == "report");
    CHECK_THAT(data["status"].get<std::string>(),
               Contains("1 of 1 planned eviction(s) carried out"));
    CHECK(page->body.find("src=\"http") == std::string::npos);  // no external asset
    // No secret: the API token, the kubeconfig's path and the token's header are nowhere.
    for (const std::string& body : {page->body, plan->body}) {
      CHECK(body.find("admin-token") == std::string::npos);
      CHECK(body.find("Bearer") == std::string::npos);
    }
    // Read-only: nothing but GET.
    for (const char* path : {"/", "/plan.json"}) {
      auto post = http.Post(path, "{}", "application/json");
      REQUIRE(post);
      CHECK(post->status != 200);
    }
    // For the browser test (test/report/html_report_test.mjs): the page as served.
    if (const char* out = std::getenv("LOADSHIFT_PAGE_OUT"); out != nullptr) {
      std::ofstream(std::string(out) + "/controller.html") << page->body;
      std::ofstream(std::string(out) + "/controller.json") << plan->body;
    }
  }
  SECTION("a Prometheus URL with a user and password: neither reaches the page") {
    std::string url = prometheus.url();
    REQUIRE(url.rfind("http://", 0) == 0);
    url.insert(7, "admin:s3cr3t-pass@");
    int port = 0;
    auto process = start({}, &port, url);
    httplib::Client http("127.0.0.1", port);
    REQUIRE(planned(http));
    auto page = http.Get("/");
    REQUIRE(page);
    REQUIRE(page->status == 200);
    nlohmann::json data = page_document(page->body);
    REQUIRE(data.is_object());
    CHECK_THAT(data["usageOrigin"].get<std::string>(), Contains("prometheus http://127.0.0.1:"));
    for (const std::string& body : {page->body, http.Get("/plan.json")->body, process->log()}) {
      CHECK(body.find("s3cr3t") == std::string::npos);
    }
  }
  SECTION("--no-plan-page: neither path is served") {
    int port = 0;
    auto process = start({"--no-plan-page"}, &port);
    httplib::Client http("127.0.0.1", port);
    REQUIRE(eventually(
        [&] {
          auto ready = http.Get("/readyz");
          return ready && ready->status == 200;
        },
        15));
    CHECK(http.Get("/")->status == 404);
    CHECK(http.Get("/plan.json")->status == 404);
    CHECK(http.Get("/metrics")->status == 200);
  }
}

TEST_CASE("the real binary: --descheduling-interval 0 runs one cycle and exits", "[run][binary]") {
  SeedCluster world;
  auto& [server, prometheus, tmp] = world;
  std::string policy = tmp.write("policy.yaml", seed_policy());
  SECTION("dry run: no write at all") {
    Process process(
        {"run", "--policy", policy, "--kubeconfig", kubeconfig_for(server, tmp), "--prometheus",
         prometheus.url(), "--descheduling-interval", "0", "--metrics-addr", "127.0.0.1:0",
         "--dry-run", "--leader-elect", "--workload-cooldown", "2h"},
        tmp.path("log"));
    int code = process.wait_exit(30);
    INFO(process.log());
    CHECK(code == 0);
    CHECK(server.writes().empty());
    CHECK_THAT(process.log(), Contains("would evict (dry run)"));
    CHECK_THAT(process.log(), Contains("cool-down longer than the Events' lifetime"));
    CHECK_THAT(process.log(), Contains("workload cool-down rebuilt"));
  }
  SECTION("Prometheus unreachable: the one cycle is skipped and the exit code says so") {
    Process process(
        {"run", "--policy", policy, "--kubeconfig", kubeconfig_for(server, tmp), "--prometheus",
         "http://127.0.0.1:1", "--descheduling-interval", "0", "--metrics-addr", "127.0.0.1:0"},
        tmp.path("log"));
    int code = process.wait_exit(60);
    INFO(process.log());
    CHECK(code == 1);
    CHECK(server.writes().empty());
    CHECK_THAT(process.log(), Contains("skip_reason=usage_fetch_failed"));
  }
  SECTION("bad flags: exit 2 naming each") {
    Process process({"run", "--policy", policy, "--descheduling-interval", "soon", "--log-format",
                     "xml", "--leader-elect", "--leader-elect-renew-deadline", "20s"},
                    tmp.path("log"));
    CHECK(process.wait_exit(10) == 2);
    std::string log = process.log();
    CHECK_THAT(log, Contains("--descheduling-interval: expected a duration such as 30s"));
    CHECK_THAT(log, Contains("--log-format: expected text or json, found \"xml\""));
    CHECK_THAT(log, Contains("--leader-elect-lease-duration must be longer than "
                             "--leader-elect-renew-deadline"));
  }
  SECTION("bad --workload-cooldown: exit 2 naming it") {
    for (const std::string& bad :
         {std::string("soon"), std::string("-5m"), std::string("1500ms")}) {
      Process process({"run", "--policy", policy, "--workload-cooldown=" + bad}, tmp.path("log"));
      CHECK(process.wait_exit(10) == 2);
      INFO(process.log());
      CHECK_THAT(process.log(), Contains("--workload-cooldown: expected"));
      CHECK_THAT(process.log(), Contains("\"" + bad + "\""));
    }
  }
}

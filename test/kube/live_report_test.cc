// `loadshift report` on the live cluster and `loadshift snapshot`: the live report gives the same
// plan as the report from the bundled files, and the saved files replay to the same report.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "cli/commands.h"
#include "cli/snapshot_writer.h"
#include "model/decode.h"
#include "model/rfc3339.h"
#include "test/kube/eviction_events.h"
#include "test/kube/fake_access.h"
#include "test/kube/fake_api_server.h"
#include "test/kube/seed_cluster.h"
#include "test/metrics/fake_prometheus.h"

namespace fs = std::filesystem;
using namespace loadshift::cli;
using loadshift::testing::FakeApiServer;

namespace {

const std::string kSource = LOADSHIFT_SOURCE_DIR;
const std::string kSeedPolicy =
    kSource + "/test/data/shared/seed-examples/05-load-aware-policy.yaml";
const std::string kUsage = kSource + "/examples/seed-cluster/usage.json";
const std::string kAt = "2026-11-22T04:00:00Z";

struct TempDir {
  fs::path dir =
      fs::temp_directory_path() / ("loadshift-live-test-" + std::to_string(std::random_device{}()));
  TempDir() { fs::create_directories(dir); }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }
};

std::string kubeconfig_for(const FakeApiServer& server, const TempDir& tmp,
                           const std::string& token = "admin-token") {
  return tmp.write("kubeconfig",
                   "apiVersion: v1\nkind: Config\ncurrent-context: fake\n"
                   "clusters:\n- name: fake\n  cluster:\n    server: " +
                       server.url() + "\n    certificate-authority: " + server.ca_file() +
                       "\nusers:\n- name: u\n  user:\n    token: " + token +
                       "\ncontexts:\n- name: fake\n  context: {cluster: fake, "
                       "user: u}\n");
}

struct Run {
  int code = 0;
  std::string out, err;
};

Run report(ReportOptions options) {
  std::ostringstream out, err;
  Run run;
  run.code = run_report(options, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

// The seed policy and usage at kAt, on the fake API server's cluster (no rate limit).
ReportOptions seed_report_on(const FakeApiServer& server, const TempDir& tmp) {
  ReportOptions live;
  live.policy_file = kSeedPolicy;
  live.usage_file = kUsage;
  live.at = kAt;
  live.kube.kubeconfig = kubeconfig_for(server, tmp);
  live.kube.qps = 0;
  return live;
}

// The report without its first line (which names where usage came from).
std::string body_of(const std::string& report) {
  return report.substr(report.find('\n') + 1);
}

}  // namespace

TEST_CASE("live report: the same plan as the report from the files", "[kube][live]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  TempDir tmp;
  ReportOptions live = seed_report_on(server, tmp);
  Run from_cluster = report(live);
  INFO(from_cluster.err);
  REQUIRE(from_cluster.code == 0);
  CHECK_THAT(from_cluster.out, Catch::Contains("te3 -> te8  LoadAware"));

  ReportOptions files = live;
  files.kube = {};
  files.snapshot_files = {kSource + "/examples/seed-cluster/cluster.yaml"};
  Run from_files = report(files);
  REQUIRE(from_files.code == 0);
  CHECK(from_cluster.out == from_files.out);
}

TEST_CASE("live report: the cool-down remembers the controller's Events, as `run` does",
          "[kube][live][cooldown]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  TempDir tmp;
  ReportOptions live = seed_report_on(server, tmp);
  // Five minutes before --at, loadshift moved a pod of the same ReplicaSet from te5 onto te3:
  // sending k2x9p off te3 now would undo it.
  const auto at = *loadshift::model::parse_rfc3339(kAt);
  nlohmann::json event = loadshift::testing::eviction_event(
      "low-priority-workload-5f6b7-a1b2c", "load-test", "low-priority-workload-5f6b7",
      at - std::chrono::minutes(5));
  event["metadata"]["annotations"] = {{"loadshift.io/from-node", "te5"},
                                      {"loadshift.io/to-node", "te3"}};
  server.upsert("/apis/events.k8s.io/v1/events", event);
  SECTION("within the cool-down: the pod stays, and says why") {
    Run run = report(live);
    INFO(run.err);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("Evictions (0)"));
    CHECK_THAT(run.out, Catch::Contains("workload cooling down ("));
    CHECK_THAT(run.out, Catch::Contains("low-priority-workload-5f6b7-k2x9p  te3  a pod of "
                                        "load-test/ReplicaSet/low-priority-workload-5f6b7 moved "
                                        "te5 -> te3 5m ago"));
  }
  SECTION("the cool-down off: the move as without the Event, and no Events read") {
    live.plan.workload_cooldown = "0";
    Run run = report(live);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("te3 -> te8  LoadAware"));
    size_t event_lists = 0;
    for (const auto& request : server.requests()) {
      event_lists += request.path.find("/apis/events.k8s.io/v1/events") != std::string::npos;
    }
    CHECK(event_lists == 0);
  }
  SECTION("--at before the Event: a move after it is not remembered") {
    live.at = "2026-11-22T03:50:00Z";
    Run run = report(live);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.out, Catch::Contains("te3 -> te8  LoadAware"));
  }
  SECTION("an Events list refused: a warning, and the plan without the moves") {
    server.fail_next("/apis/events.k8s.io/v1/events", 403);
    Run run = report(live);
    REQUIRE(run.code == 0);
    CHECK_THAT(run.err, Catch::Contains("warning: the workload cool-down's recent moves were "
                                        "not read"));
    CHECK_THAT(run.out, Catch::Contains("te3 -> te8  LoadAware"));
  }
}

TEST_CASE("live report: a refused token is a clear error, exit 2", "[kube][live]") {
  FakeApiServer server;
  TempDir tmp;
  ReportOptions live;
  live.policy_file = kSeedPolicy;
  live.usage_file = kUsage;
  live.kube.kubeconfig = kubeconfig_for(server, tmp, "stolen");
  Run run = report(live);
  CHECK(run.code == 2);
  CHECK_THAT(run.err, Catch::Contains(
                          "error: reading the cluster: GET " + server.url() +
                          "/api/v1/nodes?limit=500&resourceVersion=0: the token was refused (401 "
                          "Unauthorized)"));
  CHECK_THAT(run.err, Catch::Contains("kubeconfig " + tmp.path("kubeconfig") + ", context fake"));
}

TEST_CASE("snapshot: saved files replay to the same report", "[kube][live][snapshot]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  TempDir tmp;
  SnapshotOptions options;
  options.output = tmp.path("cluster.json");
  options.usage_output = tmp.path("usage.json");
  options.policy_file = kSeedPolicy;
  options.at = kAt;
  options.kube.kubeconfig = kubeconfig_for(server, tmp);
  options.kube.qps = 0;
  // The seed policy's Prometheus is not reachable here: a policy whose usage comes from a file is
  // not a thing, so the usage output goes through --prometheus at a fake-free port and must fail
  // cleanly; the cluster file is written regardless of the usage.
  SECTION("the cluster file round trip") {
    options.usage_output.clear();
    options.policy_file.clear();
    std::ostringstream out, err;
    int code = run_snapshot(options, out, err);
    INFO(err.str());
    REQUIRE(code == 0);
    CHECK_THAT(out.str(), Catch::Contains("wrote 41 objects to " + options.output));
    CHECK_THAT(out.str(), Catch::Contains("replay: loadshift report --snapshot " + options.output +
                                          " --at " + kAt));
    CHECK_FALSE(fs::exists(options.output + ".partial"));

    ReportOptions live;
    live.policy_file = kSeedPolicy;
    live.usage_file = kUsage;
    live.at = kAt;
    live.kube.kubeconfig = options.kube.kubeconfig;
    ReportOptions replay = live;
    replay.kube = {};
    replay.snapshot_files = {options.output};
    Run from_cluster = report(live);
    Run from_file = report(replay);
    INFO(from_file.err);
    REQUIRE(from_file.code == 0);
    CHECK(from_file.out == from_cluster.out);
  }
  SECTION("cluster and usage together replay to the same report as the live one") {
    // A Prometheus that knows the seed usage: te3 runs hot.
    loadshift::testing::FakePrometheus prometheus;
    prometheus.set_handler([](const loadshift::testing::FakeRequest& r) {
      std::string q = r.form("query");
      const std::map<std::string, std::pair<const char*, const char*>> usage = {
          {"te1", {"45", "50"}}, {"te2", {"55", "60"}}, {"te3", {"92", "70"}},
          {"te4", {"25", "28"}}, {"te5", {"20", "25"}}, {"te6", {"12", "18"}},
          {"te7", {"48", "40"}}, {"te8", {"15", "22"}}};
      std::vector<std::pair<std::map<std::string, std::string>, std::string>> samples;
      if (q.find("container") == std::string::npos) {  // node queries, not the pod ones
        bool memory = q.find("memory") != std::string::npos || q.find("Mem") != std::string::npos;
        for (const auto& [node, values] : usage) {
          samples.push_back({{{"instance", node}}, memory ? values.second : values.first});
        }
      }
      return loadshift::testing::FakeResponse{200, loadshift::testing::vector_body(samples)};
    });
    options.prometheus_url = prometheus.url();
    std::ostringstream out, err;
    int code = run_snapshot(options, out, err);
    INFO(err.str());
    REQUIRE(code == 0);
    CHECK_THAT(out.str(), Catch::Contains("wrote the usage of 8 nodes (0 without data) to " +
                                          options.usage_output));

    ReportOptions live;
    live.policy_file = kSeedPolicy;
    live.prometheus_url = prometheus.url();
    live.at = kAt;
    live.kube.kubeconfig = options.kube.kubeconfig;
    Run from_cluster = report(live);
    INFO(from_cluster.err);
    REQUIRE(from_cluster.code == 0);
    CHECK_THAT(from_cluster.out, Catch::Contains("te3 -> te8  LoadAware"));

    ReportOptions replay;
    replay.policy_file = kSeedPolicy;
    replay.snapshot_files = {options.output};
    replay.usage_file = options.usage_output;
    replay.at = kAt;
    Run from_files = report(replay);
    INFO(from_files.err);
    REQUIRE(from_files.code == 0);
    CHECK(body_of(from_files.out) == body_of(from_cluster.out));
  }
  SECTION("usage that cannot be fetched fails the command, with the flag named") {
    options.prometheus_url = "http://127.0.0.1:1";
    std::ostringstream out, err;
    CHECK(run_snapshot(options, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("error: --usage-output: "));
  }
  SECTION("--usage-output needs a policy") {
    options.policy_file.clear();
    std::ostringstream out, err;
    CHECK(run_snapshot(options, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("--usage-output: needs --policy FILE"));
  }
}

namespace {

// Expires every continue token once the first page of pods is complete, then passes on.
class ExpiringWriter : public loadshift::kube::PageObserver {
 public:
  ExpiringWriter(ListFileWriter& writer, FakeApiServer& server)
      : writer_(writer), server_(server) {}
  void begin_page(const loadshift::kube::Collection& c) override {
    current_ = c.path;
    writer_.begin_page(c);
  }
  void page_bytes(std::string_view bytes) override { writer_.page_bytes(bytes); }
  void end_page(bool complete) override {
    writer_.end_page(complete);
    if (complete && current_ == "/api/v1/pods" && !expired_) {
      expired_ = true;
      server_.expire_continue_tokens();
    }
  }
  void restart(const loadshift::kube::Collection& c) override { writer_.restart(c); }

 private:
  ListFileWriter& writer_;
  FakeApiServer& server_;
  std::string current_;
  bool expired_ = false;
};

}  // namespace

TEST_CASE("snapshot file: a list that started over leaves nothing twice", "[kube][snapshot]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  loadshift::kube::ApiClient client(loadshift::testing::access_to(server),
                                    loadshift::testing::fast_client());
  std::ostringstream file;
  ListFileWriter writer(file);
  ExpiringWriter expiring(writer, server);
  loadshift::kube::ReadOptions options;
  options.source = loadshift::kube::ListSource::kConsistent;  // pages, to expire a token of
  options.page_size = 3;
  loadshift::kube::ClusterRead read = loadshift::kube::read_cluster(client, options, &expiring);
  CHECK(read.restarts == 1);
  CHECK(writer.finish() == 41);
  loadshift::model::Snapshot back;
  loadshift::model::DecodeSummary summary = loadshift::model::decode_json(file.str(), &back);
  for (const auto& e : summary.errors) UNSCOPED_INFO(e.to_string());
  REQUIRE(summary.ok());
  CHECK(back.pods.size() == 20);
  CHECK(back.nodes.size() == 8);
  CHECK(back.hyper_nodes.size() == 7);  // custom resources keep their own kind
  std::vector<std::string> names;
  for (const auto& pod : back.pods) names.push_back(pod.meta.namespace_ + "/" + pod.meta.name);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
  // No item carries a second kind: custom resources come with theirs, built-in ones get one.
  CHECK(file.str().find("\"kind\":\"HyperNode\",\"apiVersion\":\"topology.volcano.sh/v1alpha1\","
                        "\"apiVersion\"") == std::string::npos);
}

TEST_CASE("snapshot file: a watch-cache list refused and read again leaves nothing twice",
          "[kube][snapshot][source]") {
  FakeApiServer server;
  loadshift::testing::serve_seed_cluster(server);
  loadshift::kube::ApiClient client(loadshift::testing::access_to(server),
                                    loadshift::testing::fast_client());
  server.fail_next("/api/v1/pods", 400);
  std::ostringstream file;
  ListFileWriter writer(file);
  loadshift::kube::ReadOptions options;
  options.page_size = 7;
  loadshift::kube::ClusterRead read = loadshift::kube::read_cluster(client, options, &writer);
  CHECK(read.consistent_fallbacks == 1);
  CHECK(writer.finish() == 41);
  loadshift::model::Snapshot back;
  REQUIRE(loadshift::model::decode_json(file.str(), &back).ok());
  CHECK(back.pods.size() == 20);
}

// The controller's steady-state cycle (issue 12): DeschedulingLoop::run_cycle, back to back, on a
// warm watch cache of a generated cluster.
//
// A child process serves the cluster with the test's fake API server (TLS, as bench_kube_sync)
// and plays Prometheus with the test's fake (canned answers, stamped with the time each query
// asks for), so the parent holds only what the controller holds. The parent is the controller as
// `loadshift run --dry-run` builds it: ApiClient, WatchCache (synced first), PolicyWatcher on a
// LoadAware policy file (the seed's watermarks, as bench_plan), ControllerMetrics, SelfMetrics,
// DeschedulingLoop with LoopSettings.dry_run = true and prometheus_url = the fake. Dry run: the
// fake's pods are never evicted, so every cycle plans on the same cluster and the same usage.
// The log (the whole report once per cycle) goes to a stream that counts its bytes and drops them.
//
// Prints the sync time, the first cycle, median / p90 / max over the cycles, evictions planned per
// cycle, the usage fetch and plan time per cycle (from the controller's own histograms), VmRSS
// and VmHWM after sync and after cycles 1, 10 and the last, each also after malloc_trim(0) with
// the bytes malloc has in use (what a leak would move), and one cycle's steps timed one by one
// outside the loop with the memory each adds. Asserts nothing timed.
//
// usage: [LOADSHIFT_BENCH_DEFAULT_HEAP=1] bench_controller_cycle CLUSTER.json [CYCLES] [USAGE.json]
//   LOADSHIFT_BENCH_DEFAULT_HEAP=1: without the controller's heap settings
//   (controller/heap_settings.h) CLUSTER.json, USAGE.json: as gen_cluster.py writes them (USAGE
//   with --pod-usage also serves per-pod usage). Without USAGE.json every tenth node runs hot (cpu
//   90%, memory 60%), the others at 25% / 25%, and the pod queries answer no series.
#include <sys/wait.h>
#include <unistd.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <prometheus/metric_family.h>
#include <nlohmann/json.hpp>

#include "controller/controller_metrics.h"
#include "controller/descheduling_loop.h"
#include "controller/heap_settings.h"
#include "controller/policy_watcher.h"
#include "controller/structured_log.h"
#include "kube/api_client.h"
#include "kube/watch_cache.h"
#include "metrics/self_metrics.h"
#include "model/rfc3339.h"
#include "placement/cluster_index.h"
#include "report/plan_view.h"
#include "report/report.h"
#include "strategies/plan.h"
#include "test/bench/bench_clock.h"
#include "test/bench/fake_cluster.h"
#include "test/kube/fake_api_server.h"
#include "test/metrics/fake_prometheus.h"
#include "usage/usage_sources.h"

namespace {

using namespace loadshift;
using bench::Clock;
using bench::seconds_since;
using bench::status_mib;

// The same LoadAware as bench_plan; the address is replaced by LoopSettings.prometheus_url.
constexpr const char* kPolicy = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
- name: load-aware
  pluginConfig:
  - name: DefaultEvictor
    args: {nodeFit: true, priorityThreshold: {value: 10000}}
  - name: LoadAware
    args:
      metrics: {type: Prometheus, address: "http://prometheus.invalid:9090"}
      thresholds: {cpu: 30, memory: 30}
      targetThresholds: {cpu: 80, memory: 85}
  plugins:
    balance: {enabled: [LoadAware]}
)";

// ---- the child: canned Prometheus answers ----

// An instant-vector answer whose sample timestamps are "@" until stamp() fills them in.
std::string vector_template(const std::vector<std::pair<std::string, std::string>>& series) {
  std::string out = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (size_t i = 0; i < series.size(); ++i) {
    if (i) out += ',';
    out += R"({"metric":{)" + series[i].first + R"(},"value":[@,")" + series[i].second + "\"]}";
  }
  return out + "]}}";
}

std::string stamp(const std::string& tmpl, const std::string& time) {
  std::string out;
  out.reserve(tmpl.size() + 16 * static_cast<size_t>(std::count(tmpl.begin(), tmpl.end(), '@')));
  size_t from = 0;
  for (size_t at = tmpl.find('@'); at != std::string::npos; at = tmpl.find('@', from)) {
    out.append(tmpl, from, at - from);
    out += time;
    from = at + 1;
  }
  out.append(tmpl, from);
  return out;
}

struct CannedUsage {
  std::string cpu, memory, pod_cpu, pod_memory;  // templates
  size_t nodes = 0, hot = 0, pods = 0;
};

std::string node_labels(const std::string& name) {
  return "\"instance\":\"" + name + "\"";
}

// From gen_cluster.py's usage file: nodes' cpu/memory percent, pods' millicores and bytes.
CannedUsage usage_from_file(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json usage = nlohmann::json::parse(in);
  std::vector<std::pair<std::string, std::string>> cpu, memory, pod_cpu, pod_memory;
  CannedUsage out;
  for (const auto& [name, value] : usage["nodes"].items()) {
    cpu.emplace_back(node_labels(name), value["cpu"].dump());
    memory.emplace_back(node_labels(name), value["memory"].dump());
    out.hot += value["cpu"].get<double>() > 80;
  }
  if (usage.contains("pods")) {
    for (const auto& [key, value] : usage["pods"].items()) {
      size_t slash = key.find('/');
      std::string labels = "\"namespace\":\"" + key.substr(0, slash) + "\",\"pod\":\"" +
                           key.substr(slash + 1) + "\"";
      pod_cpu.emplace_back(labels, value["cpu"].dump());
      pod_memory.emplace_back(labels, value["memory"].dump());
    }
  }
  out.nodes = cpu.size();
  out.pods = pod_cpu.size();
  out.cpu = vector_template(cpu);
  out.memory = vector_template(memory);
  out.pod_cpu = vector_template(pod_cpu);
  out.pod_memory = vector_template(pod_memory);
  return out;
}

// Every tenth node (in the file's order) hot: cpu 90%, memory 60%; the others 25% / 25%.
CannedUsage synthetic_usage(const std::vector<std::string>& nodes) {
  std::vector<std::pair<std::string, std::string>> cpu, memory;
  CannedUsage out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    std::string name = nlohmann::json::parse(nodes[i])["metadata"]["name"].get<std::string>();
    bool hot = i % 10 == 0;
    out.hot += hot;
    cpu.emplace_back(node_labels(name), hot ? "90" : "25");
    memory.emplace_back(node_labels(name), hot ? "60" : "25");
  }
  out.nodes = cpu.size();
  out.cpu = vector_template(cpu);
  out.memory = vector_template(memory);
  out.pod_cpu = out.pod_memory = vector_template({});
  return out;
}

// Serves the cluster and the usage until the parent closes `commands`; writes its hello (API URL,
// CA file, Prometheus URL, a summary of the usage) to `hello`.
int run_servers(const std::string& cluster, const std::string& usage_file, int hello,
                int commands) {
  bench::ItemsByCollection split;
  if (std::string error; !bench::load_cluster_items(cluster, &split, &error)) {
    std::cerr << "bench_controller_cycle: " << error << "\n";
    return 1;
  }
  CannedUsage usage = usage_file.empty() ? synthetic_usage(split.items["/api/v1/nodes"])
                                         : usage_from_file(usage_file);
  testing::FakeApiServer server;
  for (const auto& [collection, list] : split.items) {
    server.set_objects_serialized(collection, list);
  }
  server.encode_protobuf_ahead();  // the cache's sync times the client, not the fake's encoder
  split.items.clear();
  testing::FakePrometheus prometheus;
  prometheus.set_handler([&usage](const testing::FakeRequest& r) {
    const std::string query = r.form("query");
    const std::string time = r.form("time").empty() ? "1700000000" : r.form("time");
    const std::string* body = &usage.cpu;
    if (query.find("container_cpu") != std::string::npos) {
      body = &usage.pod_cpu;
    } else if (query.find("container_memory") != std::string::npos) {
      body = &usage.pod_memory;
    } else if (query.find("node_memory") != std::string::npos) {
      body = &usage.memory;
    }
    return testing::FakeResponse{200, stamp(*body, time)};
  });
  std::string text = server.url() + "\n" + server.ca_file() + "\n" + prometheus.url() + "\n" +
                     std::to_string(usage.nodes) + " nodes (" + std::to_string(usage.hot) +
                     " hot), " + std::to_string(usage.pods) + " pods with usage\n";
  if (write(hello, text.data(), text.size()) < 0) return 1;
  close(hello);
  char command;
  while (read(commands, &command, 1) > 0) {
  }
  return 0;
}

// ---- the parent: the controller ----

// Counts what is written and keeps none of it.
class CountingBuf : public std::streambuf {
 public:
  size_t bytes = 0;

 protected:
  int overflow(int c) override {
    if (c != traits_type::eof()) ++bytes;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<size_t>(n);
    return n;
  }
};

// Sum of every series of a histogram family in `registry` (seconds observed so far).
double histogram_sum(prometheus::Registry& registry, const std::string& name) {
  double sum = 0;
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const prometheus::ClientMetric& metric : family.metric) sum += metric.histogram.sample_sum;
  }
  return sum;
}

struct Memory {
  double rss, hwm, trimmed, in_use, anon;
};

// VmRSS and VmHWM now, then VmRSS after malloc_trim(0), and the bytes malloc has handed out and
// not got back (mallinfo2: every arena plus mmapped blocks) -- the figure a leak would move,
// whatever the fragmentation of the arenas.
Memory memory_now() {
  Memory m{status_mib("VmRSS"), status_mib("VmHWM"), 0, 0, 0};
  malloc_trim(0);
  m.trimmed = status_mib("VmRSS");
  m.anon = status_mib("RssAnon");  // of m.trimmed: the rest is the program's and libraries' files
  struct mallinfo2 info = mallinfo2();
  m.in_use = static_cast<double>(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
  return m;
}

void print_memory(const char* when, const Memory& m) {
  std::printf(
      "  %-22s VmRSS %5.0f MiB  VmHWM %5.0f MiB  after malloc_trim %5.0f MiB (anonymous %5.0f MiB) "
      " "
      "malloc'd in use %5.0f MiB\n",
      when, m.rss, m.hwm, m.trimmed, m.anon, m.in_use);
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(i, values.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_controller_cycle CLUSTER.json [CYCLES] [USAGE.json]\n";
    return 2;
  }
  const int cycles = argc > 2 ? std::max(1, std::atoi(argv[2])) : 100;
  const std::string usage_file = argc > 3 ? argv[3] : "";

  int to_client[2], to_server[2];
  if (pipe(to_client) != 0 || pipe(to_server) != 0) return 1;
  std::fflush(nullptr);
  pid_t server_pid = fork();
  if (server_pid == 0) {
    close(to_client[0]);
    close(to_server[1]);
    _exit(run_servers(argv[1], usage_file, to_client[1], to_server[0]));
  }
  close(to_client[1]);
  close(to_server[0]);
  const auto load_start = Clock::now();
  std::vector<std::string> hello = bench::read_lines(to_client[0], 4);
  close(to_client[0]);
  if (hello.size() < 4) {
    std::cerr << "bench_controller_cycle: the servers did not start\n";
    return 1;
  }
  std::printf(
      "servers (child process): fake API server %s, fake Prometheus %s serving %s (%s); "
      "ready %.1f s after start\n",
      hello[0].c_str(), hello[2].c_str(), hello[3].c_str(),
      usage_file.empty() ? "synthetic usage" : usage_file.c_str(), seconds_since(load_start));

  // The policy file, as the ConfigMap volume would hold it.
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("bench-controller-cycle-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string policy_file = (dir / "policy.yaml").string();
  std::ofstream(policy_file) << kPolicy;

  CountingBuf log_bytes;
  std::ostream discard(&log_bytes);
  controller::configure_logging(controller::LogFormat::kText, &discard);

  auto registry = std::make_shared<prometheus::Registry>();
  controller::PolicyWatcher watcher(policy_file, *registry);
  policy::LoadResult initial = watcher.load_initial();
  if (!initial.ok()) {
    for (const auto& e : initial.errors) std::cerr << e.to_string() << "\n";
    return 1;
  }

  // As `loadshift run` sets it before its cache lists; LOADSHIFT_BENCH_DEFAULT_HEAP=1 keeps
  // glibc's own (to measure what the setting changes).
  const char* default_heap = std::getenv("LOADSHIFT_BENCH_DEFAULT_HEAP");
  const bool heap_set = default_heap != nullptr && std::string(default_heap) == "1"
                            ? false
                            : controller::apply_heap_settings();
  std::printf("heap: %s\n", heap_set ? "fixed mmap threshold (controller/heap_settings.h)"
                                     : "glibc's default (dynamic mmap threshold)");

  kube::ClusterAccess access;
  access.server = hello[0];
  access.tls.ca_file = hello[1];
  access.credentials = kube::Credentials::from_token("admin-token");
  access.origin = "bench";
  kube::ClientOptions client_options;
  client_options.rate.qps = 0;  // the figure is the controller's, not the rate limit's
  kube::ApiClient client(access, client_options);
  controller::ControllerMetrics controller_metrics(*registry, "bench");
  metrics::SelfMetrics self_metrics(registry);
  kube::WatchCache cache(client);

  const auto sync_start = Clock::now();
  cache.start();
  const bool synced = cache.wait_synced(std::chrono::minutes(10));
  const double sync_seconds = seconds_since(sync_start);
  {
    const model::Snapshot first = cache.snapshot();
    std::printf("watch cache: synced %s in %.2f s: %zu nodes, %zu pods\n", synced ? "yes" : "NO",
                sync_seconds, first.nodes.size(), first.pods.size());
  }
  if (!synced) return 1;

  controller::LoopSettings settings;
  settings.prometheus_url = hello[2];
  settings.dry_run = true;
  std::atomic<bool> stop{false};
  controller::DeschedulingLoop loop(client, cache, watcher, controller_metrics, self_metrics,
                                    nullptr, settings, stop);

  std::vector<std::pair<const char*, Memory>> memory;
  memory.emplace_back("after sync", memory_now());

  std::vector<double> seconds, fetch_seconds, plan_seconds;
  std::vector<size_t> planned;
  std::vector<size_t> log_per_cycle;
  size_t not_dry = 0;
  std::string odd;
  for (int i = 1; i <= cycles; ++i) {
    const double fetch_before = histogram_sum(*registry, "loadshift_usage_fetch_duration_seconds");
    const double plan_before = histogram_sum(*registry, "descheduler_strategy_duration_seconds");
    const size_t log_before = log_bytes.bytes;
    const auto start = Clock::now();
    controller::CycleOutcome outcome = loop.run_cycle();
    seconds.push_back(seconds_since(start));
    fetch_seconds.push_back(histogram_sum(*registry, "loadshift_usage_fetch_duration_seconds") -
                            fetch_before);
    plan_seconds.push_back(histogram_sum(*registry, "descheduler_strategy_duration_seconds") -
                           plan_before);
    log_per_cycle.push_back(log_bytes.bytes - log_before);
    planned.push_back(outcome.planned);
    if (outcome.result != "nothing_to_do" || outcome.why.rfind("dry run:", 0) != 0) {
      ++not_dry;
      if (odd.empty()) odd = outcome.result + ": " + outcome.why;
    }
    if (i == 1) memory.emplace_back("after cycle 1", memory_now());
    if (i == 10 && cycles > 10) memory.emplace_back("after cycle 10", memory_now());
    if (i == cycles && cycles > 1) memory.emplace_back("after the last cycle", memory_now());
  }

  const auto [min_planned, max_planned] = std::minmax_element(planned.begin(), planned.end());
  std::printf(
      "cycles: %d back to back, DRY RUN (LoopSettings.dry_run: nothing evicted, the cluster and "
      "the usage stay the same, so every cycle plans the same)\n",
      cycles);
  if (not_dry > 0) {
    std::printf("  %zu cycle(s) did not plan; first: %s\n", not_dry, odd.c_str());
  }
  std::printf("  first cycle %.3f s; median %.3f s, p90 %.3f s, max %.3f s, min %.3f s\n",
              seconds.front(), percentile(seconds, 0.5), percentile(seconds, 0.9),
              percentile(seconds, 1.0), percentile(seconds, 0.0));
  std::printf(
      "  per cycle (median): usage fetch %.3f s (4 queries), plan %.3f s, the rest %.3f s "
      "(snapshot copy, index, dry-run report and log, metrics)\n",
      percentile(fetch_seconds, 0.5), percentile(plan_seconds, 0.5),
      percentile(seconds, 0.5) - percentile(fetch_seconds, 0.5) - percentile(plan_seconds, 0.5));
  std::string planned_text = std::to_string(*min_planned);
  if (*max_planned != *min_planned) planned_text += " .. " + std::to_string(*max_planned);
  std::printf("  evictions planned per cycle: %s; log %.1f MB per cycle (discarded)\n",
              planned_text.c_str(), static_cast<double>(log_per_cycle.back()) / 1e6);
  std::printf("memory of the controller process (malloc_trim only at these points):\n");
  for (const auto& [when, m] : memory) print_memory(when, m);
  std::printf("peak RSS of the controller process over the sync and the cycles (VmHWM): %.0f MiB\n",
              status_mib("VmHWM"));

  // One cycle's steps, one by one outside the loop (the same calls run_cycle makes), each with its
  // time and the memory it adds at its peak: the heap trimmed first, then VmHWM reset
  // (/proc/self/clear_refs), so the peak is this step's, over what is held before it.
  {
    struct Step {
      const char* name;
      double seconds, peak_mib, held_mib;
    };
    std::vector<Step> steps;
    auto measure = [&steps](const char* name, const auto& run) {
      malloc_trim(0);
      const double before = status_mib("VmRSS");
      const bool reset = bench::reset_peak_rss();
      const auto start = Clock::now();
      run();
      const double seconds = seconds_since(start);
      const double after = status_mib("VmRSS");
      steps.push_back({name, seconds, reset ? status_mib("VmHWM") - before : -1, after - before});
    };
    std::shared_ptr<const policy::Policy> current = watcher.current();
    model::Snapshot snapshot;
    measure("snapshot copy", [&] { snapshot = cache.snapshot(); });
    std::optional<placement::ClusterIndex> index;
    measure("index", [&] { index.emplace(snapshot, strategies::placement_options(*current)); });
    usage::UsageFlags flags;
    flags.prometheus_url = settings.prometheus_url;
    auto source = usage::make_usage_source(flags, *current, nullptr);
    metrics::UsageMap usage;
    metrics::UsageRequest nodes_only = usage::usage_request(*current);
    nodes_only.pods = false;
    measure("usage fetch: node queries only",
            [&] { (void)source->fetch(usage::node_identities(snapshot), nodes_only); });
    measure("usage fetch (as the cycle)", [&] {
      usage = source->fetch(usage::node_identities(snapshot), usage::usage_request(*current));
    });
    strategies::PlanOptions plan_options;
    plan_options.now = std::chrono::system_clock::now();
    strategies::Plan plan;
    measure("plan", [&] { plan = strategies::make_plan(*index, usage, *current, plan_options); });
    std::shared_ptr<const report::PlanView> view;
    measure("plan view (the status page's)", [&] {
      view = std::make_shared<const report::PlanView>(
          report::make_plan_view(*index, plan, usage, model::format_rfc3339(plan_options.now)));
    });
    std::ostringstream report;
    measure("dry-run report", [&] {
      report::write_report(*index, plan, usage, report::ReportFormat::kTable,
                           report::ReportStyle{false, ""}, report);
    });
    std::printf(
        "one cycle's steps alone (%zu nodes known, %zu pods with usage, %zu evictions, report "
        "%.1f MB):\n",
        usage.nodes.size(), usage.pods.size(), plan.evictions.size(),
        static_cast<double>(report.str().size()) / 1e6);
    for (const Step& step : steps) {
      std::printf("  %-32s %6.3f s   peak +%5.0f MiB   kept +%5.0f MiB\n", step.name, step.seconds,
                  step.peak_mib, step.held_mib);
    }
  }

  close(to_server[1]);
  waitpid(server_pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  return not_dry == 0 ? 0 : 1;
}

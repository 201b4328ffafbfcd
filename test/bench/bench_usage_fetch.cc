// Benchmark: node usage for N nodes (default 5,000) from a REAL Prometheus, two ways, in the same
// run against the same server and data:
//   loadshift  PrometheusSource::fetch: one instant query per resource for all nodes (2 queries);
//   per-node   the Volcano descheduler's way: its two PromQL expressions with instance="<node>",
//              one instant query per node per resource, sequentially (2 x N queries).
// Also: the fetch with sustainedFor 10m (6 queries), what Prometheus alone takes for each batched
// query, and the per-node loop with loadshift's own expressions. Prints generation, import and
// query times, the ratio, and peak RSS; asserts nothing timed (exit 1 only when loadshift's
// answers differ from the data's formula).
//
// usage: bench_usage_fetch [NODES] [HISTORY_MINUTES]     (default 5000 60)
// The data (node_exporter series, 2 CPUs per node, one sample every 15 s) is generated into a
// temporary directory and removed at exit. Needs prometheus and promtool (scripts/setup.sh).
#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/prometheus_source.h"
#include "test/bench/bench_clock.h"
#include "test/prometheus/node_series.h"
#include "test/prometheus/prometheus_server.h"

using namespace loadshift::metrics;
using namespace loadshift::testing;
using loadshift::bench::Clock;
using loadshift::bench::peak_rss_mib;
using loadshift::bench::seconds_since;

namespace {

constexpr int64_t kEval = 1735731900;  // 2025-01-01T11:45:00Z, the fixed evaluation time

std::string node_name(size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "node-%05zu", i);
  return name;
}

// Deterministic, varied nodes: idle 10..90% per CPU, a tenth of them getting hot 10 minutes
// before the evaluation time, memory 20..90% used of 16..64 GiB.
SeriesSet make_nodes(size_t count, int64_t history_seconds) {
  SeriesSet set;
  set.nodes.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    NodeSeries n;
    n.instance = node_name(i);
    double idle0 = 0.1 + 0.8 * static_cast<double>((i * 37) % 101) / 100.0;
    double idle1 = 0.1 + 0.8 * static_cast<double>((i * 53 + 11) % 101) / 100.0;
    n.cpus = {CpuIdle{idle0, {}}, CpuIdle{idle1, {}}};
    if (i % 10 == 0) {
      for (CpuIdle& cpu : n.cpus) cpu.changes.push_back({kEval - 600, 0.05});
    }
    n.memory_total_bytes = static_cast<double>(16 + 16 * (i % 4)) * 1024 * 1024 * 1024;
    n.memory_available_bytes =
        n.memory_total_bytes * (0.1 + 0.7 * static_cast<double>((i * 29) % 97) / 96.0);
    n.first = kEval - history_seconds;
    n.last = kEval;
    set.nodes.push_back(std::move(n));
  }
  return set;
}

size_t append_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// Instant queries over one kept-alive connection, answers decoded: the per-node client at its
// best (Volcano builds a new client per node; reusing one only helps the per-node side).
class InstantQueryClient {
 public:
  explicit InstantQueryClient(const std::string& address)
      : url_(address + "/api/v1/query"), curl_(curl_easy_init()) {
    curl_easy_setopt(curl_, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl_, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, &append_body);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &body_);
  }
  ~InstantQueryClient() { curl_easy_cleanup(curl_); }
  InstantQueryClient(const InstantQueryClient&) = delete;
  InstantQueryClient& operator=(const InstantQueryClient&) = delete;

  // The first sample's value, or nullopt (with `error`) when the answer is not one.
  std::optional<double> query(const std::string& promql, int64_t time, std::string& error) {
    char* escaped = curl_easy_escape(curl_, promql.c_str(), static_cast<int>(promql.size()));
    form_ = "query=" + std::string(escaped) + "&time=" + std::to_string(time);
    curl_free(escaped);
    curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, form_.c_str());
    body_.clear();
    CURLcode rc = curl_easy_perform(curl_);
    if (rc != CURLE_OK) {
      error = curl_easy_strerror(rc);
      return std::nullopt;
    }
    nlohmann::json answer = nlohmann::json::parse(body_, nullptr, false);
    if (answer.is_discarded() || answer.value("status", "") != "success") {
      error = body_.substr(0, 200);
      return std::nullopt;
    }
    const nlohmann::json& result = answer["data"]["result"];
    if (!result.is_array() || result.empty()) {
      error = "empty result";
      return std::nullopt;
    }
    return std::stod(result[0]["value"][1].get<std::string>());
  }

 private:
  std::string url_;
  CURL* curl_;
  std::string body_;
  std::string form_;
};

// Two queries per node, one node after the other, over one connection; prints and returns the
// total time. One untimed warm-up pair first. Throws when any query gives no sample.
template <typename CpuQuery, typename MemoryQuery>
double time_per_node(InstantQueryClient& client, const std::vector<NodeIdentity>& nodes,
                     CpuQuery cpu, MemoryQuery memory, const char* what) {
  std::string error;
  client.query(cpu(nodes[0].name), kEval, error);
  client.query(memory(nodes[0].name), kEval, error);
  size_t queries = 0;
  auto start = Clock::now();
  for (const NodeIdentity& n : nodes) {
    for (const std::string& promql : {cpu(n.name), memory(n.name)}) {
      ++queries;
      if (!client.query(promql, kEval, error)) {
        throw std::runtime_error(std::string(what) + ": " + n.name + ": " + error);
      }
    }
  }
  double seconds = seconds_since(start);
  std::printf("%s: %zu requests in %.3f s, %.3f ms per request\n", what, queries, seconds,
              1000.0 * seconds / static_cast<double>(queries));
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t node_count = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 5000;
  const int64_t history_minutes = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 60;
  if (node_count == 0 || history_minutes < 10) {
    std::fprintf(stderr, "usage: bench_usage_fetch [NODES>0] [HISTORY_MINUTES>=10]\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  try {
    TempDir dir("loadshift-bench-usage");
    const auto om = dir.path() / "nodes.om";

    auto start = Clock::now();
    SeriesSet set = make_nodes(node_count, history_minutes * 60);
    size_t samples = write_openmetrics(set, om);
    double generate_s = seconds_since(start);
    const double om_mib = static_cast<double>(std::filesystem::file_size(om)) / (1024.0 * 1024.0);
    std::printf(
        "data: %zu nodes, %zu series, %lld min at 15 s: %zu samples, %.0f MiB OpenMetrics "
        "generated in %.2f s\n",
        node_count, node_count * 6, static_cast<long long>(history_minutes), samples, om_mib,
        generate_s);

    auto server = PrometheusServer::start(dir.path(), om, std::chrono::seconds(300));
    std::filesystem::remove(om);
    std::printf("prometheus: promtool import %.2f s, server ready in %.2f s at %s\n",
                server->import_seconds(), server->startup_seconds(), server->address().c_str());

    std::vector<NodeIdentity> nodes;
    for (const NodeSeries& n : set.nodes) nodes.push_back({n.instance, ""});

    // loadshift: the default queries, 2 requests for all nodes. One untimed warm-up fetch, then 5
    // timed fetches here and 5 after the per-node loops (so neither side gets the quieter
    // moment); best and median of the 10.
    PrometheusSettings settings;
    settings.address = server->address();
    settings.evaluation_time = std::chrono::system_clock::time_point(std::chrono::seconds(kEval));
    settings.timeout_ms = 60000;
    PrometheusSource(settings).fetch(nodes, UsageRequest{});
    std::vector<double> fetch_s;
    UsageMap usage;
    size_t requests = 0;
    auto time_loadshift = [&] {
      for (int run = 0; run < 5; ++run) {
        PrometheusSource source(settings);
        auto fetch_start = Clock::now();
        usage = source.fetch(nodes, UsageRequest{});
        fetch_s.push_back(seconds_since(fetch_start));
        requests = source.requests_sent();
      }
    };
    time_loadshift();
    size_t wrong = 0;
    for (const NodeSeries& n : set.nodes) {
      const NodeUsage* u = usage.find(n.instance);
      double cpu = expected_cpu_percent(n, kEval, 300);
      if (u == nullptr || std::abs(u->cpu.percent - cpu) > 1e-6 * std::max(1.0, cpu) ||
          std::abs(u->memory.percent - expected_memory_percent(n)) > 1e-6 * 100) {
        ++wrong;
      }
    }
    std::printf(
        "loadshift fetch: %zu requests, %zu nodes covered (%zu unknown, %zu values off the "
        "formula)\n",
        requests, usage.nodes.size(), usage.unknown.size(), wrong);

    // With sustainedFor 10m as well: min and max subqueries, still one request each.
    {
      PrometheusSource source(settings);
      UsageRequest sustained;
      sustained.sustained_for_ms = 600000;
      start = Clock::now();
      UsageMap with_sustain = source.fetch(nodes, sustained);
      std::printf(
          "loadshift fetch with sustainedFor 10m: %zu requests, %zu nodes covered in %.3f s\n",
          source.requests_sent(), with_sustain.nodes.size(), seconds_since(start));
    }

    // What Prometheus alone takes for loadshift's two queries, one at a time (best of 3): the
    // floor of the batched fetch.
    InstantQueryClient client(server->address());
    std::string error;
    for (Query query : {Query::kCpu, Query::kMemory}) {
      const std::string promql = render_query(default_query(query), settings.window_ms, 30000);
      double best = 1e300;
      for (int run = 0; run < 3; ++run) {
        start = Clock::now();
        if (!client.query(promql, kEval, error)) throw std::runtime_error(promql + ": " + error);
        best = std::min(best, seconds_since(start));
      }
      std::printf("  prometheus alone, %s query for all nodes: %.3f s (best of 3)\n",
                  query == Query::kCpu ? "cpu" : "memory", best);
    }

    // Per node, as the Volcano descheduler asks (metrics_client_prometheus.go, duration 2m): two
    // queries per node, sequentially.
    auto volcano_cpu = [](const std::string& node) {
      return "avg_over_time((1 - (avg by (instance) (irate(node_cpu_seconds_total{mode=\"idle\","
             "instance=\"" +
             node + "\"}[30s])) * 1))[2m:30s])";
    };
    auto volcano_memory = [](const std::string& node) {
      return "avg_over_time(((1-node_memory_MemAvailable_bytes{instance=\"" + node +
             "\"}/node_memory_MemTotal_bytes{instance=\"" + node + "\"}))[2m:30s])";
    };
    double per_node_s = time_per_node(client, nodes, volcano_cpu, volcano_memory,
                                      "per-node fetch (Volcano's queries)");
    // The same per-node loop with loadshift's default expressions and instance="<node>": shows how
    // much of the difference is the number of requests rather than the expressions.
    auto own_cpu = [](const std::string& node) {
      return "100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode=\"idle\","
             "instance=\"" +
             node + "\"}[5m])))";
    };
    auto own_memory = [](const std::string& node) {
      return "100 * (1 - avg_over_time(node_memory_MemAvailable_bytes{instance=\"" + node +
             "\"}[5m]) / avg_over_time(node_memory_MemTotal_bytes{instance=\"" + node + "\"}[5m]))";
    };
    time_per_node(client, nodes, own_cpu, own_memory, "per-node fetch (loadshift's expressions)");

    time_loadshift();
    std::sort(fetch_s.begin(), fetch_s.end());
    std::printf("loadshift fetch (2 requests): best %.3f s, median %.3f s, worst %.3f s of %zu\n",
                fetch_s.front(), fetch_s[fetch_s.size() / 2], fetch_s.back(), fetch_s.size());
    std::printf(
        "ratio: loadshift %.1fx faster (per-node %.3f s / loadshift best %.3f s; %.1fx "
        "against the median)\n",
        per_node_s / fetch_s.front(), per_node_s, fetch_s.front(),
        per_node_s / fetch_s[fetch_s.size() / 2]);
    std::printf("peak RSS: bench %.0f MiB, prometheus %.0f MiB\n", peak_rss_mib(),
                server->peak_rss_mib());
    return wrong == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_usage_fetch: %s\n", e.what());
    return 1;
  }
}

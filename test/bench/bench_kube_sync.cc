// The initial read of a large cluster through the API: a fake API server (its own process, so the
// client's figures are the client's) serves a generated cluster over TLS; the client reads every
// collection page by page into a Snapshot. Prints wall time, the client's CPU time, the bytes
// received and their decode rate, and the client's peak RSS. Asserts nothing timed.
//
// usage: [LOADSHIFT_BENCH_WATCH_LIST=1] [LOADSHIFT_BENCH_JSON=1] bench_kube_sync CLUSTER.json
//        [PAGE_SIZE]
//   CLUSTER.json: a List, as gen_cluster.py writes it. LOADSHIFT_BENCH_WATCH_LIST=1: the server
//   offers the streaming watch-list (sendInitialEvents=true), and the watch cache syncs by it;
//   else it refuses it (422), as a server without the WatchList gate, and the cache lists.
//   LOADSHIFT_BENCH_JSON=1: the watch cache asks for JSON only (else Pods and Nodes are listed
//   and watched in protobuf). The two reads before the cache are JSON either way (their page
//   observer counts the bytes, and a PageObserver gets JSON).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "kube/cluster_reader.h"
#include "kube/watch_cache.h"
#include "model/decode.h"
#include "test/bench/bench_clock.h"
#include "test/bench/fake_cluster.h"
#include "test/kube/fake_api_server.h"

namespace {

using loadshift::bench::Clock;
using loadshift::bench::rss_mib;

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// Counts the bytes of every page.
class ByteCounter : public loadshift::kube::PageObserver {
 public:
  size_t bytes = 0, pages = 0;
  void begin_page(const loadshift::kube::Collection&) override { ++pages; }
  void page_bytes(std::string_view b) override { bytes += b.size(); }
  void end_page(bool) override {}
  void restart(const loadshift::kube::Collection&) override {}
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_kube_sync CLUSTER.json [PAGE_SIZE]\n";
    return 2;
  }
  const size_t page_size = argc > 2 ? std::stoul(argv[2]) : 500;
  const char* watch_list_env = std::getenv("LOADSHIFT_BENCH_WATCH_LIST");
  const bool watch_list = watch_list_env != nullptr && std::string(watch_list_env) == "1";
  const char* json_env = std::getenv("LOADSHIFT_BENCH_JSON");
  const bool json_only = json_env != nullptr && std::string(json_env) == "1";

  // The server's process: load the cluster, serve it, say where, wait to be killed.
  int to_client[2], to_server[2], done_pipe[2];
  if (pipe(to_client) != 0 || pipe(to_server) != 0 || pipe(done_pipe) != 0) return 1;
  pid_t server_pid = fork();
  if (server_pid == 0) {
    close(to_client[0]);
    close(to_server[1]);
    close(done_pipe[0]);
    loadshift::bench::ItemsByCollection split;
    if (std::string error; !loadshift::bench::load_cluster_items(argv[1], &split, &error)) {
      std::cerr << "bench_kube_sync: " << error << "\n";
      _exit(1);
    }
    loadshift::testing::FakeApiServerOptions server_options;
    server_options.watch_list = watch_list;
    loadshift::testing::FakeApiServer server(server_options);
    for (const auto& [collection, list] : split.items) {
      server.set_objects_serialized(collection, list);
    }
    server.encode_protobuf_ahead();  // the client's figures, not the fake's encoder
    std::string hello = server.url() + "\n" + server.ca_file() + "\n";
    if (write(to_client[1], hello.data(), hello.size()) < 0) _exit(1);
    close(to_client[1]);
    // Commands from the client: 'e' = change 10,000 pods (a label), then answer 'd'.
    const std::vector<std::string>& pods = split.items["/api/v1/pods"];
    char command;
    while (read(to_server[0], &command, 1) > 0) {
      if (command != 'e') continue;
      for (size_t i = 0; i < 10000 && i < pods.size(); ++i) {
        nlohmann::json pod = nlohmann::json::parse(pods[i]);
        pod["metadata"]["labels"]["bench-round"] = "1";
        server.upsert("/api/v1/pods", std::move(pod));
      }
      if (write(done_pipe[1], "d", 1) < 0) _exit(1);
    }
    return 0;  // the client closed its end: stop (the server removes its files)
  }
  close(to_client[1]);
  close(to_server[0]);
  close(done_pipe[1]);
  std::vector<std::string> hello = loadshift::bench::read_lines(to_client[0], 2);
  close(to_client[0]);
  if (hello.size() < 2) {
    std::cerr << "bench_kube_sync: the server did not start\n";
    return 1;
  }
  const std::string& url = hello[0];
  const std::string& ca = hello[1];

  loadshift::kube::ClusterAccess access;
  access.server = url;
  access.tls.ca_file = ca;
  access.credentials = loadshift::kube::Credentials::from_token("admin-token");
  access.origin = "bench";
  loadshift::kube::ClientOptions options;
  options.rate.qps = 0;  // the figure is the client's speed, not the rate limit's
  loadshift::kube::ApiClient client(access, options);
  // The same read twice: from the API server's watch cache (resourceVersion=0: one answer per
  // collection, what the commands ask for), then as consistent reads (limit/continue pages, what
  // a server that refuses the cache gets). The second one's snapshot is the one kept below.
  std::unique_ptr<loadshift::kube::ClusterRead> read;
  for (loadshift::kube::ListSource source :
       {loadshift::kube::ListSource::kWatchCache, loadshift::kube::ListSource::kConsistent}) {
    read.reset();
    malloc_trim(0);
    const bool reset = loadshift::bench::reset_peak_rss();  // this read's peak, not the last's
    ByteCounter counter;
    loadshift::kube::ReadOptions read_options;
    read_options.page_size = page_size;
    read_options.source = source;
    const double rss_before = loadshift::bench::peak_rss_mib();
    const auto start = Clock::now();
    const double cpu_start = thread_cpu_seconds();
    read = std::make_unique<loadshift::kube::ClusterRead>(
        loadshift::kube::read_cluster(client, read_options, &counter));
    const double cpu = thread_cpu_seconds() - cpu_start;
    const double wall = loadshift::bench::seconds_since(start);
    const double rss_after_read = loadshift::bench::peak_rss_mib();
    std::fflush(stdout);

    const double mb = static_cast<double>(counter.bytes) / 1e6;
    std::printf(
        "kube sync (%s): %zu nodes, %zu pods, %zu other objects; %zu pages (limit %zu), %zu "
        "decode errors\n",
        loadshift::kube::to_string(source).c_str(), read->snapshot.nodes.size(),
        read->snapshot.pods.size(),
        loadshift::model::object_count(read->snapshot) - read->snapshot.nodes.size() -
            read->snapshot.pods.size(),
        counter.pages, page_size, read->errors.size());
    std::printf(
        "  wall %.2f s; client thread CPU %.2f s; %.1f MB received (%.0f MB/s over the "
        "client's CPU time, %.0f MB/s wall)\n",
        wall, cpu, mb, cpu > 0 ? mb / cpu : 0.0, wall > 0 ? mb / wall : 0.0);
    std::printf("  client peak RSS %.0f MiB during the read (%.0f MiB before it)%s\n",
                rss_after_read, rss_before, reset ? "" : " (peak not reset: an earlier one)");
  }

  // The watch cache: its own first sync, then 10,000 pod updates through the watch. The read's
  // snapshot is let go first, so that the cache's memory is the cache's.
  const size_t read_errors = read->errors.size();
  read.reset();
  malloc_trim(0);
  const double rss_without_read = rss_mib();
  rusage before_cache{};
  getrusage(RUSAGE_SELF, &before_cache);
  const auto cache_start = Clock::now();
  loadshift::kube::WatchCacheOptions cache_options;
  cache_options.list.page_size = page_size;
  cache_options.list.protobuf = !json_only;
  loadshift::kube::WatchCache cache(client, cache_options);
  cache.start();
  const bool synced = cache.wait_synced(std::chrono::minutes(10));
  const double cache_sync = loadshift::bench::seconds_since(cache_start);
  rusage after_cache{};
  getrusage(RUSAGE_SELF, &after_cache);
  malloc_trim(0);
  const double rss_with_cache = rss_mib();
  const size_t events_before = cache.stats().events;
  rusage before_events{};
  getrusage(RUSAGE_SELF, &before_events);
  const auto events_start = Clock::now();
  if (write(to_server[1], "e", 1) != 1) return 1;
  char done = 0;
  if (::read(done_pipe[0], &done, 1) != 1) return 1;
  const double server_events = loadshift::bench::seconds_since(events_start);
  while (cache.stats().events < events_before + 10000 &&
         loadshift::bench::seconds_since(events_start) < 600) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const double events_wall = loadshift::bench::seconds_since(events_start);
  rusage after_events{};
  getrusage(RUSAGE_SELF, &after_events);
  size_t labelled = 0;
  for (const auto& pod : cache.snapshot().pods)
    labelled += pod.meta.labels.find("bench-round") != nullptr;
  auto cpu_of = [](const rusage& a, const rusage& b) {
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
    return seconds(b.ru_utime) - seconds(a.ru_utime) + seconds(b.ru_stime) - seconds(a.ru_stime);
  };

  close(to_server[1]);
  waitpid(server_pid, nullptr, 0);

  const loadshift::kube::WatchCacheStats cache_stats = cache.stats();
  std::printf(
      "watch cache (%s, %s): %zu collections by a watch-list, %zu by a list from the cache, "
      "%zu consistent, %zu watches in protobuf; sync used %.2f s of client CPU\n",
      watch_list ? "the server offers the watch-list" : "the server refuses the watch-list",
      json_only ? "JSON only" : "Pods and Nodes in protobuf", cache_stats.watch_lists,
      cache_stats.cache_lists, cache_stats.consistent_lists, cache_stats.protobuf_watches,
      cpu_of(before_cache, after_cache));
  std::printf(
      "watch cache: synced %s in %.2f s (%zu pods); 10,000 pod updates: the server sent "
      "them in %.2f s, the cache had all %.2f s after the first (client CPU %.2f s, %.0f "
      "us per event), %zu pods carry the new label\n",
      synced ? "yes" : "NO", cache_sync, cache.snapshot().pods.size(), server_events, events_wall,
      cpu_of(before_events, after_events), 1e6 * cpu_of(before_events, after_events) / 10000.0,
      labelled);
  std::printf("  client RSS %.0f MiB holding the synced cache (%.0f MiB before it)\n",
              rss_with_cache, rss_without_read);
  return read_errors == 0 ? 0 : 1;
}

// The API's two encodings of a large cluster: a fake API server (its own process) serves a
// generated cluster over TLS; a client process per encoding lists every Node and Pod from the
// watch cache (resourceVersion=0, one answer each), asking for JSON or for protobuf as
// kube-scheduler asks, and decodes it as loadshift's reads do. Prints the body bytes, the wall
// and client CPU time (the decode, while the bytes arrive), the decode rate and the client's peak
// RSS; then decodes both in one process and says whether the models are the same. Asserts
// nothing timed; exits 1 when the models differ or an object failed to decode.
//
// usage: bench_kube_encoding CLUSTER.json   (a List, as gen_cluster.py writes it)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "kube/api_client.h"
#include "model/decode.h"
#include "model/protobuf_decode.h"
#include "test/bench/bench_clock.h"
#include "test/bench/fake_cluster.h"
#include "test/kube/fake_api_server.h"

namespace {

using loadshift::bench::Clock;

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

struct Read {
  loadshift::model::Snapshot snapshot;
  size_t bytes = 0, errors = 0;
  std::string content_types;
  std::vector<std::string> bodies;  // kept when asked for
};

// Nodes and pods as one answer each, in the encoding `accept` asks for.
Read read_all(loadshift::kube::ApiClient& client, const std::string& accept,
              bool keep_bodies = false) {
  Read read;
  for (const char* path : {"/api/v1/nodes?resourceVersion=0", "/api/v1/pods?resourceVersion=0"}) {
    std::string content_type;
    loadshift::kube::StreamOptions stream;
    stream.accept = accept;
    stream.content_type = &content_type;
    std::optional<loadshift::model::JsonSnapshotDecoder> json;
    std::optional<loadshift::model::ProtobufSnapshotDecoder> protobuf;
    if (keep_bodies) read.bodies.emplace_back();
    client.stream(
        path,
        [&](std::string_view bytes) {
          if (!json && !protobuf) {
            if (loadshift::model::is_protobuf_content_type(content_type)) {
              protobuf.emplace(&read.snapshot);
            } else {
              json.emplace(&read.snapshot);
            }
          }
          read.bytes += bytes.size();
          if (keep_bodies) read.bodies.back().append(bytes);
          json ? json->feed(bytes) : protobuf->feed(bytes);
          return true;
        },
        stream);
    loadshift::model::DecodeSummary summary = json ? json->finish() : protobuf->finish();
    read.errors += summary.errors.size() + summary.errors_dropped;
    if (!read.content_types.empty()) read.content_types += ", ";
    read.content_types += content_type;
  }
  return read;
}

std::vector<const loadshift::model::Pod*> sorted(const loadshift::model::Snapshot& snapshot) {
  std::vector<const loadshift::model::Pod*> pods;
  for (const auto& pod : snapshot.pods) pods.push_back(&pod);
  std::sort(pods.begin(), pods.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
  return pods;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_kube_encoding CLUSTER.json\n";
    return 2;
  }
  int to_client[2], to_server[2];
  if (pipe(to_client) != 0 || pipe(to_server) != 0) return 1;
  pid_t server_pid = fork();
  if (server_pid == 0) {
    close(to_client[0]);
    close(to_server[1]);
    loadshift::bench::ItemsByCollection split;
    if (std::string error; !loadshift::bench::load_cluster_items(argv[1], &split, &error)) {
      std::cerr << "bench_kube_encoding: " << error << "\n";
      _exit(1);
    }
    loadshift::testing::FakeApiServer server;
    for (const auto& [collection, list] : split.items)
      server.set_objects_serialized(collection, list);
    std::string hello = server.url() + "\n" + server.ca_file() + "\n";
    if (write(to_client[1], hello.data(), hello.size()) < 0) _exit(1);
    close(to_client[1]);
    char command;
    while (read(to_server[0], &command, 1) > 0) {
    }
    return 0;  // the client closed its end: stop
  }
  close(to_client[1]);
  close(to_server[0]);
  std::vector<std::string> hello = loadshift::bench::read_lines(to_client[0], 2);
  close(to_client[0]);
  if (hello.size() < 2) {
    std::cerr << "bench_kube_encoding: the server did not start\n";
    return 1;
  }
  loadshift::kube::ClusterAccess access;
  access.server = hello[0];
  access.tls.ca_file = hello[1];
  access.credentials = loadshift::kube::Credentials::from_token("admin-token");
  access.origin = "bench";
  loadshift::kube::ClientOptions options;
  options.rate.qps = 0;
  const std::string json = "application/json";
  const std::string protobuf = std::string(loadshift::model::kProtobufContentType) + ", " + json;
  {
    // The server encodes each object in protobuf at its first protobuf list: not measured.
    loadshift::kube::ApiClient client(access, options);
    read_all(client, protobuf);
  }

  int failures = 0;
  for (const std::string* accept : {&json, &protobuf}) {
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      // A process of its own per encoding: its peak RSS is this read's.
      loadshift::kube::ApiClient client(access, options);
      const auto start = Clock::now();
      const double cpu_start = thread_cpu_seconds();
      Read read = read_all(client, *accept);
      const double cpu = thread_cpu_seconds() - cpu_start;
      const double wall = loadshift::bench::seconds_since(start);
      const double mb = static_cast<double>(read.bytes) / 1e6;
      std::printf("encoding %s: %zu nodes, %zu pods, %zu decode errors\n",
                  read.content_types.c_str(), read.snapshot.nodes.size(), read.snapshot.pods.size(),
                  read.errors);
      std::printf(
          "  %.1f MB of body; wall %.2f s; client thread CPU %.2f s (%.0f MB/s, %.1f us per "
          "object); client peak RSS %.0f MiB\n",
          mb, wall, cpu, cpu > 0 ? mb / cpu : 0.0,
          1e6 * cpu / static_cast<double>(read.snapshot.pods.size() + read.snapshot.nodes.size()),
          loadshift::bench::peak_rss_mib());
      std::fflush(stdout);
      _exit(read.errors == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }

  // Both in one process: the same model object for object.
  loadshift::kube::ApiClient client(access, options);
  Read from_json = read_all(client, json, true);
  Read from_protobuf = read_all(client, protobuf, true);
  close(to_server[1]);
  waitpid(server_pid, nullptr, 0);

  // The decode alone, from bodies held in memory (no network, no server on the same cores): the
  // best of three, per encoding.
  for (const Read* read : {&from_json, &from_protobuf}) {
    double best = 1e9;
    for (int round = 0; round < 3; ++round) {
      loadshift::model::Snapshot snapshot;
      const double cpu_start = thread_cpu_seconds();
      for (const std::string& body : read->bodies) {
        if (read == &from_json) {
          loadshift::model::decode_json(body, &snapshot);
        } else {
          loadshift::model::decode_protobuf(body, &snapshot);
        }
      }
      best = std::min(best, thread_cpu_seconds() - cpu_start);
    }
    std::printf(
        "decode alone (%s, from memory): %.2f s, %.1f us per object\n",
        read == &from_json ? "JSON" : "protobuf", best,
        1e6 * best / static_cast<double>(read->snapshot.pods.size() + read->snapshot.nodes.size()));
  }
  std::vector<const loadshift::model::Pod*> a = sorted(from_json.snapshot),
                                            b = sorted(from_protobuf.snapshot);
  size_t different = a.size() == b.size() ? 0 : std::max(a.size(), b.size());
  for (size_t i = 0; different == 0 && i < a.size(); ++i) different += !(*a[i] == *b[i]);
  bool same_nodes = from_json.snapshot.nodes == from_protobuf.snapshot.nodes;
  std::printf(
      "same model from both encodings: %s (%zu pods, %zu nodes; protobuf body %.0f%% of "
      "JSON's)\n",
      different == 0 && same_nodes ? "yes" : "NO", a.size(), from_json.snapshot.nodes.size(),
      100.0 * static_cast<double>(from_protobuf.bytes) /
          static_cast<double>(std::max<size_t>(1, from_json.bytes)));
  return failures == 0 && different == 0 && same_nodes ? 0 : 1;
}

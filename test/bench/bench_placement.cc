// Benchmark: decode a synthetic cluster and evaluate fits for every pod against 100 candidate
// nodes. Prints figures (MB/s decoded, fits per second, peak RSS); asserts nothing timed.
//
// usage: bench_placement CLUSTER.json [CANDIDATES] [INTER_POD_PERCENT]
// Make the cluster with ../shared/tools/gen_cluster.py (see scripts/bench.sh). With
// INTER_POD_PERCENT, that share of the workloads gets required anti-affinity and topology spread
// (inter_pod_share.h) before the index is built; then feasible() is measured once more for those
// pods with a DoNotSchedule hostname spread, after a plan moved every one of them once (the
// spread's minimum over thousands of touched domains).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/snapshot_files.h"
#include "placement/cluster_index.h"
#include "placement/placer.h"
#include "test/bench/bench_clock.h"
#include "test/bench/inter_pod_share.h"

using namespace loadshift::placement;

using namespace loadshift::model;
using loadshift::bench::Clock;
using loadshift::bench::peak_rss_mib;
using loadshift::bench::seconds_since;

namespace {

// feasible() for every pod against `candidates` nodes, then fits() with reasons for 1/10 of them.
void run_fits(const ClusterIndex& index, size_t candidates) {
  const Snapshot& snapshot = index.snapshot();
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  const size_t node_count = snapshot.nodes.size();
  size_t checks = 0, feasible = 0;
  auto start = Clock::now();
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    for (size_t k = 0; k < candidates; ++k) {
      NodeId node = static_cast<NodeId>((pod * 7919 + k * 37) % node_count);
      feasible += placer.feasible(pod, node, ledger);
      ++checks;
    }
  }
  double fits_s = seconds_since(start);
  std::printf("feasible(): %zu checks (%zu feasible) in %.3f s = %.2f million/s on one core\n",
              checks, feasible, fits_s, checks / fits_s / 1e6);

  size_t explained = 0, failures = 0;
  start = Clock::now();
  for (PodId pod = 0; pod < snapshot.pods.size(); pod += 10) {
    for (size_t k = 0; k < candidates; ++k) {
      NodeId node = static_cast<NodeId>((pod * 7919 + k * 37) % node_count);
      failures += placer.fits(pod, node, ledger).failures.size();
      ++explained;
    }
  }
  double explain_s = seconds_since(start);
  std::printf("fits() with reasons: %zu checks (%zu rejections) in %.3f s = %.2f million/s\n",
              explained, failures, explain_s, explained / explain_s / 1e6);
}

// feasible() of the pods with spread constraints against `candidates` nodes, after the ledger
// moved each of them once to a node of its own (every move touches two hostname domains).
void run_fits_after_moves(const ClusterIndex& index, size_t candidates) {
  const Snapshot& snapshot = index.snapshot();
  Placer placer(index);
  Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  const size_t node_count = snapshot.nodes.size();
  std::vector<PodId> spread_pods;
  for (PodId pod = 0; pod < snapshot.pods.size(); ++pod) {
    if (!snapshot.pods[pod].topology_spread.empty()) spread_pods.push_back(pod);
  }
  auto start = Clock::now();
  for (size_t i = 0; i < spread_pods.size(); ++i) {
    PodId pod = spread_pods[i];
    ledger.reserve(pod, index.node_of(pod), static_cast<NodeId>((i * 7919 + 13) % node_count),
                   index.requests(pod));
  }
  const double reserve_s = seconds_since(start);
  size_t checks = 0, feasible = 0;
  start = Clock::now();
  for (PodId pod : spread_pods) {
    for (size_t k = 0; k < candidates; ++k) {
      NodeId node = static_cast<NodeId>((pod * 7919 + k * 37) % node_count);
      feasible += placer.feasible(pod, node, ledger);
      ++checks;
    }
  }
  const double fits_s = seconds_since(start);
  std::printf(
      "after %zu planned moves (%.3f s to record): feasible() of those pods: %zu checks (%zu "
      "feasible) in %.3f s = %.2f million/s\n",
      spread_pods.size(), reserve_s, checks, feasible, fits_s, checks / fits_s / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_placement CLUSTER.json [CANDIDATES] [INTER_POD_PERCENT]\n";
    return 2;
  }
  const std::string path = argv[1];
  const size_t candidates = argc > 2 ? std::stoul(argv[2]) : 100;
  const int inter_pod_percent = argc > 3 ? std::stoi(argv[3]) : 0;
  std::ifstream probe(path, std::ios::binary | std::ios::ate);
  const double megabytes = static_cast<double>(probe.tellg()) / 1e6;

  Snapshot snapshot;
  auto start = Clock::now();
  DecodeSummary summary = loadshift::cli::read_snapshot_files({path}, &snapshot);
  const double decode_s = seconds_since(start);
  if (!summary.ok()) {
    for (const auto& e : summary.errors) std::cerr << e.to_string() << "\n";
    return 1;
  }
  std::printf("decode: %.1f MB, %zu nodes, %zu pods in %.3f s = %.0f MB/s (peak RSS %.0f MiB)\n",
              megabytes, snapshot.nodes.size(), snapshot.pods.size(), decode_s,
              megabytes / decode_s, peak_rss_mib());

  if (inter_pod_percent > 0) {
    size_t pods = loadshift::bench::add_inter_pod_rules(snapshot, inter_pod_percent);
    std::printf("inter-pod rules added to %zu pods (%d%% of the workloads)\n", pods,
                inter_pod_percent);
  }
  for (bool memo : {false, true}) {
    PlacementOptions options;
    if (!memo) options.node_rules_memo_bytes = 0;
    start = Clock::now();
    ClusterIndex index(snapshot, options);
    std::printf(
        "\n[node-rules memo %s] index: %.3f s, %zu constraint classes, %zu memo rows, "
        "%zu inter-pod slots for %zu pods\n",
        memo ? "on" : "off", seconds_since(start), index.constraint_classes(), index.memo_rows(),
        index.pod_topology().slot_count(), index.pod_topology().pods_with_rules());
    run_fits(index, candidates);
  }
  if (inter_pod_percent > 0) {
    for (Pod& pod : snapshot.pods) {
      for (TopologySpreadConstraint& c : pod.topology_spread) {
        c.when_unsatisfiable = UnsatisfiableAction::kDoNotSchedule;
      }
    }
    start = Clock::now();
    ClusterIndex index(snapshot);
    std::printf("\n[hostname spread DoNotSchedule too] index: %.3f s\n", seconds_since(start));
    run_fits_after_moves(index, candidates);
  }
  std::printf("peak RSS: %.0f MiB\n", peak_rss_mib());
  return 0;
}

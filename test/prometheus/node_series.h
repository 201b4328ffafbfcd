// Deterministic node_exporter and cAdvisor series for the Prometheus integration tests and the
// usage-fetch benchmark, written as OpenMetrics text that
// `promtool tsdb create-blocks-from openmetrics` imports.
//
// Every value follows a formula the tests evaluate on their own: a CPU's idle fraction is piecewise
// constant on the 15 s scrape grid, memory and pod usage are constant. So the answer Prometheus
// must give over any window that starts and ends on the grid is known exactly (see expected_*).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace loadshift::testing {

inline constexpr int64_t kScrapeSeconds = 15;

// From `after` (exclusive) on, the CPU is idle this fraction of the time. `after` is on the grid.
struct IdleChange {
  int64_t after = 0;
  double idle = 1;
};

// One CPU's idle fraction over time: `idle` at first, then each change in order.
struct CpuIdle {
  double idle = 1;
  std::vector<IdleChange> changes;  // sorted by `after`

  // The idle fraction over the scrape interval that ends at `t`, i.e. (t - 15 s, t].
  double fraction_until(int64_t t) const;
  // Idle seconds accumulated over (from, to], both on the grid.
  double idle_seconds(int64_t from, int64_t to) const;
};

// node_cpu_seconds_total{cpu, mode="idle"|"user", instance} for each CPU and
// node_memory_MemAvailable_bytes / node_memory_MemTotal_bytes{instance}, one sample every 15 s
// from `first` to `last` (seconds since the epoch, on the grid).
struct NodeSeries {
  std::string instance;
  std::vector<CpuIdle> cpus;
  double memory_total_bytes = 0;
  double memory_available_bytes = 0;
  int64_t first = 0;
  int64_t last = 0;
};

// cAdvisor's container_cpu_usage_seconds_total and container_memory_working_set_bytes for one
// pod: a series per container plus the pod's own cgroup (container="") carrying the sums, as the
// kubelet exports them.
struct ContainerUsage {
  std::string name;
  double cores = 0;
  double memory_bytes = 0;
};

struct PodSeries {
  std::string namespace_name;
  std::string pod;
  std::string instance;  // the node's instance, as the kubelet scrape labels it
  std::vector<ContainerUsage> containers;
  int64_t first = 0;
  int64_t last = 0;
};

struct SeriesSet {
  std::vector<NodeSeries> nodes;
  std::vector<PodSeries> pods;
};

// Writes `set` as OpenMetrics text ending in "# EOF"; returns the number of samples. Throws
// std::runtime_error naming the file when it cannot be written.
size_t write_openmetrics(const SeriesSet& set, const std::filesystem::path& file);

// What the default cpu query answers at `t`:
// 100 * (1 - mean over the node's CPUs of rate(idle[window])), for `t` and `t - window` on the
// grid and inside the node's samples (Prometheus 2.x ranges include both ends, so the rate is
// the exact increase over the window divided by the window).
double expected_cpu_percent(const NodeSeries& node, int64_t t, int64_t window_seconds);
// 100 * (1 - MemAvailable / MemTotal): constant over time, so any averaging gives this.
double expected_memory_percent(const NodeSeries& node);
// Sum over the pod's containers.
double expected_pod_cpu_milli(const PodSeries& pod);
double expected_pod_memory_bytes(const PodSeries& pod);

}  // namespace loadshift::testing

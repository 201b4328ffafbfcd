// The simulation behind `loadshift simulate`: does the policy converge, or does it ping-pong?
//
// Each cycle: plan (strategies::make_plan, as the controller does) -> evict every planned pod ->
// place each replacement where the scheduler model (placement/scheduler_model.h) says the
// cluster's scheduler would, one after the other (each sees the ones before, the originals still
// counted where they were while they terminate) -> recompute node usage from per-pod usage ->
// next cycle, `interval` later. A pod's usage travels with it: a node's usage is its own base
// (what the usage file says it uses, minus its pods' usage) plus the usage of the pods it runs,
// each pod's usage from the usage file, else its requests — the estimate the plan itself uses.
// Pure: no I/O, no clock (time starts at `start` and advances by `interval`).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/usage.h"
#include "model/model.h"
#include "policy/policy.h"

namespace loadshift::simulation {

struct SimulationOptions {
  int cycles = 10;
  std::chrono::seconds interval{600};  // between cycles (pod ages, cool-down)
  std::chrono::system_clock::time_point start;
  // What every cycle plans with, as the controller does (strategies::plan_options): cool-down
  // (fed by the simulated evictions), in-flight limit, soft taint (the scheduler sees it),
  // landing prediction.
  policy::PlanSettings settings;
  uint64_t seed = 1;  // the scheduler's random choice among nodes tied at the top score
};

// One resource over the nodes with usage: the highest percent, and the population standard
// deviation.
struct UsageSpread {
  double max = 0;
  double stddev = 0;
};

// One eviction of a cycle and what became of the pod.
struct SimulatedMove {
  std::string namespace_, pod;
  std::string from;      // the node it was evicted from
  std::string target;    // where the plan counted it; empty: nowhere (a finished pod)
  std::string landed;    // where the scheduler model put its replacement; empty: nowhere
  std::string strategy;  // the plugin that evicted it
  // "moved", "elsewhere" (landed on another node than the plan counted), "in place" (a
  // DaemonSet's pod, back on its node), "gone" (nothing recreates it), "unplaced" (no node
  // admitted the replacement).
  std::string outcome;
};

struct SimulatedCycle {
  int cycle = 0;  // 0: the starting state, before any plan
  size_t evictions = 0;
  size_t unplaced = 0;      // replacements no node admitted: dropped, their usage counts nowhere
  size_t gone = 0;          // evicted pods nothing recreates (bare pods, finished pods)
  size_t elsewhere = 0;     // replacements put elsewhere than the plan counted them
  size_t tied = 0;          // of those, where the scheduler chose among nodes tied at the top
  size_t moved_twice = 0;   // so far: pods moved two times or more
  size_t moved_back = 0;    // so far: moves onto a node the pod had left before
  UsageSpread cpu, memory;  // after the cycle's moves
  // Per node (SimulationResult::nodes order), after the cycle's moves; empty optional: unknown.
  std::vector<std::optional<double>> cpu_by_node, memory_by_node;
  std::vector<SimulatedMove> moves;  // the cycle's evictions, in plan order
};

struct SimulationResult {
  std::vector<std::string> nodes;      // node names, snapshot order
  std::vector<SimulatedCycle> cycles;  // cycle 0 (the start), then 1..N
  // The first cycle after which no cycle evicted anything, or empty when the last one did.
  std::optional<int> converged_after;
  // The first LoadAware's watermarks (percent), for the chart's shading; empty when none.
  std::optional<double> cpu_low, cpu_high, memory_low, memory_high;
  // The node usage cycle 1 planned with (recomputed from per-pod usage, as every cycle's), so
  // that its plan can be made again on the starting cluster; empty without cycles.
  metrics::UsageMap start_usage;
};

// Runs the simulation on a copy of `snapshot`. `usage` must be a usage file's (nodes and pods).
SimulationResult simulate(const model::Snapshot& snapshot, const metrics::UsageMap& usage,
                          const policy::Policy& policy, const SimulationOptions& options);

}  // namespace loadshift::simulation

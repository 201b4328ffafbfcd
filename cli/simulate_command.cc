// `loadshift simulate`: flags -> policy, snapshot, usage file -> the simulation -> one row per
// cycle (table or JSON), and the chart.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command_inputs.h"
#include "cli/commands.h"
#include "model/rfc3339.h"
#include "placement/cluster_index.h"
#include "report/plan_view.h"
#include "report/report_html.h"
#include "simulation/simulation.h"
#include "simulation/simulation_chart.h"
#include "strategies/plan.h"

namespace loadshift::cli {
namespace {

constexpr int kMaxCycles = 1000;

struct CheckedFlags {
  std::chrono::milliseconds interval{0};
  strategies::PlanOverrides plan;
  std::optional<std::chrono::system_clock::time_point> at;
};

bool check_flags(const SimulateOptions& o, std::ostream& err, CheckedFlags* out) {
  bool ok = true;
  auto require = [&](bool given, const char* what) {
    if (!given) {
      err << "error: " << what << "\n";
      ok = false;
    }
  };
  require(!o.policy_file.empty(), "--policy: required: the DeschedulerPolicy file");
  require(!o.snapshot_files.empty(), "--snapshot: required: the cluster's objects (repeatable)");
  require(!o.usage_file.empty(),
          "--usage: required: node and pod usage (a usage file: the simulation moves each pod's "
          "usage with it)");
  if (o.cycles < 1 || o.cycles > kMaxCycles) {
    err << "error: --cycles: expected 1 to " << kMaxCycles << ", found " << o.cycles << "\n";
    ok = false;
  }
  if (!parse_flag_duration("--interval", o.interval, &out->interval, err)) ok = false;
  if (ok && out->interval < std::chrono::seconds(1)) {
    err << "error: --interval: expected a duration of 1s or more, found \"" << o.interval << "\"\n";
    ok = false;
  }
  if (!parse_plan_flags(o.plan, &out->plan, err)) ok = false;
  if (!o.at.empty()) {
    out->at = model::parse_rfc3339(o.at);
    if (!out->at) {
      err << "error: --at: expected an RFC 3339 time such as 2026-11-22T04:00:00Z, found \"" << o.at
          << "\"\n";
      ok = false;
    }
  }
  if (o.output != "table" && o.output != "json" && o.output != "html") {
    err << "error: --output: expected table, json or html, found \"" << o.output << "\"\n";
    ok = false;
  }
  return ok;
}

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", v);
  return buf;
}

void write_table(const simulation::SimulationResult& r, const simulation::SimulationOptions& o,
                 std::ostream& out) {
  const policy::PlanSettings& s = o.settings;
  out << "loadshift simulation: " << o.cycles << " cycles, "
      << (s.landing_prediction ? "landing prediction on" : "landing prediction OFF")
      << (s.soft_taint_hot_nodes ? ", soft taint on hot nodes" : "")
      << (s.workload_cooldown.milliseconds > 0 ? ", workload cool-down " + s.workload_cooldown.text
                                               : std::string())
      << (s.max_in_flight_per_workload > 0
              ? ", " + std::to_string(s.max_in_flight_per_workload) + " pod(s) in flight per workload"
              : std::string())
      << "\n\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-6s %9s %8s %8s %8s %8s %8s %6s %8s %8s %9s\n", "CYCLE",
                "EVICTIONS", "CPU MAX", "CPU SD", "MEM MAX", "MEM SD", "ELSEWH.", "TIED",
                "UNPLACED", "TWICE", "MOVED BACK");
  out << line;
  for (const simulation::SimulatedCycle& c : r.cycles) {
    std::string evictions = c.cycle == 0 ? "-" : std::to_string(c.evictions);
    std::snprintf(line, sizeof line, "%-6d %9s %8s %8s %8s %8s %8zu %6zu %8zu %8zu %9zu\n", c.cycle,
                  evictions.c_str(), percent(c.cpu.max).c_str(), percent(c.cpu.stddev).c_str(),
                  percent(c.memory.max).c_str(), percent(c.memory.stddev).c_str(), c.elsewhere,
                  c.tied, c.unplaced, c.moved_twice, c.moved_back);
    out << line;
  }
  out << "\n  MAX: the hottest node; SD: standard deviation over the nodes with usage (after the "
         "cycle's moves)\n  ELSEWH.: replacements the scheduler put elsewhere than the plan "
         "counted them (its landing, else its target); TIED: of those, chosen at random among "
         "nodes tied at the top score; UNPLACED: no node admitted them\n  TWICE: "
         "pods moved two times or more so far; "
         "MOVED BACK: moves onto a node the pod had left\n\n";
  if (r.converged_after) {
    out << "converged: no eviction after cycle " << *r.converged_after << "\n";
  } else {
    out << "not converged: cycle " << o.cycles << " still evicted\n";
  }
}

nlohmann::ordered_json to_json(const simulation::SimulationResult& r,
                               const simulation::SimulationOptions& o) {
  auto values = [](const std::vector<std::optional<double>>& v) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& x : v) a.push_back(x ? nlohmann::ordered_json(*x) : nullptr);
    return a;
  };
  nlohmann::ordered_json cycles = nlohmann::ordered_json::array();
  for (const simulation::SimulatedCycle& c : r.cycles) {
    cycles.push_back({{"cycle", c.cycle},
                      {"evictions", c.evictions},
                      {"elsewhere", c.elsewhere},
                      {"elsewhereTied", c.tied},
                      {"unplaced", c.unplaced},
                      {"gone", c.gone},
                      {"movedTwice", c.moved_twice},
                      {"movedBack", c.moved_back},
                      {"cpu", {{"max", c.cpu.max}, {"stddev", c.cpu.stddev}}},
                      {"memory", {{"max", c.memory.max}, {"stddev", c.memory.stddev}}},
                      {"cpuByNode", values(c.cpu_by_node)},
                      {"memoryByNode", values(c.memory_by_node)}});
  }
  nlohmann::ordered_json moves = nlohmann::ordered_json::array();
  for (const simulation::SimulatedCycle& c : r.cycles) {
    for (const simulation::SimulatedMove& m : c.moves) {
      auto or_null = [](const std::string& s) {
        return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
      };
      moves.push_back({{"cycle", c.cycle},
                       {"namespace", m.namespace_},
                       {"pod", m.pod},
                       {"from", m.from},
                       {"target", or_null(m.target)},
                       {"landed", or_null(m.landed)},
                       {"strategy", m.strategy},
                       {"outcome", m.outcome}});
    }
  }
  auto mark = [](const std::optional<double>& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  return {
      {"cycles", o.cycles},
      {"landingPrediction", o.settings.landing_prediction},
      {"softTaintHotNodes", o.settings.soft_taint_hot_nodes},
      {"workloadCooldownSeconds", o.settings.workload_cooldown.milliseconds / 1000},
      {"maxInFlightPerWorkload", o.settings.max_in_flight_per_workload},
      {"nodes", r.nodes},
      {"convergedAfter", r.converged_after ? nlohmann::ordered_json(*r.converged_after) : nullptr},
      {"perCycle", std::move(cycles)},
      {"moves", std::move(moves)},
      {"watermarks",
       {{"cpuLow", mark(r.cpu_low)},
        {"cpuHigh", mark(r.cpu_high)},
        {"memoryLow", mark(r.memory_low)},
        {"memoryHigh", mark(r.memory_high)}}}};
}

}  // namespace

int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  CheckedFlags flags;
  if (!check_flags(options, err, &flags)) return 2;
  std::optional<policy::Policy> policy = load_policy(options.policy_file, err);
  if (!policy) return 2;
  model::Snapshot snapshot;
  if (!read_snapshot(options.snapshot_files, &snapshot, err)) return 2;
  std::optional<metrics::UsageMap> usage = fetch_usage(
      usage::UsageFlags{options.usage_file, "", flags.at, std::nullopt}, *policy, snapshot, err);
  if (!usage) return 2;

  simulation::SimulationOptions sim;
  sim.cycles = options.cycles;
  sim.interval = std::chrono::duration_cast<std::chrono::seconds>(flags.interval);
  sim.start = flags.at.value_or(std::chrono::system_clock::now());
  sim.settings = strategies::effective_settings(policy->loadshift, flags.plan);
  sim.seed = options.seed;
  simulation::SimulationResult result = simulation::simulate(snapshot, *usage, *policy, sim);

  if (!options.chart.empty()) {
    std::ofstream file(options.chart);
    if (file) simulation::write_simulation_chart(result, file);
    if (!file) {
      err << "error: --chart: cannot write " << options.chart << "\n";
      return 2;
    }
  }
  if (options.output == "html") {
    // The page's node map and plan: the first cycle's plan, made again on the cluster as it
    // starts with the usage that cycle planned with.
    placement::ClusterIndex index(snapshot, strategies::placement_options(*policy));
    strategies::Plan plan = strategies::make_plan(
        index, result.start_usage, *policy, strategies::plan_options(sim.settings, sim.start));
    report::HtmlPage page;
    page.title = "loadshift simulation";
    page.generator = "loadshift " + std::string(version());
    page.simulation = to_json(result, sim);
    report::write_report_html(
        report::make_plan_view(index, plan, result.start_usage, model::format_rfc3339(sim.start)),
        page, out);
  } else if (options.output == "json") {
    out << to_json(result, sim).dump(2) << "\n";
  } else {
    write_table(result, sim, out);
  }
  return 0;
}

}  // namespace loadshift::cli

#include "simulation/simulation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <unordered_map>

#include "model/rfc3339.h"
#include "placement/cluster_index.h"
#include "placement/ledger.h"
#include "placement/scheduler_model.h"
#include "strategies/plan.h"

namespace loadshift::simulation {
namespace {

using placement::NodeId;
using placement::PodId;

// A pod's usage in absolute amounts: its own from the usage file, else its requests.
struct Amounts {
  double cpu_milli = 0;
  double memory_bytes = 0;
};

double allocatable(const model::Node& node, bool cpu) {
  return static_cast<double>(cpu ? node.allocatable.cpu_milli : node.allocatable.memory);
}

class Simulation {
 public:
  Simulation(const model::Snapshot& snapshot, const metrics::UsageMap& usage,
             const policy::Policy& policy, const SimulationOptions& options)
      : cluster_(snapshot), usage_(usage), policy_(policy), options_(options), rng_(options.seed) {
    for (const model::Node& node : cluster_.nodes) result_.nodes.push_back(node.meta.name);
    measure_bases();
    if (const policy::LoadAwareArgs* args = strategies::first_load_aware(policy)) {
      if (!args->use_deviation_thresholds) {
        auto get = [](const policy::Percentages& p, const char* r) -> std::optional<double> {
          auto it = p.find(r);
          return it == p.end() ? std::nullopt : std::optional<double>(it->second);
        };
        result_.cpu_low = get(args->thresholds, "cpu");
        result_.cpu_high = get(args->target_thresholds, "cpu");
        result_.memory_low = get(args->thresholds, "memory");
        result_.memory_high = get(args->target_thresholds, "memory");
      }
    }
  }

  SimulationResult run() {
    std::chrono::system_clock::time_point now = options_.start;
    result_.cycles.push_back(measure(0));
    for (int cycle = 1; cycle <= options_.cycles; ++cycle) {
      SimulatedCycle stats = run_cycle(now);
      SimulatedCycle after = measure(cycle);
      after.evictions = stats.evictions;
      after.unplaced = stats.unplaced;
      after.gone = stats.gone;
      after.elsewhere = stats.elsewhere;
      after.tied = stats.tied;
      after.moves = std::move(stats.moves);
      result_.cycles.push_back(std::move(after));
      now += options_.interval;
    }
    int last = 0;
    for (const SimulatedCycle& c : result_.cycles) {
      if (c.evictions > 0) last = c.cycle;
    }
    if (last < options_.cycles) result_.converged_after = last;
    return std::move(result_);
  }

 private:
  Amounts pod_amounts(const model::Pod& pod) const {
    auto it = usage_.pods.find(pod.key());
    if (it != usage_.pods.end()) return {it->second.cpu_milli, it->second.memory_bytes};
    model::ResourceList requests = model::effective_requests(pod);
    return {static_cast<double>(requests.cpu_milli), static_cast<double>(requests.memory)};
  }

  // Per node with usage data: what it uses besides its pods (never below 0).
  void measure_bases() {
    base_.assign(cluster_.nodes.size(), std::nullopt);
    std::vector<Amounts> pods = pods_by_node();
    for (NodeId node = 0; node < cluster_.nodes.size(); ++node) {
      const metrics::NodeUsage* u = usage_.find(cluster_.nodes[node].meta.name);
      if (u == nullptr || !u->cpu_memory_measured) continue;
      const model::Node& n = cluster_.nodes[node];
      Amounts base;
      base.cpu_milli =
          std::max(0.0, u->cpu.percent * allocatable(n, true) / 100 - pods[node].cpu_milli);
      base.memory_bytes =
          std::max(0.0, u->memory.percent * allocatable(n, false) / 100 - pods[node].memory_bytes);
      base_[node] = base;
    }
  }

  std::vector<Amounts> pods_by_node() const {
    std::unordered_map<std::string_view, NodeId> by_name;
    for (NodeId node = 0; node < cluster_.nodes.size(); ++node) {
      by_name.emplace(cluster_.nodes[node].meta.name, node);
    }
    std::vector<Amounts> out(cluster_.nodes.size());
    for (const model::Pod& pod : cluster_.pods) {
      if (pod.terminated() || pod.node_name.empty()) continue;
      auto it = by_name.find(pod.node_name);
      if (it == by_name.end()) continue;
      Amounts a = pod_amounts(pod);
      out[it->second].cpu_milli += a.cpu_milli;
      out[it->second].memory_bytes += a.memory_bytes;
    }
    return out;
  }

  // Node usage percent now: base plus the pods it runs, over allocatable.
  std::vector<std::optional<std::pair<double, double>>> node_percents() const {
    std::vector<Amounts> pods = pods_by_node();
    std::vector<std::optional<std::pair<double, double>>> out(cluster_.nodes.size());
    for (NodeId node = 0; node < cluster_.nodes.size(); ++node) {
      if (!base_[node]) continue;
      const model::Node& n = cluster_.nodes[node];
      double cpu_alloc = allocatable(n, true), memory_alloc = allocatable(n, false);
      if (cpu_alloc <= 0 || memory_alloc <= 0) continue;
      out[node] = {100 * (base_[node]->cpu_milli + pods[node].cpu_milli) / cpu_alloc,
                   100 * (base_[node]->memory_bytes + pods[node].memory_bytes) / memory_alloc};
    }
    return out;
  }

  metrics::UsageMap usage_now() const {
    metrics::UsageMap out;
    out.pods = usage_.pods;
    out.unknown = usage_.unknown;
    out.origin = "simulation of " + usage_.origin;
    auto percents = node_percents();
    for (NodeId node = 0; node < cluster_.nodes.size(); ++node) {
      const std::string& name = cluster_.nodes[node].meta.name;
      const metrics::NodeUsage* original = usage_.find(name);
      if (original == nullptr) continue;
      metrics::NodeUsage u = *original;
      if (percents[node]) {
        u.cpu.percent = percents[node]->first;
        u.memory.percent = percents[node]->second;
        // The simulated load is steady: it has been what it is for the whole sustain period.
        if (u.cpu.sustained_min) u.cpu.sustained_min = u.cpu.sustained_max = u.cpu.percent;
        if (u.memory.sustained_min) {
          u.memory.sustained_min = u.memory.sustained_max = u.memory.percent;
        }
      }
      out.nodes.emplace(name, u);
    }
    return out;
  }

  static UsageSpread spread_of(const std::vector<double>& values) {
    UsageSpread s;
    if (values.empty()) return s;
    double sum = 0;
    s.max = values.front();
    for (double v : values) {
      sum += v;
      s.max = std::max(s.max, v);
    }
    double mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    s.stddev = std::sqrt(squares / static_cast<double>(values.size()));
    return s;
  }

  SimulatedCycle measure(int cycle) const {
    SimulatedCycle c;
    c.cycle = cycle;
    c.moved_twice = moved_twice_;
    c.moved_back = moved_back_;
    std::vector<double> cpu, memory;
    for (const auto& p : node_percents()) {
      c.cpu_by_node.push_back(p ? std::optional<double>(p->first) : std::nullopt);
      c.memory_by_node.push_back(p ? std::optional<double>(p->second) : std::nullopt);
      if (p) {
        cpu.push_back(p->first);
        memory.push_back(p->second);
      }
    }
    c.cpu = spread_of(cpu);
    c.memory = spread_of(memory);
    return c;
  }

  // One cycle: plan, evict, place the replacements, apply to the cluster.
  SimulatedCycle run_cycle(std::chrono::system_clock::time_point now) {
    SimulatedCycle stats;
    std::vector<std::pair<PodId, NodeId>> moves;  // pod -> its replacement's node
    std::set<PodId> removed;
    {
      placement::ClusterIndex index(cluster_, strategies::placement_options(policy_));
      metrics::UsageMap usage = usage_now();
      if (!planned_once_) {
        result_.start_usage = usage;
        planned_once_ = true;
      }
      strategies::PlanOptions plan_options = strategies::plan_options(options_.settings, now);
      plan_options.last_moved = &last_moved_;
      strategies::Plan plan = strategies::make_plan(index, usage, policy_, plan_options);
      stats.evictions = plan.evictions.size();

      placement::SchedulerModel model(index, strategies::scheduler_profile(policy_));
      if (model.profile().volcano_usage) {
        model.set_node_load(strategies::scheduler_node_load(cluster_, usage));
      }
      if (options_.settings.soft_taint_hot_nodes) {
        // As the controller does: the nodes the plan classes overutilized are tainted, the others
        // are not (the simulated cluster carries no taint of loadshift's between cycles).
        std::vector<placement::SchedulerModel::SoftTaint> state(cluster_.nodes.size());
        for (NodeId node = 0; node < state.size(); ++node) {
          state[node] = plan.nodes[node].node_class == strategies::NodeClass::kOverutilized
                            ? placement::SchedulerModel::kTainted
                            : placement::SchedulerModel::kUntainted;
        }
        model.set_soft_taint(std::move(state));
      }
      std::vector<NodeId> all(cluster_.nodes.size());
      for (NodeId node = 0; node < all.size(); ++node) all[node] = node;
      placement::Ledger scheduled(cluster_.nodes.size(), &index.pod_topology());
      auto node_name = [&](NodeId node) {
        return node == placement::kNoNode ? std::string() : cluster_.nodes[node].meta.name;
      };
      for (const strategies::EvictionDecision& d : plan.evictions) {
        const model::Pod& pod = cluster_.pods[d.pod];
        SimulatedMove& move = stats.moves.emplace_back(
            SimulatedMove{pod.meta.namespace_, pod.meta.name, node_name(d.node),
                          node_name(d.placed()), "", d.strategy, ""});
        // The cool-down remembers what the controller remembers: the source and where the plan
        // counted the replacement (one the scheduler put elsewhere is known by its start time).
        if (std::string workload = strategies::workload_key(pod);
            !workload.empty() && !pod.terminated()) {
          last_moved_[workload].push_back(strategies::WorkloadMove{
              cluster_.nodes[d.node].meta.name,
              d.placed() == placement::kNoNode ? "" : cluster_.nodes[d.placed()].meta.name, now});
        }
        if (!pod.terminated() && model.recreated_in_place(d.pod)) {
          // A DaemonSet's pod comes back on its own node.
          moves.emplace_back(d.pod, d.node);
          move.landed = move.from;
          move.outcome = "in place";
          continue;
        }
        if (pod.terminated() || !model.recreated(d.pod)) {
          ++stats.gone;
          removed.insert(d.pod);
          move.outcome = "gone";
          continue;
        }
        placement::Landing landing = model.predict(d.pod, all, scheduled);
        if (landing.best.empty()) {
          ++stats.unplaced;
          removed.insert(d.pod);
          move.outcome = "unplaced";
          continue;
        }
        // kube-scheduler picks one of the best at random; the seed makes it repeatable.
        NodeId chosen = landing.best[rng_() % landing.best.size()];
        scheduled.reserve(d.pod, d.node, chosen, index.requests(d.pod));
        move.landed = node_name(chosen);
        move.outcome = "moved";
        if (d.placed() != placement::kNoNode && chosen != d.placed()) {
          ++stats.elsewhere;
          if (landing.best.size() > 1) ++stats.tied;
          move.outcome = "elsewhere";
        }
        moves.emplace_back(d.pod, chosen);
      }
    }
    const std::string stamp = model::format_rfc3339(now);
    for (const auto& [pod_id, node] : moves) {
      model::Pod& pod = cluster_.pods[pod_id];
      std::set<std::string>& left = left_[pod.key()];
      left.insert(pod.node_name);
      const std::string& to = cluster_.nodes[node].meta.name;
      if (left.count(to) != 0) ++moved_back_;
      if (++moves_of_[pod.key()] == 2) ++moved_twice_;
      pod.node_name = to;
      pod.meta.creation_timestamp = stamp;
      pod.start_time = stamp;
      pod.phase = model::PodPhase::kRunning;
    }
    if (!removed.empty()) {
      model::ObjectList<model::Pod> kept;
      kept.reserve(cluster_.pods.size() - removed.size());
      for (PodId pod = 0; pod < cluster_.pods.size(); ++pod) {
        if (removed.count(pod) == 0) kept.push_back(std::as_const(cluster_.pods)[pod]);
      }
      cluster_.pods = std::move(kept);
    }
    return stats;
  }

  model::Snapshot cluster_;
  const metrics::UsageMap& usage_;
  const policy::Policy& policy_;
  SimulationOptions options_;
  std::mt19937_64 rng_;
  std::vector<std::optional<Amounts>> base_;
  strategies::WorkloadMoves last_moved_;
  std::map<std::string, std::set<std::string>> left_;  // pod key -> nodes it left
  std::map<std::string, int> moves_of_;
  size_t moved_twice_ = 0, moved_back_ = 0;
  bool planned_once_ = false;
  SimulationResult result_;
};

}  // namespace

SimulationResult simulate(const model::Snapshot& snapshot, const metrics::UsageMap& usage,
                          const policy::Policy& policy, const SimulationOptions& options) {
  return Simulation(snapshot, usage, policy, options).run();
}

}  // namespace loadshift::simulation

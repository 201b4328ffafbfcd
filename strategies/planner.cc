// make_plan(): runs the profiles of a policy the way the descheduler does — every deschedule plugin
// of every profile, then every balance plugin of every profile — over one shared PlanContext, so
// limits and reservations hold across plugins and profiles.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string_view>
#include <variant>

#include "policy/field_reader.h"
#include "policy/plugin_schemas.h"
#include "strategies/plan.h"
#include "strategies/plan_context.h"
#include "strategies/plugins.h"
#include "strategies/predicted_usage.h"

namespace loadshift::strategies {
namespace {

// A strategy: runs one enabled plugin of a profile.
using Strategy = std::function<void(const policy::PluginArgs&, const ProfileScope&, PlanContext&)>;

template <typename Args>
Strategy strategy_of(void (*run)(const Args&, const ProfileScope&, PlanContext&)) {
  return [run](const policy::PluginArgs& args, const ProfileScope& scope, PlanContext& ctx) {
    run(std::get<Args>(args), scope, ctx);
  };
}

// Each deschedule and balance plugin the policy module knows, by name.
const Strategy* find_strategy(std::string_view name) {
  static const std::map<std::string_view, Strategy> kStrategies{
      {"LoadAware", strategy_of(&run_load_aware)},
      {"LowNodeUtilization", strategy_of(&run_low_node_utilization)},
      {"HighNodeUtilization", strategy_of(&run_high_node_utilization)},
      {"RemovePodsViolatingNodeAffinity", strategy_of(&run_node_affinity)},
      {"RemovePodsViolatingNodeTaints", strategy_of(&run_node_taints)},
      {"PodLifeTime", strategy_of(&run_pod_lifetime)},
      {"RemovePodsHavingTooManyRestarts", strategy_of(&run_too_many_restarts)},
      {"RemoveFailedPods", strategy_of(&run_failed_pods)},
      {"RemoveDuplicates", strategy_of(&run_remove_duplicates)},
      {"RemovePodsViolatingInterPodAntiAffinity", strategy_of(&run_inter_pod_anti_affinity)},
      {"RemovePodsViolatingTopologySpreadConstraint", strategy_of(&run_topology_spread)},
  };
  auto it = kStrategies.find(name);
  return it == kStrategies.end() ? nullptr : &it->second;
}

policy::DefaultEvictorArgs evictor_args(const policy::Profile& profile) {
  if (const policy::PluginConfig* config = profile.config("DefaultEvictor")) {
    if (const auto* args = std::get_if<policy::DefaultEvictorArgs>(&config->args)) return *args;
  }
  return std::get<policy::DefaultEvictorArgs>(policy::default_default_evictor_args());
}

void run_extension_point(const policy::Policy& policy,
                         const std::vector<std::unique_ptr<EvictionFilter>>& filters, bool balance,
                         PlanContext& ctx) {
  for (size_t i = 0; i < policy.profiles.size(); ++i) {
    const policy::Profile& profile = policy.profiles[i];
    const policy::DefaultEvictorArgs& evictor = filters[i]->args();
    ProfileScope scope{profile.name, filters[i].get(), evictor.node_fit, evictor.node_selector};
    const std::vector<std::string>& enabled =
        balance ? profile.plugins.balance.enabled : profile.plugins.deschedule.enabled;
    for (const std::string& name : enabled) {
      const Strategy* strategy = find_strategy(name);
      const policy::PluginConfig* config = profile.config(name);
      if (strategy == nullptr || config == nullptr) {
        // The policy loader accepts only plugins with a schema; a schema without a strategy is a
        // loadshift bug, said plainly rather than skipped in silence.
        ctx.plan().notes.push_back("profile " + profile.name + ": plugin " + name +
                                   " has no strategy in this build; nothing planned for it");
        continue;
      }
      auto started = std::chrono::steady_clock::now();
      (*strategy)(config->args, scope, ctx);
      ctx.plan().plugin_runs.push_back(
          {profile.name, name,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
    }
  }
}

// Predicted cpu and memory after the whole plan, for every node a move touches, whichever plugin
// made it, in the node's own figures: the plan's measured usage account (real usage, each pod's
// estimated load) or its requested account. MetricResource figures have no after (pods carry
// none).
void fill_usage_after(PlanContext& ctx) {
  Plan& plan = ctx.plan();
  if (plan.evictions.empty()) return;
  // Both accounts, now that the figures of every node are final.
  const std::vector<std::string> columns{"cpu", "memory"};
  ctx.predicted(UsageBasis::kMeasured, columns);
  ctx.predicted(UsageBasis::kRequested, columns);
  for (const EvictionDecision& e : plan.evictions) {
    ctx.write_after(e.node);
    ctx.write_after(e.placed());
  }
}

// True when a plugin of the policy classifies nodes by utilization.
bool classifies_nodes(const policy::Policy& policy) {
  for (const policy::Profile& profile : policy.profiles) {
    for (const std::string& name : profile.plugins.balance.enabled) {
      if (name == "LoadAware" || name == "LowNodeUtilization" || name == "HighNodeUtilization") {
        return true;
      }
    }
  }
  return false;
}

// Nodes no plugin classified are "unclassified", not "unknown": unknown means a plugin needed
// the node's data and it was missing.
void mark_unclassified(const policy::Policy& policy, PlanContext& ctx) {
  const bool classifying = classifies_nodes(policy);
  for (NodeState& state : ctx.plan().nodes) {
    if (state.node_class != NodeClass::kUnknown || !state.classified_by.empty()) continue;
    if (!ctx.in_scope(state.node)) {
      state.node_class = NodeClass::kUnclassified;
      continue;
    }
    if (classifying) continue;
    // A node the usage source was asked about and had no data for stays unknown: deschedule
    // plugins refuse it as a target. Without any usage source there is nothing to be unknown.
    const std::string& name = ctx.snapshot().nodes[state.node].meta.name;
    if (ctx.usage().unknown.count(name) > 0) continue;
    state.node_class = NodeClass::kUnclassified;
    state.why = state.cpu ? "unclassified: no plugin of the policy classifies nodes by utilization"
                          : "unclassified: no usage source, and no plugin of the policy "
                            "classifies nodes by utilization";
  }
}

}  // namespace

const char* to_string(NodeClass c) {
  switch (c) {
    case NodeClass::kUnknown:
      return "unknown";
    case NodeClass::kUnderutilized:
      return "underutilized";
    case NodeClass::kAppropriate:
      return "appropriate";
    case NodeClass::kOverutilized:
      return "overutilized";
    case NodeClass::kUnclassified:
      return "unclassified";
  }
  return "unknown";
}

const char* to_string(SkipCode code) {
  switch (code) {
    case SkipCode::kNotEvictable:
      return "not_evictable";
    case SkipCode::kNamespaceExcluded:
      return "namespace_excluded";
    case SkipCode::kNotThresholding:
      return "not_thresholding";
    case SkipCode::kNodeRelieved:
      return "node_relieved";
    case SkipCode::kNoRelief:
      return "no_relief";
    case SkipCode::kPerNodeRun:
      return "per_node_run";
    case SkipCode::kCoolingDown:
      return "cooling_down";
    case SkipCode::kAlreadyPlanned:
      return "already_planned";
    case SkipCode::kTotalLimit:
      return "total_limit";
    case SkipCode::kNodeLimit:
      return "node_limit";
    case SkipCode::kNamespaceLimit:
      return "namespace_limit";
    case SkipCode::kWorkloadLimit:
      return "workload_limit";
    case SkipCode::kWorkloadInFlight:
      return "workload_in_flight";
    case SkipCode::kGangDisrupted:
      return "gang_disrupted";
    case SkipCode::kGangMinAvailable:
      return "gang_min_available";
    case SkipCode::kNoTarget:
      return "no_target";
    case SkipCode::kNoSpread:
      return "no_spread";
    case SkipCode::kLandingRefused:
      return "landing_refused";
  }
  return "not_evictable";
}

const char* to_string(Figures f) {
  switch (f) {
    case Figures::kUsage:
      return "usage";
    case Figures::kRequests:
      return "requests";
    case Figures::kMetric:
      return "MetricResource";
  }
  return "usage";
}

const policy::LoadAwareArgs* first_load_aware(const policy::Policy& policy) {
  for (const policy::Profile& profile : policy.profiles) {
    for (const std::string& name : profile.plugins.balance.enabled) {
      if (name != "LoadAware") continue;
      const policy::PluginConfig* config = profile.config(name);
      if (config == nullptr) continue;
      if (const auto* args = std::get_if<policy::LoadAwareArgs>(&config->args)) return args;
    }
  }
  return nullptr;
}

placement::PlacementOptions placement_options(const policy::Policy& policy) {
  placement::PlacementOptions options;
  if (const policy::LoadAwareArgs* load_aware = first_load_aware(policy)) {
    options.pool_label = load_aware->usage_pool_label;
  }
  return options;
}

policy::PlanSettings effective_settings(const policy::PlanSettings& policy,
                                        const PlanOverrides& overrides) {
  policy::PlanSettings out = policy;
  if (overrides.workload_cooldown) {
    const int64_t ms = overrides.workload_cooldown->count() * 1000;
    out.workload_cooldown = policy::Duration{ms, policy::format_duration(ms)};
  }
  if (overrides.max_in_flight_per_workload) {
    out.max_in_flight_per_workload = static_cast<uint32_t>(*overrides.max_in_flight_per_workload);
  }
  if (overrides.soft_taint_hot_nodes) out.soft_taint_hot_nodes = *overrides.soft_taint_hot_nodes;
  if (overrides.landing_prediction) out.landing_prediction = *overrides.landing_prediction;
  return out;
}

PlanOptions plan_options(const policy::PlanSettings& settings,
                         std::chrono::system_clock::time_point now) {
  PlanOptions options;
  options.now = now;
  options.cooldown = std::chrono::seconds(settings.workload_cooldown.milliseconds / 1000);
  options.max_in_flight_per_workload = static_cast<int>(settings.max_in_flight_per_workload);
  options.soft_taint_hot_nodes = settings.soft_taint_hot_nodes;
  options.predict_landing = settings.landing_prediction;
  options.min_landing_chance = settings.min_landing_chance;
  return options;
}

std::vector<placement::SchedulerModel::NodeLoad> scheduler_node_load(
    const model::Snapshot& snapshot, const metrics::UsageMap& usage) {
  std::vector<placement::SchedulerModel::NodeLoad> out(snapshot.nodes.size());
  for (size_t node = 0; node < snapshot.nodes.size(); ++node) {
    const metrics::NodeUsage* found = usage.find(snapshot.nodes[node].meta.name);
    if (found == nullptr || !found->cpu_memory_measured) continue;
    out[node] = {true, found->cpu.percent, found->memory.percent};
  }
  return out;
}

placement::SchedulerProfile scheduler_profile(const policy::Policy& policy) {
  placement::SchedulerProfile profile;
  const policy::VolcanoScheduler& volcano = policy.loadshift.volcano_scheduler;
  profile.volcano_nodeorder = volcano.nodeorder;
  profile.volcano_binpack_weight = volcano.binpack_weight.value_or(0);
  if (const auto& usage = volcano.usage) {
    profile.volcano_usage = placement::VolcanoUsageScoring{
        usage->weight,        usage->cpu_weight,       usage->memory_weight,
        usage->cpu_threshold, usage->memory_threshold, usage->predicate};
  }
  const policy::LoadAwareArgs* args = first_load_aware(policy);
  if (args == nullptr) return profile;
  const policy::SchedulerScoring& scoring = args->scheduler_scoring;
  using Type = placement::FitScoring::Type;
  profile.fit.type = scoring.type == "MostAllocated"              ? Type::kMostAllocated
                     : scoring.type == "RequestedToCapacityRatio" ? Type::kRequestedToCapacityRatio
                                                                  : Type::kLeastAllocated;
  profile.fit.resources.clear();
  for (const auto& [name, weight] : scoring.resources)
    profile.fit.resources.push_back({name, weight});
  for (const auto& [utilization, score] : scoring.shape) {
    profile.fit.shape.push_back({utilization, score});
  }
  return profile;
}

bool has_strategy(std::string_view plugin) {
  return find_strategy(plugin) != nullptr;
}

Plan make_plan(const placement::ClusterIndex& index, const metrics::UsageMap& usage,
               const policy::Policy& policy, const PlanOptions& options) {
  Plan plan;
  PlanContext ctx(index, usage, policy, options, plan);
  std::vector<std::unique_ptr<EvictionFilter>> filters;
  filters.reserve(policy.profiles.size());
  for (const policy::Profile& profile : policy.profiles) {
    filters.push_back(std::make_unique<EvictionFilter>(index, evictor_args(profile), options.now));
  }
  // Deschedule plugins must not send pods to nodes LoadAware would call overutilized: classify
  // first with the first enabled LoadAware's watermarks (its own run classifies again).
  if (const policy::LoadAwareArgs* load_aware = first_load_aware(policy)) {
    classify_load_aware(*load_aware, ctx);
  }
  run_extension_point(policy, filters, /*balance=*/false, ctx);
  run_extension_point(policy, filters, /*balance=*/true, ctx);
  fill_usage_after(ctx);
  mark_unclassified(policy, ctx);
  for (const std::string& warning : index.warnings()) plan.notes.push_back(warning);
  // A classification note may be made twice (before deschedule and in LoadAware): keep the first.
  std::vector<std::string> notes;
  for (std::string& note : plan.notes) {
    if (std::find(notes.begin(), notes.end(), note) == notes.end())
      notes.push_back(std::move(note));
  }
  plan.notes = std::move(notes);
  return plan;
}

}  // namespace loadshift::strategies

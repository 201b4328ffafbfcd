// PlanContext: the node table, the scope, the limits and the bookkeeping of one make_plan() call.
#include "strategies/plan_context.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "policy/field_reader.h"
#include "policy/selector_string.h"

namespace loadshift::strategies {
namespace {

bool ready(const model::Node& node) {
  const model::NodeCondition* condition = node.condition("Ready");
  return condition != nullptr && condition->status == "True";
}

// "ns/Kind/name" of the pod's controller owner, or empty.

std::string job_label(const placement::GangJob& job) {
  return job.namespace_ + "/" + job.name;
}

// A pod of a gang that counts toward its minAvailable: running, bound, not being deleted.
bool running_member(const model::Snapshot& snapshot, const placement::GangJob& job, size_t member) {
  const model::Pod& pod = snapshot.pods[job.pods[member]];
  return job.live_nodes[member] != placement::kNoNode && pod.phase == model::PodPhase::kRunning &&
         !pod.meta.deleting;
}

}  // namespace

PlanContext::PlanContext(const placement::ClusterIndex& index, const metrics::UsageMap& usage,
                         const policy::Policy& policy, const PlanOptions& options, Plan& plan)
    : index_(index),
      usage_(usage),
      policy_(policy),
      options_(options),
      plan_(plan),
      placer_(index),
      ledger_(index.snapshot().nodes.size(), &index.pod_topology()),
      cooldown_(index.snapshot(), options.last_moved, options.cooldown, options.now) {
  const model::Snapshot& snap = index.snapshot();
  const size_t node_count = snap.nodes.size();
  in_scope_.assign(node_count, false);
  evicted_per_node_.assign(node_count, 0);
  all_nodes_.resize(node_count);
  for (NodeId node = 0; node < node_count; ++node) all_nodes_[node] = node;

  std::optional<model::LabelSelector> scope_selector;
  try {
    scope_selector = policy::parse_selector_string(policy.node_selector);
  } catch (const std::invalid_argument& e) {
    plan_.notes.push_back("policy nodeSelector \"" + policy.node_selector +
                          "\" cannot be parsed (" + e.what() + "); no node is in scope");
  }

  const std::string& pool_label = index.options().pool_label;
  size_t selected_count = 0;
  plan_.nodes.clear();
  plan_.nodes.reserve(node_count);
  for (NodeId id = 0; id < node_count; ++id) {
    const model::Node& node = snap.nodes[id];
    NodeState state;
    state.node = id;
    if (const std::string* pool = node.meta.labels.find(pool_label)) state.pool = *pool;
    // A name listed twice: the index binds every pod to the first copy, so a later copy would
    // look empty to the placement core while the UsageMap (by name) gives it the real usage.
    const bool duplicate = index.node_id(node.meta.name) != id;
    if (duplicate) {
      state.why = "unclassified: node name " + node.meta.name +
                  " appears twice in the snapshot; only the first is planned for";
    } else if (const metrics::NodeUsage* found = usage.find(node.meta.name)) {
      if (found->cpu_memory_measured) {
        state.cpu = found->cpu.percent;
        state.memory = found->memory.percent;
      }
    } else if (auto unknown = usage.unknown.find(node.meta.name); unknown != usage.unknown.end()) {
      state.why = "unknown: " + unknown->second;
    } else {
      state.why = "unknown: no usage data for this node";
    }
    const bool selected = scope_selector && model::matches(*scope_selector, node.meta.labels);
    selected_count += selected ? 1 : 0;
    in_scope_[id] = !duplicate && ready(node) && !node.meta.deleting && selected;
    if (!duplicate && !in_scope_[id]) {
      // Outside the scope no plugin looks at the node: say why here, once.
      state.why = !selected            ? "unclassified: outside the policy's nodeSelector"
                  : node.meta.deleting ? "unclassified: the node is being deleted"
                                       : "unclassified: the node is not Ready";
    }
    plan_.nodes.push_back(std::move(state));
  }
  if (scope_selector && selected_count == 0 && node_count > 0) {
    plan_.notes.push_back("policy nodeSelector \"" + policy.node_selector +
                          "\" matches none of the " + std::to_string(node_count) +
                          (node_count == 1 ? " node" : " nodes") + ": nothing is planned");
  }
}

const metrics::NodeUsage* PlanContext::node_usage(NodeId node) const {
  if (node >= index_.snapshot().nodes.size()) return nullptr;
  const metrics::NodeUsage* found = usage_.find(index_.snapshot().nodes[node].meta.name);
  return found != nullptr && found->cpu_memory_measured ? found : nullptr;
}

std::optional<double> PlanContext::metric_resource(NodeId node) const {
  if (node >= index_.snapshot().nodes.size()) return std::nullopt;
  const metrics::NodeUsage* found = usage_.find(index_.snapshot().nodes[node].meta.name);
  return found != nullptr ? found->metric_resource : std::nullopt;
}

bool PlanContext::matches_selector(NodeId node, const std::string& selector) const {
  if (selector.empty()) return true;
  auto it = selectors_.find(selector);
  if (it == selectors_.end()) {
    std::optional<model::LabelSelector> parsed;
    try {
      parsed = policy::parse_selector_string(selector);
    } catch (const std::invalid_argument& e) {
      plan_.notes.push_back("node selector \"" + selector + "\" cannot be parsed (" + e.what() +
                            "); it matches no node");
    }
    it = selectors_.emplace(selector, std::move(parsed)).first;
  }
  return it->second && node < index_.snapshot().nodes.size() &&
         model::matches(*it->second, index_.snapshot().nodes[node].meta.labels);
}

PodLoad PlanContext::pod_load(PodId pod) const {
  const model::Pod& p = index_.snapshot().pods[pod];
  if (!usage_.pods.empty()) {
    auto it = usage_.pods.find(p.key());
    if (it != usage_.pods.end()) return {it->second.cpu_milli, it->second.memory_bytes, true};
  }
  const model::ResourceList& requests = index_.requests(pod);
  return {static_cast<double>(requests.cpu_milli), static_cast<double>(requests.memory), false};
}

PodAmounts PlanContext::load_of(PodId pod, UsageBasis basis) const {
  if (basis == UsageBasis::kRequested) return requested_load(index_, pod);
  PodLoad load = pod_load(pod);
  PodAmounts out;
  out.cpu_milli = load.cpu_milli;
  out.memory_bytes = load.memory_bytes;
  out.measured = load.measured;
  out.requests = &index_.requests(pod);
  return out;
}

PodAmounts estimated_load(const PlanContext& ctx, PodId pod) {
  return ctx.load_of(pod, UsageBasis::kMeasured);
}

const PredictedUsage& PlanContext::predicted(UsageBasis basis,
                                             const std::vector<std::string>& resources) {
  std::unique_ptr<PredictedUsage>& account = accounts_[static_cast<size_t>(basis)];
  std::vector<std::string> columns;
  if (account) columns = account->resources();
  const size_t had = columns.size();
  for (const std::string& resource : resources) {
    if (std::find(columns.begin(), columns.end(), resource) == columns.end()) {
      columns.push_back(resource);
    }
  }
  if (account && columns.size() == had) return *account;
  // Built afresh, in place (references to the account stay valid): seeded from the cluster, then
  // the plan so far. New columns go last, so an index into resources() keeps its meaning.
  const model::Snapshot& snap = index_.snapshot();
  PredictedUsage fresh(snap, columns);
  if (basis == UsageBasis::kMeasured) fresh.track_uncertain_departures();
  for (NodeId node = 0; node < snap.nodes.size(); ++node) {
    const metrics::NodeUsage* usage = node_usage(node);
    if (basis == UsageBasis::kMeasured && usage == nullptr) continue;  // unknown
    const model::Node& n = snap.nodes[node];
    const model::ResourceList& requested = index_.requested(node);
    Percentages now;
    for (const std::string& resource : columns) {
      now[resource] = percent_of(n, resource, static_cast<double>(requested.get(resource)));
    }
    if (basis == UsageBasis::kMeasured) {
      now["cpu"] = usage->cpu.percent;
      now["memory"] = usage->memory.percent;
    } else if (now.count(kMetricResource) != 0) {
      now[kMetricResource] = metric_resource(node).value_or(0);
    }
    fresh.set(node, now);
  }
  for (const EvictionDecision& decision : plan_.evictions) {
    fresh.apply(decision, load_of(decision.pod, basis));
  }
  if (account) {
    *account = std::move(fresh);
  } else {
    account = std::make_unique<PredictedUsage>(std::move(fresh));
  }
  return *account;
}

void PlanContext::write_after(NodeId node) {
  if (node == placement::kNoNode) return;
  NodeState& state = plan_.nodes[node];
  if (!state.cpu || !state.memory || state.figures == Figures::kMetric) return;
  const UsageBasis basis =
      state.figures == Figures::kRequests ? UsageBasis::kRequested : UsageBasis::kMeasured;
  const PredictedUsage* account = accounts_[static_cast<size_t>(basis)].get();
  if (account == nullptr || !account->known(node)) return;
  const Percentages& after = account->of(node);
  auto cpu = after.find("cpu");
  auto memory = after.find("memory");
  if (cpu == after.end() || memory == after.end()) return;
  state.cpu_after = cpu->second;
  state.memory_after = memory->second;
}

std::optional<Skip> PlanContext::limit_reason(PodId pod,
                                              const policy::EvictionLimits* limits) const {
  const model::Snapshot& snap = index_.snapshot();
  const model::Pod& p = snap.pods[pod];
  if (planned(pod)) {
    for (const EvictionDecision& decision : plan_.evictions) {
      if (decision.pod == pod)
        return Skip{SkipCode::kAlreadyPlanned, "already planned by " + decision.strategy};
    }
    return Skip{SkipCode::kAlreadyPlanned, "already planned"};
  }

  const NodeId node = index_.node_of(pod);
  const std::string node_name = node == placement::kNoNode ? "" : snap.nodes[node].meta.name;
  const uint32_t on_node = node == placement::kNoNode ? 0 : evicted_per_node_[node];
  auto namespace_count = evicted_per_namespace_.find(p.meta.namespace_);
  const uint32_t in_namespace =
      namespace_count == evicted_per_namespace_.end() ? 0 : namespace_count->second;

  if (policy_.max_pods_to_evict_total && evicted_total_ >= *policy_.max_pods_to_evict_total) {
    return Skip{SkipCode::kTotalLimit,
                "total eviction limit reached: " + std::to_string(evicted_total_) + " of " +
                    std::to_string(*policy_.max_pods_to_evict_total) +
                    " (maxNoOfPodsToEvictTotal)"};
  }
  if (policy_.max_pods_to_evict_per_node && node != placement::kNoNode &&
      on_node >= *policy_.max_pods_to_evict_per_node) {
    return Skip{SkipCode::kNodeLimit, "node eviction limit reached: " + std::to_string(on_node) +
                                          " of " +
                                          std::to_string(*policy_.max_pods_to_evict_per_node) +
                                          " from " + node_name + " (maxNoOfPodsToEvictPerNode)"};
  }
  if (policy_.max_pods_to_evict_per_namespace &&
      in_namespace >= *policy_.max_pods_to_evict_per_namespace) {
    return Skip{SkipCode::kNamespaceLimit,
                "namespace eviction limit reached: " + std::to_string(in_namespace) + " of " +
                    std::to_string(*policy_.max_pods_to_evict_per_namespace) + " in " +
                    p.meta.namespace_ + " (maxNoOfPodsToEvictPerNamespace)"};
  }
  if (limits != nullptr) {
    if (limits->node && node != placement::kNoNode && on_node >= *limits->node) {
      return Skip{SkipCode::kNodeLimit, "node eviction limit reached: " + std::to_string(on_node) +
                                            " of " + std::to_string(*limits->node) + " from " +
                                            node_name + " (evictionLimits.node)"};
    }
    if (limits->namespace_ && in_namespace >= *limits->namespace_) {
      return Skip{SkipCode::kNamespaceLimit,
                  "namespace eviction limit reached: " + std::to_string(in_namespace) + " of " +
                      std::to_string(*limits->namespace_) + " in " + p.meta.namespace_ +
                      " (evictionLimits.namespace)"};
    }
    if (limits->workload) {
      std::string workload = workload_key(p);
      if (!workload.empty()) {
        auto it = evicted_per_workload_.find(workload);
        uint32_t count = it == evicted_per_workload_.end() ? 0 : it->second;
        if (count >= *limits->workload) {
          return Skip{SkipCode::kWorkloadLimit,
                      "workload eviction limit reached: " + std::to_string(count) + " of " +
                          std::to_string(*limits->workload) + " from " + workload +
                          " (evictionLimits.workload)"};
        }
      }
    }
  }

  if (options_.max_in_flight_per_workload > 0 && !p.terminated()) {
    if (std::optional<std::string> busy = in_flight_reason(pod)) {
      return Skip{SkipCode::kWorkloadInFlight, std::move(*busy)};
    }
  }

  const placement::JobId job_id = index_.gangs().job_of(pod);
  if (job_id != placement::kNoJob) {
    const placement::GangJob& job = index_.gangs().job(job_id);
    auto it = evicted_per_job_.find(job_id);
    const uint32_t evicted = it == evicted_per_job_.end() ? 0 : it->second;
    if (evicted > 0) {
      return Skip{SkipCode::kGangDisrupted,
                  "Volcano job already disrupted this cycle: job " + job_label(job) + " has " +
                      std::to_string(evicted) +
                      " pod(s) planned for eviction (at most one per cycle)"};
    }
    int64_t running = 0;
    bool pod_running = false;
    for (size_t i = 0; i < job.pods.size(); ++i) {
      if (!running_member(snap, job, i)) continue;
      ++running;
      if (job.pods[i] == pod) pod_running = true;
    }
    // Only a running member leaves the gang short when evicted; the count keeps what this plan
    // already takes away.
    const int64_t after = running - static_cast<int64_t>(evicted) - (pod_running ? 1 : 0);
    if (pod_running && after < job.min_available) {
      return Skip{SkipCode::kGangMinAvailable,
                  "Volcano job at minAvailable: job " + job_label(job) + " has " +
                      std::to_string(running - static_cast<int64_t>(evicted)) +
                      " running pods, minAvailable " + std::to_string(job.min_available) +
                      "; evicting would leave " + std::to_string(after)};
    }
  }
  return std::nullopt;
}

const placement::SchedulerModel& PlanContext::scheduler_model() {
  if (!scheduler_model_) {
    scheduler_model_ =
        std::make_unique<placement::SchedulerModel>(index_, scheduler_profile(policy_));
    if (scheduler_model_->profile().volcano_usage) {
      scheduler_model_->set_node_load(scheduler_node_load(index_.snapshot(), usage_));
    }
  }
  if (options_.soft_taint_hot_nodes) {
    // What the controller does before it evicts (controller/soft_taint.h): hot nodes get the
    // taint, cooled ones lose it, the others keep what they have.
    using placement::SchedulerModel;
    std::vector<SchedulerModel::SoftTaint> state(plan_.nodes.size(), SchedulerModel::kAsIs);
    for (size_t node = 0; node < plan_.nodes.size(); ++node) {
      switch (plan_.nodes[node].node_class) {
        case NodeClass::kOverutilized:
          state[node] = SchedulerModel::kTainted;
          break;
        case NodeClass::kUnderutilized:
        case NodeClass::kAppropriate:
          state[node] = SchedulerModel::kUntainted;
          break;
        default:
          break;
      }
    }
    scheduler_model_->set_soft_taint(std::move(state));
  }
  return *scheduler_model_;
}

std::optional<std::string> PlanContext::in_flight_reason(PodId pod) const {
  const model::Pod& p = index_.snapshot().pods[pod];
  RolloutWorkload workload = rollout_workload(p);
  if (workload.key.empty()) return std::nullopt;
  if (!in_flight_in_snapshot_) {
    in_flight_in_snapshot_.emplace();
    for (const model::Pod& other : index_.snapshot().pods) {
      if (!in_flight(other)) continue;
      if (std::string key = rollout_workload(other).key; !key.empty()) {
        ++(*in_flight_in_snapshot_)[key];
      }
    }
  }
  auto count = [&workload](const std::unordered_map<std::string, int>& counts) {
    auto it = counts.find(workload.key);
    return it == counts.end() ? 0 : it->second;
  };
  // Evicting a pod that is itself in flight takes nothing more away.
  const int busy = count(*in_flight_in_snapshot_) - (in_flight(p) ? 1 : 0) +
                   count(in_flight_planned_);
  if (busy < options_.max_in_flight_per_workload) return std::nullopt;
  return "workload in flight: " + workload.kind + " " + p.meta.namespace_ + "/" + workload.name +
         " has " + std::to_string(busy) +
         " pod(s) in flight (evicted, terminating or not Ready), limit " +
         std::to_string(options_.max_in_flight_per_workload) + " (maxInFlightPerWorkload)";
}

std::optional<std::string> PlanContext::cooldown_reason(PodId pod) const {
  const NodeId node = index_.node_of(pod);
  if (node == placement::kNoNode) return std::nullopt;
  return cooldown_.leaving(pod, index_.snapshot().nodes[node].meta.name);
}

std::optional<std::string> PlanContext::cooldown_return_reason(PodId pod, NodeId node) const {
  return cooldown_.returning(pod, index_.snapshot().nodes[node].meta.name);
}

void PlanContext::evict(PodId pod, NodeId target, const std::string& profile,
                        const std::string& strategy, std::string reason,
                        const policy::EvictionLimits* limits, NodeId landing) {
  if (std::optional<Skip> refused = limit_reason(pod, limits)) {
    throw std::logic_error("PlanContext::evict: " + index_.snapshot().pods[pod].key() + " (" +
                           strategy + ") refused by the limits: " + refused->reason +
                           "; call limit_reason() first");
  }
  const model::Pod& p = index_.snapshot().pods[pod];
  const NodeId from = index_.node_of(pod);
  plan_.evictions.push_back(
      EvictionDecision{pod, from, target, profile, strategy, std::move(reason), landing});
  const NodeId placed = landing != placement::kNoNode ? landing : target;
  if (placed != placement::kNoNode) ledger_.reserve(pod, from, placed, index_.requests(pod));
  for (size_t basis = 0; basis < 2; ++basis) {
    if (accounts_[basis]) {
      accounts_[basis]->apply(plan_.evictions.back(),
                              load_of(pod, static_cast<UsageBasis>(basis)));
    }
  }
  write_after(from);
  write_after(placed);
  evicted_.insert(pod);
  if (from != placement::kNoNode) ++evicted_per_node_[from];
  ++evicted_per_namespace_[p.meta.namespace_];
  if (std::string workload = workload_key(p); !workload.empty()) ++evicted_per_workload_[workload];
  if (!p.terminated()) {
    const auto& nodes = index_.snapshot().nodes;
    cooldown_.record(pod, from == placement::kNoNode ? "" : nodes[from].meta.name,
                     placed == placement::kNoNode ? "" : nodes[placed].meta.name);
    if (!in_flight(p)) {
      if (std::string key = rollout_workload(p).key; !key.empty()) ++in_flight_planned_[key];
    }
  }
  if (placement::JobId job = index_.gangs().job_of(pod); job != placement::kNoJob) {
    ++evicted_per_job_[job];
  }
  ++evicted_total_;

  auto skipped = skipped_at_.find(pod);
  if (skipped != skipped_at_.end()) {
    const size_t at = skipped->second;
    skipped_at_.erase(skipped);
    plan_.skipped.erase(plan_.skipped.begin() + static_cast<std::ptrdiff_t>(at));
    for (size_t i = at; i < plan_.skipped.size(); ++i) skipped_at_[plan_.skipped[i].pod] = i;
  }
}

void PlanContext::skip(PodId pod, const std::string& strategy, Skip skip) {
  if (evicted_.count(pod) != 0 || skipped_at_.count(pod) != 0) return;
  skipped_at_.emplace(pod, plan_.skipped.size());
  plan_.skipped.push_back(
      SkippedPod{pod, index_.node_of(pod), strategy, skip.code, std::move(skip.reason)});
}

}  // namespace loadshift::strategies

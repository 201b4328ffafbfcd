// LowNodeUtilization and HighNodeUtilization (balance), with kubernetes-sigs/descheduler's
// semantics and the placement core as nodeFit.
//
// Usage per node is requested / allocatable per resource (pods: pod count), or, with
// LowNodeUtilization's metricsUtilization source KubernetesMetrics, the usage data's cpu and
// memory percentages (the rest still from requests; nodes without data are neither sources nor
// targets), or, with source Prometheus, MetricResource: the usage data's metric_resource (the
// value of the plugin's own query per node, times 100), the only resource its watermarks name.
// Pods have no MetricResource usage, so (as upstream) at most one pod leaves each overutilized
// node per run, or up to evictionLimits.node when it is set. Classification: underutilized =
// schedulable and every resource of thresholds at or under it; overutilized = some resource over
// targetThresholds (deviation mode: around the mean). Pods in upstream's order: priority, QoS,
// prefer-no-eviction, then name.
//
// Where loadshift differs, on purpose:
//  - every pod needs a target the placement core accepts (upstream only checks taints, and any
//    node with nodeFit); LowNodeUtilization's target must stay within its targetThresholds with
//    the pod — per node, which makes upstream's pooled headroom budget redundant;
//  - a pod whose load relieves nothing of the source's excess (a BestEffort pod in requests mode)
//    stays, with the reason, instead of being evicted for nothing;
//  - sources are ordered by usage normalised per resource, not by the raw sum of millicores and
//    bytes (where memory always dominates);
//  - source Prometheus: a node without a usable MetricResource sample (missing, NaN, outside 0..1)
//    is unknown, never a source nor a target; upstream fails the whole plugin run instead.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "strategies/plugins.h"
#include "strategies/pod_order.h"
#include "strategies/predicted_usage.h"
#include "strategies/target_search.h"
#include "strategies/watermarks.h"

namespace loadshift::strategies {
namespace {

constexpr double kEpsilon = 1e-9;

bool excluded(const std::vector<std::string>& namespaces, const std::string& ns) {
  return std::find(namespaces.begin(), namespaces.end(), ns) != namespaces.end();
}

// What both plugins share: node usage, classification, candidate pods.
class NodeUtilization {
 public:
  NodeUtilization(const char* plugin, const policy::NodeUtilizationArgs& args,
                  const ProfileScope& scope, PlanContext& ctx, bool real_usage)
      : plugin_(plugin),
        args_(args),
        scope_(scope),
        ctx_(ctx),
        snapshot_(ctx.snapshot()),
        real_usage_(real_usage),
        tracked_(tracked(args)),
        now_(ctx.snapshot().nodes.size()),
        high_(ctx.snapshot().nodes.size()) {}

 protected:
  static std::vector<std::string> tracked(const policy::NodeUtilizationArgs& args) {
    std::vector<std::string> out{"cpu", "memory", "pods"};
    for (const Percentages* w : {&args.thresholds, &args.target_thresholds}) {
      for (const auto& entry : *w) {
        if (std::find(out.begin(), out.end(), entry.first) == out.end()) {
          out.push_back(entry.first);
        }
      }
    }
    return out;
  }

  UsageBasis basis() const { return real_usage_ ? UsageBasis::kMeasured : UsageBasis::kRequested; }
  PodAmounts load_of(PodId pod) const { return ctx_.load_of(pod, basis()); }

  // The plan's usage account on this plugin's basis (every eviction of the plan so far applied,
  // this plugin's included), with its own resources and, for source Prometheus, MetricResource.
  void open_account() {
    std::vector<std::string> resources = tracked_;
    if (metric_resource_) resources.push_back(kMetricResource);
    predicted_ = &ctx_.predicted(basis(), resources);
  }

  // The in-scope nodes and their usage now; false (with a note) when the plugin cannot run.
  bool measure() {
    if (scope_.filter == nullptr) {
      note("no eviction filter was given; nothing evicted");
      return false;
    }
    size_t without_metric = 0;
    for (NodeId node = 0; node < snapshot_.nodes.size(); ++node) {
      if (!ctx_.in_scope(node)) continue;
      const metrics::NodeUsage* usage = real_usage_ ? ctx_.node_usage(node) : nullptr;
      if (real_usage_ && usage == nullptr) continue;
      std::optional<double> metric;
      if (metric_resource_) {
        metric = ctx_.metric_resource(node);
        if (!metric) {
          ++without_metric;
          NodeState& state = ctx_.node_state(node);
          if (state.classified_by.empty()) {
            state.why = "unknown: no MetricResource sample";
            state.classified_by = plugin_;
          }
          continue;
        }
      }
      const model::Node& n = snapshot_.nodes[node];
      const model::ResourceList& requested = ctx_.index().requested(node);
      Percentages now;
      for (const std::string& resource : tracked_) {
        now[resource] = percent_of(n, resource, static_cast<double>(requested.get(resource)));
      }
      if (usage != nullptr) {
        now["cpu"] = usage->cpu.percent;
        now["memory"] = usage->memory.percent;
      }
      if (metric) now[kMetricResource] = *metric;
      now_[node] = std::move(now);
      known_.push_back(node);
    }
    if (without_metric > 0) {
      note(nodes_text(without_metric) +
           " without a usable MetricResource sample (see the usage warnings): neither sources "
           "nor targets");
    }
    return true;
  }

  // Classifies the known nodes against `w` (deviation mode: around the mean). `cordoned_low`:
  // cordoned nodes may be underutilized (HighNodeUtilization's sources).
  void classify_all(Watermarks w, bool cordoned_low) {
    if (args_.use_deviation_thresholds) {
      std::vector<const Percentages*> usages;
      for (NodeId node : known_) usages.push_back(&now_[node]);
      w = around_mean(w, mean_of(usages));
    }
    const char* basis = real_usage_ || metric_resource_ ? "" : "requested ";
    for (NodeId node : known_) {
      bool schedulable = cordoned_low || !snapshot_.nodes[node].unschedulable;
      Classification c = classify(now_[node], w, schedulable);
      NodeState& state = ctx_.node_state(node);
      state.node_class = c.node_class;
      state.why = basis + c.why;
      show_figures(node, state);
      state.thresholds = w.low;
      state.target_thresholds = w.high;
      state.classified_by = plugin_;
      high_[node] = w.high;
      if (c.node_class == NodeClass::kOverutilized) over_.push_back(node);
      if (c.node_class == NodeClass::kUnderutilized) under_.push_back(node);
    }
  }

  // The node table shows the figures the class was computed from: requested percent, or the
  // MetricResource value (pods carry none, so it has no after), or real usage (already there).
  void show_figures(NodeId node, NodeState& state) const {
    if (real_usage_) {
      // The node's measured usage (an earlier requests-based plugin may have shown requests).
      state.figures = Figures::kUsage;
      state.cpu = now_[node].at("cpu");
      state.memory = now_[node].at("memory");
      return;
    }
    state.cpu_after.reset();
    state.memory_after.reset();
    if (metric_resource_) {
      state.figures = Figures::kMetric;
      state.metric = now_[node].at(kMetricResource);
      state.cpu.reset();
      state.memory.reset();
      return;
    }
    state.figures = Figures::kRequests;
    state.cpu = now_[node].at("cpu");
    state.memory = now_[node].at("memory");
  }

  void note(const std::string& text) {
    ctx_.plan().notes.push_back(std::string(plugin_) + ": " + text);
  }

  // Upstream's no-op exits on the number of underutilized nodes; false (with a note) to stop.
  bool enough_underutilized(const std::string& what_waits) {
    if (under_.empty()) {
      note(what_waits + " but none is underutilized: nothing evicted");
      return false;
    }
    if (under_.size() <= static_cast<size_t>(std::max(args_.number_of_nodes, 0))) {
      note(what_waits + " but only " + nodes_text(under_.size()) +
           " underutilized; numberOfNodes is " + std::to_string(args_.number_of_nodes) +
           " (it acts only when more are): nothing evicted");
      return false;
    }
    return true;
  }

  // The pods of `source` that may leave, in upstream's order; the others are skipped.
  std::vector<PodRank> candidates_on(NodeId source, bool only_thresholding) {
    std::vector<PodRank> out;
    for (PodId pod : ctx_.index().pods_on(source)) {
      if (ctx_.planned(pod)) continue;
      const std::string& ns = snapshot_.pods[pod].meta.namespace_;
      if (excluded(args_.excluded_namespaces, ns)) {
        ctx_.skip(pod, plugin_, SkipCode::kNamespaceExcluded,
                  "namespace excluded: evictableNamespaces.exclude lists " + ns);
        continue;
      }
      if (std::optional<std::string> why = scope_.filter->reject_reason(pod, {})) {
        ctx_.skip(pod, plugin_, SkipCode::kNotEvictable, std::move(*why));
        continue;
      }
      if (only_thresholding && !requests_thresholding_resource(pod)) {
        ctx_.skip(pod, plugin_, SkipCode::kNotThresholding,
                  "requests none of the thresholds' resources: evictionModes "
                  "OnlyThresholdingResources");
        continue;
      }
      out.push_back(rank_of(snapshot_, pod));
    }
    std::sort(out.begin(), out.end(), evicted_before_upstream);
    return out;
  }

  bool requests_thresholding_resource(PodId pod) const {
    const model::ResourceList& requests = ctx_.index().requests(pod);
    for (const auto& entry : args_.thresholds) {
      if (entry.first != model::kPods && requests.get(entry.first) > 0) return true;
    }
    return false;
  }

  std::string name(NodeId node) const { return snapshot_.nodes[node].meta.name; }

  // "te7 requested cpu 10.0% -> 13.1%": `resources` of `node` before and after adding `share`.
  std::string change_text(NodeId node, const std::vector<std::string>& resources,
                          const Percentages& share, double sign) const {
    std::string out = name(node) + " (";
    for (size_t i = 0; i < resources.size(); ++i) {
      const std::string& r = resources[i];
      double before = predicted_->of(node).at(r);
      out += (i > 0 ? ", " : "") + std::string(real_usage_ ? "" : "requested ") + r + " " +
             percent_text(before) + " -> " +
             percent_text(std::max(0.0, before + sign * share.at(r)));
    }
    return out + ")";
  }

  // Records the eviction; PlanContext moves the pod's load in the plan's usage accounts.
  void evict(PodId pod, NodeId target, std::string reason, const policy::EvictionLimits* limits) {
    ctx_.evict(pod, target, scope_.name, plugin_, std::move(reason), limits);
  }

  std::vector<NodeId> matching_scope(const std::vector<NodeId>& nodes) const {
    std::vector<NodeId> out;
    for (NodeId node : nodes) {
      if (ctx_.matches_selector(node, scope_.node_selector)) out.push_back(node);
    }
    return out;
  }

  const char* plugin_;
  const policy::NodeUtilizationArgs& args_;
  const ProfileScope& scope_;
  PlanContext& ctx_;
  const model::Snapshot& snapshot_;
  bool real_usage_;
  // Source Prometheus: classified on MetricResource, pods carry none of it.
  bool metric_resource_ = false;
  std::vector<std::string> tracked_;  // the resources the plugin reads
  std::vector<Percentages> now_;      // by node: usage when the plan began (known nodes)
  const PredictedUsage* predicted_ = nullptr;  // open_account()
  std::vector<Percentages> high_;  // by node: the cap a target must stay within (may be empty)
  TargetCaps caps_;                // high_, for the target search
  std::vector<NodeId> known_, over_, under_;
};

class LowNodeUtilization : public NodeUtilization {
 public:
  LowNodeUtilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                     PlanContext& ctx)
      : NodeUtilization("LowNodeUtilization", args, scope, ctx,
                        args.metrics_utilization.source == "KubernetesMetrics") {
    if (args.eviction_limit_node) limits_.node = *args.eviction_limit_node;
    metric_resource_ = args.metrics_utilization.source == "Prometheus";
  }

  void run() {
    if (!measure()) return;
    classify_all({args_.thresholds, args_.target_thresholds}, false);
    if (over_.empty()) return;
    if (!enough_underutilized(nodes_text(over_.size()) + " overutilized")) return;
    targets_ = matching_scope(under_);
    open_account();
    caps_ = TargetCaps(snapshot_, high_, *predicted_);
    std::vector<std::pair<double, NodeId>> sources;
    for (NodeId node : over_) {
      sources.emplace_back(-weighted_load(predicted_->of(node), high_[node], {}), node);
    }
    std::sort(sources.begin(), sources.end());
    for (const auto& source : sources) relieve(source.second);
  }

 private:
  void relieve(NodeId source) {
    std::vector<PodRank> candidates = candidates_on(source, false);
    // Source Prometheus: no pod has MetricResource usage, so the excess never shrinks; upstream
    // moves one pod per overutilized node, or up to evictionLimits.node.
    const uint32_t per_node = args_.eviction_limit_node.value_or(1);
    uint32_t evicted = 0;
    for (size_t i = 0; i < candidates.size(); ++i) {
      PodId pod = candidates[i].pod;
      if (metric_resource_ && evicted >= per_node) {
        for (size_t k = i; k < candidates.size(); ++k) {
          ctx_.skip(candidates[k].pod, plugin_, SkipCode::kPerNodeRun,
                    "at most " + std::to_string(per_node) + (per_node == 1 ? " pod" : " pods") +
                        " per overutilized node per run: MetricResource has no per-pod usage (" +
                        (args_.eviction_limit_node ? "evictionLimits.node" : "upstream's rule") +
                        ")");
        }
        return;
      }
      Percentages excess = excess_over(predicted_->of(source), high_[source]);
      if (excess.empty()) {
        for (size_t k = i; k < candidates.size(); ++k) {
          ctx_.skip(candidates[k].pod, plugin_, SkipCode::kNodeRelieved,
                    "node relieved: " + name(source) +
                        " is within its targetThresholds after the evictions planned");
        }
        return;
      }
      PodAmounts load = load_of(pod);
      Percentages share = predicted_->share(source, load);
      std::vector<std::string> over;
      double relief = 0;
      for (const auto& entry : excess) {
        over.push_back(entry.first);
        relief += share.at(entry.first);
      }
      if (!metric_resource_ && relief <= kEpsilon) {
        ctx_.skip(pod, plugin_, SkipCode::kNoRelief,
                  "no relief: " + std::string(real_usage_ ? "est. " : "requests ") +
                      amount_text(over.front(), load.amount(over.front())) + ", nothing of what " +
                      name(source) + " is over on");
        continue;
      }
      if (std::optional<std::string> cooling = ctx_.cooldown_reason(pod)) {
        ctx_.skip(pod, plugin_, SkipCode::kCoolingDown, std::move(*cooling));
        continue;
      }
      if (std::optional<Skip> limit = ctx_.limit_reason(pod, &limits_)) {
        ctx_.skip(pod, plugin_, std::move(*limit));
        continue;
      }
      TargetQuery query;
      query.candidates = targets_;
      query.usage = predicted_;
      query.caps = &caps_;
      query.load = &load;
      query.no_candidates = nodes_text(under_.size()) + " underutilized, none matching nodeSelector";
      std::optional<NodeRule> returns = cooldown_rule(ctx_, pod);
      query.rule = returns ? &*returns : nullptr;
      TargetSearch search = find_target(ctx_, pod, query);
      if (!search.target) {
        ctx_.skip(pod, plugin_, SkipCode::kNoTarget, search.why_not);
        continue;
      }
      NodeId target = *search.target;
      std::string reason =
          name(source) + " " + (real_usage_ || metric_resource_ ? "" : "requested ");
      for (size_t k = 0; k < over.size(); ++k) {
        reason += (k > 0 ? ", " : "") + over[k] + " " +
                  percent_text(predicted_->of(source).at(over[k])) + " > " +
                  setting_text(high_[source].at(over[k]));
      }
      if (metric_resource_) {
        reason += ": evict " + snapshot_.pods[pod].key() + " -> " + name(target) + " (" +
                  kMetricResource + " " + percent_text(predicted_->of(target).at(kMetricResource)) +
                  "; pods have no MetricResource usage)";
      } else {
        reason += ": evict " + snapshot_.pods[pod].key() + " -> " +
                  change_text(target, over, predicted_->share(target, load), +1);
      }
      evict(pod, target, std::move(reason), &limits_);
      ++evicted;
    }
  }

  policy::EvictionLimits limits_;
  std::vector<NodeId> targets_;
};

class HighNodeUtilization : public NodeUtilization {
 public:
  HighNodeUtilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                      PlanContext& ctx)
      : NodeUtilization("HighNodeUtilization", args, scope, ctx, false) {}

  void run() {
    if (!measure()) return;
    classify_all({args_.thresholds, {}}, true);
    if (under_.empty()) return;
    std::vector<NodeId> destinations;
    for (NodeId node : known_) {
      if (ctx_.node_state(node).node_class != NodeClass::kUnderutilized &&
          !snapshot_.nodes[node].unschedulable) {
        destinations.push_back(node);
      }
    }
    if (under_.size() <= static_cast<size_t>(std::max(args_.number_of_nodes, 0))) {
      note(nodes_text(under_.size()) + " underutilized; numberOfNodes is " +
           std::to_string(args_.number_of_nodes) +
           " (it acts only when more are): nothing evicted");
      return;
    }
    if (destinations.empty()) {
      note("every schedulable node is underutilized: no node to pack onto, nothing evicted");
      return;
    }
    open_account();
    // Bin packing: the most requested destinations first; the emptiest sources first.
    auto load_of_node = [this](NodeId node) {
      return weighted_load(predicted_->of(node), args_.thresholds, {});
    };
    std::vector<std::pair<double, NodeId>> by_load;
    for (NodeId node : matching_scope(destinations))
      by_load.emplace_back(-load_of_node(node), node);
    std::sort(by_load.begin(), by_load.end());
    for (const auto& entry : by_load) targets_.push_back(entry.second);
    caps_ = TargetCaps(snapshot_, high_, *predicted_);
    std::vector<std::pair<double, NodeId>> sources;
    for (NodeId node : under_) sources.emplace_back(load_of_node(node), node);
    std::sort(sources.begin(), sources.end());
    bool only_thresholding = std::find(args_.eviction_modes.begin(), args_.eviction_modes.end(),
                                       "OnlyThresholdingResources") != args_.eviction_modes.end();
    for (const auto& source : sources) drain(source.second, only_thresholding);
  }

 private:
  void drain(NodeId source, bool only_thresholding) {
    std::vector<std::string> shown(args_.thresholds.size());
    std::transform(args_.thresholds.begin(), args_.thresholds.end(), shown.begin(),
                   [](const auto& entry) { return entry.first; });
    for (const PodRank& rank : candidates_on(source, only_thresholding)) {
      PodId pod = rank.pod;
      if (std::optional<std::string> cooling = ctx_.cooldown_reason(pod)) {
        ctx_.skip(pod, plugin_, SkipCode::kCoolingDown, std::move(*cooling));
        continue;
      }
      if (std::optional<Skip> limit = ctx_.limit_reason(pod, nullptr)) {
        ctx_.skip(pod, plugin_, std::move(*limit));
        continue;
      }
      PodAmounts load = load_of(pod);
      TargetQuery query;
      query.candidates = targets_;
      query.usage = predicted_;
      query.caps = &caps_;
      query.load = &load;
      query.order = TargetOrder::kFirstFeasible;
      query.no_candidates = "no schedulable node that is not underutilized matches nodeSelector";
      std::optional<NodeRule> returns = cooldown_rule(ctx_, pod);
      query.rule = returns ? &*returns : nullptr;
      TargetSearch search = find_target(ctx_, pod, query);
      if (!search.target) {
        ctx_.skip(pod, plugin_, SkipCode::kNoTarget, search.why_not);
        continue;
      }
      NodeId target = *search.target;
      std::string reason = name(source) + " underutilized (" + ctx_.node_state(source).why +
                           "): evict " + snapshot_.pods[pod].key() + " to pack it -> " +
                           change_text(target, shown, predicted_->share(target, load), +1);
      evict(pod, target, std::move(reason), nullptr);
    }
  }

  std::vector<NodeId> targets_;
};

}  // namespace

void run_low_node_utilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                              PlanContext& ctx) {
  LowNodeUtilization(args, scope, ctx).run();
}

void run_high_node_utilization(const policy::NodeUtilizationArgs& args, const ProfileScope& scope,
                               PlanContext& ctx) {
  HighNodeUtilization(args, scope, ctx).run();
}

}  // namespace loadshift::strategies

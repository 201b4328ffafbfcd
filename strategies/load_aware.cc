// LoadAware (balance): Volcano's LoadAware plugin on real usage, made safe and explainable.
//
//  1. Nodes in scope with usage data; too little data (minNodeCoverage) -> nothing, with a note.
//  2. Each node against its pool's watermarks (nodePools, else the plugin's; deviation mode around
//     the mean of the nodes that share them), with sustainedFor when asked.
//  3. Sources hottest first by weighted, per-resource-normalised usage.
//  4. A source's evictable pods: lowest priority, QoS, pod-deletion-cost, then the pod that best
//     covers the node's excess, newest, name.
//  5. Each pod needs an underutilized target that the placement core accepts and whose predicted
//     usage with the pod stays within its own targetThresholds; then the scheduler model predicts
//     where the replacement really lands (landing_check.h): never back on the source, on a hot
//     node or on a node this plugin did not classify. It is reserved in the Ledger where it
//     lands.
//  6. A source stops when its predicted usage is within target, or limits stop it.
//
// Estimated load in percent: the pod's cpu (millicores) and memory (bytes) over the node's
// allocatable. The node's own usage percentages are measured against capacity by the default
// queries; allocatable is smaller, so a pod's share is if anything over-estimated: conservative
// on both ends (a source is relieved no sooner, a target fills no later than it really would).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "strategies/landing_check.h"
#include "strategies/plugins.h"
#include "strategies/pod_order.h"
#include "strategies/predicted_usage.h"
#include "strategies/target_search.h"
#include "strategies/watermarks.h"

namespace loadshift::strategies {
namespace {

constexpr const char* kName = "LoadAware";
constexpr double kEpsilon = 1e-9;

// One evictable pod of a source, with what orders it.
struct Candidate {
  PodRank rank;
  PodAmounts load;
  Percentages share;  // of the source, percent per tracked resource
};

// How well a pod covers the source's excess: a pod whose load alone brings every over resource
// to its watermark "covers"; among those the smallest goes first, among the others the biggest.
struct Cover {
  bool covers = false;
  double size = 0;  // weighted sum of the pod's share of the over resources
};

class LoadAware {
 public:
  // `scope` may be null when only classifying.
  LoadAware(const policy::LoadAwareArgs& args, const ProfileScope* scope, PlanContext& ctx)
      : args_(args),
        scope_(scope),
        ctx_(ctx),
        snapshot_(ctx.snapshot()),
        tracked_(tracked_resources(args)),
        predicted_(ctx.predicted(UsageBasis::kMeasured, tracked_)),
        high_(ctx.snapshot().nodes.size()),
        classified_(ctx.snapshot().nodes.size(), false) {}

  // Steps 1-2 alone; false when coverage is too low (with a note). The known nodes are classified
  // either way: too little coverage stops LoadAware from acting, but the deschedule plugins still
  // need each known node's watermarks to keep pods off hot nodes.
  bool classify_only() {
    bool enough = enough_coverage();
    classify_nodes();
    return enough;
  }

  void run() {
    if (scope_ == nullptr || scope_->filter == nullptr) {
      ctx_.plan().notes.push_back("LoadAware (profile " + (scope_ ? scope_->name : "?") +
                                  "): no eviction filter was given; nothing evicted");
      return;
    }
    if (!classify_only()) return;
    if (over_.empty()) return;
    if (under_.empty() ||
        under_.size() <= static_cast<size_t>(std::max(args_.number_of_nodes, 0))) {
      say_why_idle();
      return;
    }
    choose_targets();
    caps_ = TargetCaps(snapshot_, high_, predicted_);
    for (NodeId source : sources_in_order()) relieve(source);
  }

 private:
  // cpu, memory and the other resources the watermarks name (the policy loader allows pods).
  static std::vector<std::string> tracked_resources(const policy::LoadAwareArgs& args) {
    std::vector<std::string> out{"cpu", "memory"};
    auto add = [&](const Percentages& watermarks) {
      for (const auto& entry : watermarks) {
        if (std::find(out.begin(), out.end(), entry.first) == out.end()) {
          out.push_back(entry.first);
        }
      }
    };
    add(args.thresholds);
    add(args.target_thresholds);
    for (const policy::NodePool& pool : args.node_pools) {
      add(pool.thresholds);
      add(pool.target_thresholds);
    }
    return out;
  }

  // Step 1: in-scope nodes with usage data, and whether there are enough of them.
  bool enough_coverage() {
    size_t in_scope = 0;
    for (NodeId node = 0; node < snapshot_.nodes.size(); ++node) {
      if (!ctx_.in_scope(node)) continue;
      ++in_scope;
      if (ctx_.node_usage(node) == nullptr) {
        if (ctx_.node_state(node).why.empty()) ctx_.node_state(node).why = "no usage data";
      } else if (std::string missing = missing_allocatable(node); !missing.empty()) {
        // A share of nothing cannot be computed: the node is unknown, never "infinitely hot".
        ctx_.node_state(node).why = "unknown: no allocatable " + missing;
      } else {
        known_.push_back(node);
      }
    }
    double coverage =
        in_scope == 0 ? 100.0
                      : 100.0 * static_cast<double>(known_.size()) / static_cast<double>(in_scope);
    UsageCoverage counted{scope_ != nullptr ? scope_->name : "", known_.size(), in_scope, 100};
    size_t may_miss = std::max<size_t>(1, in_scope / 10);
    if (args_.metrics.min_node_coverage) {
      counted.required_percent = *args_.metrics.min_node_coverage;
    } else if (in_scope > 0) {
      counted.required_percent = 100.0 *
                                 static_cast<double>(in_scope - std::min(may_miss, in_scope)) /
                                 static_cast<double>(in_scope);
    }
    // Recorded when planning (not when another plugin only asks for the classes).
    if (scope_ != nullptr) ctx_.plan().coverage.push_back(counted);
    std::string rule;
    if (args_.metrics.min_node_coverage) {
      if (coverage + kEpsilon >= *args_.metrics.min_node_coverage) return true;
      rule = "minNodeCoverage is " + setting_text(*args_.metrics.min_node_coverage);
    } else {
      if (known_.size() + may_miss >= in_scope) return true;
      rule = "without minNodeCoverage at most " + std::to_string(may_miss) +
             " may lack it (max(1, 10%))";
    }
    ctx_.plan().notes.push_back("LoadAware: " + std::to_string(known_.size()) + " of " +
                                nodes_text(in_scope) + " (" + setting_text(coverage) +
                                ") have usage data; " + rule + ": nothing evicted");
    return false;
  }

  // The first tracked resource the node has no allocatable amount of, or empty.
  std::string missing_allocatable(NodeId node) const {
    for (const std::string& resource : tracked_) {
      if (allocatable_of(snapshot_.nodes[node], resource) <= 0) return resource;
    }
    return "";
  }

  Percentages usage_now(NodeId node) const {
    const metrics::NodeUsage& usage = *ctx_.node_usage(node);
    Percentages out{{"cpu", usage.cpu.percent}, {"memory", usage.memory.percent}};
    const model::Node& n = snapshot_.nodes[node];
    out["pods"] =
        percent_of(n, model::kPods, static_cast<double>(ctx_.index().requested(node).pods));
    return out;
  }

  // The pool whose watermarks apply to `node`: index into args.node_pools, or -1 for the
  // plugin's own.
  int pool_of(NodeId node) const {
    for (size_t i = 0; i < args_.node_pools.size(); ++i) {
      if (ctx_.matches_selector(node, args_.node_pools[i].node_selector)) {
        return static_cast<int>(i);
      }
    }
    return -1;
  }

  Watermarks configured(int pool) const {
    if (pool < 0) return {args_.thresholds, args_.target_thresholds};
    const policy::NodePool& p = args_.node_pools[static_cast<size_t>(pool)];
    return {p.thresholds, p.target_thresholds};
  }

  // Step 2: watermarks and class of every known node.
  void classify_nodes() {
    std::vector<Percentages> now(snapshot_.nodes.size());
    std::vector<int> pools(snapshot_.nodes.size(), -1);
    for (NodeId node : known_) {
      now[node] = usage_now(node);
      pools[node] = pool_of(node);
    }
    // Deviation mode: the mean over the known nodes that share the same configured watermarks.
    std::map<int, Percentages> means;
    if (args_.use_deviation_thresholds) {
      std::map<int, std::vector<const Percentages*>> members;
      for (NodeId node : known_) members[pools[node]].push_back(&now[node]);
      for (const auto& [pool, usages] : members) means[pool] = mean_of(usages);
    }
    std::optional<std::string> period;
    if (args_.sustained_for) period = args_.sustained_for->text;
    for (NodeId node : known_) {
      Watermarks w = configured(pools[node]);
      if (args_.use_deviation_thresholds) w = around_mean(w, means[pools[node]]);
      SustainedUsage sustained;
      if (period) {
        const metrics::NodeUsage& usage = *ctx_.node_usage(node);
        sustained["cpu"] = {usage.cpu.sustained_min, usage.cpu.sustained_max};
        sustained["memory"] = {usage.memory.sustained_min, usage.memory.sustained_max};
      }
      bool schedulable = !snapshot_.nodes[node].unschedulable;
      Classification c =
          classify(now[node], w, schedulable, period ? &sustained : nullptr, period.value_or(""));
      NodeState& state = ctx_.node_state(node);
      state.node_class = c.node_class;
      state.why = c.why;
      state.figures = Figures::kUsage;
      state.cpu = now[node].at("cpu");
      state.memory = now[node].at("memory");
      state.thresholds = w.low;
      state.target_thresholds = w.high;
      state.classified_by = kName;
      high_[node] = w.high;
      if (c.node_class == NodeClass::kOverutilized) over_.push_back(node);
      if (c.node_class == NodeClass::kUnderutilized) under_.push_back(node);
      classified_[node] = true;
    }
  }

  void say_why_idle() {
    std::string over =
        nodes_text(over_.size()) + (over_.size() == 1 ? " is" : " are") + " overutilized";
    if (under_.empty()) {
      ctx_.plan().notes.push_back("LoadAware: " + over +
                                  " but none is underutilized: nothing evicted");
      return;
    }
    ctx_.plan().notes.push_back("LoadAware: " + over + " but only " + nodes_text(under_.size()) +
                                " underutilized; numberOfNodes is " +
                                std::to_string(args_.number_of_nodes) +
                                " (it acts only when more are): nothing evicted");
  }

  // Step 5's candidate set: underutilized nodes that the selectors allow.
  void choose_targets() {
    is_target_.assign(snapshot_.nodes.size(), false);
    for (NodeId node : under_) {
      if (ctx_.matches_selector(node, scope_->node_selector) &&
          ctx_.matches_selector(node, args_.node_selector)) {
        targets_.push_back(node);
        is_target_[node] = true;
      }
    }
    if (targets_.empty()) {
      no_targets_ = nodes_text(under_.size()) + " underutilized, none matching nodeSelector";
    }
  }

  // Step 3: hottest first, by usage over watermark, weighted per resource.
  std::vector<NodeId> sources_in_order() const {
    std::vector<std::pair<double, NodeId>> scored;
    for (NodeId node : over_) {
      scored.emplace_back(-weighted_load(predicted_.of(node), high_[node], args_.resource_weights),
                          node);
    }
    std::sort(scored.begin(), scored.end());
    std::vector<NodeId> out;
    for (const auto& entry : scored) out.push_back(entry.second);
    return out;
  }

  double weight(const std::string& resource) const {
    auto it = args_.resource_weights.find(resource);
    return it == args_.resource_weights.end() ? 1.0 : it->second;
  }

  Cover cover_of(const Percentages& share, const Percentages& excess) const {
    Cover c;
    c.covers = true;
    for (const auto& [resource, amount] : excess) {
      double part = share.at(resource);
      c.size += weight(resource) * part;
      if (part + kEpsilon < amount) c.covers = false;
    }
    return c;
  }

  // Step 4: the candidate to give up next.
  size_t pick(const std::vector<Candidate>& candidates, const Percentages& excess) const {
    std::vector<Cover> covers;
    covers.reserve(candidates.size());
    for (const Candidate& c : candidates) covers.push_back(cover_of(c.share, excess));
    auto before = [&](size_t i, size_t j) {
      const PodRank& a = candidates[i].rank;
      const PodRank& b = candidates[j].rank;
      if (a.priority != b.priority) return a.priority < b.priority;
      if (a.qos != b.qos) return a.qos < b.qos;
      if (a.deletion_cost != b.deletion_cost) return a.deletion_cost < b.deletion_cost;
      const Cover& x = covers[i];
      const Cover& y = covers[j];
      if (x.covers != y.covers) return x.covers;
      if (std::abs(x.size - y.size) > kEpsilon) return x.covers ? x.size < y.size : x.size > y.size;
      return newer_first(a, b);
    };
    size_t best = 0;
    for (size_t i = 1; i < candidates.size(); ++i) {
      if (before(i, best)) best = i;
    }
    return best;
  }

  std::vector<Candidate> candidates_on(NodeId source) {
    WorkloadSwitches switches{args_.evict_gang_pods, args_.respect_restart_policies,
                              args_.evict_gpu_pods, args_.gpu_vendor_prefixes,
                              /*set_in_args=*/true};
    std::vector<Candidate> out;
    for (PodId pod : ctx_.index().pods_on(source)) {
      if (ctx_.planned(pod)) continue;
      const std::string& ns = snapshot_.pods[pod].meta.namespace_;
      if (std::find(args_.excluded_namespaces.begin(), args_.excluded_namespaces.end(), ns) !=
          args_.excluded_namespaces.end()) {
        ctx_.skip(pod, kName, SkipCode::kNamespaceExcluded,
                  "namespace excluded: evictableNamespaces.exclude lists " + ns);
        continue;
      }
      if (std::optional<std::string> why = scope_->filter->reject_reason(pod, switches)) {
        ctx_.skip(pod, kName, SkipCode::kNotEvictable, std::move(*why));
        continue;
      }
      PodAmounts load = estimated_load(ctx_, pod);
      Percentages share = predicted_.share(source, load);
      out.push_back({rank_of(snapshot_, pod), load, std::move(share)});
    }
    return out;
  }

  std::string name(NodeId node) const { return snapshot_.nodes[node].meta.name; }

  // "te3 cpu 92.0% > 80%, memory 90.0% > 85%"
  std::string over_text(NodeId node, const Percentages& excess) const {
    std::string out = name(node);
    bool first = true;
    for (const auto& entry : excess) {
      out += first ? " " : ", ";
      first = false;
      out += entry.first + " " + percent_text(predicted_.of(node).at(entry.first)) + " > " +
             setting_text(high_[node].at(entry.first));
    }
    return out;
  }

  std::string eviction_reason(NodeId source, PodId pod, const PodAmounts& load, NodeId target,
                              const Percentages& excess) const {
    std::string estimate, change;
    Percentages share = predicted_.share(target, load);
    for (const auto& entry : excess) {
      const std::string& resource = entry.first;
      if (!estimate.empty()) estimate += ", ";
      estimate += amount_text(resource, load.amount(resource));
      if (!change.empty()) change += ", ";
      double before = predicted_.of(target).at(resource);
      change += resource + " " + percent_text(before) + " -> " +
                percent_text(before + share.at(resource));
    }
    if (!load.measured) estimate += " from requests";
    return over_text(source, excess) + ": evict " + snapshot_.pods[pod].key() + " (est. " +
           estimate + ") -> " + name(target) + " (" + change + ")";
  }

  // Steps 4-6 for one source.
  void relieve(NodeId source) {
    std::vector<Candidate> candidates = candidates_on(source);
    // A candidate stayed because its replacement would come back here: the source looks the
    // emptiest to the scheduler, which only the soft taint changes.
    bool comes_back = false;
    while (!candidates.empty()) {
      Percentages excess = excess_over(predicted_.of(source), high_[source]);
      if (excess.empty()) {
        std::string why = "node relieved: " + name(source) +
                          " is within its targetThresholds after the evictions planned";
        for (const Candidate& c : candidates)
          ctx_.skip(c.rank.pod, kName, SkipCode::kNodeRelieved, why);
        return;
      }
      size_t index = pick(candidates, excess);
      Candidate chosen = std::move(candidates[index]);
      candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(index));
      PodId pod = chosen.rank.pod;

      Cover cover = cover_of(chosen.share, excess);
      if (cover.size <= kEpsilon) {
        std::string estimate;
        for (const auto& entry : excess) {
          if (!estimate.empty()) estimate += ", ";
          estimate += amount_text(entry.first, chosen.load.amount(entry.first));
        }
        ctx_.skip(
            pod, kName, SkipCode::kNoRelief,
            "no relief: est. " + estimate + ", nothing of what " + name(source) + " is over on");
        continue;
      }
      if (std::optional<std::string> cooling = ctx_.cooldown_reason(pod)) {
        ctx_.skip(pod, kName, SkipCode::kCoolingDown, std::move(*cooling));
        continue;
      }
      if (std::optional<Skip> limit = ctx_.limit_reason(pod, &args_.eviction_limits)) {
        ctx_.skip(pod, kName, std::move(*limit));
        continue;
      }
      TargetQuery query;
      query.candidates = targets_;
      query.usage = &predicted_;
      query.caps = &caps_;
      query.load = &chosen.load;
      query.no_candidates = no_targets_;
      std::optional<NodeRule> returns = cooldown_rule(ctx_, pod);
      query.rule = returns ? &*returns : nullptr;
      // Where the scheduler puts the replacement is predicted: the search only proves that some
      // target takes the pod, and the landing check picks where it is counted.
      const bool predicted_landing = landing_predicted(ctx_, pod);
      query.order = predicted_landing ? TargetOrder::kFirstFeasible : TargetOrder::kBest;
      TargetSearch search = find_target(ctx_, pod, query);
      if (!search.target) {
        ctx_.skip(pod, kName, SkipCode::kNoTarget, search.why_not);
        continue;
      }
      NodeId target = *search.target;
      LandingVerdict landing;
      if (predicted_landing) {
        landing = check_landing(ctx_, pod, source, target, predicted_, caps_, classified_,
                                is_target_, chosen.load);
        if (!landing.problem.empty()) {
          comes_back = comes_back || landing.back_on_source;
          ctx_.skip(pod, kName, SkipCode::kLandingRefused, std::move(landing.problem));
          continue;
        }
        if (landing.landing != placement::kNoNode) target = landing.landing;
      }
      std::string reason = eviction_reason(source, pod, chosen.load, target, excess) + landing.note;
      ctx_.evict(pod, target, scope_->name, kName, std::move(reason), &args_.eviction_limits,
                 landing.landing);
    }
    // Every candidate was looked at and the node is still hot: say so, so nobody reads a
    // partial plan as a relieved node.
    Percentages excess = excess_over(predicted_.of(source), high_[source]);
    if (!excess.empty()) {
      ctx_.plan().notes.push_back("LoadAware: " + over_text(source, excess) +
                                  " after the plan: no other pod of the node can be evicted to a "
                                  "target (see the skipped pods)");
      if (comes_back && !ctx_.options().soft_taint_hot_nodes) {
        ctx_.plan().notes.push_back(
            "LoadAware: " + name(source) +
            " needs the soft taint: the scheduler would put pods' replacements back on it "
            "(by requests it looks the emptiest); turn it on with "
            "`loadshift: {softTaintHotNodes: true}` in the policy or --soft-taint-hot-nodes "
            "(run needs nodes patch: the soft-taint overlay), and see the plan with "
            "`loadshift report --soft-taint-hot-nodes`");
      }
    }
  }

  const policy::LoadAwareArgs& args_;
  const ProfileScope* scope_;
  PlanContext& ctx_;
  const model::Snapshot& snapshot_;
  std::vector<std::string> tracked_;  // the resources of predicted_ LoadAware reads
  // The plan's measured usage account: every eviction of the plan so far applied, this plugin's
  // included (PlanContext::evict moves them).
  const PredictedUsage& predicted_;
  std::vector<Percentages> high_;  // by node: targetThresholds in effect
  std::vector<bool> classified_;   // by node: measured and classified by this plugin
  TargetCaps caps_;                // high_, for the target search
  std::vector<NodeId> known_, over_, under_, targets_;
  std::vector<bool> is_target_;  // by node: in targets_
  std::string no_targets_ = "no underutilized node";
};

}  // namespace

void run_load_aware(const policy::LoadAwareArgs& args, const ProfileScope& scope,
                    PlanContext& ctx) {
  LoadAware(args, &scope, ctx).run();
}

bool classify_load_aware(const policy::LoadAwareArgs& args, PlanContext& ctx) {
  return LoadAware(args, nullptr, ctx).classify_only();
}

}  // namespace loadshift::strategies

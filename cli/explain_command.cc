// `loadshift explain NAMESPACE/POD`: the plan's view of one pod — what each enabled plugin did
// with it, every node's placement verdict, the scheduler model's scores and the nodes the
// scheduler may pick for its replacement.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/command_inputs.h"
#include "cli/commands.h"
#include "model/rfc3339.h"
#include "placement/placer.h"
#include "placement/scheduler_model.h"
#include "report/plan_view.h"
#include "report/report_html.h"
#include "strategies/plan.h"

namespace loadshift::cli {
namespace {

using nlohmann::ordered_json;
using placement::NodeId;
using placement::PodId;

struct PluginView {
  std::string profile, plugin, action;  // action: "evicts", "skips", "does not look at it"
  std::string reason;
  std::string target, landing;
};

struct NodeView {
  std::string node;
  bool feasible = false;
  std::string reason;  // why not, when not feasible
  std::optional<placement::NodeScore> score;
};

std::string name_of(const model::Snapshot& s, NodeId node) {
  return node == placement::kNoNode ? "" : s.nodes[node].meta.name;
}

// What each enabled deschedule and balance plugin did with the pod: the plan's decision or skip
// (a pod skipped by several plugins keeps the first skip reason, as the plan does).
std::vector<PluginView> plugin_views(const PlannedCluster& c, PodId pod) {
  std::vector<PluginView> out;
  const strategies::EvictionDecision* decision = nullptr;
  for (const strategies::EvictionDecision& d : c.plan.evictions) {
    if (d.pod == pod) decision = &d;
  }
  const strategies::SkippedPod* skip = nullptr;
  for (const strategies::SkippedPod& s : c.plan.skipped) {
    if (s.pod == pod) skip = &s;
  }
  for (const policy::Profile& profile : c.policy.profiles) {
    for (const auto* set : {&profile.plugins.deschedule, &profile.plugins.balance}) {
      for (const std::string& plugin : set->enabled) {
        PluginView v{profile.name, plugin, "does not look at it", "", "", ""};
        if (decision != nullptr && decision->strategy == plugin && decision->profile == profile.name) {
          v.action = "evicts";
          v.reason = decision->reason;
          v.target = name_of(c.snapshot, decision->target);
          v.landing = name_of(c.snapshot, decision->landing);
        } else if (skip != nullptr && skip->strategy == plugin) {
          v.action = "skips";
          v.reason = skip->reason;
        } else if (decision != nullptr) {
          v.reason = "already evicted by " + decision->strategy;
        } else {
          v.reason = "not among its candidates";
        }
        out.push_back(std::move(v));
      }
    }
  }
  return out;
}

}  // namespace

int run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err) {
  bool ok = true;
  const size_t slash = options.pod.find('/');
  if (options.pod.empty() || slash == std::string::npos || slash == 0 ||
      slash + 1 == options.pod.size()) {
    err << "error: expected the pod as NAMESPACE/NAME, found \"" << options.pod << "\"\n";
    ok = false;
  }
  if (options.output != "table" && options.output != "json" && options.output != "html") {
    err << "error: --output: expected table, json or html, found \"" << options.output << "\"\n";
    ok = false;
  }
  if (!ok) return 2;
  ReportOptions report = options.report;
  report.output = "table";
  PlannedCluster c;
  if (!plan_cluster(report, &c, err)) return 2;
  const model::Snapshot& snap = c.snapshot;
  std::optional<PodId> found;
  for (PodId pod = 0; pod < snap.pods.size(); ++pod) {
    if (snap.pods[pod].key() == options.pod) found = pod;
  }
  if (!found) {
    err << "error: pod " << options.pod << " is not in the cluster read ("
        << (report.snapshot_files.empty() ? std::string("live") : "the snapshot files") << ")\n";
    return 2;
  }
  const PodId pod = *found;
  const model::Pod& p = snap.pods[pod];
  const NodeId home = c.index->node_of(pod);

  // The scheduler model as the plan used it: the soft taint as the controller leaves it, the
  // nodes' usage for Volcano's usage plugin; on the cluster as it is (no other eviction counted).
  placement::SchedulerModel model(*c.index, strategies::scheduler_profile(c.policy));
  if (c.settings.soft_taint_hot_nodes) {
    std::vector<placement::SchedulerModel::SoftTaint> state(snap.nodes.size(),
                                                            placement::SchedulerModel::kAsIs);
    for (NodeId node = 0; node < snap.nodes.size(); ++node) {
      switch (c.plan.nodes[node].node_class) {
        case strategies::NodeClass::kOverutilized:
          state[node] = placement::SchedulerModel::kTainted;
          break;
        case strategies::NodeClass::kUnderutilized:
        case strategies::NodeClass::kAppropriate:
          state[node] = placement::SchedulerModel::kUntainted;
          break;
        default:
          break;
      }
    }
    model.set_soft_taint(std::move(state));
  }
  if (model.profile().volcano_usage) {
    model.set_node_load(strategies::scheduler_node_load(snap, c.usage));
  }
  placement::Ledger ledger(snap.nodes.size(), &c.index->pod_topology());
  std::vector<NodeId> all(snap.nodes.size());
  for (NodeId node = 0; node < all.size(); ++node) all[node] = node;
  std::vector<placement::NodeScore> scores = model.scores(pod, all, ledger);
  const placement::Placer placer(*c.index);
  std::vector<NodeView> nodes;
  for (NodeId node : all) {
    NodeView v;
    v.node = snap.nodes[node].meta.name;
    for (const placement::NodeScore& s : scores) {
      if (s.node == node) v.score = s;
    }
    v.feasible = v.score.has_value();
    if (!v.feasible) {
      placement::Verdict verdict = placer.fits(pod, node, ledger);
      v.reason = verdict.fits() ? "not admitted for a new copy (a scheduler filter: Volcano's usage "
                                  "plugin, or the node's own rules for the pod's own node)"
                                : verdict.describe();
    }
    nodes.push_back(std::move(v));
  }
  const bool recreated = model.recreated(pod);
  placement::Landing landing;
  if (recreated && !model.recreated_in_place(pod)) landing = model.predict(pod, all, ledger);
  std::vector<PluginView> plugins = plugin_views(c, pod);
  const strategies::NodeState* state = home == placement::kNoNode ? nullptr : &c.plan.nodes[home];
  const model::OwnerReference* owner = p.controller();
  const std::string owner_text =
      owner == nullptr ? std::string("no controller owner: nothing recreates it")
                       : owner->kind + " " + p.meta.namespace_ + "/" + owner->name;
  const std::string scheduler = p.scheduler_name == "volcano" ? "volcano" : "kube-scheduler";

  if (options.output == "json" || options.output == "html") {
    ordered_json j;
    j["pod"] = options.pod;
    j["node"] =
        home == placement::kNoNode ? ordered_json(nullptr) : ordered_json(name_of(snap, home));
    j["owner"] = owner_text;
    j["scheduler"] = scheduler;
    j["at"] = model::format_rfc3339(c.options.now);
    if (state != nullptr) {
      j["nodeClass"] = strategies::to_string(state->node_class);
      j["nodeWhy"] = state->why;
    }
    ordered_json pv = ordered_json::array();
    for (const PluginView& v : plugins) {
      pv.push_back({{"profile", v.profile},
                    {"plugin", v.plugin},
                    {"action", v.action},
                    {"reason", v.reason},
                    {"target", v.target},
                    {"landing", v.landing}});
    }
    j["plugins"] = std::move(pv);
    ordered_json nv = ordered_json::array();
    for (const NodeView& v : nodes) {
      ordered_json n{{"node", v.node}, {"feasible", v.feasible}};
      if (!v.feasible) n["reason"] = v.reason;
      if (v.score) {
        n["score"] = {{"total", v.score->total},     {"fit", v.score->fit},
                      {"balanced", v.score->balanced}, {"taints", v.score->taint},
                      {"affinity", v.score->node_affinity}, {"interPod", v.score->inter_pod},
                      {"spread", v.score->spread},     {"binpack", v.score->binpack},
                      {"usage", v.score->usage}};
      }
      nv.push_back(std::move(n));
    }
    j["nodes"] = std::move(nv);
    ordered_json picks = ordered_json::array();
    for (NodeId node : landing.best) picks.push_back(name_of(snap, node));
    j["landing"] = {{"recreated", recreated},
                    {"inPlace", model.recreated_in_place(pod)},
                    {"nodes", std::move(picks)},
                    {"chanceEach", landing.best.empty() ? 0.0 : 1.0 / landing.best.size()},
                    {"score", landing.score}};
    if (options.output == "html") {
      report::HtmlPage page;
      page.title = "loadshift explain " + options.pod;
      page.generator = "loadshift " + std::string(version());
      page.explain = std::move(j);
      report::write_report_html(
          report::make_plan_view(*c.index, c.plan, c.usage, model::format_rfc3339(c.options.now)),
          page, out);
      return 0;
    }
    out << j.dump(2) << "\n";
    return 0;
  }

  out << "loadshift explain " << options.pod << " at " << model::format_rfc3339(c.options.now)
      << "; usage: " << c.usage.origin << "\n\n";
  out << "Pod " << options.pod << " on " << (home == placement::kNoNode ? "no node" : name_of(snap, home))
      << " (" << owner_text << "; scheduler " << scheduler << ")\n";
  if (state != nullptr) {
    out << "  its node is " << strategies::to_string(state->node_class)
        << (state->why.empty() ? "" : " (" + state->why + ")") << "\n";
  }
  out << "\nPlugins\n";
  for (const PluginView& v : plugins) {
    out << "  " << v.profile << "/" << v.plugin << ": " << v.action
        << (v.target.empty() ? "" : " -> " + v.target)
        << (v.landing.empty() || v.landing == v.target ? "" : " (scheduler: " + v.landing + ")")
        << (v.reason.empty() ? "" : ": " + v.reason) << "\n";
  }
  out << "\nA new copy of the pod on each node (the cluster as it is, before this cycle's "
         "evictions)\n";
  for (const NodeView& v : nodes) {
    out << "  " << v.node << "  ";
    if (v.score) {
      out << "feasible, scheduler score " << model.describe(*v.score) << "\n";
    } else {
      out << "no: " << v.reason << "\n";
    }
  }
  out << "\nWhere the scheduler puts its replacement\n  ";
  if (model.recreated_in_place(pod) && home != placement::kNoNode) {
    out << "back on " << name_of(snap, home) << ": its " << owner->kind
        << " recreates it on the same node\n";
  } else if (model.recreated_in_place(pod)) {
    out << "where its " << owner->kind << " puts it (not bound to a node yet)\n";
  } else if (!recreated) {
    out << "nowhere: " << owner_text << "\n";
  } else if (landing.best.empty()) {
    out << "nowhere: no node admits a new copy\n";
  } else {
    for (size_t i = 0; i < landing.best.size(); ++i) {
      out << (i == 0 ? "" : i + 1 == landing.best.size() ? " or " : ", ")
          << name_of(snap, landing.best[i]);
    }
    char chance[64];
    std::snprintf(chance, sizeof chance, " (score %lld; 1 in %zu each)",
                  static_cast<long long>(landing.score), landing.best.size());
    out << chance << "\n";
  }
  return 0;
}

}  // namespace loadshift::cli

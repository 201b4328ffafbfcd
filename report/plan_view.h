// A plan resolved for showing, owning all it holds (it stays valid after the cluster index and the
// snapshot are gone): the report's content and where each node sits in the HyperNode tree. The
// HTML page (report_html.h) is drawn from it, and the controller keeps the last cycle's view for
// its / and /plan.json.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "metrics/usage.h"
#include "placement/cluster_index.h"
#include "report/report_content.h"
#include "strategies/plan.h"

namespace loadshift::report {

struct TopologyDomain {
  std::string name;  // the HyperNode
  int32_t tier = 0;
};

struct PlanView {
  ReportContent content;
  // The real HyperNodes (Volcano's virtual root left out), and per node (ReportContent::nodes
  // order) the ones holding it, highest tier first, one per tier (the first by name when a node
  // sits in several of one tier). Empty without HyperNodes.
  std::vector<TopologyDomain> domains;
  std::vector<std::vector<uint32_t>> node_domains;
};

// Resolves `plan` (made by strategies::make_plan over `index` and `usage`); `at` is the
// evaluation time as RFC 3339, shown as is.
PlanView make_plan_view(const placement::ClusterIndex& index, const strategies::Plan& plan,
                        const metrics::UsageMap& usage, std::string at);

// The report's JSON contract (report.h, docs/report.md) of the view: what `report --output json`
// prints and the controller serves at /plan.json.
nlohmann::ordered_json plan_view_json(const PlanView& view);

}  // namespace loadshift::report

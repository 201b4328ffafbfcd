#include "report/plan_view.h"

#include <algorithm>

#include "report/report_writers.h"

namespace loadshift::report {

PlanView make_plan_view(const placement::ClusterIndex& index, const strategies::Plan& plan,
                        const metrics::UsageMap& usage, std::string at) {
  PlanView view;
  view.content = build_report_content(index, plan, usage, std::move(at));
  const placement::HyperNodeTree& tree = index.hyper_nodes();
  if (tree.domain_count() == 0) return view;
  view.domains.reserve(tree.domain_count());
  for (placement::HyperNodeTree::DomainId d = 0; d < tree.domain_count(); ++d) {
    view.domains.push_back({std::string(tree.name_of(d)), tree.tier_of(d)});
  }
  const size_t nodes = index.snapshot().nodes.size();
  view.node_domains.resize(nodes);
  for (placement::NodeId node = 0; node < nodes; ++node) {
    std::vector<uint32_t>& path = view.node_domains[node];
    // domain_ids_of is in (tier, name) order: keep the first of each tier, then highest first.
    for (placement::HyperNodeTree::DomainId d : tree.domain_ids_of(node)) {
      if (path.empty() || tree.tier_of(path.back()) != tree.tier_of(d)) path.push_back(d);
    }
    std::reverse(path.begin(), path.end());
  }
  return view;
}

nlohmann::ordered_json plan_view_json(const PlanView& view) {
  return report_content_json(view.content);
}

}  // namespace loadshift::report

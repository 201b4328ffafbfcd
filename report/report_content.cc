#include "report/report_content.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace loadshift::report {
namespace {

using strategies::NodeClass;

std::optional<double> watermark(const policy::Percentages& marks, const char* resource) {
  auto it = marks.find(resource);
  if (it == marks.end()) return std::nullopt;
  return it->second;
}

ResourceCell resource_cell(const strategies::NodeState& state, const std::optional<double>& before,
                           const std::optional<double>& after, const char* resource) {
  ResourceCell cell;
  cell.before = before;
  cell.after = after ? after : before;
  cell.low = watermark(state.thresholds, resource);
  cell.high = watermark(state.target_thresholds, resource);
  return cell;
}

std::string node_name(const model::Snapshot& snapshot, placement::NodeId node) {
  if (node == placement::kNoNode || node >= snapshot.nodes.size()) return {};
  return snapshot.nodes[node].meta.name;
}

void count_class(NodeClass c, ReportSummary& summary) {
  switch (c) {
    case NodeClass::kOverutilized:
      ++summary.overutilized;
      break;
    case NodeClass::kUnderutilized:
      ++summary.underutilized;
      break;
    case NodeClass::kAppropriate:
      ++summary.appropriate;
      break;
    case NodeClass::kUnknown:
      ++summary.unknown;
      break;
    case NodeClass::kUnclassified:
      ++summary.unclassified;
      break;
  }
}

std::vector<SkipGroup> group_skips(const std::vector<SkipRow>& rows) {
  std::map<std::string, SkipGroup, std::less<>> by_phrase;
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string phrase(reason_phrase(rows[i].reason));
    SkipGroup& group = by_phrase[phrase];
    group.phrase = phrase;
    group.rows.push_back(i);
  }
  std::vector<SkipGroup> groups;
  groups.reserve(by_phrase.size());
  for (auto& entry : by_phrase) groups.push_back(std::move(entry.second));
  // Largest first; std::map already ordered equal sizes by phrase, stable_sort keeps that.
  std::stable_sort(groups.begin(), groups.end(), [](const SkipGroup& a, const SkipGroup& b) {
    return a.rows.size() > b.rows.size();
  });
  return groups;
}

}  // namespace

std::string_view reason_phrase(std::string_view reason) {
  size_t colon = reason.find(": ");
  return colon == std::string_view::npos ? reason : reason.substr(0, colon);
}

std::string_view reason_detail(std::string_view reason) {
  size_t colon = reason.find(": ");
  return colon == std::string_view::npos ? std::string_view{} : reason.substr(colon + 2);
}

std::string summary_line(const ReportSummary& s) {
  return std::to_string(s.evictions) + (s.evictions == 1 ? " eviction; " : " evictions; ") +
         std::to_string(s.overutilized) + " overutilized, " + std::to_string(s.underutilized) +
         " underutilized, " + std::to_string(s.unknown) + " unknown " +
         (s.unknown == 1 ? "node" : "nodes") +
         (s.unclassified > 0 ? "; " + std::to_string(s.unclassified) + " unclassified" : "");
}

std::string format_percent(const std::optional<double>& percent) {
  if (!percent) return "unknown";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", *percent);
  return text;
}

ReportContent build_report_content(const placement::ClusterIndex& index,
                                   const strategies::Plan& plan, const metrics::UsageMap& usage,
                                   std::string at) {
  const model::Snapshot& snapshot = index.snapshot();
  ReportContent content;
  content.usage_origin = usage.origin;
  content.at = std::move(at);

  content.nodes.reserve(plan.nodes.size());
  for (const strategies::NodeState& state : plan.nodes) {
    NodeRow row;
    row.name = node_name(snapshot, state.node);
    row.pool = state.pool;
    row.node_class = state.node_class;
    row.cpu = resource_cell(state, state.cpu, state.cpu_after, "cpu");
    row.memory = resource_cell(state, state.memory, state.memory_after, "memory");
    row.figures = state.figures;
    if (state.figures == strategies::Figures::kMetric) {
      row.metric = resource_cell(state, state.metric, std::nullopt, "MetricResource");
    }
    count_class(state.node_class, content.summary);
    content.nodes.push_back(std::move(row));
  }

  content.evictions.reserve(plan.evictions.size());
  for (const strategies::EvictionDecision& d : plan.evictions) {
    const model::Pod& pod = snapshot.pods[d.pod];
    std::string landing = d.landing != d.target ? node_name(snapshot, d.landing) : "";
    content.evictions.push_back(
        EvictionRow{pod.meta.namespace_, pod.meta.name, node_name(snapshot, d.node),
                    node_name(snapshot, d.target), d.strategy, d.reason, std::move(landing)});
  }
  content.summary.evictions = plan.evictions.size();

  content.skipped.reserve(plan.skipped.size());
  for (const strategies::SkippedPod& s : plan.skipped) {
    const model::Pod& pod = snapshot.pods[s.pod];
    content.skipped.push_back(SkipRow{pod.meta.namespace_, pod.meta.name,
                                      node_name(snapshot, s.node), s.strategy, s.reason});
  }
  content.skip_groups = group_skips(content.skipped);

  content.notes = plan.notes;
  // The plan lists only the pods a plugin looked at; say how many others there are, so that the
  // report accounts for every pod.
  std::vector<bool> listed(snapshot.pods.size(), false);
  for (const auto& d : plan.evictions) listed[d.pod] = true;
  for (const auto& s : plan.skipped) listed[s.pod] = true;
  size_t others = static_cast<size_t>(std::count(listed.begin(), listed.end(), false));
  if (others > 0) {
    content.notes.push_back(
        std::to_string(others) +
        (others == 1 ? " other pod was not a candidate of any plugin and stays where it is"
                     : " other pods were not candidates of any plugin and stay where they are"));
  }
  for (const std::string& warning : usage.warnings) content.notes.push_back("usage: " + warning);
  // Unknown nodes, one note per distinct reason (a Prometheus that lost a rack says it once).
  std::map<std::string, std::vector<std::string>, std::less<>> unknown_by_reason;
  for (const auto& [node, why] : usage.unknown) unknown_by_reason[why].push_back(node);
  for (const auto& [why, nodes] : unknown_by_reason) {
    std::string names;
    for (const std::string& node : nodes) names += (names.empty() ? "" : ", ") + node;
    content.notes.push_back("usage: " + std::to_string(nodes.size()) +
                            (nodes.size() == 1 ? " node has" : " nodes have") + " no usage data (" +
                            why + "); plugins that read usage use " +
                            (nodes.size() == 1 ? "it" : "them") +
                            " neither as source nor as target: " + names);
  }
  return content;
}

}  // namespace loadshift::report

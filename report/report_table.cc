// The report as aligned text for a terminal.
//
//   NODE  POOL      CLASS         CPU                           MEMORY
//   te3   training  overutilized  92.0% -> 90.1% [###|#####|#-]  70.0% -> 69.8% [###|####.|..]
//
// A bar has ten cells of 10% each: `#` usage after the plan, `-` usage the plan moves away, `+`
// usage the plan brings in, `.` free; `|` marks the node's watermarks (thresholds, then
// targetThresholds) where its class was decided.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/report_writers.h"

namespace loadshift::report {
namespace {

constexpr int kCells = 10;
constexpr size_t kMaxPodsPerGroup = 20;  // table only; JSON and Markdown list every pod

// ANSI styling that is a no-op without colour. Padding is always applied to the plain text first,
// so colours never break the alignment.
struct Paint {
  bool on = false;
  std::string operator()(const std::string& text, const char* code) const {
    if (!on || code == nullptr || text.empty()) return text;
    return std::string("\x1b[") + code + "m" + text + "\x1b[0m";
  }
};

const char* class_colour(strategies::NodeClass c) {
  switch (c) {
    case strategies::NodeClass::kOverutilized:
      return "31";  // red
    case strategies::NodeClass::kUnderutilized:
      return "32";  // green
    case strategies::NodeClass::kUnknown:
      return "33";  // yellow
    case strategies::NodeClass::kUnclassified:
      return "2";  // dim
    case strategies::NodeClass::kAppropriate:
      break;
  }
  return nullptr;  // appropriate: plain
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

int cells_of(double percent) {
  return std::clamp(static_cast<int>(std::lround(percent / (100.0 / kCells))), 0, kCells);
}

// "[###|#####|#-]"; empty when the usage is unknown.
std::string bar(const ResourceCell& cell) {
  if (!cell.before) return {};
  int before = cells_of(*cell.before);
  int after = cells_of(cell.after.value_or(*cell.before));
  std::vector<int> marks;
  if (cell.low) marks.push_back(cells_of(*cell.low));
  if (cell.high) marks.push_back(cells_of(*cell.high));
  std::string out = "[";
  for (int i = 0; i <= kCells; ++i) {
    for (int m : marks) {
      if (m == i) out += '|';
    }
    if (i == kCells) break;
    if (i < std::min(before, after)) {
      out += '#';
    } else if (i < before) {
      out += '-';  // before > after: moved away
    } else if (i < after) {
      out += '+';  // after > before: moved in
    } else {
      out += '.';
    }
  }
  out += ']';
  return out;
}

// "92.0% -> 90.1%", or "45.0%" when the plan changes nothing, or "unknown".
std::string change(const ResourceCell& cell) {
  std::string text = format_percent(cell.before);
  if (cell.before && cell.after && std::abs(*cell.after - *cell.before) >= 0.05) {
    text += " -> " + format_percent(cell.after);
  }
  return text;
}

// Which columns the node table needs: the figures every row with figures shares (a label on the
// CPU and MEMORY headers), or a FIGURES column when they differ; a METRIC column when some row was
// classified on MetricResource; CPU and MEMORY unless no row has a value there.
struct NodeColumns {
  std::string label;  // " USAGE", " REQUESTED", or empty (mixed, or nothing classified)
  bool figures = false, cpu_memory = true, metric = false;
};

NodeColumns node_columns(const ReportContent& content) {
  std::vector<strategies::Figures> seen;
  bool any_value = false;
  NodeColumns columns;
  for (const NodeRow& row : content.nodes) {
    any_value = any_value || row.cpu.before || row.memory.before;
    columns.metric = columns.metric || row.figures == strategies::Figures::kMetric;
    if (!row.cpu.before && !row.memory.before && !row.metric.before) continue;
    if (std::find(seen.begin(), seen.end(), row.figures) == seen.end()) seen.push_back(row.figures);
  }
  columns.cpu_memory = any_value || !columns.metric;
  if (seen.size() > 1) {
    columns.figures = true;
  } else if (seen.size() == 1 && seen[0] == strategies::Figures::kRequests) {
    columns.label = " REQUESTED";
  } else if (seen.size() == 1 && seen[0] == strategies::Figures::kUsage) {
    columns.label = " USAGE";
  }
  return columns;
}

void write_nodes(const ReportContent& content, const Paint& paint, std::ostream& out) {
  const NodeColumns columns = node_columns(content);
  size_t name_w = 4, pool_w = 4, cpu_w = 0, mem_w = 0, metric_w = 0;
  for (const NodeRow& row : content.nodes) {
    name_w = std::max(name_w, row.name.size());
    pool_w = std::max(pool_w, row.pool.empty() ? size_t{1} : row.pool.size());
    cpu_w = std::max(cpu_w, change(row.cpu).size());
    mem_w = std::max(mem_w, change(row.memory).size());
    metric_w = std::max(metric_w, change(row.metric).size());
  }
  const size_t bar_w = kCells + 4;  // cells, two watermarks, brackets
  const std::string cpu_head = "CPU" + columns.label, mem_head = "MEMORY" + columns.label;
  const size_t cpu_col = std::max(cpu_w + 1 + bar_w, cpu_head.size());
  const size_t metric_col = std::max(metric_w + 1 + bar_w, std::string("METRICRESOURCE").size());
  const size_t figures_w = 16;  // "MetricResource" and two spaces

  out << paint("Nodes (" + std::to_string(content.nodes.size()) + ")", "1") << "\n";
  std::string header = "  " + pad("NODE", name_w + 2) + pad("POOL", pool_w + 2) + pad("CLASS", 15);
  if (columns.figures) header += pad("FIGURES", figures_w);
  if (columns.metric) header += pad("METRICRESOURCE", metric_col + 2);
  if (columns.cpu_memory) header += pad(cpu_head, cpu_col + 2) + mem_head;
  while (!header.empty() && header.back() == ' ') header.pop_back();
  out << header << "\n";
  for (const NodeRow& row : content.nodes) {
    std::string cls = strategies::to_string(row.node_class);
    std::string line = "  " + pad(row.name, name_w + 2) +
                       pad(row.pool.empty() ? "-" : row.pool, pool_w + 2) +
                       paint(cls, class_colour(row.node_class)) + pad("", 15 - cls.size());
    if (columns.figures) line += pad(strategies::to_string(row.figures), figures_w);
    if (columns.metric) {
      line += pad(row.metric.before ? pad(change(row.metric), metric_w + 1) + bar(row.metric)
                                    : std::string("-"),
                  metric_col + 2);
    }
    if (columns.cpu_memory) {
      line += pad(pad(change(row.cpu), cpu_w + 1) + bar(row.cpu), cpu_col + 2) +
              pad(change(row.memory), mem_w + 1) + bar(row.memory);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  }
  out << "  bars: 10% a cell; # after the plan, - moved away, + moved in, . free; | watermarks\n";
}

void write_evictions(const ReportContent& content, const Paint& paint, std::ostream& out) {
  out << "\n" << paint("Evictions (" + std::to_string(content.evictions.size()) + ")", "1") << "\n";
  if (content.evictions.empty()) {
    out << "  none\n";
    return;
  }
  size_t pod_w = 3, move_w = 10;  // at least the headers "POD" and "FROM -> TO"
  auto move_of = [](const EvictionRow& row) {
    return row.node + " -> " + (row.target.empty() ? std::string("(no target)") : row.target) +
           (row.landing.empty() ? std::string() : " (scheduler: " + row.landing + ")");
  };
  for (const EvictionRow& row : content.evictions) {
    pod_w = std::max(pod_w, row.namespace_.size() + 1 + row.pod.size());
    move_w = std::max(move_w, move_of(row).size());
  }
  out << "  " << pad("POD", pod_w + 2) << pad("FROM -> TO", move_w + 2) << "STRATEGY\n";
  for (const EvictionRow& row : content.evictions) {
    std::string move = move_of(row);
    out << "  " << pad(row.namespace_ + "/" + row.pod, pod_w + 2) << paint(move, "36")
        << pad("", move_w + 2 - move.size()) << row.strategy << "\n";
    out << "      " << row.reason << "\n";
  }
}

void write_skipped(const ReportContent& content, const Paint& paint, std::ostream& out) {
  out << "\n"
      << paint("Skipped pods (" + std::to_string(content.skipped.size()) + "), by reason", "1")
      << "\n";
  if (content.skipped.empty()) {
    out << "  none\n";
    return;
  }
  for (const SkipGroup& group : content.skip_groups) {
    out << "  " << paint(group.phrase, "1") << " (" << group.rows.size() << ")\n";
    size_t pod_w = 0, node_w = 0;
    for (size_t i : group.rows) {
      const SkipRow& row = content.skipped[i];
      pod_w = std::max(pod_w, row.namespace_.size() + 1 + row.pod.size());
      node_w = std::max(node_w, row.node.size());
    }
    size_t shown = 0;
    for (size_t i : group.rows) {
      if (shown++ == kMaxPodsPerGroup) {
        out << "    ... and " << group.rows.size() - kMaxPodsPerGroup
            << " more (--output json or markdown lists every pod)\n";
        break;
      }
      const SkipRow& row = content.skipped[i];
      std::string line = "    " + pad(row.namespace_ + "/" + row.pod, pod_w + 2) +
                         pad(row.node.empty() ? "-" : row.node, node_w + 2) +
                         std::string(reason_detail(row.reason));
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  }
}

void write_notes(const ReportContent& content, const Paint& paint, std::ostream& out) {
  if (content.notes.empty()) return;
  out << "\n" << paint("Notes", "1") << "\n";
  for (const std::string& note : content.notes) out << "  - " << note << "\n";
}

}  // namespace

void write_report_table(const ReportContent& content, bool colour, std::ostream& out) {
  Paint paint{colour};
  std::string header = "loadshift dry-run report";
  if (!content.at.empty()) header += " at " + content.at;
  if (!content.usage_origin.empty()) header += "; usage: " + content.usage_origin;
  out << header << "\n\n";
  write_nodes(content, paint, out);
  write_evictions(content, paint, out);
  write_skipped(content, paint, out);
  write_notes(content, paint, out);
  out << "\n" << paint(summary_line(content.summary), "1") << "\n";
}

}  // namespace loadshift::report

#include "simulation/simulation_chart.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace loadshift::simulation {
namespace {

constexpr double kWidth = 960;
constexpr double kPanelHeight = 300;
constexpr double kLeft = 60, kRight = 150, kTop = 40, kGap = 70, kBottom = 40;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// A distinct colour per node: hues around the circle.
std::string colour(size_t i, size_t n) {
  double hue = 360.0 * static_cast<double>(i) / static_cast<double>(std::max<size_t>(n, 1));
  return "hsl(" + number(hue) + ",70%,40%)";
}

struct Panel {
  const char* title;
  bool cpu;
  std::optional<double> low, high;
};

void write_panel(const SimulationResult& result, const Panel& panel, double top,
                 std::ostream& out) {
  const double plot_w = kWidth - kLeft - kRight;
  const size_t last = result.cycles.empty() ? 0 : result.cycles.size() - 1;
  double y_max = 100;
  for (const SimulatedCycle& c : result.cycles) {
    for (const auto& v : panel.cpu ? c.cpu_by_node : c.memory_by_node) {
      if (v) y_max = std::max(y_max, *v);
    }
  }
  auto x = [&](size_t cycle) {
    return kLeft +
           (last == 0 ? 0 : plot_w * static_cast<double>(cycle) / static_cast<double>(last));
  };
  auto y = [&](double percent) { return top + kPanelHeight * (1 - percent / y_max); };

  out << "<text x=\"" << kLeft << "\" y=\"" << number(top - 10) << "\" font-size=\"15\">"
      << panel.title << " usage per node (%)</text>\n";
  // Watermarks: under thresholds is underutilized, over targetThresholds overutilized.
  if (panel.low) {
    out << "<rect x=\"" << kLeft << "\" y=\"" << number(y(*panel.low)) << "\" width=\""
        << number(plot_w) << "\" height=\"" << number(y(0) - y(*panel.low))
        << "\" fill=\"#2a9d8f\" fill-opacity=\"0.12\"><title>underutilized: under "
        << number(*panel.low) << "%</title></rect>\n";
  }
  if (panel.high) {
    out << "<rect x=\"" << kLeft << "\" y=\"" << number(y(y_max)) << "\" width=\"" << number(plot_w)
        << "\" height=\"" << number(y(*panel.high) - y(y_max))
        << "\" fill=\"#e76f51\" fill-opacity=\"0.15\"><title>overutilized: over "
        << number(*panel.high) << "%</title></rect>\n";
  }
  // Axes, grid every 20%, cycle ticks.
  out << "<g stroke=\"#999\" stroke-width=\"1\">\n";
  for (double p = 0; p <= y_max + 1e-9; p += 20) {
    out << "<line x1=\"" << kLeft << "\" y1=\"" << number(y(p)) << "\" x2=\""
        << number(kLeft + plot_w) << "\" y2=\"" << number(y(p)) << "\" stroke-opacity=\"0.3\"/>\n";
  }
  out << "</g>\n<g font-size=\"11\" fill=\"#333\">\n";
  for (double p = 0; p <= y_max + 1e-9; p += 20) {
    out << "<text x=\"" << number(kLeft - 8) << "\" y=\"" << number(y(p) + 4)
        << "\" text-anchor=\"end\">" << number(p) << "</text>\n";
  }
  size_t step = std::max<size_t>(1, (last + 19) / 20);
  for (size_t c = 0; c <= last; c += step) {
    out << "<text x=\"" << number(x(c)) << "\" y=\"" << number(y(0) + 16)
        << "\" text-anchor=\"middle\">" << c << "</text>\n";
  }
  out << "<text x=\"" << number(kLeft + plot_w / 2) << "\" y=\"" << number(y(0) + 32)
      << "\" text-anchor=\"middle\">cycle</text>\n</g>\n";
  // One line per node with data.
  const size_t n = result.nodes.size();
  for (size_t node = 0; node < n; ++node) {
    std::string points;
    for (size_t c = 0; c < result.cycles.size(); ++c) {
      const auto& values =
          panel.cpu ? result.cycles[c].cpu_by_node : result.cycles[c].memory_by_node;
      if (node >= values.size() || !values[node]) continue;
      if (!points.empty()) points += ' ';
      points += number(x(c)) + "," + number(y(*values[node]));
    }
    if (points.empty()) continue;
    out << "<polyline fill=\"none\" stroke=\"" << colour(node, n)
        << "\" stroke-width=\"1.5\" points=\"" << points << "\"><title>"
        << escape(result.nodes[node]) << "</title></polyline>\n";
  }
}

}  // namespace

void write_simulation_chart(const SimulationResult& result, std::ostream& out) {
  const double height = kTop + 2 * kPanelHeight + kGap + kBottom;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << kWidth << " " << number(height)
      << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  write_panel(result, Panel{"cpu", true, result.cpu_low, result.cpu_high}, kTop, out);
  write_panel(result, Panel{"memory", false, result.memory_low, result.memory_high},
              kTop + kPanelHeight + kGap, out);
  // Legend: node names in their colours (the first 30; each line's tooltip names it too).
  const size_t n = result.nodes.size();
  const size_t shown = std::min<size_t>(n, 30);
  out << "<g font-size=\"11\">\n";
  for (size_t node = 0; node < shown; ++node) {
    double ly = kTop + 14.0 * static_cast<double>(node);
    out << "<rect x=\"" << number(kWidth - kRight + 15) << "\" y=\"" << number(ly - 8)
        << "\" width=\"10\" height=\"10\" fill=\"" << colour(node, n) << "\"/><text x=\""
        << number(kWidth - kRight + 30) << "\" y=\"" << number(ly) << "\">"
        << escape(result.nodes[node]) << "</text>\n";
  }
  if (n > shown) {
    out << "<text x=\"" << number(kWidth - kRight + 15) << "\" y=\""
        << number(kTop + 14.0 * static_cast<double>(shown)) << "\">and " << (n - shown)
        << " more</text>\n";
  }
  out << "</g>\n</svg>\n";
}

}  // namespace loadshift::simulation

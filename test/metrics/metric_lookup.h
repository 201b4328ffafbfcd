// Reading one value out of a prometheus-cpp registry in tests: collect, find the family by name and
// the metric whose labels include the given ones. -1 when there is no such metric.
#pragma once

#include <prometheus/registry.h>

#include <map>
#include <string>

namespace loadshift::testing {

inline const prometheus::ClientMetric* find_metric(
    const std::vector<prometheus::MetricFamily>& families, const std::string& name,
    const std::map<std::string, std::string>& labels) {
  for (const auto& family : families) {
    if (family.name != name) continue;
    for (const auto& metric : family.metric) {
      size_t matched = 0;
      for (const auto& label : metric.label) {
        auto it = labels.find(label.name);
        matched += it != labels.end() && it->second == label.value;
      }
      if (matched == labels.size()) return &metric;
    }
  }
  return nullptr;
}

inline double counter_value(prometheus::Registry& registry, const std::string& name,
                            const std::map<std::string, std::string>& labels) {
  auto families = registry.Collect();
  const auto* metric = find_metric(families, name, labels);
  return metric ? metric->counter.value : -1;
}

inline double gauge_value(prometheus::Registry& registry, const std::string& name,
                          const std::map<std::string, std::string>& labels) {
  auto families = registry.Collect();
  const auto* metric = find_metric(families, name, labels);
  return metric ? metric->gauge.value : -1;
}

inline double histogram_count(prometheus::Registry& registry, const std::string& name,
                              const std::map<std::string, std::string>& labels) {
  auto families = registry.Collect();
  const auto* metric = find_metric(families, name, labels);
  return metric ? static_cast<double>(metric->histogram.sample_count) : -1;
}

}  // namespace loadshift::testing

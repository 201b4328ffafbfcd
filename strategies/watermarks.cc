#include "strategies/watermarks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace loadshift::strategies {
namespace {

double value_of(const Percentages& usage, const std::string& resource) {
  auto it = usage.find(resource);
  return it == usage.end() ? 0 : it->second;
}

}  // namespace

std::string percent_text(double percent) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", percent);
  return buffer;
}

std::string setting_text(double percent) {
  char buffer[32];
  if (std::abs(percent - std::round(percent)) < 1e-9) {
    std::snprintf(buffer, sizeof buffer, "%.0f%%", percent);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.1f%%", percent);
  }
  return buffer;
}

Watermarks around_mean(const Watermarks& deviation, const Percentages& mean) {
  Watermarks out;
  for (const auto& [resource, value] : deviation.low) {
    out.low[resource] = std::clamp(value_of(mean, resource) - value, 0.0, 100.0);
  }
  for (const auto& [resource, value] : deviation.high) {
    out.high[resource] = std::clamp(value_of(mean, resource) + value, 0.0, 100.0);
  }
  return out;
}

Percentages mean_of(std::span<const Percentages* const> usages) {
  Percentages sum;
  std::map<std::string, size_t> count;
  for (const Percentages* usage : usages) {
    for (const auto& [resource, value] : *usage) {
      sum[resource] += value;
      ++count[resource];
    }
  }
  for (auto& [resource, value] : sum) value /= static_cast<double>(count[resource]);
  return sum;
}

Classification classify(const Percentages& usage, const Watermarks& w, bool schedulable,
                        const SustainedUsage* sustained, std::string_view period) {
  auto range_of = [&](const std::string& resource) -> const SustainedRange* {
    if (sustained == nullptr) return nullptr;
    auto it = sustained->find(resource);
    return it == sustained->end() ? nullptr : &it->second;
  };

  // Over: some resource over its high watermark (for the whole period, with sustainedFor).
  std::vector<std::string> over, over_not_sustained, over_no_data;
  for (const auto& [resource, high] : w.high) {
    double now = value_of(usage, resource);
    if (now <= high) continue;
    std::string text = resource + " " + percent_text(now) + " > " + setting_text(high);
    const SustainedRange* range = range_of(resource);
    if (sustained != nullptr && range != nullptr) {
      if (!range->min) {
        over_no_data.push_back(text);
        continue;
      }
      if (*range->min <= high) {
        over_not_sustained.push_back(text + " but not for " + std::string(period) + " (lowest " +
                                     percent_text(*range->min) + ")");
        continue;
      }
      text += " for " + std::string(period) + " (lowest " + percent_text(*range->min) + ")";
    }
    over.push_back(text);
  }
  if (!over.empty()) return {NodeClass::kOverutilized, join(over)};

  // Under: every resource at or under its low watermark (for the whole period).
  std::vector<std::string> under;
  bool all_under = true, under_no_data = false;
  std::string not_sustained_under;
  for (const auto& [resource, low] : w.low) {
    double now = value_of(usage, resource);
    if (now > low) {
      all_under = false;
      break;
    }
    std::string text = resource + " " + percent_text(now) + " <= " + setting_text(low);
    const SustainedRange* range = range_of(resource);
    if (sustained != nullptr && range != nullptr) {
      if (!range->max) {
        under_no_data = true;
      } else if (*range->max > low) {
        if (not_sustained_under.empty()) {
          not_sustained_under = text + " but not for " + std::string(period) + " (highest " +
                                percent_text(*range->max) + ")";
        }
      }
    }
    under.push_back(text);
  }
  if (!over_no_data.empty()) {
    return {NodeClass::kAppropriate, "no sustained data: " + join(over_no_data)};
  }
  if (!over_not_sustained.empty()) return {NodeClass::kAppropriate, join(over_not_sustained)};
  if (all_under && !w.low.empty()) {
    if (!schedulable) {
      return {NodeClass::kAppropriate, "cordoned: " + join(under) + " but not a target"};
    }
    if (under_no_data) return {NodeClass::kAppropriate, "no sustained data: " + join(under)};
    if (!not_sustained_under.empty()) return {NodeClass::kAppropriate, not_sustained_under};
    return {NodeClass::kUnderutilized, join(under)};
  }

  // Appropriate: say where each resource sits between the watermarks.
  std::vector<std::string> parts;
  for (const auto& [resource, low] : w.low) {
    double now = value_of(usage, resource);
    std::string text = resource + " " + percent_text(now);
    auto high = w.high.find(resource);
    if (now <= low) {
      text += " <= " + setting_text(low);
    } else if (high != w.high.end()) {
      text += " in " + setting_text(low) + ".." + setting_text(high->second);
    } else {
      text += " > " + setting_text(low);
    }
    parts.push_back(text);
  }
  for (const auto& [resource, high] : w.high) {
    if (w.low.count(resource) != 0) continue;
    parts.push_back(resource + " " + percent_text(value_of(usage, resource)) +
                    " <= " + setting_text(high));
  }
  return {NodeClass::kAppropriate, join(parts)};
}

Percentages excess_over(const Percentages& usage, const Percentages& high) {
  Percentages out;
  for (const auto& [resource, watermark] : high) {
    double now = value_of(usage, resource);
    if (now > watermark) out[resource] = now - watermark;
  }
  return out;
}

double weighted_load(const Percentages& usage, const Percentages& high,
                     const std::map<std::string, double>& weights) {
  double sum = 0;
  for (const auto& [resource, watermark] : high) {
    auto weight = weights.find(resource);
    double w = weight == weights.end() ? 1.0 : weight->second;
    sum += w * value_of(usage, resource) / std::max(watermark, 1.0);
  }
  return sum;
}

std::string nodes_text(size_t count) {
  return std::to_string(count) + (count == 1 ? " node" : " nodes");
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

}  // namespace loadshift::strategies

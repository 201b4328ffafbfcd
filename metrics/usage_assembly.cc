// Decoded answers -> UsageMap: node values, sustained extremes, pod usage, warnings.
#include "metrics/usage_assembly.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace loadshift::metrics {

namespace {

constexpr size_t kExamples = 3;

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::ostringstream out;
  out << value;
  return out.str();
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

std::string examples(const std::vector<std::string>& items, bool quote) {
  std::vector<std::string> shown;
  for (const auto& item : items) shown.push_back(quote ? "\"" + item + "\"" : item);
  return join(shown, ", ");
}

// The value as a percent, or why it is not one.
std::optional<double> percent_value(const Sample& sample, const std::string& query,
                                    std::string& why) {
  double v = sample.value;
  if (std::isnan(v) || std::isinf(v)) {
    why = query + " query returned " + format_value(v) + " for " + describe_labels(sample.labels);
    return std::nullopt;
  }
  if (v < -kPercentSlack || v > 100 + kPercentSlack) {
    why = query + " query returned " + format_value(v) + " for " + describe_labels(sample.labels) +
          ", outside 0..100";
    return std::nullopt;
  }
  return std::clamp(v, 0.0, 100.0);
}

// Collects per-query problems and the (query, reason) pairs to count.
class Findings {
 public:
  explicit Findings(AssembledUsage& out) : out_(out) {}
  void count(const std::string& query, const std::string& reason) {
    if (counted_.insert(query + "\n" + reason).second) out_.errors.emplace_back(query, reason);
  }
  void warn(std::string text) { out_.usage.warnings.push_back(std::move(text)); }

 private:
  AssembledUsage& out_;
  std::set<std::string> counted_;
};

void report_strays(const SeriesMatch& match, const QueryAnswer& answer, const NodeMatcher& matcher,
                   Findings& findings) {
  if (match.unmatched > 0) {
    findings.count(answer.name, "unmatched");
    findings.warn(answer.name + " query: " + std::to_string(match.unmatched) +
                  " series match no node by label " + matcher.node_label() + " (e.g. " +
                  examples(match.unmatched_examples, true) + ")");
  }
  if (match.unlabeled > 0) {
    findings.count(answer.name, "unmatched");
    findings.warn(answer.name + " query: " + std::to_string(match.unlabeled) +
                  " series have no label " + matcher.node_label() + " (e.g. " +
                  examples(match.unlabeled_examples, false) + ")");
  }
}

void copy_prometheus_warnings(const QueryAnswer& answer, Findings& findings) {
  if (!answer.result) return;
  for (const auto& w : answer.result->warnings) {
    findings.warn(answer.name + " query: Prometheus warning: " + w);
  }
}

// One node's value from a node query, or the reason it has none.
std::optional<double> node_value(const std::vector<const Sample*>& samples, size_t node,
                                 const QueryAnswer& answer, const NodeMatcher& matcher,
                                 Findings& findings, std::string& why, double& timestamp) {
  if (samples.empty()) {
    why = "no " + answer.name + " series for label " + matcher.node_label() + " (expected " +
          matcher.expected_for(node) + ")";
    return std::nullopt;
  }
  if (samples.size() > 1) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < samples.size() && i < kExamples; ++i) {
      shown.push_back(describe_labels(samples[i]->labels));
    }
    why = "duplicate series in the " + answer.name + " query (" + std::to_string(samples.size()) +
          " match this node: " + join(shown, ", ") + ")";
    findings.count(answer.name, "duplicate");
    return std::nullopt;
  }
  std::optional<double> value = percent_value(*samples[0], answer.name, why);
  if (!value) findings.count(answer.name, "bad_value");
  timestamp = samples[0]->timestamp;
  return value;
}

// Fills sustained_min / sustained_max of known nodes from one subquery's answer.
void apply_sustained(const std::optional<QueryAnswer>& answer, std::span<const NodeIdentity> nodes,
                     const NodeMatcher& matcher, UsageMap& usage, Findings& findings,
                     std::optional<double> ResourceUsage::*field,
                     ResourceUsage NodeUsage::*resource) {
  if (!answer) return;
  copy_prometheus_warnings(*answer, findings);
  std::string problem = node_query_problem(*answer, matcher.node_label());
  if (!problem.empty()) {
    if (answer->result) findings.count(answer->name, "bad_response");
    findings.warn(answer->name + " query: " + problem + "; no node has this sustained value");
    return;
  }
  SeriesMatch match = matcher.match(answer->result->samples);
  std::vector<std::string> missing, duplicate, bad;
  size_t missing_count = 0, duplicate_count = 0, bad_count = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto known = usage.nodes.find(nodes[i].name);
    if (known == usage.nodes.end()) continue;
    const auto& samples = match.by_node[i];
    if (samples.empty()) {
      if (missing_count++ < kExamples) missing.push_back(nodes[i].name);
      continue;
    }
    if (samples.size() > 1) {
      if (duplicate_count++ < kExamples) duplicate.push_back(nodes[i].name);
      continue;
    }
    std::string why;
    std::optional<double> value = percent_value(*samples[0], answer->name, why);
    if (!value) {
      if (bad_count++ < kExamples) bad.push_back(why);
      continue;
    }
    (known->second.*resource).*field = *value;
  }
  const std::string prefix = answer->name + " query: ";
  if (missing_count > 0) {
    findings.warn(prefix + "no series for " + std::to_string(missing_count) +
                  " node(s) with data (e.g. " + join(missing, ", ") + ")");
  }
  if (duplicate_count > 0) {
    findings.count(answer->name, "duplicate");
    findings.warn(prefix + "duplicate series for " + std::to_string(duplicate_count) +
                  " node(s) (e.g. " + join(duplicate, ", ") + ")");
  }
  if (bad_count > 0) {
    findings.count(answer->name, "bad_value");
    findings.warn(prefix + std::to_string(bad_count) + " unusable value(s): " + join(bad, "; "));
  }
}

// namespace/pod -> value from one pod query, sorted by key with no key twice; problems become
// one warning per kind. (A sorted vector, not a map: 150,000 series are sorted once instead of
// inserted one by one.)
using PodValues = std::vector<std::pair<std::string, double>>;
PodValues pod_values(const QueryAnswer& answer, Findings& findings) {
  PodValues values;
  values.reserve(answer.result->samples.size());
  size_t unlabeled = 0, bad = 0;
  std::vector<std::string> bad_examples;
  for (const Sample& sample : answer.result->samples) {
    auto ns = sample.labels.find("namespace");
    auto pod = sample.labels.find("pod");
    if (ns == sample.labels.end() || pod == sample.labels.end()) {
      ++unlabeled;
      continue;
    }
    if (std::isnan(sample.value) || std::isinf(sample.value) || sample.value < 0) {
      if (bad++ < kExamples) {
        bad_examples.push_back(format_value(sample.value) + " for " + ns->second + "/" +
                               pod->second);
      }
      continue;
    }
    std::string key;
    key.reserve(ns->second.size() + 1 + pod->second.size());
    key.append(ns->second).append(1, '/').append(pod->second);
    values.emplace_back(std::move(key), sample.value);
  }
  std::sort(values.begin(), values.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // Every key that appears twice or more, once.
  std::vector<std::string> duplicates;
  for (size_t i = 1; i < values.size(); ++i) {
    if (values[i].first == values[i - 1].first &&
        (duplicates.empty() || duplicates.back() != values[i].first)) {
      duplicates.push_back(values[i].first);
    }
  }
  const std::string prefix = answer.name + " query: ";
  if (unlabeled > 0) {
    findings.count(answer.name, "unmatched");
    findings.warn(prefix + std::to_string(unlabeled) +
                  " series lack the namespace or pod label: ignored");
  }
  if (bad > 0) {
    findings.count(answer.name, "bad_value");
    findings.warn(prefix + std::to_string(bad) + " unusable value(s) (" + join(bad_examples, "; ") +
                  "): those pods use their requests");
  }
  if (!duplicates.empty()) {
    findings.count(answer.name, "duplicate");
    std::vector<std::string> shown(
        duplicates.begin(),
        std::next(duplicates.begin(), static_cast<long>(std::min(kExamples, duplicates.size()))));
    findings.warn(prefix + std::to_string(duplicates.size()) +
                  " pod(s) with duplicate series (e.g. " + join(shown, ", ") +
                  "): those pods use their requests");
    std::erase_if(values, [&](const auto& entry) {
      return std::binary_search(duplicates.begin(), duplicates.end(), entry.first);
    });
  }
  return values;
}

void apply_pods(const FetchAnswers& answers, UsageMap& usage, Findings& findings) {
  if (!answers.pod_cpu || !answers.pod_memory) return;
  bool usable = true;
  for (const QueryAnswer* answer : {&*answers.pod_cpu, &*answers.pod_memory}) {
    copy_prometheus_warnings(*answer, findings);
    if (!answer->result) {
      findings.warn(answer->name + " query failed: " + answer->failure +
                    "; strategies use pod requests instead");
      usable = false;
    } else if (answer->result->scalar) {
      findings.count(answer->name, "bad_response");
      findings.warn(answer->name +
                    " query returned a scalar, expected one series per pod labelled namespace and "
                    "pod; strategies use pod requests instead");
      usable = false;
    }
  }
  if (!usable) return;
  PodValues cpu = pod_values(*answers.pod_cpu, findings);
  PodValues memory = pod_values(*answers.pod_memory, findings);
  // Both sorted: one merge pass.
  usage.pods.reserve(std::min(cpu.size(), memory.size()));
  size_t cpu_only = 0, memory_only = 0;
  auto c = cpu.begin(), m = memory.begin();
  while (c != cpu.end() || m != memory.end()) {
    if (m == memory.end() || (c != cpu.end() && c->first < m->first)) {
      ++cpu_only;
      ++c;
    } else if (c == cpu.end() || m->first < c->first) {
      ++memory_only;
      ++m;
    } else {
      usage.pods.emplace(std::move(c->first), PodUsage{c->second, m->second});
      ++c;
      ++m;
    }
  }
  if (cpu_only > 0 || memory_only > 0) {
    findings.warn("pod usage: " + std::to_string(cpu_only) + " pod(s) have a cpu series but no " +
                  "memory series and " + std::to_string(memory_only) +
                  " the reverse; those pods use their requests");
  }
}

// Fills metric_resource of known nodes from the MetricResource query (0..1 per node, kept as
// percent). Upstream fails the whole LowNodeUtilization run for a node without a usable sample;
// here only that node goes without (LowNodeUtilization then treats it as unknown).
void apply_metric_resource(const std::optional<QueryAnswer>& answer,
                           std::span<const NodeIdentity> nodes, const NodeMatcher& matcher,
                           UsageMap& usage, Findings& findings) {
  if (!answer) return;
  copy_prometheus_warnings(*answer, findings);
  std::string problem = node_query_problem(*answer, matcher.node_label());
  if (!problem.empty()) {
    if (answer->result) findings.count(answer->name, "bad_response");
    findings.warn(answer->name + " query `" + answer->promql + "`: " + problem +
                  "; no node has a MetricResource value");
    return;
  }
  SeriesMatch match = matcher.match(answer->result->samples);
  report_strays(match, *answer, matcher, findings);
  std::vector<std::string> missing;
  size_t missing_count = 0;
  const std::string prefix = answer->name + " query: ";
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto known = usage.nodes.find(nodes[i].name);
    if (known == usage.nodes.end() || known->second.metric_resource) continue;
    const auto& samples = match.by_node[i];
    if (samples.empty()) {
      if (missing_count++ < kExamples) missing.push_back(nodes[i].name);
      continue;
    }
    if (samples.size() > 1) {
      findings.count(answer->name, "duplicate");
      findings.warn(prefix + "node " + nodes[i].name + ": " + std::to_string(samples.size()) +
                    " series match it; no MetricResource value");
      continue;
    }
    double v = samples[0]->value;
    if (std::isnan(v) || std::isinf(v) || v < 0 || v > 1) {
      findings.count(answer->name, "bad_value");
      findings.warn(prefix + "node " + nodes[i].name + ": value " + format_value(v) +
                    (std::isnan(v) || std::isinf(v) ? " is not a number" : " is outside 0..1") +
                    "; no MetricResource value");
      continue;
    }
    known->second.metric_resource = v * 100;
  }
  if (missing_count > 0) {
    findings.warn(prefix + "no series for " + std::to_string(missing_count) +
                  " node(s) with data (e.g. " + join(missing, ", ") +
                  "); they have no MetricResource value");
  }
}

}  // namespace

AssembledUsage assemble_metric_only(std::span<const NodeIdentity> nodes, const QueryAnswer& answer,
                                    const NodeMatcher& matcher, double evaluation_time) {
  AssembledUsage out;
  Findings findings(out);
  for (const auto& line : matcher.shared_ip_warnings()) findings.warn(line);
  copy_prometheus_warnings(answer, findings);
  SeriesMatch match = matcher.match(answer.result->samples);
  report_strays(match, answer, matcher, findings);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = nodes[i].name;
    if (out.usage.nodes.count(name) || out.usage.unknown.count(name)) continue;
    const auto& samples = match.by_node[i];
    if (samples.empty()) {
      out.usage.unknown[name] = "no " + answer.name + " series for label " + matcher.node_label() +
                                " (expected " + matcher.expected_for(i) + ")";
      continue;
    }
    if (samples.size() > 1) {
      findings.count(answer.name, "duplicate");
      out.usage.unknown[name] = "duplicate series in the " + answer.name + " query (" +
                                std::to_string(samples.size()) + " match this node)";
      continue;
    }
    double v = samples[0]->value;
    if (std::isnan(v) || std::isinf(v) || v < 0 || v > 1) {
      findings.count(answer.name, "bad_value");
      out.usage.unknown[name] =
          answer.name + " value " + format_value(v) +
          (std::isnan(v) || std::isinf(v) ? " is not a number" : " is outside 0..1");
      continue;
    }
    NodeUsage node;
    node.cpu_memory_measured = false;
    node.metric_resource = v * 100;
    node.age_seconds = std::max(0.0, evaluation_time - samples[0]->timestamp);
    out.usage.nodes[name] = node;
  }
  return out;
}

std::string node_query_problem(const QueryAnswer& answer, const std::string& node_label) {
  if (!answer.result) return answer.failure;
  if (answer.result->scalar) {
    return "the query returned a scalar, which has no labels to match to nodes: keep the label " +
           node_label + ", e.g. avg by (" + node_label + ") (...)";
  }
  return "";
}

AssembledUsage assemble_usage(std::span<const NodeIdentity> nodes, const FetchAnswers& answers,
                              const NodeMatcher& matcher, double evaluation_time) {
  AssembledUsage out;
  Findings findings(out);
  for (const auto& line : matcher.shared_ip_warnings()) findings.warn(line);
  copy_prometheus_warnings(answers.cpu, findings);
  copy_prometheus_warnings(answers.memory, findings);

  SeriesMatch cpu = matcher.match(answers.cpu.result->samples);
  SeriesMatch memory = matcher.match(answers.memory.result->samples);
  report_strays(cpu, answers.cpu, matcher, findings);
  report_strays(memory, answers.memory, matcher, findings);

  for (size_t i = 0; i < nodes.size(); ++i) {
    // A name given twice is one node (the matcher sends its series to the first index).
    if (out.usage.nodes.count(nodes[i].name) || out.usage.unknown.count(nodes[i].name)) continue;
    std::string cpu_why, memory_why;
    double cpu_time = evaluation_time, memory_time = evaluation_time;
    std::optional<double> cpu_value =
        node_value(cpu.by_node[i], i, answers.cpu, matcher, findings, cpu_why, cpu_time);
    std::optional<double> memory_value = node_value(memory.by_node[i], i, answers.memory, matcher,
                                                    findings, memory_why, memory_time);
    if (!cpu_value || !memory_value) {
      std::vector<std::string> reasons;
      if (!cpu_value) reasons.push_back(cpu_why);
      if (!memory_value) reasons.push_back(memory_why);
      out.usage.unknown[nodes[i].name] = join(reasons, "; ");
      continue;
    }
    NodeUsage node;
    node.cpu.percent = *cpu_value;
    node.memory.percent = *memory_value;
    node.age_seconds = std::max(0.0, evaluation_time - std::min(cpu_time, memory_time));
    out.usage.nodes[nodes[i].name] = node;
  }

  apply_sustained(answers.cpu_min, nodes, matcher, out.usage, findings,
                  &ResourceUsage::sustained_min, &NodeUsage::cpu);
  apply_sustained(answers.cpu_max, nodes, matcher, out.usage, findings,
                  &ResourceUsage::sustained_max, &NodeUsage::cpu);
  apply_sustained(answers.memory_min, nodes, matcher, out.usage, findings,
                  &ResourceUsage::sustained_min, &NodeUsage::memory);
  apply_sustained(answers.memory_max, nodes, matcher, out.usage, findings,
                  &ResourceUsage::sustained_max, &NodeUsage::memory);
  apply_pods(answers, out.usage, findings);
  apply_metric_resource(answers.metric_resource, nodes, matcher, out.usage, findings);
  return out;
}

}  // namespace loadshift::metrics

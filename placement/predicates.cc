#include "placement/predicates.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "placement/node_selector_parsing.h"

namespace loadshift::placement {
namespace {

constexpr std::string_view kUnschedulableTaintKey = "node.kubernetes.io/unschedulable";

bool reject(Reasons* out, Rule rule, std::string reason) {
  if (out != nullptr) out->push_back(Rejection{rule, std::move(reason)});
  return false;
}

// For fixed reasons: builds the string only when it is kept (most literals are too long for the
// small-string buffer, so building one would allocate on the hot path).
bool reject(Reasons* out, Rule rule, const char* reason) {
  if (out != nullptr) out->push_back(Rejection{rule, reason});
  return false;
}

std::string describe_taint(const model::Taint& taint) {
  std::string text = taint.key;
  if (!taint.value.empty()) text += "=" + taint.value;
  text += ":";
  text += to_string(taint.effect);
  return text;
}

// Checks one resource; `name` is used only for the reason.
bool fits_amount(std::string_view name, int64_t request, int64_t allocatable, int64_t requested,
                 int64_t reserved, Reasons* out) {
  if (request <= 0) return true;
  int64_t free = allocatable - requested - reserved;
  if (request <= free) return true;
  if (out == nullptr) return false;
  std::string reason = "insufficient " + std::string(name) + ": pod requests " +
                       model::format_amount(name, request) + ", node has " +
                       model::format_amount(name, std::max<int64_t>(free, 0)) + " free of " +
                       model::format_amount(name, allocatable) + " allocatable";
  if (reserved != 0)
    reason += " (" + model::format_amount(name, reserved) + " reserved by this plan)";
  return reject(out, Rule::kResources, std::move(reason));
}

// Go's strconv.ParseInt(text, 10, 64): one optional sign, then decimal digits.
bool parse_int64(std::string_view text, int64_t& value) {
  if (!text.empty() && text[0] == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text[0] == '-') return false;  // "+-5": from_chars would take "-5"
  }
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

bool value_listed(const model::NodeSelectorRequirement& requirement, std::string_view value) {
  return std::find(requirement.values.begin(), requirement.values.end(), value) !=
         requirement.values.end();
}

bool field_matches(const model::NodeSelectorRequirement& requirement, const model::Node& node) {
  if (requirement.key != "metadata.name" || !field_requirement_parses(requirement)) return false;
  bool listed = value_listed(requirement, node.meta.name);
  if (requirement.op == model::SelectorOperator::kIn) return listed;
  if (requirement.op == model::SelectorOperator::kNotIn) return !listed;
  return false;
}

std::string describe_requirement(const model::NodeSelectorRequirement& r) {
  std::string text = r.key + " " + std::string(to_string(r.op));
  if (!r.values.empty()) {
    text += " [";
    for (size_t i = 0; i < r.values.size(); ++i) text += (i ? ", " : "") + r.values[i];
    text += "]";
  }
  return text;
}

}  // namespace

bool check_node_ready(const model::Node& node, Reasons* out) {
  if (node.meta.deleting) return reject(out, Rule::kNodeReady, "node is being deleted");
  const model::NodeCondition* ready = node.condition("Ready");
  if (ready == nullptr) return reject(out, Rule::kNodeReady, "node has no Ready condition");
  if (ready->status != "True") {
    if (out == nullptr) return false;
    return reject(out, Rule::kNodeReady, "node is not Ready (Ready=" + ready->status + ")");
  }
  return true;
}

bool check_node_schedulable(const model::Pod& pod, const model::Node& node, Reasons* out) {
  if (!node.unschedulable) return true;
  static const model::Taint cordon{std::string(kUnschedulableTaintKey), "",
                                   model::TaintEffect::kNoSchedule};
  for (const model::Toleration& t : pod.tolerations) {
    if (tolerates(t, cordon)) return true;
  }
  return reject(out, Rule::kNodeSchedulable, "node is cordoned (unschedulable)");
}

bool check_resources(const model::ResourceList& pod_requests, const model::Node& node,
                     const NodeLoad& load, GpuStack node_stack, Reasons* out) {
  static const model::ResourceList kNothing;
  const model::ResourceList& requested = load.requested ? *load.requested : kNothing;
  const model::ResourceList& reserved = load.reserved ? *load.reserved : kNothing;
  const model::ResourceList& allocatable = node.allocatable;
  bool ok = true;
  // One more pod must fit under the node's pod limit.
  if (requested.pods + reserved.pods + 1 > allocatable.pods) {
    if (out == nullptr) return false;
    ok = reject(out, Rule::kResources,
                "too many pods: node allows " + std::to_string(allocatable.pods) + ", has " +
                    std::to_string(requested.pods + reserved.pods));
  }
  auto check = [&](std::string_view name, int64_t request, int64_t alloc, int64_t used,
                   int64_t held) {
    if (!fits_amount(name, request, alloc, used, held, out)) ok = false;
    return ok || out != nullptr;
  };
  if (!check(model::kCpu, pod_requests.cpu_milli, allocatable.cpu_milli, requested.cpu_milli,
             reserved.cpu_milli))
    return false;
  if (!check(model::kMemory, pod_requests.memory, allocatable.memory, requested.memory,
             reserved.memory))
    return false;
  if (!check(model::kEphemeralStorage, pod_requests.ephemeral_storage,
             allocatable.ephemeral_storage, requested.ephemeral_storage,
             reserved.ephemeral_storage))
    return false;
  for (const auto& [name, request] : pod_requests.scalars()) {
    if (request <= 0 || ignored_by_scheduler(name, node_stack)) continue;
    if (!check(name, request, allocatable.get(name), requested.get(name), reserved.get(name)))
      return false;
  }
  return ok;
}

bool tolerates(const model::Toleration& toleration, const model::Taint& taint) {
  if (toleration.effect && *toleration.effect != taint.effect) return false;
  if (toleration.key.empty()) return toleration.op == model::TolerationOperator::kExists;
  if (toleration.key != taint.key) return false;
  if (toleration.op == model::TolerationOperator::kExists) return true;
  return toleration.value == taint.value;
}

bool check_taints(const model::Pod& pod, const model::Node& node, Reasons* out) {
  bool ok = true;
  for (const model::Taint& taint : node.taints) {
    if (taint.effect == model::TaintEffect::kPreferNoSchedule) continue;
    bool tolerated = std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                                 [&](const model::Toleration& t) { return tolerates(t, taint); });
    if (tolerated) continue;
    if (out == nullptr) return false;
    ok = reject(out, Rule::kTaints, "taint " + describe_taint(taint) + " not tolerated");
  }
  return ok;
}

int32_t untolerated_prefer_no_schedule(const model::Pod& pod, const model::Node& node) {
  int32_t count = 0;
  for (const model::Taint& taint : node.taints) {
    if (taint.effect != model::TaintEffect::kPreferNoSchedule) continue;
    // A toleration with no effect or effect PreferNoSchedule counts, as in the scheduler's score.
    bool tolerated = std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                                 [&](const model::Toleration& t) { return tolerates(t, taint); });
    if (!tolerated) ++count;
  }
  return count;
}

bool check_node_selector(const model::Pod& pod, const model::Node& node, Reasons* out) {
  bool ok = true;
  for (const auto& [key, value] : pod.node_selector.items()) {
    const std::string* label = node.meta.labels.find(key);
    if (label != nullptr && *label == value) continue;
    if (out == nullptr) return false;
    ok = reject(out, Rule::kNodeSelector,
                "nodeSelector " + key + "=" + value + " not matched (node has " +
                    (label ? key + "=" + *label : "no " + key + " label") + ")");
  }
  return ok;
}

bool requirement_matches(const model::NodeSelectorRequirement& requirement,
                         const model::StringMap& labels) {
  return requirement_matches_value(requirement, labels.find(requirement.key));
}

bool requirement_matches_value(const model::NodeSelectorRequirement& requirement,
                               const std::string* label) {
  // A requirement the scheduler cannot parse makes its whole term match no node; the term's
  // requirements are ANDed, so failing this one is the same.
  if (!requirement_parses(requirement)) return false;
  switch (requirement.op) {
    case model::SelectorOperator::kIn:
      return label != nullptr && value_listed(requirement, *label);
    case model::SelectorOperator::kNotIn:
      return label == nullptr || !value_listed(requirement, *label);
    case model::SelectorOperator::kExists:
      return label != nullptr;
    case model::SelectorOperator::kDoesNotExist:
      return label == nullptr;
    case model::SelectorOperator::kGt:
    case model::SelectorOperator::kLt: {
      if (label == nullptr) return false;
      int64_t have = 0, bound = 0;
      if (!parse_int64(*label, have) || !parse_int64(requirement.values[0], bound)) return false;
      return requirement.op == model::SelectorOperator::kGt ? have > bound : have < bound;
    }
  }
  return false;
}

bool term_matches(const model::NodeSelectorTerm& term, const model::Node& node) {
  if (term.match_expressions.empty() && term.match_fields.empty()) return false;
  for (const model::NodeSelectorRequirement& r : term.match_expressions) {
    if (!requirement_matches(r, node.meta.labels)) return false;
  }
  for (const model::NodeSelectorRequirement& r : term.match_fields) {
    if (!field_matches(r, node)) return false;
  }
  return true;
}

bool check_node_affinity(const model::Pod& pod, const model::Node& node, Reasons* out) {
  if (!pod.node_affinity->required) return true;
  const auto& terms = *pod.node_affinity->required;
  for (const model::NodeSelectorTerm& term : terms) {
    if (term_matches(term, node)) return true;
  }
  if (out == nullptr) return false;
  std::string reason = "required node affinity not matched";
  if (terms.size() == 1 && terms[0].match_expressions.size() + terms[0].match_fields.size() > 0) {
    std::string parse_error = term_parse_error(terms[0]);
    if (!parse_error.empty()) {
      reason += ": the term matches no node, as in the scheduler, because " + parse_error;
      return reject(out, Rule::kNodeAffinity, std::move(reason));
    }
    // Name the first failing requirement of a single term: the usual case, and the readable one.
    for (const auto& r : terms[0].match_expressions) {
      if (requirement_matches(r, node.meta.labels)) continue;
      const std::string* label = node.meta.labels.find(r.key);
      reason += ": " + describe_requirement(r) + " (node has " +
                (label ? r.key + "=" + *label : "no " + r.key + " label") + ")";
      break;
    }
  } else {
    reason += " (none of " + std::to_string(terms.size()) + " terms";
    for (size_t i = 0; i < terms.size(); ++i) {
      std::string parse_error = term_parse_error(terms[i]);
      if (parse_error.empty()) continue;
      reason += "; term " + std::to_string(i) + " matches no node because " + parse_error;
      break;
    }
    reason += ")";
  }
  return reject(out, Rule::kNodeAffinity, std::move(reason));
}

int64_t preferred_affinity_score(const model::Pod& pod, const model::Node& node) {
  int64_t score = 0;
  for (const model::PreferredSchedulingTerm& term : pod.node_affinity->preferred) {
    if (term.weight != 0 && term_matches(term.preference, node)) score += term.weight;
  }
  return score;
}

bool check_host_ports(const model::Pod& pod, std::span<const int32_t> used_ports, Reasons* out) {
  bool ok = true;
  for (int32_t port : pod.host_ports) {
    if (!std::binary_search(used_ports.begin(), used_ports.end(), port)) continue;
    if (out == nullptr) return false;
    ok = reject(out, Rule::kHostPorts, "host port " + std::to_string(port) + " already in use");
  }
  return ok;
}

}  // namespace loadshift::placement

#include "placement/existing_anti_affinity.h"

#include <algorithm>

namespace loadshift::placement {
namespace {

bool empty_selector(const LabelSelector& selector) {
  return selector.match_labels.empty() && selector.match_expressions.empty();
}

std::string describe_selector(const std::optional<LabelSelector>& selector) {
  if (!selector) return "null";
  if (empty_selector(*selector)) return "{} (every pod)";
  std::string text;
  for (const auto& [key, value] : selector->match_labels.items()) {
    text += (text.empty() ? "" : ",") + key + "=" + value;
  }
  for (const LabelSelectorRequirement& r : selector->match_expressions) {
    text += (text.empty() ? "" : ",") + r.key + " " + r.op;
    if (!r.values.empty()) {
      text += " (";
      for (size_t i = 0; i < r.values.size(); ++i) text += (i ? "," : "") + r.values[i];
      text += ")";
    }
  }
  return text;
}

}  // namespace

bool anti_affinity_term_selects(const PodAffinityTerm& term, const Pod& owner, const Pod& pod) {
  if (!term.label_selector || !matches(*term.label_selector, pod.meta.labels)) return false;
  const std::string& ns = pod.meta.namespace_;
  if (std::find(term.namespaces.begin(), term.namespaces.end(), ns) != term.namespaces.end()) {
    return true;
  }
  // Empty: every namespace. Otherwise the Namespace labels are unknown: assumed to select.
  if (term.namespace_selector) return true;
  return term.namespaces.empty() && ns == owner.meta.namespace_;
}

ExistingAntiAffinity::ExistingAntiAffinity(const Snapshot& snapshot,
                                           const std::vector<std::vector<PodId>>& pods_on_node)
    : snapshot_(&snapshot) {
  for (NodeId node = 0; node < pods_on_node.size(); ++node) {
    const StringMap& labels = snapshot.nodes[node].meta.labels;
    for (PodId owner : pods_on_node[node]) {
      const auto& terms = snapshot.pods[owner].pod_anti_affinity.required;
      for (uint32_t t = 0; t < terms.size(); ++t) {
        const std::string* value = labels.find(terms[t].topology_key);
        if (value == nullptr) continue;  // the node is in no domain of this key
        auto key = std::find_if(keys_.begin(), keys_.end(), [&](const Domains& d) {
          return d.topology_key == terms[t].topology_key;
        });
        if (key == keys_.end()) {
          keys_.push_back(Domains{terms[t].topology_key, {}});
          key = keys_.end() - 1;
        }
        key->by_value[*value].push_back(TermRef{owner, t});
        ++terms_;
      }
    }
  }
}

bool ExistingAntiAffinity::check(PodId pod_id, NodeId node, Reasons* out) const {
  if (keys_.empty()) return true;
  const Pod& pod = snapshot_->pods[pod_id];
  const StringMap& labels = snapshot_->nodes[node].meta.labels;
  bool ok = true;
  for (const Domains& domains : keys_) {
    const std::string* value = labels.find(domains.topology_key);
    if (value == nullptr) continue;
    auto in_domain = domains.by_value.find(*value);
    if (in_domain == domains.by_value.end()) continue;
    for (const TermRef& ref : in_domain->second) {
      if (ref.owner == pod_id) continue;  // the pod's own terms leave with it
      const Pod& owner = snapshot_->pods[ref.owner];
      const PodAffinityTerm& term = owner.pod_anti_affinity.required[ref.term];
      if (!anti_affinity_term_selects(term, owner, pod)) continue;
      ok = false;
      if (out == nullptr) return false;
      std::string reason = "existing pod " + owner.key() + " on " + owner.node_name +
                           " has required anti-affinity term " + std::to_string(ref.term) +
                           " (topologyKey " + term.topology_key + ", selector " +
                           describe_selector(term.label_selector);
      if (term.namespace_selector && !empty_selector(*term.namespace_selector)) {
        reason += ", namespaceSelector not evaluated: assumed to select " + pod.meta.namespace_;
      }
      reason += ") matching this pod in the domain " + domains.topology_key + "=" + *value;
      out->push_back(Rejection{Rule::kExistingPodsAntiAffinity, std::move(reason)});
    }
  }
  return ok;
}

}  // namespace loadshift::placement

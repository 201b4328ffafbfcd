#include "strategies/labelled_pods.h"

#include <algorithm>

namespace loadshift::strategies {

using placement::PodId;

LabelledPods::LabelledPods(const model::Snapshot& snapshot)
    : snapshot_(snapshot), order_(snapshot.pods.size(), 0) {}

void LabelledPods::add(PodId pod) {
  const model::Pod& p = snapshot_.pods[pod];
  order_[pod] = added_++;
  std::map<Labels, size_t>& at = at_[p.meta.namespace_];
  std::vector<Group>& groups = groups_[p.meta.namespace_];
  auto it = at.find(p.meta.labels.items());
  if (it == at.end()) {
    it = at.emplace(p.meta.labels.items(), groups.size()).first;
    groups.push_back({&p.meta.labels, {}});
  }
  groups[it->second].pods.push_back(pod);
}

void LabelledPods::append(const std::string& ns, const model::LabelSelector& selector,
                          std::vector<PodId>& out) const {
  auto it = groups_.find(ns);
  if (it == groups_.end()) return;
  for (const Group& group : it->second) {
    if (model::matches(selector, *group.labels)) {
      out.insert(out.end(), group.pods.begin(), group.pods.end());
    }
  }
}

std::vector<PodId> LabelledPods::select(const std::string& ns,
                                        const model::LabelSelector& selector) const {
  std::vector<PodId> out;
  append(ns, selector, out);
  std::sort(out.begin(), out.end(), [&](PodId a, PodId b) { return order_[a] < order_[b]; });
  return out;
}

std::vector<PodId> LabelledPods::select(const std::vector<std::string>& namespaces,
                                        const model::LabelSelector& selector) const {
  std::vector<std::string> unique = namespaces;
  std::sort(unique.begin(), unique.end());
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  std::vector<PodId> out;
  for (const std::string& ns : unique) append(ns, selector, out);
  std::sort(out.begin(), out.end(), [&](PodId a, PodId b) { return order_[a] < order_[b]; });
  return out;
}

std::string selector_key(const std::optional<model::LabelSelector>& selector) {
  if (!selector) return "null";
  std::string key;
  for (const auto& [k, v] : selector->match_labels.items()) key += k + "=" + v + ",";
  key += "|";
  for (const model::LabelSelectorRequirement& r : selector->match_expressions) {
    key += r.key + " " + r.op + " [";
    for (const std::string& v : r.values) key += v + ",";
    key += "],";
  }
  return key;
}

}  // namespace loadshift::strategies

#include "placement/label_groups.h"

#include <algorithm>

namespace loadshift::placement {
namespace {

void append_field(std::string& key, std::string_view field) {
  auto size = static_cast<uint32_t>(field.size());
  key.append(reinterpret_cast<const char*>(&size), sizeof size);
  key += field;
}

std::string label_pair(std::string_view key, std::string_view value) {
  std::string pair(key);
  pair += '\0';
  pair += value;
  return pair;
}

void append_selector(std::string& key, const std::optional<model::LabelSelector>& selector) {
  if (!selector) {
    key += 'N';
    return;
  }
  key += 'S';
  append_field(key, std::to_string(selector->match_labels.size()));
  for (const auto& [k, v] : selector->match_labels.items()) {
    append_field(key, k);
    append_field(key, v);
  }
  append_field(key, std::to_string(selector->match_expressions.size()));
  for (const model::LabelSelectorRequirement& r : selector->match_expressions) {
    append_field(key, r.key);
    append_field(key, r.op);
    std::vector<std::string> values = r.values;
    std::sort(values.begin(), values.end());
    append_field(key, std::to_string(values.size()));
    for (const std::string& v : values) append_field(key, v);
  }
}

}  // namespace

bool PodFilter::selects(const model::Pod& pod) const {
  if (!selector) return false;
  if (!all_namespaces &&
      !std::binary_search(namespaces.begin(), namespaces.end(), pod.meta.namespace_)) {
    return false;
  }
  return matches(*selector, pod.meta.labels);
}

std::string PodFilter::key() const {
  std::string key;
  if (all_namespaces) {
    key += 'A';
  } else {
    key += 'L';
    append_field(key, std::to_string(namespaces.size()));
    for (const std::string& ns : namespaces) append_field(key, ns);
  }
  append_selector(key, selector);
  return key;
}

std::string describe_selector(const std::optional<model::LabelSelector>& selector) {
  if (!selector) return "null (no pod)";
  if (selector->match_labels.empty() && selector->match_expressions.empty()) {
    return "{} (every pod)";
  }
  std::string text;
  for (const auto& [key, value] : selector->match_labels.items()) {
    text += (text.empty() ? "" : ",") + key + "=" + value;
  }
  for (const model::LabelSelectorRequirement& r : selector->match_expressions) {
    text += (text.empty() ? "" : ",") + r.key + " " + r.op;
    if (!r.values.empty()) {
      text += " (";
      for (size_t i = 0; i < r.values.size(); ++i) text += (i ? "," : "") + r.values[i];
      text += ")";
    }
  }
  return text;
}

std::string PodFilter::describe() const {
  std::string text = describe_selector(selector);
  if (all_namespaces) return text + " in every namespace";
  if (namespaces.empty())
    return text + " in no namespace";  // a namespaceSelector that selects none
  text += namespaces.size() == 1 ? " in namespace " : " in namespaces ";
  for (size_t i = 0; i < namespaces.size(); ++i) text += (i ? "," : "") + namespaces[i];
  return text;
}

LabelGroups::LabelGroups(const model::Snapshot& snapshot, const std::vector<PodId>& pods) {
  std::unordered_map<std::string, uint32_t> group_of_key;
  std::string key;
  for (PodId id : pods) {
    const model::Pod& pod = snapshot.pods[id];
    key.clear();
    append_field(key, pod.meta.namespace_);
    for (const auto& [k, v] : pod.meta.labels.items()) {
      append_field(key, k);
      append_field(key, v);
    }
    auto [it, inserted] = group_of_key.emplace(key, static_cast<uint32_t>(groups_.size()));
    if (inserted) {
      groups_.push_back(Group{&pod, {}});
      const uint32_t g = it->second;
      all_groups_.push_back(g);
      by_namespace_[pod.meta.namespace_].push_back(g);
      for (const auto& [k, v] : pod.meta.labels.items()) by_label_[label_pair(k, v)].push_back(g);
    }
    groups_[it->second].members.push_back(id);
  }
}

// A superset of the groups `filter` selects, as small as the index allows: the groups of its
// rarest matchLabels pair, of the values of an In requirement, or of its namespaces.
const std::vector<uint32_t>* LabelGroups::candidates(const PodFilter& filter,
                                                     std::vector<uint32_t>& scratch) const {
  static const std::vector<uint32_t> kNone;
  const model::LabelSelector& selector = *filter.selector;
  const std::vector<uint32_t>* best = &all_groups_;
  for (const auto& [k, v] : selector.match_labels.items()) {
    auto it = by_label_.find(label_pair(k, v));
    if (it == by_label_.end()) return &kNone;
    if (it->second.size() < best->size()) best = &it->second;
  }
  for (const model::LabelSelectorRequirement& r : selector.match_expressions) {
    if (r.op != "In") continue;
    size_t size = 0;
    for (const std::string& v : r.values) {
      auto it = by_label_.find(label_pair(r.key, v));
      if (it != by_label_.end()) size += it->second.size();
    }
    if (size >= best->size()) continue;
    scratch.clear();
    for (const std::string& v : r.values) {
      auto it = by_label_.find(label_pair(r.key, v));
      if (it != by_label_.end())
        scratch.insert(scratch.end(), it->second.begin(), it->second.end());
    }
    std::sort(scratch.begin(), scratch.end());
    scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
    best = &scratch;
  }
  if (!filter.all_namespaces) {
    size_t size = 0;
    for (const std::string& ns : filter.namespaces) {
      auto it = by_namespace_.find(ns);
      if (it != by_namespace_.end()) size += it->second.size();
    }
    if (size < best->size()) {
      std::vector<uint32_t> in_namespaces;
      for (const std::string& ns : filter.namespaces) {
        auto it = by_namespace_.find(ns);
        if (it != by_namespace_.end()) {
          in_namespaces.insert(in_namespaces.end(), it->second.begin(), it->second.end());
        }
      }
      scratch = std::move(in_namespaces);
      best = &scratch;
    }
  }
  return best;
}

std::vector<PodId> LabelGroups::select(const PodFilter& filter) const {
  std::vector<PodId> out;
  if (!filter.selector) return out;
  std::vector<uint32_t> scratch;
  for (uint32_t g : *candidates(filter, scratch)) {
    const Group& group = groups_[g];
    if (!filter.selects(*group.example)) continue;
    out.insert(out.end(), group.members.begin(), group.members.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace loadshift::placement

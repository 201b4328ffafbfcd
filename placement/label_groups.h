// Which pods a label selector selects, fast: pods with the same namespace and labels form a
// group (the replicas of one workload usually share both), and an inverted index from each
// label pair and namespace to its groups finds a selector's candidates without looking at every
// pod.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::placement {

// The pods an inter-pod term or a spread constraint selects: a label selector (null selects
// nothing) within some namespaces.
struct PodFilter {
  bool all_namespaces = false;
  std::vector<std::string> namespaces;  // sorted, unique; read when !all_namespaces
  std::optional<model::LabelSelector> selector;

  bool selects(const model::Pod& pod) const;
  // An exact encoding: equal keys select the same pods.
  std::string key() const;
  // "app=web in namespace shop", for reasons.
  std::string describe() const;
};

// "app=web,tier in (a,b)", "{} (every pod)" or "null (no pod)".
std::string describe_selector(const std::optional<model::LabelSelector>& selector);

class LabelGroups {
 public:
  LabelGroups() = default;
  // Groups `pods` of `snapshot` (which must outlive this object).
  LabelGroups(const model::Snapshot& snapshot, const std::vector<PodId>& pods);

  // The pods `filter` selects, in PodId order.
  std::vector<PodId> select(const PodFilter& filter) const;
  size_t group_count() const { return groups_.size(); }

 private:
  struct Group {
    const model::Pod* example;  // any member: they share namespace and labels
    std::vector<PodId> members;
  };
  const std::vector<uint32_t>* candidates(const PodFilter& filter,
                                          std::vector<uint32_t>& scratch) const;
  std::vector<Group> groups_;
  std::vector<uint32_t> all_groups_;
  std::unordered_map<std::string, std::vector<uint32_t>> by_label_;      // "key\0value"
  std::unordered_map<std::string, std::vector<uint32_t>> by_namespace_;  // namespace
};

}  // namespace loadshift::placement

// Pods grouped by namespace and labels, so that a label selector is matched once per group
// instead of once per pod: the replicas of a workload share both, so a namespace of thousands of
// pods is a few dozen groups. The inter-pod plugins (anti-affinity, topology spread) select with
// it. Internal to strategies/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"

namespace loadshift::strategies {

class LabelledPods {
 public:
  // `snapshot` must outlive this object.
  explicit LabelledPods(const model::Snapshot& snapshot);

  // Adds `pod` (once); select() returns pods in the order they were added.
  void add(placement::PodId pod);

  // The pods added, of namespace `ns`, whose labels `selector` matches, in the order added.
  std::vector<placement::PodId> select(const std::string& ns,
                                       const model::LabelSelector& selector) const;
  // The same over several namespaces (duplicates count once), in the order added.
  std::vector<placement::PodId> select(const std::vector<std::string>& namespaces,
                                       const model::LabelSelector& selector) const;

 private:
  using Labels = std::vector<std::pair<std::string, std::string>>;
  struct Group {
    const model::StringMap* labels;
    std::vector<placement::PodId> pods;  // in the order added
  };
  void append(const std::string& ns, const model::LabelSelector& selector,
              std::vector<placement::PodId>& out) const;

  const model::Snapshot& snapshot_;
  std::vector<uint32_t> order_;  // by PodId: the position it was added at
  uint32_t added_ = 0;
  std::map<std::string, std::vector<Group>, std::less<>> groups_;    // by namespace
  std::map<std::string, std::map<Labels, size_t>, std::less<>> at_;  // namespace, labels -> group
};

// An exact text of a selector (equal texts select the same pods), for keys of caches; "null" for
// none.
std::string selector_key(const std::optional<model::LabelSelector>& selector);

}  // namespace loadshift::strategies

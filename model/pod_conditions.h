// A pod's status.conditions (type, status, reason, lastTransitionTime), as PodLifeTime's
// `conditions` filter reads them (descheduler v0.36).
//
// A pod carries four or five conditions (PodScheduled, Initialized, ContainersReady, Ready,
// PodReadyToStartContainers). As separate strings they would cost about 400 bytes a pod, over 60
// MiB at 150,000 pods; packed into one exactly-sized buffer about 110 bytes. The buffer's
// layout is this file's business: read the conditions with any_of or list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loadshift::model {

class PodConditions {
 public:
  // One condition as read. The views point into the PodConditions that handed it out and live
  // as long as it does, unchanged.
  struct Condition {
    std::string_view type;    // Ready, PodScheduled, DisruptionTarget, ...
    std::string_view status;  // "True" | "False" | "Unknown" as written
    std::string_view reason;  // often empty
    // lastTransitionTime in whole seconds since the Unix epoch (fractions dropped); nullopt when
    // the condition has none (upstream's zero time) or it cannot be read.
    std::optional<int64_t> last_transition_seconds;
    friend bool operator==(const Condition&, const Condition&) = default;
  };

  // Appends `condition` after the ones added before. Appending over-allocates as a string does:
  // a copy of the finished PodConditions holds exactly its bytes.
  void add(const Condition& condition);

  // Calls visit(const Condition&) for each condition in the order added, until it returns true.
  // Returns whether one did.
  template <typename Visit>
  bool any_of(Visit&& visit) const {
    size_t at = 0;
    while (at < packed_.size()) {
      if (visit(read(at))) return true;
    }
    return false;
  }

  // Every condition, in the order added.
  std::vector<Condition> list() const;
  bool empty() const { return packed_.empty(); }

  friend bool operator==(const PodConditions&, const PodConditions&) = default;

 private:
  // The condition that starts at `at`; moves `at` past it.
  Condition read(size_t& at) const;

  std::string packed_;
};

}  // namespace loadshift::model

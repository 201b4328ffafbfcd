// The per-workload cool-down (PlanOptions::cooldown): what it stops is undoing a move, not
// relief. Several pods of one workload may leave the same hot node in successive cycles (the
// in-flight limit and PodDisruptionBudgets pace them); within the cool-down of a move of one of
// its pods, the balance plugins do not
//  - evict a running pod of the workload from a node that received one of its pods: the node the
//    move sent its replacement to, or a node where a pod of the workload started since the move
//    (a replacement the scheduler put elsewhere than predicted, or one whose destination loadshift
//    did not record) — `leaving()`; on the node the move left only a pod that started there
//    since (the replacement came back) stays: the workload's other pods there may still leave; on the node the move left, only a pod that started there
//    since (the replacement came back) stays, the workload's other pods there may still leave;
//  - send a replacement of the workload to a node the workload left — `returning()`.
// The moves are those the controller remembers (PlanOptions::last_moved) and those planned
// earlier in the same plan (record()). Internal to strategies/.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/model.h"
#include "placement/verdict.h"
#include "strategies/workload.h"

namespace loadshift::strategies {

class Cooldown {
 public:
  using Clock = std::chrono::system_clock;
  // `remembered` (may be null) must outlive the cool-down; `window` 0 turns it off.
  Cooldown(const model::Snapshot& snapshot, const WorkloadMoves* remembered,
           std::chrono::seconds window, Clock::time_point now);
  Cooldown(const Cooldown&) = delete;
  Cooldown& operator=(const Cooldown&) = delete;

  bool enabled() const { return window_.count() > 0; }

  // Why the running pod `pod` may not leave `node`, its node: "workload cooling down: a pod of
  // ns/ReplicaSet/web moved te3 -> te5 4m ago; moving one off te5 would undo it, cool-down
  // 30m". nullopt: it may (also for a finished pod, a pod without a controller owner, and when
  // the cool-down is off).
  std::optional<std::string> leaving(placement::PodId pod, std::string_view node) const;
  // Why the replacement of `pod` may not go to `node`: its workload left `node` within the
  // cool-down ("workload cooling down: a pod of ... moved off te3 4m ago; sending one back would
  // undo it, ...").
  std::optional<std::string> returning(placement::PodId pod, std::string_view node) const;
  // Whether the workload of `pod` has any move within the cool-down (returning() can refuse).
  bool has_moves(placement::PodId pod) const;

  // A move this plan made: `pod` leaves `from` toward `to` ("" when nothing is placed), now.
  void record(placement::PodId pod, const std::string& from, const std::string& to);

 private:
  struct Found {
    const WorkloadMove* move = nullptr;
    bool planned = false;  // a move of this plan
  };
  // The remembered moves of `workload` within the window, then this plan's.
  std::vector<Found> moves_of(const std::string& workload) const;
  // Whether a pod of `workload` other than finished ones runs on `node` and started at or after
  // `since` (its creationTimestamp).
  bool started_since(const std::string& workload, std::string_view node,
                     Clock::time_point since) const;
  // How far before a move a pod's creationTimestamp may be and still count as started since it:
  // the timestamp's whole seconds and the API server's clock against this process's.
  static constexpr std::chrono::seconds kClockSlack{5};
  std::string when(const Found& found) const;  // "4m ago", "just now", "this cycle"
  std::string suffix() const;                  // ", cool-down 30m"

  const model::Snapshot& snapshot_;
  const WorkloadMoves* remembered_;
  std::chrono::seconds window_;
  Clock::time_point now_;
  WorkloadMoves planned_;
  // Per workload with remembered moves: its live pods with their start, built on first use.
  struct LivePod {
    const std::string* node;
    std::optional<Clock::time_point> created;
  };
  mutable std::optional<std::unordered_map<std::string, std::vector<LivePod>>> live_;
};

}  // namespace loadshift::strategies

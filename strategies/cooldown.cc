// The per-workload cool-down: moves are not undone within it.
#include "strategies/cooldown.h"

#include "model/rfc3339.h"
#include "policy/field_reader.h"

namespace loadshift::strategies {

Cooldown::Cooldown(const model::Snapshot& snapshot, const WorkloadMoves* remembered,
                   std::chrono::seconds window, Clock::time_point now)
    : snapshot_(snapshot), remembered_(remembered), window_(window), now_(now) {}

std::vector<Cooldown::Found> Cooldown::moves_of(const std::string& workload) const {
  std::vector<Found> out;
  if (!enabled() || workload.empty()) return out;
  if (remembered_ != nullptr) {
    if (auto it = remembered_->find(workload); it != remembered_->end()) {
      for (const WorkloadMove& move : it->second) {
        // A time after `now` (a clock step back) counts as just now: still cooling.
        if (now_ - move.at < window_) out.push_back({&move, false});
      }
    }
  }
  if (auto it = planned_.find(workload); it != planned_.end()) {
    for (const WorkloadMove& move : it->second) out.push_back({&move, true});
  }
  return out;
}

bool Cooldown::has_moves(placement::PodId pod) const {
  return !moves_of(workload_key(snapshot_.pods[pod])).empty();
}

bool Cooldown::started_since(const std::string& workload, std::string_view node,
                             Clock::time_point since) const {
  if (!live_) {
    live_.emplace();
    if (remembered_ != nullptr && !remembered_->empty()) {
      for (const model::Pod& pod : snapshot_.pods) {
        if (pod.terminated() || pod.node_name.empty()) continue;
        std::string key = workload_key(pod);
        if (key.empty() || remembered_->find(key) == remembered_->end()) continue;
        (*live_)[key].push_back(
            LivePod{&pod.node_name, model::parse_rfc3339(pod.meta.creation_timestamp)});
      }
    }
  }
  auto it = live_->find(workload);
  if (it == live_->end()) return false;
  // creationTimestamp has whole seconds and the API server's clock: a pod created up to
  // kClockSlack before the move (as this process's clock says) counts as started since.
  const Clock::time_point second = std::chrono::floor<std::chrono::seconds>(since) - kClockSlack;
  for (const LivePod& pod : it->second) {
    // A pod without a readable creationTimestamp (a hand-written file) counts as an old one.
    if (*pod.node == node && pod.created && *pod.created >= second) return true;
  }
  return false;
}

std::string Cooldown::when(const Found& found) const {
  if (found.planned) return "this cycle";
  auto since = std::chrono::duration_cast<std::chrono::seconds>(now_ - found.move->at);
  if (since.count() <= 0) return "just now";
  return policy::format_duration(since.count() * 1000) + " ago";
}

std::string Cooldown::suffix() const {
  return ", cool-down " + policy::format_duration(window_.count() * 1000);
}

std::optional<std::string> Cooldown::leaving(placement::PodId pod_id,
                                             std::string_view node) const {
  const model::Pod& pod = snapshot_.pods[pod_id];
  // A finished pod serves nothing: removing it undoes nothing.
  if (pod.terminated()) return std::nullopt;
  const std::string workload = workload_key(pod);
  for (const Found& found : moves_of(workload)) {
    const WorkloadMove& m = *found.move;
    std::string moved = "a pod of " + workload + (found.planned ? " is planned " : " moved ");
    const std::string from = m.from.empty() ? "a node" : m.from;
    if (!m.to.empty() && m.to == node) {
      return "workload cooling down: " + moved + from + " -> " + m.to + " " + when(found) +
             "; moving one off " + std::string(node) + " would undo it" + suffix();
    }
    if (!found.planned && m.from == node) {
      // A replacement that came back to the node the move left: that one stays; the workload's
      // other pods there may still leave (relief goes on).
      std::optional<Clock::time_point> created = model::parse_rfc3339(pod.meta.creation_timestamp);
      if (created && *created >= std::chrono::floor<std::chrono::seconds>(m.at) - kClockSlack) {
        return "workload cooling down: a pod of " + workload + " moved off " + from + " " +
               when(found) + " and this one started there since; moving it off " +
               std::string(node) + " again would undo it" + suffix();
      }
      continue;
    }
    if (!found.planned && started_since(workload, node, m.at)) {
      return "workload cooling down: " + moved + "off " + from + " " + when(found) +
             " and a pod of it started on " + std::string(node) + " since; moving one off " +
             std::string(node) + " would undo it" + suffix();
    }
  }
  return std::nullopt;
}

std::optional<std::string> Cooldown::returning(placement::PodId pod_id,
                                               std::string_view node) const {
  const model::Pod& pod = snapshot_.pods[pod_id];
  if (pod.terminated()) return std::nullopt;
  const std::string workload = workload_key(pod);
  for (const Found& found : moves_of(workload)) {
    if (found.move->from.empty() || found.move->from != node) continue;
    return "workload cooling down: a pod of " + workload +
           (found.planned ? " is planned off " : " moved off ") + std::string(node) + " " +
           when(found) + "; sending one back would undo it" + suffix();
  }
  return std::nullopt;
}

void Cooldown::record(placement::PodId pod_id, const std::string& from, const std::string& to) {
  const model::Pod& pod = snapshot_.pods[pod_id];
  if (!enabled() || pod.terminated()) return;
  std::string workload = workload_key(pod);
  if (workload.empty()) return;
  planned_[workload].push_back(WorkloadMove{from, to, now_});
}

}  // namespace loadshift::strategies

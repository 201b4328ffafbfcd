// The Eviction API, and the Events that tell a pod's owners why it went.
//
// evict() POSTs a policy/v1 Eviction to pods/NAME/eviction (never a DELETE) with
// deleteOptions.preconditions.uid, so a pod recreated under the same name is never hit, and the
// policy's gracePeriodSeconds. Every attempt is one request (nothing retried below this class)
// with a short timeout, sent only after `may_send` said yes: an eviction never goes out after the
// permission (the lease) is gone. What the API answers decides the outcome:
//   201 / 200                      evicted
//   429 (a PDB forbids it now, or  blocked: not retried this cycle (the cause says which); a 429
//   is still computing it)         without a DisruptionBudget cause (API Priority and Fairness)
//                                  is a failure
//   404                            already gone
//   409 on the uid precondition    the name now belongs to another pod: skipped
//   409 (other), 5xx, no answer    retried with backoff (permission asked again), then failed
//   anything else (400, 403, ...)  failed
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.h"
#include "model/model.h"

namespace loadshift::controller {

enum class EvictionResult { kEvicted, kBlockedByPdb, kGone, kReplaced, kFailed };
// "evicted", "blocked_by_pdb", "gone", "replaced", "failed"
const char* to_string(EvictionResult result);

struct EvictionOutcome {
  EvictionResult result = EvictionResult::kFailed;
  std::string detail;    // the API's message ("Cannot evict pod as it would violate ..."), or ""
  int attempts = 0;      // requests sent
  bool stopped = false;  // may_send said no before the outcome was known
  bool maybe_evicted = false;  // failed or stopped after a request that got no answer
};

struct PodEvictorOptions {
  std::optional<int64_t> grace_period_seconds;  // the policy's gracePeriodSeconds
  int max_attempts = 3;                         // for 409 (not a precondition) and 5xx
  std::chrono::milliseconds first_backoff{500};
  std::string reporting_instance;  // this replica's identity, in Events
  // One attempt's time limit. The controller keeps it under lease duration - renew deadline, so
  // a request sent while leading is answered (or abandoned) before another replica may lead.
  std::chrono::milliseconds request_timeout{5000};
};

// Answers "may an eviction request go out now?" with "" (yes) or why not.
using SendPermission = std::function<std::string()>;

struct EventNote {
  std::string type;    // "Normal" or "Warning"
  std::string reason;  // the strategy ("LoadAware") or "EvictionFailed"
  std::string note;    // for a person, at most 1 KiB (longer is cut)
  // The move, for the cool-down of a controller that restarts (workload_moves.h): the pod's node
  // and where the plan counted its replacement, written as the Event's annotations
  // loadshift.io/from-node and loadshift.io/to-node when not empty.
  std::string from_node, to_node;
  // The pod had finished (its removal moves nothing): annotation loadshift.io/finished "true".
  bool finished = false;
};

// The annotations of an eviction Event that name the move.
inline constexpr const char* kFromNodeAnnotation = "loadshift.io/from-node";
inline constexpr const char* kToNodeAnnotation = "loadshift.io/to-node";
inline constexpr const char* kFinishedAnnotation = "loadshift.io/finished";

class PodEvictor {
 public:
  // `client` must outlive the evictor.
  PodEvictor(kube::ApiClient& client, PodEvictorOptions options);

  // Evicts `pod` (its namespace, name and uid), asking `may_send` before every attempt; when it
  // says no, the outcome is kFailed with its reason and `stopped` set. Never throws: an ApiError
  // (403, connection) becomes kFailed with its message.
  EvictionOutcome evict(const model::Pod& pod, const SendPermission& may_send);

  // Posts an events.k8s.io/v1 Event regarding `pod` (action "Descheduled", reporting controller
  // "loadshift.io/descheduler"), `related` to the pod's controlling owner (apiVersion, kind,
  // namespace, name, uid; none for a bare pod). Returns "" or why it could not be written (never
  // throws).
  std::string post_event(const model::Pod& pod, const EventNote& event);

 private:
  kube::ApiClient& client_;
  PodEvictorOptions options_;
};

}  // namespace loadshift::controller

// The Eviction API, and the Events that tell a pod's owners why it went.
//
// evict() POSTs a policy/v1 Eviction to pods/NAME/eviction (never a DELETE) with
// deleteOptions.preconditions.uid, so a pod recreated under the same name is never hit, and the
// policy's gracePeriodSeconds. What the API answers decides the outcome:
//   201 / 200                      evicted
//   429 without Retry-After        a PodDisruptionBudget forbids it now: skipped, not retried
//   404                            already gone
//   409 "Precondition failed"      the name now belongs to another pod: skipped
//   409 (other), 5xx, no answer    retried with backoff, then failed
//   anything else (400, 403, ...)  failed
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "kube/api_client.h"
#include "placement/model.h"

namespace loadshift::controller {

enum class EvictionResult { kEvicted, kBlockedByPdb, kGone, kReplaced, kFailed };
// "evicted", "blocked_by_pdb", "gone", "replaced", "failed"
const char* to_string(EvictionResult result);

struct EvictionOutcome {
  EvictionResult result = EvictionResult::kFailed;
  std::string detail;  // the API's message ("Cannot evict pod as it would violate ..."), or ""
  int attempts = 0;
};

struct PodEvictorOptions {
  std::optional<int64_t> grace_period_seconds;  // the policy's gracePeriodSeconds
  int max_attempts = 3;                          // for 409 (not a precondition) and 5xx
  std::chrono::milliseconds first_backoff{500};
  std::string reporting_instance;  // this replica's identity, in Events
};

struct EventNote {
  std::string type;    // "Normal" or "Warning"
  std::string reason;  // the strategy ("LoadAware") or "EvictionFailed"
  std::string note;    // for a person, at most 1 KiB (longer is cut)
};

class PodEvictor {
 public:
  // `client` must outlive the evictor.
  PodEvictor(kube::ApiClient& client, PodEvictorOptions options);

  // Evicts `pod` (its namespace, name and uid). Never throws: an ApiError (403, connection)
  // becomes kFailed with its message.
  EvictionOutcome evict(const placement::Pod& pod);

  // Posts an events.k8s.io/v1 Event regarding `pod` (action "Descheduled", reporting controller
  // "loadshift.io/descheduler"). Returns "" or why it could not be written (never throws).
  std::string post_event(const placement::Pod& pod, const EventNote& event);

 private:
  kube::ApiClient& client_;
  PodEvictorOptions options_;
};

}  // namespace loadshift::controller

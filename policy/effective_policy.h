// The effective policy — what will actually run, every default filled in — as YAML and as a
// short summary for people (`loadshift validate`).
#pragma once

#include <string>

#include "policy/policy.h"

namespace loadshift::policy {

// `policy` as a descheduler/v1alpha2 DeschedulerPolicy document with every default written out.
// load_policy() accepts the result and returns a Policy equal to `policy`, and writing that again
// gives the same text. Unlimited or unset optional fields (maxNoOfPodsToEvict*,
// gracePeriodSeconds, minPodAge) are left out, which is how the file says "unset".
std::string write_policy_yaml(const Policy& policy);

// A few lines per profile: limits, metrics providers, the enabled plugins per extension point and
// the args that matter most (thresholds, targetThresholds, priorityThreshold, nodeFit, metrics
// window, ...). Ends with a newline.
std::string summarize_policy(const Policy& policy);

}  // namespace loadshift::policy

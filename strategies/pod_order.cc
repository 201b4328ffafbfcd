#include "strategies/pod_order.h"

#include <charconv>
#include <chrono>
#include <tuple>

#include "model/rfc3339.h"
#include "strategies/evictability.h"

namespace loadshift::strategies {
namespace {

using model::Container;
using model::Pod;

// The kubelet's rule (pkg/apis/core/v1/helper/qos): BestEffort when no container requests or
// limits cpu or memory; Guaranteed when every container limits both and requests (when set)
// equal the limits; Burstable otherwise.
int computed_qos(const Pod& pod) {
  bool any = false;
  bool guaranteed = true;
  auto look = [&](const Container& c) {
    for (std::string_view resource : {model::kCpu, model::kMemory}) {
      int64_t request = c.requests.get(resource);
      int64_t limit = c.limits.get(resource);
      if (request != 0 || limit != 0) any = true;
      if (limit == 0 || (request != 0 && request != limit)) guaranteed = false;
    }
  };
  for (const Container& c : pod.containers) look(c);
  for (const Container& c : pod.init_containers) look(c);
  if (!any) return 0;
  return guaranteed ? 2 : 1;
}

}  // namespace

int qos_rank(const Pod& pod) {
  if (pod.qos_class == "BestEffort") return 0;
  if (pod.qos_class == "Burstable") return 1;
  if (pod.qos_class == "Guaranteed") return 2;
  return computed_qos(pod);
}

int32_t deletion_cost(const Pod& pod) {
  const std::string* text = pod.meta.annotations.find("controller.kubernetes.io/pod-deletion-cost");
  if (text == nullptr) return 0;
  int32_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, value);
  if (ec != std::errc() || ptr != end) return 0;
  return value;
}

bool prefers_no_eviction(const Pod& pod) {
  return pod.meta.annotations.contains("descheduler.alpha.kubernetes.io/prefer-no-eviction");
}

PodRank rank_of(const model::Snapshot& snapshot, placement::PodId id) {
  const Pod& pod = snapshot.pods[id];
  PodRank rank;
  rank.pod = id;
  rank.priority = pod_priority(snapshot, pod);
  rank.qos = qos_rank(pod);
  rank.deletion_cost = deletion_cost(pod);
  rank.prefers_no_eviction = prefers_no_eviction(pod);
  if (auto created = model::parse_rfc3339(pod.meta.creation_timestamp)) {
    rank.created = std::chrono::duration<double>(created->time_since_epoch()).count();
  }
  rank.key = pod.key();
  return rank;
}

bool evicted_before_upstream(const PodRank& a, const PodRank& b) {
  return std::tie(a.priority, a.qos, a.prefers_no_eviction, a.key) <
         std::tie(b.priority, b.qos, b.prefers_no_eviction, b.key);
}

bool newer_first(const PodRank& a, const PodRank& b) {
  if (a.created != b.created) return a.created > b.created;
  return a.key < b.key;
}

}  // namespace loadshift::strategies

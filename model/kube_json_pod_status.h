// The status of a Pod as the decoder reads it (phase, reason, qosClass, startTime, the container
// statuses and the conditions), from simdjson On-Demand values: what the deschedule plugins judge
// a pod by (strategies/pod_status.cc).
//
// Internal to model/object_decoder.cc (through kube_json_kinds.h), the one translation unit
// that includes <simdjson.h>.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/json_reading.h"
#include "model/model.h"
#include "model/rfc3339.h"

namespace loadshift::model::json {

// One of status.containerStatuses[] / initContainerStatuses[].
inline bool read_container_status(Decoding& d, od::value& value, ContainerStatus& status) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "restartCount") return read_int32(d, field, status.restart_count);
    if (key != "state") return true;
    return visit_fields(d, field, [&](std::string_view state, od::value& detail) {
      if (state == "waiting") {
        return visit_fields(d, detail, [&](std::string_view k, od::value& v) {
          return k == "reason" ? read_string(d, v, status.waiting_reason) : true;
        });
      }
      if (state == "terminated") {
        od::json_type type;
        if (!type_of(d, detail, type)) return false;
        status.terminated = type != od::json_type::null;  // "terminated": null is not terminated
        return visit_fields(d, detail, [&](std::string_view k, od::value& v) {
          if (k == "reason") return read_string(d, v, status.terminated_reason);
          if (k == "exitCode") return read_int32(d, v, status.exit_code);
          return true;
        });
      }
      return true;
    });
  });
}

inline bool read_container_statuses(Decoding& d, od::value& value,
                                    std::vector<ContainerStatus>& out) {
  return visit_array(d, value, [&](od::value& element, size_t) {
    return read_container_status(d, element, out.emplace_back());
  });
}

// One entry of status.conditions: into `conditions`, and pod.ready from the Ready one.
inline bool read_pod_condition(Decoding& d, od::value& value, Pod& pod, PodConditions& conditions) {
  std::string type, status, reason, last_transition;
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "type") return read_string(d, field, type);
    if (key == "status") return read_string(d, field, status);
    if (key == "reason") return read_string(d, field, reason);
    if (key == "lastTransitionTime") return read_string(d, field, last_transition);
    return true;
  });
  if (!ok) return false;
  // A time that cannot be read (Go accepts years the model's clock cannot hold) counts as none:
  // the condition is then never old enough, as a pod without a readable creationTimestamp, and
  // one odd pod never makes the whole cluster unreadable.
  PodConditions::Condition condition{type, status, reason, std::nullopt};
  if (auto time = parse_rfc3339(last_transition)) {
    condition.last_transition_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(time->time_since_epoch()).count();
  }
  conditions.add(condition);
  if (type == "Ready") pod.ready = status == "True";
  return true;
}

inline bool read_pod_status(Decoding& d, od::value& value, Pod& pod) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "phase") {
      std::optional<PodPhase> phase;
      if (!read_enum(d, field, kPodPhases, phase)) return false;
      pod.phase = phase.value_or(PodPhase::kPending);
      return true;
    }
    if (key == "qosClass") return read_string(d, field, pod.qos_class);
    if (key == "startTime") return read_string(d, field, pod.start_time);
    if (key == "reason") return read_string(d, field, pod.reason);
    if (key == "containerStatuses")
      return read_container_statuses(d, field, pod.container_statuses);
    if (key == "initContainerStatuses") {
      return read_container_statuses(d, field, pod.init_container_statuses);
    }
    if (key == "ephemeralContainerStatuses") {
      return read_container_statuses(d, field, pod.ephemeral_container_statuses);
    }
    if (key == "conditions") {
      PodConditions conditions;
      bool ok = visit_array(d, field, [&](od::value& element, size_t) {
        return read_pod_condition(d, element, pod, conditions);
      });
      pod.conditions = conditions;  // the copy is exactly sized; the appends over-allocate
      return ok;
    }
    return true;
  });
}

}  // namespace loadshift::model::json

// A Pod's status from the wire (phase, reason, qosClass, startTime, the container statuses and the
// conditions), as model/kube_json_pod_status.h reads it from JSON.
#include "model/protobuf_objects.h"

#include <optional>

namespace loadshift::model::pb {
namespace {

bool read_container_status(std::string_view bytes, ContainerStatus& status, Failure& failure) {
  using S = core::ContainerStatus;
  using T = core::ContainerState;
  return each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == S::kRestartCountFieldNumber) {
      return int32_of(field, status.restart_count, failure) || failure.in_field("restartCount");
    }
    if (field.number() != S::kStateFieldNumber) return true;
    std::string_view state;
    bool ok = bytes_of(field, state, failure) && each_field(state, failure, [&](const Wire& f) {
                std::string_view inner;
                if (f.number() == T::kWaitingFieldNumber) {
                  return (bytes_of(f, inner, failure) &&
                          each_field(inner, failure,
                                     [&](const Wire& g) {
                                       return g.number() !=
                                                  core::ContainerStateWaiting::kReasonFieldNumber ||
                                              text(g, status.waiting_reason, failure) ||
                                              failure.in_field("reason");
                                     })) ||
                         failure.in_field("waiting");
                }
                if (f.number() != T::kTerminatedFieldNumber) return true;
                status.terminated = true;  // a pointer: written only when set
                using X = core::ContainerStateTerminated;
                return (bytes_of(f, inner, failure) &&
                        each_field(inner, failure,
                                   [&](const Wire& g) {
                                     if (g.number() == X::kReasonFieldNumber) {
                                       return text(g, status.terminated_reason, failure) ||
                                              failure.in_field("reason");
                                     }
                                     if (g.number() == X::kExitCodeFieldNumber) {
                                       return int32_of(g, status.exit_code, failure) ||
                                              failure.in_field("exitCode");
                                     }
                                     return true;
                                   })) ||
                       failure.in_field("terminated");
              });
    return ok || failure.in_field("state");
  });
}

bool read_pod_condition(std::string_view bytes, Pod& pod, PodConditions& conditions,
                        Failure& failure) {
  using C = core::PodCondition;
  std::string type, status, reason;
  std::optional<int64_t> last_transition;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    std::string_view time;
    switch (field.number()) {
      case C::kTypeFieldNumber:
        return text(field, type, failure) || failure.in_field("type");
      case C::kStatusFieldNumber:
        return text(field, status, failure) || failure.in_field("status");
      case C::kReasonFieldNumber:
        return text(field, reason, failure) || failure.in_field("reason");
      case C::kLastTransitionTimeFieldNumber:
        return (bytes_of(field, time, failure) && condition_time(time, last_transition, failure)) ||
               failure.in_field("lastTransitionTime");
      default:
        return true;
    }
  });
  if (!ok) return false;
  conditions.add({type, status, reason, last_transition});
  if (type == "Ready") pod.ready = status == "True";
  return true;
}

}  // namespace

bool read_pod_status(std::string_view bytes, Pod& pod, Failure& failure) {
  using S = core::PodStatus;
  PodConditions conditions;
  size_t condition_index = 0;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    auto statuses = [&](std::vector<ContainerStatus>& out, std::string_view name) {
      return element(field, out, failure,
                     [&](std::string_view item, ContainerStatus& status) {
                       return read_container_status(item, status, failure);
                     }) ||
             failure.in_field(name);
    };
    switch (field.number()) {
      case S::kPhaseFieldNumber: {
        std::optional<PodPhase> phase;
        if (!read_enum(field, kPodPhases, phase, failure)) return failure.in_field("phase");
        pod.phase = phase.value_or(PodPhase::kPending);
        return true;
      }
      case S::kQosClassFieldNumber:
        return text(field, pod.qos_class, failure) || failure.in_field("qosClass");
      case S::kStartTimeFieldNumber:
        return time_text(field, pod.start_time, failure) || failure.in_field("startTime");
      case S::kReasonFieldNumber:
        return text(field, pod.reason, failure) || failure.in_field("reason");
      case S::kContainerStatusesFieldNumber:
        return statuses(pod.container_statuses, "containerStatuses");
      case S::kInitContainerStatusesFieldNumber:
        return statuses(pod.init_container_statuses, "initContainerStatuses");
      case S::kEphemeralContainerStatusesFieldNumber:
        return statuses(pod.ephemeral_container_statuses, "ephemeralContainerStatuses");
      case S::kConditionsFieldNumber: {
        std::string_view condition;
        if (bytes_of(field, condition, failure) &&
            read_pod_condition(condition, pod, conditions, failure)) {
          ++condition_index;
          return true;
        }
        failure.in_element(condition_index);
        return failure.in_field("conditions");
      }
      default:
        return true;
    }
  });
  if (condition_index > 0) pod.conditions = conditions;  // exactly sized: the appends over-allocate
  return ok;
}

}  // namespace loadshift::model::pb

// What a decoder makes of a container and a pod once their fields are read, in either encoding
// (JSON: model/kube_json_kinds.h and object_decoder.cc; protobuf: model/protobuf_objects.cc):
// the API server's defaulting that matters for placement, and the scheduler's reading of host
// ports.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace loadshift::model {

// Host ports count for the pod only from regular containers and restartable init containers
// (sidecars), as the scheduler's NodePorts plugin reads them. A resource with a limit and no
// request gets the limit as its request (SetDefaults_Pod, containers and init containers
// alike). `requested` and `limited` name the resources the container's requests and limits
// hold (an entry of 0 included, which the lists alone cannot tell from an absent one).
inline void complete_container(bool init, const std::vector<int32_t>& host_ports,
                               const std::vector<std::string>& requested,
                               const std::vector<std::string>& limited, Container& container,
                               Pod& pod) {
  if (!init || container.restart_always) {
    pod.host_ports.insert(pod.host_ports.end(), host_ports.begin(), host_ports.end());
  }
  for (const std::string& name : limited) {
    if (std::find(requested.begin(), requested.end(), name) == requested.end()) {
      container.requests.set(name, container.limits.get(name));
    }
  }
}

// The scheduler's name when unset, and the host ports in order (whatever the order of the
// containers' members in the document).
inline void complete_pod(Pod& pod) {
  if (pod.scheduler_name.empty()) pod.scheduler_name = "default-scheduler";
  std::sort(pod.host_ports.begin(), pod.host_ports.end());
}

}  // namespace loadshift::model

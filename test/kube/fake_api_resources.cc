#include "test/kube/fake_api_resources.h"

#include <sstream>

namespace loadshift::testing {

std::string FakeResource::collection() const {
  return (group.empty() ? "/api/" + version : "/apis/" + group + "/" + version) + "/" + resource;
}

const std::vector<FakeResource>& known_resources() {
  static const std::vector<FakeResource> resources = {
      {"", "v1", "pods", "Pod", true, false, "po"},
      {"", "v1", "nodes", "Node", false, false, "no"},
      {"", "v1", "namespaces", "Namespace", false, false, "ns"},
      {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true, false, "pvc"},
      {"", "v1", "persistentvolumes", "PersistentVolume", false, false, "pv"},
      {"", "v1", "configmaps", "ConfigMap", true, false, "cm"},
      {"", "v1", "secrets", "Secret", true, false, ""},
      {"", "v1", "events", "Event", true, false, "ev"},
      {"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true, false, "pdb"},
      {"scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", false, false, "pc"},
      {"storage.k8s.io", "v1", "csinodes", "CSINode", false, false, ""},
      {"storage.k8s.io", "v1", "storageclasses", "StorageClass", false, false, "sc"},
      {"coordination.k8s.io", "v1", "leases", "Lease", true, false, ""},
      {"events.k8s.io", "v1", "events", "Event", true, false, "ev"},
      {"topology.volcano.sh", "v1alpha1", "hypernodes", "HyperNode", false, true, "hn"},
      {"batch.volcano.sh", "v1alpha1", "jobs", "Job", true, true, "vcjob"},
      {"scheduling.volcano.sh", "v1beta1", "podgroups", "PodGroup", true, true, "pg"},
  };
  return resources;
}

const std::vector<std::pair<std::string, std::vector<std::string>>>& builtin_groups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> groups = {
      {"apiregistration.k8s.io", {"v1"}},
      {"apps", {"v1"}},
      {"events.k8s.io", {"v1"}},
      {"authentication.k8s.io", {"v1"}},
      {"authorization.k8s.io", {"v1"}},
      {"autoscaling", {"v2", "v1"}},
      {"batch", {"v1"}},
      {"certificates.k8s.io", {"v1"}},
      {"networking.k8s.io", {"v1"}},
      {"policy", {"v1"}},
      {"rbac.authorization.k8s.io", {"v1"}},
      {"storage.k8s.io", {"v1", "v1beta1"}},
      {"admissionregistration.k8s.io", {"v1"}},
      {"apiextensions.k8s.io", {"v1"}},
      {"scheduling.k8s.io", {"v1"}},
      {"coordination.k8s.io", {"v1"}},
      {"node.k8s.io", {"v1"}},
      {"discovery.k8s.io", {"v1"}},
      {"flowcontrol.apiserver.k8s.io", {"v1beta3", "v1beta2"}},
  };
  return groups;
}

std::optional<ResourcePath> parse_resource_path(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  for (std::string part; std::getline(in, part, '/');) {
    if (!part.empty()) parts.push_back(part);
  }
  ResourcePath out;
  size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    out.version = parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    out.group = parts[1];
    out.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(parts.begin() + static_cast<long>(i), parts.end());
  // /namespaces/NS/RES... (at least three parts); /namespaces and /namespaces/NAME are the
  // cluster-scoped Namespace resource itself.
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    out.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  if (rest.size() > 3) return std::nullopt;
  if (!rest.empty()) out.resource = rest[0];
  if (rest.size() > 1) out.name = rest[1];
  if (rest.size() > 2) out.subresource = rest[2];
  return out;
}

}  // namespace loadshift::testing

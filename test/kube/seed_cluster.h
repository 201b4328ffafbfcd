// The bundled example cluster (examples/seed-cluster/cluster.yaml) served by the fake API server,
// each object in its collection, for the kube/ and controller tests.
#pragma once

#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/yaml_to_json.h"
#include "test/kube/fake_api_server.h"

namespace loadshift::testing {

inline const char* collection_of_kind(const std::string& kind) {
  static const std::map<std::string, const char*> paths = {
      {"Node", "/api/v1/nodes"},
      {"Pod", "/api/v1/pods"},
      {"PodDisruptionBudget", "/apis/policy/v1/poddisruptionbudgets"},
      {"PriorityClass", "/apis/scheduling.k8s.io/v1/priorityclasses"},
      {"HyperNode", "/apis/topology.volcano.sh/v1alpha1/hypernodes"},
      {"Job", "/apis/batch.volcano.sh/v1alpha1/jobs"},
      {"PodGroup", "/apis/scheduling.volcano.sh/v1beta1/podgroups"},
      {"PersistentVolumeClaim", "/api/v1/persistentvolumeclaims"},
      {"PersistentVolume", "/api/v1/persistentvolumes"},
      {"CSINode", "/apis/storage.k8s.io/v1/csinodes"},
      {"Namespace", "/api/v1/namespaces"},
  };
  auto it = paths.find(kind);
  return it == paths.end() ? nullptr : it->second;
}

// Every object of the YAML file at `path`, by collection. Objects carry their kind (the fake
// strips nothing; a typed list adds none of its own).
inline std::map<std::string, std::vector<nlohmann::json>> objects_of_yaml_file(
    const std::string& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::map<std::string, std::vector<nlohmann::json>> out;
  auto add = [&](const nlohmann::json& object) {
    const char* collection = collection_of_kind(object.value("kind", ""));
    if (collection != nullptr) out[collection].push_back(object);
  };
  model::convert_yaml_documents(text, [&](std::string_view json, int, int) {
    nlohmann::json doc = nlohmann::json::parse(json);
    if (doc.value("kind", "") == "List") {
      for (const auto& item : doc["items"]) add(item);
    } else {
      add(doc);
    }
  });
  return out;
}

// Serves the seed example cluster; returns the number of objects.
inline size_t serve_seed_cluster(FakeApiServer& server) {
  size_t count = 0;
  auto objects = objects_of_yaml_file(std::string(LOADSHIFT_SOURCE_DIR) +
                                      "/examples/seed-cluster/cluster.yaml");
  for (auto& [collection, list] : objects) {
    count += list.size();
    server.set_objects(collection, std::move(list));
  }
  return count;
}

}  // namespace loadshift::testing

// RBAC rules for the fake API server that grant the reads of every collection the plan reads,
// with the verbs given for Namespaces (none: an RBAC written before loadshift read them).
#pragma once

#include <string>
#include <vector>

#include "test/kube/fake_api_server.h"

namespace loadshift::testing {

inline std::vector<FakeRbacRule> read_rules(const std::vector<std::string>& namespace_verbs) {
  std::vector<FakeRbacRule> rules = {
      {{"list", "watch"},
       {"nodes", "pods", "persistentvolumeclaims", "persistentvolumes"},
       {""},
       "",
       {}},
      {{"list", "watch"},
       {"*"},
       {"policy", "scheduling.k8s.io", "storage.k8s.io", "topology.volcano.sh", "batch.volcano.sh",
        "scheduling.volcano.sh"},
       "",
       {}}};
  if (!namespace_verbs.empty()) rules.push_back({namespace_verbs, {"namespaces"}, {""}, "", {}});
  return rules;
}

}  // namespace loadshift::testing

// The resources the fake API server knows: path, group, version, kind, scope, and whether they are
// custom resources (served as unstructured JSON: items carry apiVersion and kind, keys sorted).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace loadshift::testing {

struct FakeResource {
  std::string group;     // "" for the core group
  std::string version;   // "v1"
  std::string resource;  // plural, "pods"
  std::string kind;      // "Pod"
  bool namespaced = false;
  bool custom = false;     // a CRD (Volcano's)
  std::string short_name;  // "hn" or empty

  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
  // "/api/v1/pods", "/apis/policy/v1/poddisruptionbudgets"
  std::string collection() const;
};

// Every resource served out of the box.
const std::vector<FakeResource>& known_resources();
// The built-in group versions of a v1.26.3 server (03-discovery-apis), preferred version first
// within a group, in the recorded order of groups.
const std::vector<std::pair<std::string, std::vector<std::string>>>& builtin_groups();

// A request path taken apart: /api/v1[/namespaces/NS]/RES[/NAME[/SUB]] or the /apis/G/V form.
struct ResourcePath {
  std::string group, version;
  std::string ns;           // empty: cluster-wide (or cluster-scoped)
  std::string resource;     // empty: the group/version itself (discovery)
  std::string name;         // empty: the collection
  std::string subresource;  // "eviction", "status"
  std::string group_version() const { return group.empty() ? version : group + "/" + version; }
};
// nullopt for a path that is not under /api/v1 or /apis/G/V.
std::optional<ResourcePath> parse_resource_path(const std::string& path);

}  // namespace loadshift::testing

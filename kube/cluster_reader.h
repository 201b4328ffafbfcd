// Reading the whole cluster once: every kind the plan needs, listed page by page and decoded as
// the bytes arrive (the placement decoder that snapshot files use), into one Snapshot.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api_client.h"
#include "model/decode.h"
#include "model/model.h"

namespace loadshift::kube {

// A collection the plan reads.
struct Collection {
  std::string path;         // "/api/v1/pods"
  std::string kind;         // "Pod": the kind of its items
  std::string api_version;  // "v1", "policy/v1": the apiVersion of its items
  bool custom = false;      // a CRD: absent (404 on discovery) means "not installed"
  std::string description;  // "HyperNodes", for messages
  // Read when the user may: a 403 on its list leaves it empty (what reads it falls back) and is
  // noted, where any other collection's 403 stops the read. Namespaces: an older RBAC lacks them.
  bool optional = false;
};

// Nodes, Pods, PodDisruptionBudgets, PriorityClasses, PersistentVolumeClaims,
// PersistentVolumes, CSINodes, Namespaces, and the Volcano CRDs HyperNodes, Jobs and PodGroups.
const std::vector<Collection>& plan_collections();

// Sees the raw pages as they arrive, e.g. to save them (loadshift snapshot).
class PageObserver {
 public:
  virtual ~PageObserver() = default;
  // A page of `collection` begins; its bytes follow (a whole List document per page).
  virtual void begin_page(const Collection& collection) = 0;
  virtual void page_bytes(std::string_view bytes) = 0;
  // The page ended well (true) or broke off and will be asked again (false).
  virtual void end_page(bool complete) = 0;
  // The list of `collection` starts over from its first page (an expired continue token): drop
  // every page of it seen so far.
  virtual void restart(const Collection& collection) = 0;
};

struct ClusterRead {
  model::Snapshot snapshot;
  std::vector<model::DecodeError> errors;      // objects left out, and why
  std::vector<std::string> not_installed;      // "HyperNodes (topology.volcano.sh/v1alpha1)"
  std::vector<std::string> not_permitted;      // optional ones refused: "Namespaces (403 ...)"
  size_t pages = 0;
  size_t restarts = 0;  // lists started over after 410 Expired
};

struct ReadOptions {
  size_t page_size = 500;
  int max_restarts = 3;  // per collection
  // A page that delivers nothing for this long fails (and is asked again, then the read fails).
  std::chrono::milliseconds page_idle_timeout{60000};
  // Set from another thread, stops the read (it then throws ApiError "Cancelled"). May be null.
  const std::atomic<bool>* cancel = nullptr;
};

// One collection, listed to the end.
struct ListResult {
  model::Snapshot snapshot;
  std::vector<model::DecodeError> errors;
  std::string resource_version;  // the list's (its first page's) resourceVersion
  size_t pages = 0, restarts = 0;
};

// Lists `collection` page by page (limit/continue), restarting from a fresh first page when the
// continue token expired (410) and asking a broken-off page again. Throws ApiError otherwise.
ListResult list_collection(ApiClient& client, const Collection& collection,
                           const ReadOptions& options = {}, PageObserver* observer = nullptr);

// Lists every collection of plan_collections() (CRDs only when discovery serves their group
// version) with limit/continue, restarting a list from a fresh first page when its continue
// token expired (410), and asking a page again when its stream broke off. Throws ApiError when a
// collection cannot be read (RBAC, the server down after the retries): a partial cluster is never
// planned on.
ClusterRead read_cluster(ApiClient& client, const ReadOptions& options = {},
                         PageObserver* observer = nullptr);

// Moves every object of `from` to the end of `into`.
void append_snapshot(model::Snapshot& into, model::Snapshot&& from);

}  // namespace loadshift::kube

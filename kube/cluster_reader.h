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
  size_t consistent_fallbacks = 0;  // collections whose watch-cache list was refused
};

// Where the API server reads a list from (docs/cluster-access.md#what-a-list-costs-the-api-server).
enum class ListSource {
  // resourceVersion=0: the API server's watch cache, as it is (its newest state; a replica that
  // lags serves an older one). No read of etcd, no pages on servers before v1.33 (the limit is
  // ignored). What informers list with, and what loadshift's first lists ask for.
  kWatchCache,
  // resourceVersion=ReadOptions::not_older_than, resourceVersionMatch=NotOlderThan, no limit:
  // the watch cache once it holds that version or newer (it is current: even a version whose
  // watch expired, 410, is served). A relist that must not go back in time.
  kNotOlderThan,
  // No resourceVersion: a consistent read from etcd, page by page (limit/continue).
  kConsistent,
};

// "watch cache", "watch cache, not older than 123", "consistent read".
std::string to_string(ListSource source, const std::string& not_older_than = "");

struct ReadOptions {
  // A source the server refuses (an error that is neither the RBAC's nor a missing collection:
  // a version it cannot serve, 400, 410, 504 "Too large resource version") is asked again as a
  // consistent read.
  ListSource source = ListSource::kWatchCache;
  std::string not_older_than;  // for kNotOlderThan
  size_t page_size = 500;
  int max_restarts = 3;  // per collection
  // A page that delivers nothing for this long fails (and is asked again, then the read fails).
  std::chrono::milliseconds page_idle_timeout{60000};
  // Set from another thread, stops the read (it then throws ApiError "Cancelled"). May be null.
  const std::atomic<bool>* cancel = nullptr;
  // Pods and Nodes asked for in protobuf (application/vnd.kubernetes.protobuf, then JSON), as
  // kube-scheduler asks: about half the bytes and the API server's cheapest encoding. Whatever
  // the server answers in is read. Lists whose bytes a PageObserver keeps (a snapshot's files)
  // are always JSON. docs/cluster-access.md#the-encoding.
  bool protobuf = true;
};

// One collection, listed to the end.
struct ListResult {
  model::Snapshot snapshot;
  std::vector<model::DecodeError> errors;
  std::string resource_version;  // the list's (its first page's) resourceVersion
  size_t pages = 0, restarts = 0;
  // What answered: options.source, or kConsistent when the server refused that source.
  ListSource source = ListSource::kConsistent;
  std::string refused;  // why the asked source was refused, when it was
};

// Lists `collection` from options.source (falling back to a consistent read when the server
// refuses it), page by page while the server answers with continue tokens, restarting from a
// fresh first page when a continue token expired (410) and asking a broken-off page again.
// Throws ApiError otherwise.
ListResult list_collection(ApiClient& client, const Collection& collection,
                           const ReadOptions& options = {}, PageObserver* observer = nullptr);

// Lists every collection of plan_collections() (CRDs only when discovery serves their group
// version) as list_collection() does (by default from the watch cache, else consistently with
// limit/continue), restarting a list from a fresh first page when its continue token expired
// (410), and asking a page again when its stream broke off. Throws ApiError when a
// collection cannot be read (RBAC, the server down after the retries): a partial cluster is never
// planned on.
ClusterRead read_cluster(ApiClient& client, const ReadOptions& options = {},
                         PageObserver* observer = nullptr);

// Moves every object of `from` to the end of `into`.
void append_snapshot(model::Snapshot& into, model::Snapshot&& from);

}  // namespace loadshift::kube

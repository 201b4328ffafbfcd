// The watch cache (an informer) of every collection the plan reads: a paginated list, then a
// watch from the list's resourceVersion that keeps the objects current. One thread per collection.
//
// - Where the server offers it (v1.32+, or the WatchList feature gate), a collection is synced
//   with the streaming watch-list instead, as client-go's reflector does: one watch with
//   sendInitialEvents=true&resourceVersionMatch=NotOlderThan sends every object (the current
//   state at the first sync; not older than what the cache held at a relist), then a BOOKMARK
//   annotated k8s.io/initial-events-end, then the changes. The objects are held aside and
//   installed at that bookmark, whole, as a list is. Once the server refuses it (422:
//   v1.26-v1.31 without the gate), or a watch-list ends or runs initial_events_timeout without
//   its bookmark, no collection asks for it again (those that asked before learn nothing from
//   each other: each asks at most once) and every collection lists. A watch-list that fails
//   otherwise before its bookmark (a broken connection, a 5xx, a proxy's 400) is followed by a
//   list that time; a 403 or a CRD's 404 are handled as for a watch.
// - Events ADDED and MODIFIED replace the object, DELETED removes it, BOOKMARK moves the
//   resourceVersion on; an ERROR event with 410 (the watch window passed) or an HTTP 410 relists,
//   and so does an event that cannot be read (watched again, the same event would come back).
// - A stream that ends (timeoutSeconds) or breaks off is watched again from the last
//   resourceVersion; failures back off (1 s doubling to 30 s), the server's Retry-After honoured
//   by the client.
// - CRDs (HyperNodes, Volcano Jobs, PodGroups): when discovery does not serve their group
//   version (404), the collection is empty and synced, and discovery is asked again every
//   `crd_recheck`.
// - An optional collection (Namespaces) whose list or watch is refused (403) is empty and synced,
//   named in stats().not_permitted with its error kept, and listed again every `crd_recheck`.
// - synced() is HasSynced: every collection has finished its first list (or is not installed, or
//   is an optional one refused).
// - snapshot() copies every object under one lock: a consistent view, never a fresh list.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api_client.h"
#include "kube/cluster_reader.h"
#include "model/model.h"

namespace loadshift::kube {

struct WatchCacheOptions {
  // Page size of the lists (their source is the cache's to choose), and `protobuf`: Pods and
  // Nodes listed and watched in protobuf (a protobuf watch: length-prefixed WatchEvent frames).
  ReadOptions list;
  // Sync each collection with the streaming watch-list where the server offers it (see the top
  // of this file); false: always a list, then a watch.
  bool watch_list = true;
  // A watch-list still without its initial-events-end bookmark after this long (while events
  // arrive), or one that ends without it, is taken for a server that does not offer it.
  std::chrono::seconds initial_events_timeout{120};
  std::chrono::seconds watch_timeout{300};        // timeoutSeconds of each watch request
  std::chrono::milliseconds first_backoff{1000};  // after a failed list or watch
  std::chrono::milliseconds max_backoff{30000};
  // Discovery of a CRD that is not installed; the list of an optional collection refused.
  std::chrono::seconds crd_recheck{60};
};

struct WatchCacheStats {
  size_t events = 0;   // watch events applied (bookmarks included)
  size_t relists = 0;  // lists after the first, per collection summed (410, errors)
  size_t watches = 0;  // watch requests started
  // Watches the server answered in protobuf (Pods and Nodes ask for it: ReadOptions::protobuf),
  // counted at their first bytes.
  size_t protobuf_watches = 0;
  // Lists answered from the API server's watch cache (the first ones, and relists, after a 410
  // too, not older than what the cache held), and consistent reads (where the server refused the
  // cache: kube/cluster_reader.h ListSource).
  size_t cache_lists = 0, consistent_lists = 0;
  // Collections synced by a watch-list (first syncs and relists), and whether the server
  // refused it (from then on every collection lists).
  size_t watch_lists = 0;
  bool watch_list_refused = false;
  // The last error of each collection that has not recovered from it since, e.g. "Pods: GET
  // ...: 403 Forbidden: ..."; cleared by a list, or by a watch that opens or ends on time.
  std::vector<std::string> errors;
  // The longest any collection has gone without a good answer from the server (a list, an event,
  // a watch opening or ending on time); infinity while one has never synced. A quiet, healthy
  // collection answers at least every watch_timeout. The controller refuses to plan on a cache
  // older than it accepts.
  double max_seconds_since_contact = 0;
  // The optional collections the server refuses (403 on their list or watch), e.g.
  // "Namespaces": held empty, so what reads them falls back; asked again every crd_recheck.
  std::vector<std::string> not_permitted;
};

class WatchCache {
 public:
  // `client` must outlive the cache. Nothing happens until start().
  explicit WatchCache(ApiClient& client, WatchCacheOptions options = {});
  // Stops every thread (within about a second) and joins them.
  ~WatchCache();
  WatchCache(const WatchCache&) = delete;
  WatchCache& operator=(const WatchCache&) = delete;

  void start();
  // True once every collection finished its first list (or its CRD is not installed).
  bool synced() const;
  // The collections that have not (yet): "Pods", ...
  std::vector<std::string> unsynced() const;
  // Waits until synced() or `timeout`; returns synced().
  bool wait_synced(std::chrono::milliseconds timeout) const;
  // A copy of every object, consistent across collections (taken under one lock).
  model::Snapshot snapshot() const;
  // The objects the decoder refused, by collection, since the last list (a partial cache is
  // never planned on: the controller checks this is empty).
  std::vector<model::DecodeError> decode_errors() const;
  WatchCacheStats stats() const;

  // The current state of one object, for the checks right before an eviction (a copy; cheap:
  // one lookup under the lock). Empty when the cache does not hold it (deleted, never seen).
  std::optional<model::Pod> pod(std::string_view namespace_, std::string_view name) const;
  std::optional<model::Node> node(std::string_view name) const;
  // Every node the cache holds (copies), in name order.
  std::vector<model::Node> nodes() const;
  // Calls `visit` with every node the cache holds, in name order, under the cache's lock (no
  // copies): keep `visit` short (the watches wait meanwhile), never call back into the cache
  // from it (the lock is not recursive) and keep no reference past the call.
  void visit_nodes(const std::function<void(const model::Node&)>& visit) const;
  // Every pod the cache holds whose spec.nodeName is `node` (copies; a scan of all pods).
  std::vector<model::Pod> pods_on_node(std::string_view node) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::kube

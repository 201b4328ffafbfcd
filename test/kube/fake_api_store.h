// The fake API server's objects: per collection a sorted vector of immutable serialized objects,
// a change log (for lists at an older resourceVersion and for watches that resume), and the open
// watch streams. Every method is thread-safe (one mutex).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test/kube/fake_api_resources.h"

namespace loadshift::testing {

struct StoredObject {
  std::string key;  // "ns/name", or "name" when cluster-scoped: the sort order of the apiserver
  std::string ns, name;
  std::string item;  // the object as a list item: built-in kinds without kind/apiVersion
  bool has_type_fields = false;  // item carries kind and apiVersion itself
  uint64_t rv = 0;
};
using ObjectPtr = std::shared_ptr<const StoredObject>;

struct ListQuery {
  std::string ns;    // empty: every namespace
  size_t limit = 0;  // 0: no limit
  std::string continue_token;
  std::optional<uint64_t> resource_version;  // absent or 0: the current state
  bool exact = false;                        // resourceVersionMatch=Exact
  bool not_older_than = false;               // resourceVersionMatch=NotOlderThan
};

// An answer to a list: status 200 with head + items joined by ',' + tail, or an error body.
struct ListAnswer {
  int status = 200;
  std::string error_body;
  std::string head, tail;
  std::vector<ObjectPtr> items;
  // What head and tail say of the list (a protobuf answer writes them as a ListMeta).
  uint64_t resource_version = 0;
  std::string continue_token;
  size_t remaining = 0;  // remainingItemCount, with a continue token
  size_t body_size() const;
};

// One event queued for a watch: its complete JSON line ("...}\n"), and for ADDED and MODIFIED
// the stored object it shows (a protobuf watch sends that object's cached encoding).
struct QueuedEvent {
  QueuedEvent() = default;
  explicit QueuedEvent(std::string line_text, ObjectPtr shown = nullptr,
                       const char* event_type = nullptr)
      : line(std::make_shared<const std::string>(std::move(line_text))),
        object(std::move(shown)),
        type(event_type) {}
  std::shared_ptr<const std::string> line;
  ObjectPtr object;
  const char* type = nullptr;  // with `object`: "ADDED" or "MODIFIED"
  bool unreadable = false;     // send_unreadable_event: `line` holds bytes sent as they are
};

// One open watch stream.
struct WatchStream {
  std::string collection, ns;
  bool bookmarks = false;
  uint64_t start_rv = 0;
  std::deque<QueuedEvent> events;
  bool end_after_queued = false;  // the ERROR 410 case: send what is queued, then end the stream
  bool cut_after_queued = false;  // drop_next: send what is queued, then cut the connection
  bool cut = false;               // drop_watches: cut now
};

class ObjectStore {
 public:
  ObjectStore();

  // The resource behind a collection path; unknown paths of a valid shape are registered from the
  // first object's kind and namespace. Throws std::invalid_argument for a path of another shape.
  const FakeResource& resource_for_collection(const std::string& collection,
                                              const nlohmann::json* sample);
  // The known resource of group/version/plural, or nullptr.
  const FakeResource* find_resource(const std::string& group, const std::string& version,
                                    const std::string& resource) const;
  std::vector<FakeResource> resources() const;

  void set_objects(const std::string& collection, std::vector<nlohmann::json> objects);
  void set_objects_serialized(const std::string& collection,
                              const std::vector<std::string>& objects);
  // Returns the object as stored (with kind, apiVersion and the new resourceVersion), with "\n".
  std::string upsert(const std::string& collection, nlohmann::json object);
  bool remove(const std::string& collection, const std::string& ns, const std::string& name);
  // The object with kind and apiVersion, with "\n", or nullopt.
  std::optional<std::string> get(const FakeResource& resource, const std::string& ns,
                                 const std::string& name) const;

  // The current objects of a collection (every namespace), with kind and apiVersion.
  std::vector<nlohmann::json> objects(const std::string& collection);

  ListAnswer list(const FakeResource& resource, const ListQuery& query);

  // Opens a watch: queues the initial events (ADDED per object, the replay, or ERROR 410).
  // `initial_events_end` (a watch-list, sendInitialEvents=true): ADDED per current object, then
  // a BOOKMARK annotated k8s.io/initial-events-end at the current resourceVersion.
  std::shared_ptr<WatchStream> open_watch(const FakeResource& resource, const std::string& ns,
                                          std::optional<uint64_t> resource_version, bool bookmarks,
                                          bool initial_events_end = false);
  void close_watch(const std::shared_ptr<WatchStream>& watch);
  enum class Next { kEvent, kEnd, kCut };
  // Waits for the next event until `deadline`, checking `peer_closed` now and then (kCut when
  // true). kEnd at the deadline, at shutdown or after an ERROR event.
  Next next_event(WatchStream& watch, std::chrono::steady_clock::time_point deadline,
                  const std::function<bool()>& peer_closed, QueuedEvent& event);
  void cut_watches(const std::string& collection);
  void send_bookmark(const std::string& collection);
  void send_unreadable_event(const std::string& collection, const std::string& bytes);
  // A BOOKMARK event line at `rv`, annotated k8s.io/initial-events-end when `initial_events_end`.
  static std::string bookmark_line(const FakeResource& resource, uint64_t rv,
                                   bool initial_events_end);
  void shutdown();  // ends every watch

  void expire_continue_tokens();
  void compact();
  size_t watchers(const std::string& collection) const;
  uint64_t resource_version() const;
  // Lists answered from the watch cache (resourceVersion=0, or not older than a version and
  // without a limit): no read of etcd.
  size_t cache_lists() const;
  size_t watch_lists() const;

 private:
  struct Change {
    uint64_t rv;
    ObjectPtr before, after;  // before null: ADDED; after null: DELETED
  };
  struct Collection {
    FakeResource resource;
    std::vector<ObjectPtr> items;  // sorted by key
    std::deque<Change> log;        // changes since the last compact(), oldest first
    uint64_t last_rv = 0;          // of the last write to this collection
  };

  Collection& collection_locked(const std::string& path, const nlohmann::json* sample);
  ObjectPtr make_object(const FakeResource& resource, nlohmann::json object, uint64_t rv) const;
  void apply_locked(Collection& c, ObjectPtr object);  // insert or replace, log, notify
  void replace_all_locked(Collection& c, std::vector<ObjectPtr> objects);
  void publish_locked(Collection& c, const Change& change);
  std::string event_line(const FakeResource& resource, const char* type,
                         const StoredObject& object) const;
  std::string list_head_tail(const FakeResource& resource, uint64_t rv, const std::string& token,
                             size_t remaining, std::string& tail) const;

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, Collection> collections_;  // by collection path
  std::vector<std::shared_ptr<WatchStream>> watches_;
  std::set<std::string> issued_tokens_, expired_tokens_;
  uint64_t rv_ = 1000;
  uint64_t compacted_rv_ = 0;  // resourceVersions below this one are compacted
  size_t cache_lists_ = 0;
  size_t watch_lists_ = 0;
  bool stopping_ = false;
};

}  // namespace loadshift::testing

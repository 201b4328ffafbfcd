// WatchCache: list, then watch, per collection, one thread each.
#include "kube/watch_cache.h"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "model/decode.h"
#include "model/protobuf_decode.h"
#include "model/protobuf_watch.h"

namespace loadshift::kube {
namespace {

using model::Snapshot;
using std::chrono::milliseconds;

template <typename T>
std::string key_of(const T& object) {
  return object.meta.namespace_ + "/" + object.meta.name;
}
std::string key_of(const model::PriorityClass& object) {
  return "/" + object.name;
}

// Moves every object of `from` into a Snapshot of its own and hands it to `fn` with its key.
void for_each_object(Snapshot&& from, const std::function<void(std::string, Snapshot)>& fn) {
  auto each = [&](auto member) {
    for (auto& object : from.*member) {
      Snapshot one;
      (one.*member).push_back(std::move(object));
      std::string key = key_of((one.*member).front());
      fn(std::move(key), std::move(one));
    }
  };
  each(&Snapshot::nodes);
  // The pods' pointers are moved, not the pods (model/object_list.h, split_each).
  from.pods.split_each([&](model::ObjectList<model::Pod>&& pod) {
    Snapshot one;
    one.pods = std::move(pod);
    std::string key = key_of(std::as_const(one.pods).front());
    fn(std::move(key), std::move(one));
  });
  each(&Snapshot::priority_classes);
  each(&Snapshot::pdbs);
  each(&Snapshot::hyper_nodes);
  each(&Snapshot::jobs);
  each(&Snapshot::pod_groups);
  each(&Snapshot::persistent_volume_claims);
  each(&Snapshot::persistent_volumes);
  each(&Snapshot::csi_nodes);
  each(&Snapshot::namespaces);
}

template <typename T>
void copy_all(std::vector<T>& into, const std::vector<T>& from) {
  into.insert(into.end(), from.begin(), from.end());
}

void append_copy(Snapshot& into, const Snapshot& from) {
  copy_all(into.nodes, from.nodes);
  into.pods.append(from.pods);
  copy_all(into.priority_classes, from.priority_classes);
  copy_all(into.pdbs, from.pdbs);
  copy_all(into.hyper_nodes, from.hyper_nodes);
  copy_all(into.jobs, from.jobs);
  copy_all(into.pod_groups, from.pod_groups);
  copy_all(into.persistent_volume_claims, from.persistent_volume_claims);
  copy_all(into.persistent_volumes, from.persistent_volumes);
  copy_all(into.csi_nodes, from.csi_nodes);
  copy_all(into.namespaces, from.namespaces);
}

// One object of the cache. A pod (by far the most objects) is kept as its shared pointer alone: a
// Snapshot of one per pod cost about 250 bytes more each, 36 MiB at 150,000 pods. Any other kind
// is kept as a Snapshot of one.
class StoredObject {
 public:
  StoredObject() = default;
  explicit StoredObject(Snapshot&& one) {
    if (!one.pods.empty()) {
      pod_ = std::move(one.pods);
    } else {
      other_ = std::make_unique<Snapshot>(std::move(one));
    }
  }

  // Adds the object to `out`; a pod is shared, not copied.
  void append_to(Snapshot& out) const {
    if (other_) {
      append_copy(out, *other_);
    } else {
      out.pods.append(pod_);
    }
  }
  // The pod or node held: an empty list when the object is of another kind.
  const model::ObjectList<model::Pod>& pods() const { return pod_; }
  const std::vector<model::Node>& nodes() const {
    static const std::vector<model::Node> kNone;
    return other_ ? other_->nodes : kNone;
  }

 private:
  model::ObjectList<model::Pod> pod_;  // one pod, or empty
  std::unique_ptr<Snapshot> other_;    // one object of any other kind
};

struct CollectionState {
  const Collection* collection = nullptr;
  std::map<std::string, StoredObject> objects;
  std::vector<model::DecodeError> list_errors;             // of the last list
  std::map<std::string, model::DecodeError> event_errors;  // by object key, since
  std::string resource_version;
  bool synced = false;
  bool installed = true;
  bool permitted = true;  // false: an optional collection the server refused (403)
  std::string last_error;
  // The last time the server answered this collection well: a list, an event, a watch that
  // opened or ended on time, discovery saying "not installed", a refusal of an optional one.
  std::chrono::steady_clock::time_point contact{};
};

// kNotPermitted (list or watch): an optional collection was refused (403); it is left empty.
// kRelist: list again (the watch's resourceVersion is gone, 410; an event could not be applied).
// kWatchListRefused: the server refused sendInitialEvents (a list is read instead).
// kNoInitialEventsEnd: a watch-list sent events for initial_events_timeout without the bookmark
// that ends them.
enum class WatchEnd {
  kReconnect,
  kRelist,
  kRediscover,
  kFailed,
  kNotPermitted,
  kWatchListRefused,
  kNoInitialEventsEnd
};
enum class ListEnd { kListed, kFailed, kNotPermitted };

}  // namespace

struct WatchCache::Impl {
  Impl(ApiClient& c, WatchCacheOptions o) : client(c), options(o) {}

  ApiClient& client;
  WatchCacheOptions options;
  mutable std::mutex mutex;
  mutable std::condition_variable changed;
  std::vector<CollectionState> states;
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  std::atomic<size_t> events{0}, relists{0}, watches{0}, protobuf_watches{0}, cache_lists{0},
      consistent_lists{0}, watch_lists{0};
  // Set at the first refusal of a watch-list: every collection lists from then on.
  std::atomic<bool> watch_list_refused{false};

  // Sleeps `duration`, or less when the cache stops.
  void pause(milliseconds duration) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait_for(lock, duration, [this] { return stop.load(); });
  }

  void mark_healthy(size_t i) {
    std::lock_guard<std::mutex> lock(mutex);
    states[i].last_error.clear();
    states[i].contact = std::chrono::steady_clock::now();
  }

  void record_error(size_t i, const std::string& message) {
    std::lock_guard<std::mutex> lock(mutex);
    states[i].last_error = states[i].collection->description + ": " + message;
  }

  // An optional collection the server refuses (403 on its list or watch): empty and synced (what
  // reads it falls back), the refusal kept as its error and in not_permitted(), its contact now
  // (the refusal is an answer; run() asks again every crd_recheck).
  void mark_not_permitted(size_t i, const std::string& message) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      CollectionState& state = states[i];
      state.objects.clear();
      state.list_errors.clear();
      state.event_errors.clear();
      state.synced = true;
      state.permitted = false;
      state.last_error = state.collection->description + ": " + message + " (read without them)";
      state.contact = std::chrono::steady_clock::now();
    }
    changed.notify_all();
  }

  ListEnd list(size_t i, ListSource source) {
    const Collection& collection = *states[i].collection;
    ListResult result;
    ReadOptions list_options = options.list;
    list_options.cancel = &stop;
    list_options.source = source;
    if (source == ListSource::kNotOlderThan) {
      std::lock_guard<std::mutex> lock(mutex);
      list_options.not_older_than = states[i].resource_version;  // empty: kWatchCache
    }
    try {
      result = list_collection(client, collection, list_options);
    } catch (const ApiError& e) {
      if (e.status() == 403 && collection.optional) {
        mark_not_permitted(i, e.what());
        return ListEnd::kNotPermitted;
      }
      record_error(i, e.what());
      return ListEnd::kFailed;
    }
    ++(result.source == ListSource::kConsistent ? consistent_lists : cache_lists);
    std::map<std::string, StoredObject> objects;
    for_each_object(std::move(result.snapshot), [&](std::string key, Snapshot one) {
      objects[std::move(key)] = StoredObject(std::move(one));
    });
    install(i, std::move(objects), std::move(result.errors), result.resource_version);
    return ListEnd::kListed;
  }

  // A whole collection as a list or a watch-list's initial events gave it, in place of what the
  // cache held, under one lock (a consistent view of it, never half of one and half the other).
  void install(size_t i, std::map<std::string, StoredObject>&& objects,
               std::vector<model::DecodeError>&& errors, const std::string& resource_version) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      CollectionState& state = states[i];
      state.objects = std::move(objects);
      state.list_errors = std::move(errors);
      state.event_errors.clear();
      state.resource_version = resource_version;
      state.synced = true;
      state.installed = true;
      state.permitted = true;
      state.last_error.clear();
      state.contact = std::chrono::steady_clock::now();
    }
    changed.notify_all();
  }

  // What a watch-list sends before its initial-events-end bookmark: held aside, and installed
  // at the bookmark as a list is, so the collection never shows a part of it.
  struct InitialEvents {
    std::map<std::string, StoredObject> objects;
    std::vector<model::DecodeError> errors;
    bool relist = false;  // not the collection's first sync (counted in stats().relists)
    bool ended = false;   // the initial-events-end bookmark came and the objects are installed
  };

  // One event of a watch stream as its decoder (JSON or protobuf) read it.
  struct Event {
    bool readable = false;  // {type, object} (else `what` shows the bytes)
    model::WatchEventSummary summary;
    Snapshot object;  // ADDED and MODIFIED: the object decoded
    std::string what;
  };

  // One event of a watch-list before its bookmark; false ends the stream with `end` set.
  bool collect(size_t i, Event& event, WatchEnd& end, InitialEvents& initial) {
    const std::string& type = event.summary.type;
    const bool known = event.readable && (type == "ADDED" || type == "MODIFIED" ||
                                          type == "DELETED" || type == "BOOKMARK");
    // An event that is no event, an ERROR, an unknown type: apply() says so (and counts it).
    if (!known) return apply(i, event, end);
    ++events;
    std::string key = event.summary.namespace_ + "/" + event.summary.name;
    if (type == "ADDED" || type == "MODIFIED") {
      if (!event.summary.decoded.errors.empty()) {
        initial.errors.push_back(std::move(event.summary.decoded.errors.front()));
        initial.objects.erase(key);
      } else {
        initial.objects[key] = StoredObject(std::move(event.object));
      }
      return true;
    }
    if (type == "DELETED") {
      initial.objects.erase(key);
      return true;
    }
    if (!event.summary.initial_events_end) return true;  // a BOOKMARK: progress, not the end
    ++watch_lists;  // before install(): a waiter woken by it sees the count
    if (initial.relist) ++relists;
    install(i, std::move(initial.objects), std::move(initial.errors),
            event.summary.resource_version);
    initial.ended = true;
    return true;
  }

  // One event of a watch after its initial events; false ends the stream with `end` set.
  bool apply(size_t i, Event& event, WatchEnd& end) {
    if (!event.readable) {
      // Watching again from the same resourceVersion would bring the same event back: list
      // again, as client-go's reflector does after a watch error (a list reads past one bad item).
      record_error(i, "a watch event that is not {type, object}: " + event.what);
      end = WatchEnd::kRelist;
      return false;
    }
    ++events;
    const model::WatchEventSummary& summary = event.summary;
    const std::string& type = summary.type;
    if (type == "ERROR") {
      if (summary.error_code == 410) {
        end = WatchEnd::kRelist;  // the watch window passed: list again
      } else {
        record_error(i, "watch ERROR event: " + summary.error_text);
        end = WatchEnd::kFailed;
      }
      return false;
    }
    const std::string& rv = summary.resource_version;
    if (type == "BOOKMARK") {
      std::lock_guard<std::mutex> lock(mutex);
      if (!rv.empty()) states[i].resource_version = rv;
      states[i].contact = std::chrono::steady_clock::now();
      return true;
    }
    std::string key = summary.namespace_ + "/" + summary.name;
    if (type == "DELETED") {
      std::lock_guard<std::mutex> lock(mutex);
      states[i].objects.erase(key);
      states[i].event_errors.erase(key);
      if (!rv.empty()) states[i].resource_version = rv;
      states[i].contact = std::chrono::steady_clock::now();
      return true;
    }
    if (type != "ADDED" && type != "MODIFIED") {
      record_error(i, "unknown watch event type " + type);
      end = WatchEnd::kFailed;
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex);
    CollectionState& state = states[i];
    if (!summary.decoded.errors.empty()) {
      // Kept out, and said until the object is fixed or deleted: the controller plans on
      // nothing while an object is unreadable.
      state.event_errors[key] = summary.decoded.errors.front();
      state.objects.erase(key);
    } else {
      state.event_errors.erase(key);
      state.objects[key] = StoredObject(std::move(event.object));
    }
    if (!rv.empty()) state.resource_version = rv;
    state.contact = std::chrono::steady_clock::now();
    return true;
  }

  // A watch from the collection's resourceVersion; with `watch_list`, the streaming watch-list
  // (sendInitialEvents=true) that first sends the whole collection (the current state, or not
  // older than the resourceVersion the cache held) and installs it at its initial-events-end
  // bookmark (`relist`: not the collection's first sync); `*listed` then says whether that
  // bookmark came.
  WatchEnd watch(size_t i, bool watch_list = false, bool relist = false, bool* listed = nullptr) {
    const Collection& collection = *states[i].collection;
    std::string rv;
    {
      std::lock_guard<std::mutex> lock(mutex);
      rv = states[i].resource_version;
    }
    const std::string path =
        collection.path + "?watch=1" +
        (watch_list ? "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan" : "") +
        "&allowWatchBookmarks=true&resourceVersion=" + http::HttpClient::escape(rv) +
        "&timeoutSeconds=" + std::to_string(options.watch_timeout.count());
    WatchEnd end = WatchEnd::kReconnect;
    model::WatchEventDecoder decoder;  // JSON: a line per event
    model::WatchFrameReader frames;    // protobuf: a frame per event
    InitialEvents initial;
    initial.ended = !watch_list;
    initial.relist = relist;
    const auto opened_at = std::chrono::steady_clock::now();
    if (listed != nullptr) *listed = false;
    std::string pending;
    std::string content_type;
    bool opened = false, protobuf = false;
    ++watches;
    StreamOptions stream;
    stream.idle_timeout = options.watch_timeout + std::chrono::seconds(30);
    stream.cancel = &stop;
    if (options.list.protobuf && collection.api_version == "v1" &&
        (collection.kind == "Pod" || collection.kind == "Node")) {
      stream.accept = std::string(model::kProtobufContentType) + ", application/json";
      stream.content_type = &content_type;
    }
    // One event, decoded; false ends the stream with `end` set.
    auto take = [&](Event& event) {
      if (!initial.ended) {
        if (!collect(i, event, end, initial)) return false;
        if (initial.ended && listed != nullptr) *listed = true;
        if (!initial.ended &&
            std::chrono::steady_clock::now() - opened_at > options.initial_events_timeout) {
          end = WatchEnd::kNoInitialEventsEnd;
          return false;
        }
        return true;
      }
      return apply(i, event, end);
    };
    try {
      client.stream(
          path,
          [&](std::string_view bytes) {
            try {
              if (!opened) {
                opened = true;
                protobuf = model::is_protobuf_content_type(content_type);
                if (protobuf) ++protobuf_watches;
                mark_healthy(i);
              }
              if (protobuf) {
                frames.feed(bytes);
                while (std::optional<std::string_view> frame = frames.next()) {
                  Event event;
                  event.readable =
                      model::decode_protobuf_watch_event(*frame, &event.object, &event.summary);
                  if (!event.readable) {
                    event.what = "a protobuf frame of " + std::to_string(frame->size()) +
                                 " bytes that is not a WatchEvent";
                  }
                  if (!take(event)) return false;
                }
                if (frames.broken()) {
                  Event event;
                  event.what = "a protobuf frame longer than " +
                               std::to_string(model::WatchFrameReader::kMaxFrame) + " bytes";
                  take(event);
                  return false;
                }
                return !stop.load();
              }
              pending.append(bytes);
              size_t start = 0;
              for (size_t newline; (newline = pending.find('\n', start)) != std::string::npos;
                   start = newline + 1) {
                std::string_view line(pending.data() + start, newline - start);
                if (line.empty()) continue;
                Event event;
                event.readable = decoder.decode(line, &event.object, &event.summary);
                if (!event.readable) event.what = std::string(line.substr(0, 200));
                if (!take(event)) return false;
              }
              pending.erase(0, start);
              return !stop.load();
            } catch (const std::exception& e) {  // never through libcurl's C frames
              record_error(i, std::string("applying a watch event: ") + e.what());
              end = WatchEnd::kRelist;
              return false;
            }
          },
          stream);
    } catch (const ApiError& e) {
      // A server without the watch-list refuses its options: 422 Invalid. (Anything else, a
      // proxy's 400 say, fails this attempt only: a list follows.)
      if (watch_list && e.status() == 422) return WatchEnd::kWatchListRefused;
      if (e.status() == 410) return WatchEnd::kRelist;
      if (e.status() == 404 && collection.custom) return WatchEnd::kRediscover;
      if (e.status() == 403 && collection.optional) {
        mark_not_permitted(i, e.what());
        return WatchEnd::kNotPermitted;
      }
      record_error(i, e.what());
      return WatchEnd::kFailed;
    }
    // Ended on time (timeoutSeconds): the server was there all along.
    if (end == WatchEnd::kReconnect && !stop.load()) mark_healthy(i);
    return end;
  }

  void run(size_t i) {
    const Collection& collection = *states[i].collection;
    milliseconds backoff = options.first_backoff;
    bool need_list = true, need_discovery = collection.custom, first = true;
    // The first list from the watch cache, as informers do; a relist (after 410 too) from the
    // watch cache as well, but not older than what this cache held: it never goes back in time
    // (a replica of the API server that lags waits, or refuses, and the list is read
    // consistently).
    ListSource source = ListSource::kWatchCache;
    auto fail = [&] {
      pause(backoff);
      backoff = std::min(backoff * 2, options.max_backoff);
    };
    // What follows a watch's end.
    auto after_watch = [&](WatchEnd end) {
      switch (end) {
        case WatchEnd::kReconnect:
          backoff = options.first_backoff;
          break;
        case WatchEnd::kRelist:
        case WatchEnd::kWatchListRefused:
        case WatchEnd::kNoInitialEventsEnd:
          need_list = true;
          break;
        case WatchEnd::kRediscover:
          need_discovery = true;
          break;
        case WatchEnd::kFailed:
          fail();
          break;
        case WatchEnd::kNotPermitted:  // e.g. list granted, watch not: list again later
          pause(options.crd_recheck);
          need_list = true;
          break;
      }
    };
    while (!stop.load()) {
      if (need_discovery) {
        bool served = false;
        try {
          served = client.serves(collection.api_version);
        } catch (const ApiError& e) {
          record_error(i, e.what());
          fail();
          continue;
        }
        if (!served) {
          {
            std::lock_guard<std::mutex> lock(mutex);
            CollectionState& state = states[i];
            state.installed = false;
            state.objects.clear();
            state.list_errors.clear();
            state.event_errors.clear();
            state.synced = true;
            state.last_error.clear();
            state.contact = std::chrono::steady_clock::now();
          }
          changed.notify_all();
          pause(options.crd_recheck);
          continue;
        }
        need_discovery = false;
        need_list = true;
      }
      if (need_list && options.watch_list && !watch_list_refused.load()) {
        // The watch-list: the collection and then its changes in one stream, as client-go's
        // reflector reads them where the server offers it.
        bool listed = false;
        WatchEnd end = watch(i, true, !first, &listed);
        if (end == WatchEnd::kWatchListRefused) {
          watch_list_refused = true;  // and a list below, at once
        } else if (listed) {          // counted at its bookmark
          first = false;
          need_list = false;
          source = ListSource::kNotOlderThan;
          backoff = options.first_backoff;
          after_watch(end);  // the stream went on as a watch, and has ended
          continue;
        } else if (stop.load()) {
          break;
        } else if (end == WatchEnd::kNotPermitted || end == WatchEnd::kRediscover) {
          after_watch(end);
          continue;
        } else if (end == WatchEnd::kReconnect || end == WatchEnd::kNoInitialEventsEnd) {
          // A server that answers the watch-list but never ends its initial events does not
          // offer it (a proxy that drops sendInitialEvents, say): lists from now on.
          watch_list_refused = true;
        }
        // Otherwise it failed before its bookmark (its error kept): a list this time.
      }
      if (need_list) {
        ListEnd listed = list(i, source);
        if (listed == ListEnd::kNotPermitted) {
          pause(options.crd_recheck);  // asked again: the RBAC may be fixed meanwhile
          continue;
        }
        if (listed == ListEnd::kFailed) {
          fail();
          continue;
        }
        if (!first) ++relists;
        first = false;
        need_list = false;
        source = ListSource::kNotOlderThan;
        backoff = options.first_backoff;
      }
      after_watch(watch(i));
    }
  }
};

WatchCache::WatchCache(ApiClient& client, WatchCacheOptions options)
    : impl_(std::make_unique<Impl>(client, options)) {
  for (const Collection& collection : plan_collections()) {
    CollectionState state;
    state.collection = &collection;
    impl_->states.push_back(std::move(state));
  }
}

WatchCache::~WatchCache() {
  {
    // Under the mutex: a thread about to wait in pause() cannot miss the wake-up.
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->changed.notify_all();
  for (std::thread& thread : impl_->threads) thread.join();
}

void WatchCache::start() {
  if (!impl_->threads.empty()) return;
  for (size_t i = 0; i < impl_->states.size(); ++i) {
    impl_->threads.emplace_back([this, i] { impl_->run(i); });
  }
}

bool WatchCache::synced() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return std::all_of(impl_->states.begin(), impl_->states.end(),
                     [](const CollectionState& s) { return s.synced; });
}

std::vector<std::string> WatchCache::unsynced() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<std::string> out;
  for (const CollectionState& s : impl_->states) {
    if (!s.synced) out.push_back(s.collection->description);
  }
  return out;
}

bool WatchCache::wait_synced(milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->changed.wait_for(lock, timeout, [this] {
    return std::all_of(impl_->states.begin(), impl_->states.end(),
                       [](const CollectionState& s) { return s.synced; });
  });
}

Snapshot WatchCache::snapshot() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  Snapshot out;
  for (const CollectionState& s : impl_->states) {
    for (const auto& [key, one] : s.objects) one.append_to(out);
  }
  return out;
}

std::vector<model::DecodeError> WatchCache::decode_errors() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<model::DecodeError> out;
  for (const CollectionState& s : impl_->states) {
    out.insert(out.end(), s.list_errors.begin(), s.list_errors.end());
    for (const auto& [key, error] : s.event_errors) out.push_back(error);
  }
  return out;
}

WatchCacheStats WatchCache::stats() const {
  WatchCacheStats stats;
  stats.events = impl_->events.load();
  stats.relists = impl_->relists.load();
  stats.cache_lists = impl_->cache_lists.load();
  stats.consistent_lists = impl_->consistent_lists.load();
  stats.watch_lists = impl_->watch_lists.load();
  stats.watch_list_refused = impl_->watch_list_refused.load();
  stats.watches = impl_->watches.load();
  stats.protobuf_watches = impl_->protobuf_watches.load();
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const auto now = std::chrono::steady_clock::now();
  for (const CollectionState& s : impl_->states) {
    if (!s.last_error.empty()) stats.errors.push_back(s.last_error);
    if (!s.permitted) stats.not_permitted.push_back(s.collection->description);
    double age = s.synced ? std::chrono::duration<double>(now - s.contact).count() : -1;
    if (!s.synced || age > stats.max_seconds_since_contact) {
      stats.max_seconds_since_contact = s.synced ? age : std::numeric_limits<double>::infinity();
    }
  }
  return stats;
}

namespace {

const CollectionState* state_of(const std::vector<CollectionState>& states,
                                std::string_view description) {
  for (const CollectionState& state : states) {
    if (state.collection->description == description) return &state;
  }
  return nullptr;
}

}  // namespace

std::optional<model::Pod> WatchCache::pod(std::string_view namespace_,
                                          std::string_view name) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const CollectionState* pods = state_of(impl_->states, "Pods");
  if (pods == nullptr) return std::nullopt;
  auto it = pods->objects.find(std::string(namespace_) + "/" + std::string(name));
  if (it == pods->objects.end() || it->second.pods().empty()) return std::nullopt;
  return it->second.pods().front();
}

std::optional<model::Node> WatchCache::node(std::string_view name) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const CollectionState* nodes = state_of(impl_->states, "Nodes");
  if (nodes == nullptr) return std::nullopt;
  auto it = nodes->objects.find("/" + std::string(name));
  if (it == nodes->objects.end() || it->second.nodes().empty()) return std::nullopt;
  return it->second.nodes().front();
}

std::vector<model::Node> WatchCache::nodes() const {
  std::vector<model::Node> out;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const CollectionState* nodes = state_of(impl_->states, "Nodes");
  if (nodes == nullptr) return out;
  for (const auto& [key, one] : nodes->objects) {
    out.insert(out.end(), one.nodes().begin(), one.nodes().end());
  }
  return out;
}

void WatchCache::visit_nodes(const std::function<void(const model::Node&)>& visit) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const CollectionState* nodes = state_of(impl_->states, "Nodes");
  if (nodes == nullptr) return;
  for (const auto& [key, one] : nodes->objects) {
    for (const model::Node& node : one.nodes()) visit(node);
  }
}

std::vector<model::Pod> WatchCache::pods_on_node(std::string_view node) const {
  std::vector<model::Pod> out;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  const CollectionState* pods = state_of(impl_->states, "Pods");
  if (pods == nullptr) return out;
  for (const auto& [key, one] : pods->objects) {
    for (const model::Pod& pod : one.pods()) {
      if (pod.node_name == node) out.push_back(pod);
    }
  }
  return out;
}

}  // namespace loadshift::kube

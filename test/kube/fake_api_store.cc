#include "test/kube/fake_api_store.h"

#include <algorithm>
#include <stdexcept>

#include <simdjson.h>

#include "test/kube/fake_api_responses.h"

namespace loadshift::testing {
namespace {

bool key_less(const ObjectPtr& a, const std::string& key) {
  return a->key < key;
}

std::string make_key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

// The object with kind and apiVersion first, as a watch event or a GET carries it.
std::string typed_json(const FakeResource& r, const StoredObject& o) {
  if (o.has_type_fields) return o.item;
  return R"({"kind":)" + json_string(r.kind) + R"(,"apiVersion":)" +
         json_string(r.group_version()) + "," + o.item.substr(1);
}

}  // namespace

size_t ListAnswer::body_size() const {
  size_t n = head.size() + tail.size() + (items.empty() ? 0 : items.size() - 1);
  for (const auto& item : items) n += item->item.size();
  return n;
}

ObjectStore::ObjectStore() {
  for (const auto& r : known_resources()) collections_[r.collection()].resource = r;
}

const FakeResource* ObjectStore::find_resource(const std::string& group, const std::string& version,
                                               const std::string& resource) const {
  std::lock_guard lock(mu_);
  for (const auto& [path, c] : collections_) {
    if (c.resource.group == group && c.resource.version == version &&
        c.resource.resource == resource) {
      return &c.resource;  // std::map nodes are stable; collections are never erased
    }
  }
  return nullptr;
}

std::vector<FakeResource> ObjectStore::resources() const {
  std::lock_guard lock(mu_);
  std::vector<FakeResource> out;
  for (const auto& [path, c] : collections_) out.push_back(c.resource);
  return out;
}

const FakeResource& ObjectStore::resource_for_collection(const std::string& collection,
                                                         const nlohmann::json* sample) {
  std::lock_guard lock(mu_);
  return collection_locked(collection, sample).resource;
}

ObjectStore::Collection& ObjectStore::collection_locked(const std::string& path,
                                                        const nlohmann::json* sample) {
  auto it = collections_.find(path);
  if (it != collections_.end()) return it->second;
  auto parsed = parse_resource_path(path);
  if (!parsed || parsed->resource.empty() || !parsed->name.empty() || !parsed->ns.empty()) {
    throw std::invalid_argument("fake API server: not a collection path: " + path);
  }
  FakeResource r;
  r.group = parsed->group;
  r.version = parsed->version;
  r.resource = parsed->resource;
  r.kind =
      sample && sample->contains("kind") ? (*sample)["kind"].get<std::string>() : parsed->resource;
  r.namespaced =
      sample && sample->contains("metadata") && (*sample)["metadata"].contains("namespace");
  r.custom =
      !r.group.empty() && r.group.find('.') != std::string::npos && !r.group.ends_with(".k8s.io");
  Collection& c = collections_[path];
  c.resource = r;
  return c;
}

ObjectPtr ObjectStore::make_object(const FakeResource& r, nlohmann::json object,
                                   uint64_t rv) const {
  auto obj = std::make_shared<StoredObject>();
  if (!object.is_object() || !object.contains("metadata") || !object["metadata"].is_object() ||
      !object["metadata"].contains("name") || !object["metadata"]["name"].is_string()) {
    throw std::invalid_argument("fake API server: object without metadata.name in " +
                                r.collection());
  }
  auto& meta = object["metadata"];
  obj->name = meta["name"].get<std::string>();
  if (r.namespaced) {
    if (!meta.contains("namespace")) meta["namespace"] = "default";
    obj->ns = meta["namespace"].get<std::string>();
  } else {
    meta.erase("namespace");
  }
  obj->key = make_key(obj->ns, obj->name);
  obj->rv = rv;
  meta["resourceVersion"] = std::to_string(rv);
  if (r.custom) {
    object["apiVersion"] = r.group_version();
    object["kind"] = r.kind;
    obj->has_type_fields = true;
  } else {
    object.erase("kind");
    object.erase("apiVersion");
  }
  obj->item = object.dump();
  return obj;
}

std::string ObjectStore::event_line(const FakeResource& r, const char* type,
                                    const StoredObject& o) const {
  return std::string(R"({"type":")") + type + R"(","object":)" + typed_json(r, o) + "}\n";
}

void ObjectStore::publish_locked(Collection& c, const Change& change) {
  c.log.push_back(change);
  c.last_rv = change.rv;
  QueuedEvent event;
  const StoredObject& shown = change.after ? *change.after : *change.before;
  for (auto& w : watches_) {
    if (w->collection != c.resource.collection()) continue;
    if (!w->ns.empty() && w->ns != shown.ns) continue;
    if (!event.line) {
      const char* type = !change.before ? "ADDED" : !change.after ? "DELETED" : "MODIFIED";
      if (change.after) {
        event = QueuedEvent(event_line(c.resource, type, shown), change.after, type);
      } else {  // DELETED shows the last state with the resourceVersion of the delete
        auto json = nlohmann::json::parse(change.before->item);
        json["metadata"]["resourceVersion"] = std::to_string(change.rv);
        StoredObject last = *change.before;
        last.item = json.dump();
        event = QueuedEvent(event_line(c.resource, type, last));
      }
    }
    w->events.push_back(event);
  }
  changed_.notify_all();
}

void ObjectStore::apply_locked(Collection& c, ObjectPtr object) {
  auto it = std::lower_bound(c.items.begin(), c.items.end(), object->key, key_less);
  if (it != c.items.end() && (*it)->key == object->key) {
    Change change{object->rv, *it, object};
    *it = object;
    publish_locked(c, change);
  } else {
    c.items.insert(it, object);
    publish_locked(c, Change{object->rv, nullptr, object});
  }
}

void ObjectStore::replace_all_locked(Collection& c, std::vector<ObjectPtr> objects) {
  std::stable_sort(objects.begin(), objects.end(),
                   [](const ObjectPtr& a, const ObjectPtr& b) { return a->key < b->key; });
  // Of duplicate keys the last one given wins.
  std::vector<ObjectPtr> fresh;
  fresh.reserve(objects.size());
  for (auto& o : objects) {
    if (!fresh.empty() && fresh.back()->key == o->key) {
      fresh.back() = std::move(o);
    } else {
      fresh.push_back(std::move(o));
    }
  }
  uint64_t rv = ++rv_;
  std::vector<ObjectPtr> old = std::move(c.items);
  c.items = std::move(fresh);
  size_t i = 0, j = 0;
  while (i < old.size() || j < c.items.size()) {
    if (j == c.items.size() || (i < old.size() && old[i]->key < c.items[j]->key)) {
      publish_locked(c, Change{rv, old[i++], nullptr});
    } else if (i == old.size() || c.items[j]->key < old[i]->key) {
      publish_locked(c, Change{rv, nullptr, c.items[j++]});
    } else {
      publish_locked(c, Change{rv, old[i++], c.items[j++]});
    }
  }
  c.last_rv = rv;
}

void ObjectStore::set_objects(const std::string& collection, std::vector<nlohmann::json> objects) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, objects.empty() ? nullptr : &objects.front());
  std::vector<ObjectPtr> made;
  made.reserve(objects.size());
  for (auto& o : objects) made.push_back(make_object(c.resource, std::move(o), rv_ + 1));
  replace_all_locked(c, std::move(made));
}

void ObjectStore::set_objects_serialized(const std::string& collection,
                                         const std::vector<std::string>& objects) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, nullptr);
  const uint64_t rv = rv_ + 1;
  const std::string rv_field = R"("resourceVersion":")" + std::to_string(rv) + R"(",)";
  simdjson::dom::parser parser;
  std::vector<ObjectPtr> made;
  made.reserve(objects.size());
  for (const auto& text : objects) {
    auto obj = std::make_shared<StoredObject>();
    simdjson::dom::element doc;
    if (parser.parse(text).get(doc) != simdjson::SUCCESS) {
      throw std::invalid_argument("fake API server: an object is not JSON");
    }
    std::string_view name, ns;
    if (doc["metadata"]["name"].get(name) != simdjson::SUCCESS) {
      throw std::invalid_argument("fake API server: object without metadata.name");
    }
    if (c.resource.namespaced && doc["metadata"]["namespace"].get(ns) != simdjson::SUCCESS)
      ns = "default";
    std::string_view ignored;
    if (doc["metadata"]["resourceVersion"].get(ignored) == simdjson::SUCCESS) {
      throw std::invalid_argument(
          "fake API server: set_objects_serialized needs objects without "
          "metadata.resourceVersion");
    }
    obj->has_type_fields = doc["kind"].get(ignored) == simdjson::SUCCESS;
    obj->name = std::string(name);
    obj->ns = std::string(ns);
    obj->key = make_key(obj->ns, obj->name);
    obj->rv = rv;
    // Compact text, then resourceVersion as the first field of metadata (the first "metadata"
    // key: objects written by the apiserver or kubectl put metadata before any nested one).
    std::string compact = simdjson::minify(doc);
    const size_t at = compact.find(R"("metadata":{)");
    if (at == std::string::npos) throw std::invalid_argument("fake API server: metadata not found");
    compact.insert(at + 12,
                   compact[at + 12] == '}' ? rv_field.substr(0, rv_field.size() - 1) : rv_field);
    obj->item = std::move(compact);
    made.push_back(std::move(obj));
  }
  replace_all_locked(c, std::move(made));
}

std::string ObjectStore::upsert(const std::string& collection, nlohmann::json object) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, &object);
  ObjectPtr made = make_object(c.resource, std::move(object), rv_ + 1);
  ++rv_;
  std::string stored = typed_json(c.resource, *made) + "\n";
  apply_locked(c, std::move(made));
  return stored;
}

std::vector<nlohmann::json> ObjectStore::objects(const std::string& collection) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, nullptr);
  std::vector<nlohmann::json> out;
  out.reserve(c.items.size());
  for (const auto& o : c.items) out.push_back(nlohmann::json::parse(typed_json(c.resource, *o)));
  return out;
}

bool ObjectStore::remove(const std::string& collection, const std::string& ns,
                         const std::string& name) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, nullptr);
  const std::string key = make_key(c.resource.namespaced ? ns : "", name);
  auto it = std::lower_bound(c.items.begin(), c.items.end(), key, key_less);
  if (it == c.items.end() || (*it)->key != key) return false;
  ObjectPtr before = *it;
  c.items.erase(it);
  publish_locked(c, Change{++rv_, before, nullptr});
  return true;
}

std::optional<std::string> ObjectStore::get(const FakeResource& r, const std::string& ns,
                                            const std::string& name) const {
  std::lock_guard lock(mu_);
  const Collection& c = collections_.at(r.collection());
  const std::string key = make_key(r.namespaced ? ns : "", name);
  auto it = std::lower_bound(c.items.begin(), c.items.end(), key, key_less);
  if (it == c.items.end() || (*it)->key != key) return std::nullopt;
  return typed_json(r, **it) + "\n";
}

std::string ObjectStore::list_head_tail(const FakeResource& r, uint64_t rv,
                                        const std::string& token, size_t remaining,
                                        std::string& tail) const {
  const std::string rv_text = json_string(std::to_string(rv));
  const std::string list_kind = json_string(r.kind + "List");
  if (r.custom) {
    tail = R"(],"kind":)" + list_kind + R"(,"metadata":{"continue":)" + json_string(token) + "," +
           (token.empty() ? "" : R"("remainingItemCount":)" + std::to_string(remaining) + ",") +
           R"("resourceVersion":)" + rv_text + "}}\n";
    return R"({"apiVersion":)" + json_string(r.group_version()) + R"(,"items":[)";
  }
  tail = "]}\n";
  return R"({"kind":)" + list_kind + R"(,"apiVersion":)" + json_string(r.group_version()) +
         R"(,"metadata":{"resourceVersion":)" + rv_text +
         (token.empty() ? ""
                        : R"(,"continue":)" + json_string(token) + R"(,"remainingItemCount":)" +
                              std::to_string(remaining)) +
         R"(},"items":[)";
}

ListAnswer ObjectStore::list(const FakeResource& r, const ListQuery& q) {
  std::lock_guard lock(mu_);
  Collection& c = collections_.at(r.collection());
  ListAnswer answer;
  const std::string prefix = q.ns.empty() ? "" : q.ns + "/";
  std::string start = prefix;
  uint64_t snapshot = rv_;
  size_t limit = q.limit;
  if (q.continue_token.empty() && q.resource_version && *q.resource_version == 0) {
    // resourceVersion=0, as a v1.28 API server serves it: from its watch cache, the whole
    // collection in one answer (the limit ignored, no continue token), no read of etcd.
    limit = 0;
    ++cache_lists_;
  } else if (q.continue_token.empty() && q.resource_version && *q.resource_version > rv_) {
    // Newer than anything the server has seen: the watch cache waits, then gives up.
    answer.status = 504;
    answer.error_body = status_body(
        504, "Timeout",
        "Too large resource version: " + std::to_string(*q.resource_version) +
            ", current: " + std::to_string(rv_),
        R"({"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1})");
    return answer;
  } else if (q.continue_token.empty() && q.resource_version && *q.resource_version > 0 &&
             q.limit == 0 && !q.exact) {
    ++cache_lists_;  // not older than a version it has, no limit: the watch cache, current state
  }
  // Explicitly not older than a version it has, with a limit: etcd's current state, page by page
  // (only an implicit match with a limit reads that old version, and 410s once compacted).
  const bool at_version = q.exact || (q.limit > 0 && !q.not_older_than);
  if (!q.continue_token.empty()) {
    auto token = decode_continue(q.continue_token);
    if (!token) {
      answer.status = 400;
      answer.error_body =
          status_body(400, "BadRequest", "continue key is not valid: " + q.continue_token);
      return answer;
    }
    if (expired_tokens_.count(q.continue_token) != 0 ||
        (token->rv > 0 && static_cast<uint64_t>(token->rv) < compacted_rv_)) {
      answer.status = 410;
      answer.error_body = status_body(
          410, "Expired",
          "The provided continue parameter is too old to display a consistent list result. You can "
          "start a new list without the continue parameter, or use the continue token in this "
          "response to retrieve the remainder of the results. Continuing with the provided token "
          "results in an inconsistent list - objects that were created, modified, or deleted "
          "between the time the first chunk was returned and now may show up in the list.",
          "", R"({"continue":)" + json_string(encode_continue(-1, token->start)) + "}");
      return answer;
    }
    if (token->rv > 0) snapshot = std::min<uint64_t>(static_cast<uint64_t>(token->rv), rv_);
    start = prefix + token->start;
  } else if (q.resource_version && *q.resource_version > 0 && at_version) {
    if (*q.resource_version < compacted_rv_) {
      answer.status = 410;
      answer.error_body =
          status_body(410, "Expired", "The resourceVersion for the provided list is too old.");
      return answer;
    }
    snapshot = std::min(*q.resource_version, rv_);
  }
  // The state at `snapshot`: for every key changed since, its state back then (null: absent).
  std::map<std::string, ObjectPtr> then;
  for (auto it = c.log.rbegin(); it != c.log.rend() && it->rv > snapshot; ++it) {
    const StoredObject& o = it->before ? *it->before : *it->after;
    then[o.key] = it->before;
  }
  auto in_range = [&](const std::string& key) { return prefix.empty() || key.starts_with(prefix); };
  auto cur = std::lower_bound(c.items.begin(), c.items.end(), start, key_less);
  auto old = then.lower_bound(start);
  std::string last_key;
  bool more = false;
  while (true) {
    const bool cur_ok = cur != c.items.end() && in_range((*cur)->key);
    const bool old_ok = old != then.end() && in_range(old->first);
    if (!cur_ok && !old_ok) break;
    ObjectPtr pick;
    std::string key;
    if (old_ok && (!cur_ok || old->first <= (*cur)->key)) {
      key = old->first;
      pick = old->second;
      if (cur_ok && (*cur)->key == key) ++cur;
      ++old;
    } else {
      key = (*cur)->key;
      pick = *cur;
      ++cur;
    }
    if (!pick) continue;
    if (limit > 0 && answer.items.size() == limit) {
      more = true;
      break;
    }
    answer.items.push_back(pick);
    last_key = key;
  }
  std::string token;
  size_t remaining = 0;
  if (more) {
    // Count what follows last_key at the snapshot: the current items, corrected by the changes.
    const std::string after = last_key + '\0';
    auto from = std::lower_bound(c.items.begin(), c.items.end(), after, key_less);
    auto to = prefix.empty()
                  ? c.items.end()
                  : std::lower_bound(c.items.begin(), c.items.end(), q.ns + "0", key_less);
    long count = std::distance(from, to);
    for (auto it = then.lower_bound(after); it != then.end() && in_range(it->first); ++it) {
      auto now = std::lower_bound(c.items.begin(), c.items.end(), it->first, key_less);
      const bool present_now = now != c.items.end() && (*now)->key == it->first;
      count += (it->second ? 1 : 0) - (present_now ? 1 : 0);
    }
    remaining = static_cast<size_t>(std::max(0L, count));
    token = encode_continue(static_cast<int64_t>(snapshot), last_key.substr(prefix.size()) + '\0');
    issued_tokens_.insert(token);
    expired_tokens_.erase(token);  // issued again (same snapshot, same key): good again
  }
  answer.head = list_head_tail(r, snapshot, token, remaining, answer.tail);
  answer.resource_version = snapshot;
  answer.continue_token = token;
  answer.remaining = remaining;
  return answer;
}

std::shared_ptr<WatchStream> ObjectStore::open_watch(const FakeResource& r, const std::string& ns,
                                                     std::optional<uint64_t> resource_version,
                                                     bool bookmarks, bool initial_events_end) {
  std::lock_guard lock(mu_);
  Collection& c = collections_.at(r.collection());
  auto w = std::make_shared<WatchStream>();
  w->collection = r.collection();
  w->ns = ns;
  w->bookmarks = bookmarks;
  auto matches = [&](const StoredObject& o) { return ns.empty() || o.ns == ns; };
  if (initial_events_end) {
    // The current state (not older than any version the caller may name: this store has only
    // the newest), then the bookmark that ends it.
    ++watch_lists_;
    for (const auto& o : c.items) {
      if (matches(*o)) w->events.emplace_back(event_line(r, "ADDED", *o), o, "ADDED");
    }
    w->events.emplace_back(bookmark_line(r, rv_, true));
    w->start_rv = rv_;
  } else if (!resource_version || *resource_version == 0) {
    for (const auto& o : c.items) {
      if (matches(*o)) w->events.emplace_back(event_line(r, "ADDED", *o), o, "ADDED");
    }
    w->start_rv = rv_;
  } else if (*resource_version < compacted_rv_) {
    std::string status =
        status_body(410, "Expired",
                    "too old resource version: " + std::to_string(*resource_version) + " (" +
                        std::to_string(compacted_rv_) + ")");
    status.pop_back();  // the "\n" ends the event, not the Status
    w->events.emplace_back(R"({"type":"ERROR","object":)" + status + "}\n");
    w->end_after_queued = true;
    return w;
  } else {
    w->start_rv = *resource_version;
    for (const auto& change : c.log) {
      if (change.rv <= *resource_version) continue;
      const StoredObject& shown = change.after ? *change.after : *change.before;
      if (!matches(shown)) continue;
      if (change.after) {
        const char* type = change.before ? "MODIFIED" : "ADDED";
        w->events.emplace_back(event_line(r, type, *change.after), change.after, type);
      } else {
        auto json = nlohmann::json::parse(change.before->item);
        json["metadata"]["resourceVersion"] = std::to_string(change.rv);
        StoredObject last = *change.before;
        last.item = json.dump();
        w->events.emplace_back(event_line(r, "DELETED", last));
      }
    }
  }
  watches_.push_back(w);
  return w;
}

void ObjectStore::close_watch(const std::shared_ptr<WatchStream>& watch) {
  std::lock_guard lock(mu_);
  std::erase(watches_, watch);
}

ObjectStore::Next ObjectStore::next_event(WatchStream& w,
                                          std::chrono::steady_clock::time_point deadline,
                                          const std::function<bool()>& peer_closed,
                                          QueuedEvent& event) {
  std::unique_lock lock(mu_);
  while (true) {
    if (w.cut) return Next::kCut;
    if (!w.events.empty()) {
      event = std::move(w.events.front());
      w.events.pop_front();
      return Next::kEvent;
    }
    if (w.end_after_queued) return Next::kEnd;
    if (w.cut_after_queued) return Next::kCut;
    const auto now = std::chrono::steady_clock::now();
    if (stopping_ || now >= deadline) return Next::kEnd;
    if (peer_closed && peer_closed()) return Next::kCut;
    changed_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
  }
}

void ObjectStore::cut_watches(const std::string& collection) {
  std::lock_guard lock(mu_);
  for (auto& w : watches_) {
    if (w->collection == collection) w->cut = true;
  }
  changed_.notify_all();
}

std::string ObjectStore::bookmark_line(const FakeResource& r, uint64_t rv,
                                       bool initial_events_end) {
  // As the real server writes them: the kind's empty object with only a resourceVersion (and the
  // annotation that ends a watch-list's initial events).
  std::string metadata = R"("metadata":{"resourceVersion":)" + json_string(std::to_string(rv));
  if (initial_events_end) metadata += R"(,"annotations":{"k8s.io/initial-events-end":"true"})";
  std::string object;
  if (r.custom) {
    object = R"({"apiVersion":)" + json_string(r.group_version()) + R"(,"kind":)" +
             json_string(r.kind) + "," + metadata + "}}";
  } else {
    object = R"({"kind":)" + json_string(r.kind) + R"(,"apiVersion":)" +
             json_string(r.group_version()) + "," + metadata + R"(,"creationTimestamp":null})" +
             (r.kind == "Pod" ? R"(,"spec":{"containers":null},"status":{})" : "") + "}";
  }
  return R"({"type":"BOOKMARK","object":)" + object + "}\n";
}

void ObjectStore::send_bookmark(const std::string& collection) {
  std::lock_guard lock(mu_);
  Collection& c = collection_locked(collection, nullptr);
  const QueuedEvent bookmark(bookmark_line(c.resource, c.last_rv, false));
  for (auto& w : watches_) {
    if (w->collection == collection && w->bookmarks && c.last_rv > w->start_rv)
      w->events.push_back(bookmark);
  }
  changed_.notify_all();
}

void ObjectStore::send_unreadable_event(const std::string& collection, const std::string& bytes) {
  std::lock_guard lock(mu_);
  QueuedEvent event(bytes + "\n");
  event.unreadable = true;
  for (auto& w : watches_) {
    if (w->collection == collection) w->events.push_back(event);
  }
  changed_.notify_all();
}

void ObjectStore::shutdown() {
  std::lock_guard lock(mu_);
  stopping_ = true;
  changed_.notify_all();
}

void ObjectStore::expire_continue_tokens() {
  std::lock_guard lock(mu_);
  expired_tokens_.merge(issued_tokens_);
  issued_tokens_.clear();
}

void ObjectStore::compact() {
  std::lock_guard lock(mu_);
  compacted_rv_ = rv_;
  for (auto& [path, c] : collections_) c.log.clear();
}

size_t ObjectStore::watchers(const std::string& collection) const {
  std::lock_guard lock(mu_);
  return static_cast<size_t>(std::count_if(watches_.begin(), watches_.end(), [&](const auto& w) {
    return w->collection == collection;
  }));
}

uint64_t ObjectStore::resource_version() const {
  std::lock_guard lock(mu_);
  return rv_;
}

size_t ObjectStore::cache_lists() const {
  std::lock_guard lock(mu_);
  return cache_lists_;
}

size_t ObjectStore::watch_lists() const {
  std::lock_guard lock(mu_);
  return watch_lists_;
}

}  // namespace loadshift::testing

// The fake API server's reads: discovery, GET of one object, lists (paged, streamed) and watch
// streams.
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "model/protobuf_decode.h"
#include "test/kube/fake_api_impl.h"
#include "test/kube/fake_api_protobuf.h"
#include "test/kube/fake_api_responses.h"

namespace loadshift::testing {
namespace fake {

int find_socket(int local_port, int remote_port) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int found = -1;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0') continue;
    sockaddr_storage local{}, peer{};
    socklen_t local_len = sizeof local, peer_len = sizeof peer;
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
        getpeername(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&peer), &peer_len) != 0 ||
        local.ss_family != AF_INET || peer.ss_family != AF_INET) {
      continue;
    }
    if (ntohs(reinterpret_cast<sockaddr_in&>(local).sin_port) == local_port &&
        ntohs(reinterpret_cast<sockaddr_in&>(peer).sin_port) == remote_port) {
      found = static_cast<int>(fd);
      break;
    }
  }
  closedir(dir);
  return found;
}

namespace {

constexpr int kDefaultWatchTimeoutSeconds = 30;

// Has the client gone away (a watch stream then ends)?
bool peer_has_closed(int fd) {
  if (fd < 0) return false;
  pollfd p{fd, POLLRDHUP, 0};
  return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

}  // namespace
}  // namespace fake

using namespace fake;

void FakeApiServer::Impl::serve_get(httplib::Response& res, const FakeResource& r,
                                    const ResourcePath& p) {
  if (auto object = store.get(r, p.ns, p.name)) {
    json_answer(res, 200, *object);
  } else {
    json_answer(res, 404, not_found_body(r.resource, r.group, p.name));
  }
}

const std::string& FakeApiServer::Impl::protobuf_item(const ObjectPtr& object,
                                                      const FakeResource& r) {
  std::lock_guard lock(protobuf_mu);
  auto [it, added] = protobuf_items.try_emplace(object.get());
  if (added) {
    it->second.first = object;
    it->second.second = encode_protobuf_object(nlohmann::json::parse(object->item), r.kind);
  }
  return it->second.second;
}

void FakeApiServer::Impl::serve_list(const httplib::Request& req, httplib::Response& res,
                                     const FakeResource& r, const ResourcePath& p) {
  ListQuery q;
  q.ns = r.namespaced ? p.ns : "";
  if (req.has_param("limit"))
    q.limit = static_cast<size_t>(parse_rv(req.get_param_value("limit")).value_or(0));
  q.continue_token = req.get_param_value("continue");
  q.resource_version = parse_rv(req.get_param_value("resourceVersion"));
  q.exact = req.get_param_value("resourceVersionMatch") == "Exact";
  q.not_older_than = req.get_param_value("resourceVersionMatch") == "NotOlderThan";
  // The parameter rules of the real server's validation.
  const std::string match = req.get_param_value("resourceVersionMatch");
  const std::string version = req.get_param_value("resourceVersion");
  std::string invalid;
  if (!match.empty() && version.empty()) {
    invalid = "resourceVersionMatch is forbidden unless resourceVersion is provided";
  } else if (!match.empty() && match != "Exact" && match != "NotOlderThan") {
    invalid = "resourceVersionMatch: Unsupported value: \"" + match + "\"";
  } else if (match == "Exact" && version == "0") {
    invalid = "resourceVersionMatch \"Exact\" is forbidden for resourceVersion \"0\"";
  } else if (!q.continue_token.empty() && ((!version.empty() && version != "0") || !match.empty())) {
    // (resourceVersion=0 beside continue is accepted, as the real server accepts it.)
    invalid = "specifying resource version is not allowed when using continue";
  }
  if (!invalid.empty()) {
    json_answer(res, 400, status_body(400, "BadRequest", invalid));
    return;
  }
  const bool protobuf = options.protobuf && protobuf_kind(r.group_version(), r.kind) &&
                        prefers_protobuf(req.get_header_value("Accept"));
  ListAnswer answer = store.list(r, q);
  if (protobuf) ++protobuf_lists;
  if (answer.status != 200) {
    if (protobuf) {
      common_headers(res, answer.status);
      res.set_content(protobuf_status(nlohmann::json::parse(answer.error_body)),
                      std::string(model::kProtobufContentType));
      return;
    }
    json_answer(res, answer.status, answer.error_body);
    return;
  }
  common_headers(res, 200);
  if (protobuf) {
    std::vector<const std::string*> items;
    items.reserve(answer.items.size());
    for (const ObjectPtr& object : answer.items) items.push_back(&protobuf_item(object, r));
    std::optional<int64_t> remaining;
    if (!answer.continue_token.empty()) remaining = static_cast<int64_t>(answer.remaining);
    auto body = std::make_shared<std::string>(
        protobuf_envelope(r.group_version(), r.kind + "List",
                          protobuf_list_raw(std::to_string(answer.resource_version),
                                            answer.continue_token, remaining, items)));
    // Sent in batches as the JSON is, so a client decodes it as it arrives.
    res.set_chunked_content_provider(std::string(model::kProtobufContentType),
                                     [body](size_t offset, httplib::DataSink& sink) {
                                       if (offset >= body->size()) {
                                         sink.done();
                                         return true;
                                       }
                                       size_t n = std::min(kWriteBatch, body->size() - offset);
                                       return sink.write(body->data() + offset, n);
                                     });
    return;
  }
  if (answer.body_size() <= kChunkedAbove) {
    std::string body = answer.head;
    for (size_t i = 0; i < answer.items.size(); ++i) {
      if (i) body += ',';
      body += answer.items[i]->item;
    }
    body += answer.tail;
    res.set_content(body, "application/json");
    return;
  }
  // Streamed in batches of ~64 KB, built from the serialized items (no document in memory).
  struct Cursor {
    ListAnswer answer;
    size_t next = 0;
    bool head_sent = false, tail_sent = false;
  };
  auto cursor = std::make_shared<Cursor>(Cursor{std::move(answer)});
  res.set_chunked_content_provider("application/json", [cursor](size_t, httplib::DataSink& sink) {
    if (cursor->tail_sent) {
      sink.done();
      return true;
    }
    std::string batch;
    if (!cursor->head_sent) {
      batch = cursor->answer.head;
      cursor->head_sent = true;
    }
    auto& items = cursor->answer.items;
    while (cursor->next < items.size() && batch.size() < kWriteBatch) {
      if (cursor->next) batch += ',';
      batch += items[cursor->next++]->item;
    }
    if (cursor->next == items.size()) {
      batch += cursor->answer.tail;
      cursor->tail_sent = true;
    }
    return sink.write(batch.data(), batch.size());
  });
}

void FakeApiServer::Impl::serve_watch(const httplib::Request& req, httplib::Response& res,
                                      const FakeResource& r, const ResourcePath& p,
                                      bool cut_after_start, int fd) {
  std::optional<uint64_t> rv = parse_rv(req.get_param_value("resourceVersion"));
  const std::string bookmarks = req.get_param_value("allowWatchBookmarks");
  int timeout = kDefaultWatchTimeoutSeconds;
  if (req.has_param("timeoutSeconds")) {
    timeout = static_cast<int>(
        parse_rv(req.get_param_value("timeoutSeconds")).value_or(kDefaultWatchTimeoutSeconds));
  }
  // The watch options' validation of the real server (v1.27+; v1.26 forbids resourceVersionMatch
  // on every watch, with the same 422).
  const bool dropped = options.drop_watch_list_options;
  const bool send_initial_events = !dropped && req.get_param_value("sendInitialEvents") == "true";
  const bool bookmarks_on = bookmarks == "true" || bookmarks == "1";
  const std::string match = dropped ? "" : req.get_param_value("resourceVersionMatch");
  std::string invalid;
  if (!match.empty() && !req.has_param("sendInitialEvents")) {
    invalid =
        "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless "
        "sendInitialEvents is provided";
  } else if (send_initial_events && match != "NotOlderThan") {
    invalid =
        "resourceVersionMatch: Forbidden: sendInitialEvents requires setting "
        "resourceVersionMatch to NotOlderThan";
  } else if (send_initial_events && !options.watch_list) {
    invalid =
        "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the "
        "WatchList feature gate is enabled";
  } else if (send_initial_events && !bookmarks_on) {
    invalid =
        "allowWatchBookmarks: Forbidden: sendInitialEvents requires setting "
        "allowWatchBookmarks to true";
  }
  if (!invalid.empty()) {
    json_answer(res, 422,
                status_body(422, "Invalid", "ListOptions.meta.k8s.io \"\" is invalid: " + invalid));
    return;
  }
  auto watch = store.open_watch(r, r.namespaced ? p.ns : "", rv, bookmarks_on, send_initial_events);
  if (cut_after_start) watch->cut_after_queued = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
  common_headers(res, 200);
  ObjectStore* store_ptr = &store;
  // Pods and Nodes in protobuf when asked for: each event line becomes a WatchEvent frame.
  const bool protobuf = options.protobuf && protobuf_kind(r.group_version(), r.kind) &&
                        prefers_protobuf(req.get_header_value("Accept"));
  if (protobuf) ++protobuf_watches;
  res.set_chunked_content_provider(
      protobuf ? std::string(kProtobufWatchContentType) : std::string("application/json"),
      [this, store_ptr, watch, deadline, fd, protobuf, r](size_t, httplib::DataSink& sink) {
        QueuedEvent event;
        switch (store_ptr->next_event(
            *watch, deadline, [fd] { return peer_has_closed(fd); }, event)) {
          case ObjectStore::Next::kEvent:
            if (protobuf && event.unreadable) {
              const std::string& bytes = *event.line;  // a frame of them, the newline left out
              const std::string frame = protobuf_frame(bytes.substr(0, bytes.size() - 1));
              return sink.write(frame.data(), frame.size());
            }
            if (protobuf) {
              // A stored object's encoding is made once (as for lists); the rest from its line.
              const std::string frame =
                  event.object ? protobuf_watch_frame_of(
                                     event.type, protobuf_envelope(r.group_version(), r.kind,
                                                                   protobuf_item(event.object, r)))
                               : protobuf_watch_frame(*event.line, r.group_version(), r.kind);
              return sink.write(frame.data(), frame.size());
            }
            return sink.write(event.line->data(), event.line->size());
          case ObjectStore::Next::kEnd:
            sink.done();
            return true;
          case ObjectStore::Next::kCut:
            if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
            return false;
        }
        return false;
      },
      [store_ptr, watch](bool) { store_ptr->close_watch(watch); });
}

void FakeApiServer::Impl::discovery(const std::string& path, httplib::Response& res) {
  const std::string address = json_string("127.0.0.1:" + std::to_string(port));
  if (path == "/api") {
    json_answer(
        res, 200,
        R"({"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":)" +
            address + "}]}\n");
    return;
  }
  const auto resources = store.resources();
  if (path == "/apis") {
    std::vector<std::pair<std::string, std::vector<std::string>>> groups = builtin_groups();
    for (const auto& r : resources) {
      if (!r.custom) continue;
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const auto& e) { return e.first == r.group; });
      if (g == groups.end()) {
        groups.push_back({r.group, {r.version}});
      } else if (std::find(g->second.begin(), g->second.end(), r.version) == g->second.end()) {
        g->second.push_back(r.version);
      }
    }
    std::string body = R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)";
    bool first_group = true;
    for (const auto& [group, versions] : groups) {
      std::vector<std::string> live;
      for (const auto& v : versions) {
        if (is_installed(group + "/" + v)) live.push_back(v);
      }
      if (live.empty()) continue;
      body += (first_group ? "" : ",") + std::string(R"({"name":)") + json_string(group) +
              R"(,"versions":[)";
      first_group = false;
      for (size_t i = 0; i < live.size(); ++i) {
        body += (i ? "," : "") + std::string(R"({"groupVersion":)") +
                json_string(group + "/" + live[i]) + R"(,"version":)" + json_string(live[i]) + "}";
      }
      body += R"(],"preferredVersion":{"groupVersion":)" + json_string(group + "/" + live[0]) +
              R"(,"version":)" + json_string(live[0]) + "}}";
    }
    json_answer(res, 200, body + "]}\n");
    return;
  }
  auto p = parse_resource_path(path);  // /api/v1 or /apis/G/V
  const std::string gv = p->group_version();
  std::string body = R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":)" +
                     json_string(gv) + R"(,"resources":[)";
  bool first = true;
  for (const auto& r : resources) {
    if (r.group_version() != gv) continue;
    const std::string singular = r.custom ? json_string(lower(r.kind)) : R"("")";
    const std::string verbs =
        r.custom
            ? R"(["delete","deletecollection","get","list","patch","create","update","watch"])"
            : R"(["create","delete","deletecollection","get","list","patch","update","watch"])";
    body +=
        (first ? "" : ",") + std::string(R"({"name":)") + json_string(r.resource) +
        R"(,"singularName":)" + singular + R"(,"namespaced":)" + (r.namespaced ? "true" : "false") +
        R"(,"kind":)" + json_string(r.kind) + R"(,"verbs":)" + verbs +
        (r.short_name.empty() ? "" : R"(,"shortNames":[)" + json_string(r.short_name) + "]") + "}";
    first = false;
    body += R"(,{"name":)" + json_string(r.resource + "/status") +
            R"(,"singularName":"","namespaced":)" + (r.namespaced ? "true" : "false") +
            R"(,"kind":)" + json_string(r.kind) + R"(,"verbs":["get","patch","update"]})";
  }
  json_answer(res, 200, body + "]}\n");
}

}  // namespace loadshift::testing

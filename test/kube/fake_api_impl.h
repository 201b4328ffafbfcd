// The fake API server's insides, shared by its .cc files: fake_api_server.cc (start, stop,
// authentication, authorization, dispatch, discovery), fake_api_reads.cc (get, list, watch),
// fake_api_writes.cc (create, update, JSON patch) and fake_api_eviction.cc (the eviction
// subresource).
#pragma once

#include <atomic>
#include <unordered_map>

#include <httplib.h>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test/kube/fake_api_server.h"
#include "test/kube/fake_api_store.h"
#include "test/kube/fake_api_tls.h"

namespace loadshift::testing {
namespace fake {

inline constexpr size_t kChunkedAbove = 2048;  // Go's net/http buffers 2 KB before it goes chunked
inline constexpr size_t kWriteBatch = 64 * 1024;  // bytes per write of a chunked answer

// A failure injected by fail_next / drop_next.
struct Injection {
  std::string prefix;
  bool drop = false;
  int status = 0;
  int times = 1;
  std::optional<int> retry_after;
};

// Who sent a request.
struct Identity {
  std::string user;
  bool admin = false;  // "admin" or group system:masters: may do anything
};

// Every answer's headers: status, Cache-Control, Date, and (apf) the API Priority and Fairness
// ones.
void common_headers(httplib::Response& res, int status, bool apf = true);
// A JSON body, chunked when over 2 KB like the real server, else with Content-Length; a 403 also
// carries X-Content-Type-Options: nosniff.
void json_answer(httplib::Response& res, int status, std::string body, bool apf = true);
// 404 text/plain "404 page not found", the answer for paths the server does not serve.
void not_found_page(httplib::Response& res);
// 405 MethodNotAllowed Status for a method the resource does not take.
void method_not_allowed(httplib::Response& res, const FakeResource& r, const std::string& name);

std::string lower(std::string s);
std::optional<uint64_t> parse_rv(const std::string& text);  // nullopt unless all digits
// The socket of a connection, found by its two ports (httplib does not hand it to handlers); -1.
int find_socket(int local_port, int remote_port);

}  // namespace fake

struct FakeApiServer::Impl {
  FakeApiServerOptions options;  // tokens and rules are copied below and changed there
  TestPki pki;
  std::filesystem::path dir;
  std::string ca_pem;
  std::unique_ptr<httplib::Server> server;
  std::thread thread;
  int port = 0;
  ObjectStore store;

  mutable std::mutex mu;  // requests, injections, installed, tokens, rules
  std::vector<RecordedRequest> requests;
  std::deque<fake::Injection> injections;
  std::map<std::string, bool> installed;  // group/version -> installed
  std::map<std::string, std::string> tokens;
  std::map<std::string, std::vector<FakeRbacRule>> rules;
  // Held by every write handler: its reads and writes of the store are one step against the other
  // writes (an eviction's PDB check and decrement, an update's resourceVersion check).
  std::mutex write_mu;
  // Each stored Pod's and Node's protobuf bytes, made at its first protobuf list (the object
  // kept beside them, so its address is not reused).
  std::mutex protobuf_mu;
  std::atomic<size_t> protobuf_lists{0};
  std::atomic<size_t> protobuf_watches{0};
  std::unordered_map<const StoredObject*, std::pair<ObjectPtr, std::string>> protobuf_items;

  // The protobuf message bytes of a stored Pod or Node.
  const std::string& protobuf_item(const ObjectPtr& object, const FakeResource& r);

  // Records the request, answers it (dispatch) and records the status answered.
  void handle(const httplib::Request& req, httplib::Response& res);
  // Returns false when the connection was dropped without an answer.
  bool dispatch(const httplib::Request& req, httplib::Response& res, int fd);
  bool is_installed(const std::string& gv);
  std::optional<fake::Injection> take_injection(const std::string& path);
  std::optional<fake::Identity> authenticate(const httplib::Request& req);
  // RBAC: may the user `verb` the resource (subresource of p) in p.ns, named p.name?
  bool authorize(const fake::Identity& id, const std::string& verb, const FakeResource& r,
                 const ResourcePath& p);
  void discovery(const std::string& path, httplib::Response& res);

  // fake_api_reads.cc
  void serve_get(httplib::Response& res, const FakeResource& r, const ResourcePath& p);
  void serve_list(const httplib::Request& req, httplib::Response& res, const FakeResource& r,
                  const ResourcePath& p);
  void serve_watch(const httplib::Request& req, httplib::Response& res, const FakeResource& r,
                   const ResourcePath& p, bool cut_after_start, int fd);
  // fake_api_writes.cc
  void serve_create(const httplib::Request& req, httplib::Response& res, const FakeResource& r,
                    const ResourcePath& p);
  void serve_update(const httplib::Request& req, httplib::Response& res, const FakeResource& r,
                    const ResourcePath& p);
  void serve_patch(const httplib::Request& req, httplib::Response& res, const FakeResource& r,
                   const ResourcePath& p);
  // fake_api_eviction.cc
  void serve_eviction(const httplib::Request& req, httplib::Response& res, const ResourcePath& p);
};

}  // namespace loadshift::testing

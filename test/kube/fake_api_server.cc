#include "test/kube/fake_api_server.h"

#include "test/kube/fake_api_protobuf.h"

#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <httplib.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "test/kube/fake_api_impl.h"
#include "test/kube/fake_api_responses.h"

namespace loadshift::testing {
namespace fake {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<uint64_t> parse_rv(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    size_t used = 0;
    uint64_t v = std::stoull(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::string verb_of(const httplib::Request& req, const ResourcePath& p) {
  const bool watch = req.get_param_value("watch") == "1" || req.get_param_value("watch") == "true";
  if (req.method == "GET") return p.name.empty() ? (watch ? "watch" : "list") : "get";
  if (req.method == "POST") return "create";
  if (req.method == "PUT") return "update";
  if (req.method == "PATCH") return "patch";
  if (req.method == "DELETE") return p.name.empty() ? "deletecollection" : "delete";
  return lower(req.method);
}

void common_headers(httplib::Response& res, int status, bool apf) {
  res.status = status;
  res.set_header("Cache-Control", "no-cache, private");
  res.set_header("Date", http_date());
  if (apf) {
    res.set_header("X-Kubernetes-Pf-Flowschema-Uid", "374f45b5-acd7-47af-93a7-2685609f2170");
    res.set_header("X-Kubernetes-Pf-Prioritylevel-Uid", "5fef2f10-8e93-43b3-b1b0-d0f5504a188a");
  }
}

// A JSON body, chunked when over 2 KB like the real server, else with Content-Length.
void json_answer(httplib::Response& res, int status, std::string body, bool apf) {
  common_headers(res, status, apf);
  if (status == 403) res.set_header("X-Content-Type-Options", "nosniff");
  if (body.size() <= kChunkedAbove) {
    res.set_content(body, "application/json");
    return;
  }
  auto shared = std::make_shared<std::string>(std::move(body));
  res.set_chunked_content_provider(
      "application/json", [shared](size_t offset, httplib::DataSink& sink) {
        if (offset >= shared->size()) {
          sink.done();
          return true;
        }
        const size_t n = std::min(kWriteBatch, shared->size() - offset);
        return sink.write(shared->data() + offset, n);
      });
}

void not_found_page(httplib::Response& res) {
  common_headers(res, 404);
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content("404 page not found\n", "text/plain; charset=utf-8");
}

void method_not_allowed(httplib::Response& res, const FakeResource& r, const std::string& name) {
  json_answer(res, 405,
              status_body(405, "MethodNotAllowed",
                          "the server does not allow this method on the requested resource",
                          details_json(name, r.group, r.resource)));
}

// Does one of the rule's entries match the request's (or a "*")?
bool rule_lists(const std::vector<std::string>& entries, const std::string& wanted) {
  for (const auto& e : entries) {
    if (e == "*" || e == wanted) return true;
  }
  return false;
}

}  // namespace fake

using namespace fake;

std::optional<Identity> FakeApiServer::Impl::authenticate(const httplib::Request& req) {
  if (req.ssl != nullptr) {
    X509* peer = SSL_get1_peer_certificate(req.ssl);
    if (peer != nullptr) {
      Identity id;
      bool ok = SSL_get_verify_result(req.ssl) == X509_V_OK;
      X509_NAME* subject = X509_get_subject_name(peer);
      char buf[256];
      if (ok && X509_NAME_get_text_by_NID(subject, NID_commonName, buf, sizeof buf) > 0)
        id.user = buf;
      for (int i = -1;
           ok && (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
        ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i));
        std::string org(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                        static_cast<size_t>(ASN1_STRING_length(data)));
        if (org == "system:masters") id.admin = true;
      }
      X509_free(peer);
      if (ok && !id.user.empty()) {
        id.admin = id.admin || id.user == "admin";
        return id;
      }
    }
  }
  const std::string auth = req.get_header_value("Authorization");
  if (!auth.starts_with("Bearer ")) return std::nullopt;
  std::lock_guard lock(mu);
  auto it = tokens.find(auth.substr(7));
  if (it == tokens.end()) return std::nullopt;
  return Identity{it->second, it->second == "admin"};
}

bool FakeApiServer::Impl::authorize(const Identity& id, const std::string& verb,
                                    const FakeResource& r, const ResourcePath& p) {
  if (id.admin) return true;
  const std::string resource =
      p.subresource.empty() ? r.resource : r.resource + "/" + p.subresource;
  std::lock_guard lock(mu);
  auto found = rules.find(id.user);
  if (found == rules.end()) {  // the default: the recorded "tester", bound to pod-reader
    return resource == "pods" && r.group.empty() &&
           (verb == "get" || verb == "list" || verb == "watch");
  }
  for (const auto& rule : found->second) {
    if (!rule_lists(rule.verbs, verb) || !rule_lists(rule.resources, resource)) continue;
    if (!rule.api_groups.empty() && !rule_lists(rule.api_groups, r.group)) continue;
    if (!rule.namespace_.empty() && (!r.namespaced || rule.namespace_ != p.ns)) continue;
    if (!rule.resource_names.empty() &&
        (p.name.empty() || !rule_lists(rule.resource_names, p.name)))
      continue;
    return true;
  }
  return false;
}

bool FakeApiServer::Impl::is_installed(const std::string& gv) {
  std::lock_guard lock(mu);
  auto it = installed.find(gv);
  return it != installed.end() && it->second;
}

std::optional<Injection> FakeApiServer::Impl::take_injection(const std::string& path) {
  std::lock_guard lock(mu);
  for (auto it = injections.begin(); it != injections.end(); ++it) {
    if (!path.starts_with(it->prefix)) continue;
    Injection out = *it;
    if (--it->times <= 0) injections.erase(it);
    return out;
  }
  return std::nullopt;
}

void FakeApiServer::Impl::handle(const httplib::Request& req, httplib::Response& res) {
  size_t index = 0;
  {
    RecordedRequest rec{req.method, req.path, "", req.body, {}};
    if (auto q = req.target.find('?'); q != std::string::npos) rec.query = req.target.substr(q + 1);
    for (const auto& [name, value] : req.headers) {
      if (name != "REMOTE_ADDR" && name != "REMOTE_PORT" && name != "LOCAL_ADDR" &&
          name != "LOCAL_PORT") {
        rec.headers[lower(name)] = value;
      }
    }
    std::lock_guard lock(mu);
    index = requests.size();
    requests.push_back(std::move(rec));
  }
  const bool answered = dispatch(req, res, find_socket(port, req.remote_port));
  std::lock_guard lock(mu);
  requests[index].status = answered ? res.status : 0;
}

bool FakeApiServer::Impl::dispatch(const httplib::Request& req, httplib::Response& res, int fd) {
  const auto parsed = parse_resource_path(req.path);
  const bool watch = req.get_param_value("watch") == "1" || req.get_param_value("watch") == "true";
  const bool collection_get =
      req.method == "GET" && parsed && !parsed->resource.empty() && parsed->name.empty();
  bool cut_after_start = false;
  std::optional<Identity> id;
  if (auto injection = take_injection(req.path)) {
    if (injection->drop) {
      if (!(watch && collection_get)) {
        if (fd >= 0) ::shutdown(fd, SHUT_RDWR);  // httplib's answer then goes nowhere
        res.status = 500;
        return false;
      }
      cut_after_start = true;
    } else if (injection->status == 403) {
      id = authenticate(req);
      ResourcePath p = parsed.value_or(ResourcePath{});
      json_answer(res, 403,
                  forbidden_body(id ? id->user : "system:anonymous", verb_of(req, p),
                                 p.resource.empty() ? req.path : p.resource, p.subresource, p.group,
                                 p.ns, p.name));
      return true;
    } else {
      json_answer(res, injection->status,
                  injected_status_body(injection->status, injection->retry_after),
                  injection->status != 401);
      if (injection->status == 429 && injection->retry_after) {
        res.set_header("Retry-After", std::to_string(*injection->retry_after));
      }
      return true;
    }
  }
  id = authenticate(req);
  if (!id) {
    json_answer(res, 401, status_body(401, "Unauthorized", "Unauthorized"), false);
    return true;
  }
  if (req.path == "/version") {
    common_headers(res, 200);
    res.set_content(
        "{\n  \"major\": \"1\",\n  \"minor\": \"26\",\n  \"gitVersion\": \"v1.26.3\",\n  "
        "\"gitCommit\": "
        "\"9e644106593f3f4aa98f8a84b23db5fa378900bd\",\n  \"gitTreeState\": \"clean\",\n  "
        "\"buildDate\": "
        "\"2023-03-15T13:33:11Z\",\n  \"goVersion\": \"go1.19.8\",\n  \"compiler\": \"gc\",\n  "
        "\"platform\": "
        "\"linux/amd64\"\n}",
        "application/json");
    return true;
  }
  if (req.path == "/api" || req.path == "/apis" || req.path == "/api/" || req.path == "/apis/") {
    discovery(req.path.substr(0, req.path.find_last_not_of('/') + 1), res);
    return true;
  }
  if (!parsed || !is_installed(parsed->group_version())) {
    not_found_page(res);
    return true;
  }
  if (parsed->resource.empty()) {
    if (req.method == "GET") {
      discovery(req.path, res);
    } else {
      not_found_page(res);
    }
    return true;
  }
  const FakeResource* r = store.find_resource(parsed->group, parsed->version, parsed->resource);
  if (r == nullptr || (!r->namespaced && !parsed->ns.empty())) {
    not_found_page(res);
    return true;
  }
  const std::string verb = verb_of(req, *parsed);
  if (!authorize(*id, verb, *r, *parsed)) {
    json_answer(res, 403,
                forbidden_body(id->user, verb, r->resource, parsed->subresource, r->group,
                               r->namespaced ? parsed->ns : "", parsed->name));
    return true;
  }
  if (req.method == "GET" && parsed->name.empty()) {
    if (watch) {
      serve_watch(req, res, *r, *parsed, cut_after_start, fd);
    } else {
      serve_list(req, res, *r, *parsed);
    }
  } else if (req.method == "GET" && parsed->subresource.empty()) {
    serve_get(res, *r, *parsed);
  } else if (req.method == "POST" && r->resource == "pods" && r->group.empty() &&
             parsed->subresource == "eviction") {
    serve_eviction(req, res, *parsed);
  } else if (req.method == "POST" && parsed->name.empty() &&
             (!r->namespaced || !parsed->ns.empty())) {
    serve_create(req, res, *r, *parsed);
  } else if (req.method == "PUT" && !parsed->name.empty() && parsed->subresource.empty()) {
    serve_update(req, res, *r, *parsed);
  } else if (req.method == "PATCH" && !parsed->name.empty() && parsed->subresource.empty()) {
    serve_patch(req, res, *r, *parsed);
  } else {
    method_not_allowed(res, *r, parsed->name);
  }
  return true;
}

FakeApiServer::FakeApiServer(FakeApiServerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.options = std::move(options);
  s.tokens = s.options.tokens;
  s.rules = s.options.rules;
  s.pki = make_test_pki("cert-user", "system:masters");
  s.ca_pem = s.pki.ca.cert_pem();
  char tmpl[] = "/tmp/loadshift-fake-apiserver-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) throw std::runtime_error("fake API server: mkdtemp failed");
  s.dir = tmpl;
  auto write = [&](const char* name, const std::string& text) {
    std::ofstream(s.dir / name) << text;
  };
  write("ca.crt", s.ca_pem);
  write("client.crt", s.pki.client.cert_pem());
  write("client.key", s.pki.client.key_pem());
  for (const auto& r : known_resources()) s.installed[r.group_version()] = true;
  s.installed["v1"] = true;
  for (const auto& [group, versions] : builtin_groups()) {
    for (const auto& v : versions) s.installed[group + "/" + v] = true;
  }

  if (s.options.tls) {
    s.server = std::make_unique<httplib::SSLServer>([&s](SSL_CTX& ctx) {
      if (SSL_CTX_use_certificate(&ctx, s.pki.server.cert.get()) != 1 ||
          SSL_CTX_use_PrivateKey(&ctx, s.pki.server.key.get()) != 1) {
        return false;
      }
      X509_STORE* trusted = X509_STORE_new();
      X509_STORE_add_cert(trusted, s.pki.ca.cert.get());
      SSL_CTX_set_cert_store(&ctx, trusted);
      // Like the apiserver: a client certificate is asked for, verified when given.
      SSL_CTX_set_verify(
          &ctx,
          SSL_VERIFY_PEER | (s.options.require_client_cert ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0),
          nullptr);
      return true;
    });
  } else {
    s.server = std::make_unique<httplib::Server>();
  }
  if (!s.server->is_valid()) throw std::runtime_error("fake API server: TLS setup failed");
  s.server->new_task_queue = [] { return new httplib::ThreadPool(24); };
  s.server->set_keep_alive_max_count(1000);
  s.server->set_tcp_nodelay(true);
  auto handler = [&s](const httplib::Request& req, httplib::Response& res) { s.handle(req, res); };
  s.server->Get(".*", handler);
  s.server->Post(".*", handler);
  s.server->Put(".*", handler);
  s.server->Patch(".*", handler);
  s.server->Delete(".*", handler);
  s.port = s.server->bind_to_any_port("127.0.0.1");
  if (s.port <= 0) throw std::runtime_error("fake API server: cannot listen on 127.0.0.1");
  s.thread = std::thread([&s] { s.server->listen_after_bind(); });
  while (!s.server->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeApiServer::~FakeApiServer() {
  impl_->store.shutdown();
  impl_->server->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  std::error_code ignored;
  std::filesystem::remove_all(impl_->dir, ignored);
}

std::string FakeApiServer::url() const {
  return std::string(impl_->options.tls ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(impl_->port);
}
int FakeApiServer::port() const {
  return impl_->port;
}
std::string FakeApiServer::ca_file() const {
  return (impl_->dir / "ca.crt").string();
}
std::string FakeApiServer::ca_pem() const {
  return impl_->ca_pem;
}
std::string FakeApiServer::client_cert_file() const {
  return (impl_->dir / "client.crt").string();
}
std::string FakeApiServer::client_key_file() const {
  return (impl_->dir / "client.key").string();
}

void FakeApiServer::set_objects(const std::string& collection,
                                std::vector<nlohmann::json> objects) {
  impl_->store.set_objects(collection, std::move(objects));
}
void FakeApiServer::set_objects_serialized(const std::string& collection,
                                           const std::vector<std::string>& objects) {
  impl_->store.set_objects_serialized(collection, objects);
}
void FakeApiServer::encode_protobuf_ahead() {
  for (const FakeResource& r : impl_->store.resources()) {
    if (!protobuf_kind(r.group_version(), r.kind)) continue;
    for (const ObjectPtr& object : impl_->store.list(r, ListQuery{}).items) {
      impl_->protobuf_item(object, r);
    }
  }
}
void FakeApiServer::upsert(const std::string& collection, nlohmann::json object) {
  impl_->store.upsert(collection, std::move(object));
}
bool FakeApiServer::remove(const std::string& collection, const std::string& ns,
                           const std::string& name) {
  return impl_->store.remove(collection, ns, name);
}
void FakeApiServer::set_group_version_installed(const std::string& group_version, bool installed) {
  std::lock_guard lock(impl_->mu);
  impl_->installed[group_version] = installed;
}
void FakeApiServer::fail_next(const std::string& path_prefix, int status, int times,
                              std::optional<int> retry_after_seconds) {
  std::lock_guard lock(impl_->mu);
  impl_->injections.push_back(Injection{path_prefix, false, status, times, retry_after_seconds});
}
void FakeApiServer::drop_next(const std::string& path_prefix, int times) {
  std::lock_guard lock(impl_->mu);
  impl_->injections.push_back(Injection{path_prefix, true, 0, times, std::nullopt});
}
void FakeApiServer::drop_watches(const std::string& collection) {
  impl_->store.cut_watches(collection);
}
void FakeApiServer::expire_continue_tokens() {
  impl_->store.expire_continue_tokens();
}
void FakeApiServer::compact() {
  impl_->store.compact();
}
void FakeApiServer::send_bookmark(const std::string& collection) {
  impl_->store.send_bookmark(collection);
}
void FakeApiServer::send_unreadable_event(const std::string& collection, const std::string& bytes) {
  impl_->store.send_unreadable_event(collection, bytes);
}
void FakeApiServer::set_token(const std::string& token, const std::string& user) {
  std::lock_guard lock(impl_->mu);
  impl_->tokens[token] = user;
}
void FakeApiServer::remove_token(const std::string& token) {
  std::lock_guard lock(impl_->mu);
  impl_->tokens.erase(token);
}
void FakeApiServer::set_rules(const std::string& user, std::vector<FakeRbacRule> rules) {
  std::lock_guard lock(impl_->mu);
  impl_->rules[user] = std::move(rules);
}
void FakeApiServer::clear_rules(const std::string& user) {
  std::lock_guard lock(impl_->mu);
  impl_->rules.erase(user);
}
std::vector<RecordedRequest> FakeApiServer::writes() const {
  std::lock_guard lock(impl_->mu);
  std::vector<RecordedRequest> out;
  for (const auto& r : impl_->requests) {
    if (r.method != "GET") out.push_back(r);
  }
  return out;
}
std::vector<nlohmann::json> FakeApiServer::objects(const std::string& collection) const {
  return impl_->store.objects(collection);
}
std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}
size_t FakeApiServer::watchers(const std::string& collection) const {
  return impl_->store.watchers(collection);
}
uint64_t FakeApiServer::resource_version() const {
  return impl_->store.resource_version();
}

size_t FakeApiServer::cache_lists() const {
  return impl_->store.cache_lists();
}
size_t FakeApiServer::protobuf_lists() const {
  return impl_->protobuf_lists.load();
}
size_t FakeApiServer::protobuf_watches() const {
  return impl_->protobuf_watches.load();
}
size_t FakeApiServer::watch_lists() const {
  return impl_->store.watch_lists();
}

}  // namespace loadshift::testing

// A fake Kubernetes API server for the tests: it answers with the shapes, status codes and headers
// of the recorded kube-apiserver v1.26.3 answers in ../shared/kube-api/ (see its README.md).
//
//   FakeApiServer server;                                   // https on 127.0.0.1, a free port
//   server.set_objects("/api/v1/pods", {pod_a, pod_b});
//   // point the client at server.url(), trusting server.ca_file(), with the token "admin-token"
//
// What it serves:
// - Discovery: GET /version, /api, /api/v1, /apis, /apis/<group>/<version> (installed group
//   versions only; a group/version that is not installed answers 404 text/plain "404 page not
//   found" for every path under it, discovery and lists alike).
// - Lists of every known collection (see fake_api_resources.cc), cluster-wide and, for namespaced
//   ones, per namespace (/api/v1/namespaces/NS/pods): items in namespace/name order, `limit` and
//   `continue` (tokens exactly like the real server's), `resourceVersion`,
//   `resourceVersionMatch=Exact`; pages at an older resourceVersion are served as they were at that
//   resourceVersion (a change log per collection, trimmed by compact()). `labelSelector` and
//   `fieldSelector` are IGNORED: every object in the collection/namespace is returned.
// - GET of one object (with kind and apiVersion), or the recorded 404 NotFound Status.
// - Watches (`watch=1` or `watch=true`) with `resourceVersion` (absent or "0": an ADDED event per
//   current object first; N: every change after N replayed), `allowWatchBookmarks`,
//   `timeoutSeconds` (default 30 s; the stream then ends with the zero-length chunk, no event).
//   Each event is one chunk holding one JSON line.
// - Evictions: POST /api/v1/namespaces/NS/pods/NAME/eviction with a policy/v1 or v1beta1 Eviction,
//   in the steps of the apiserver's EvictionREST: 400 when metadata.name is not NAME (27); 404 for
//   a missing pod (25); then, unless the pod is Succeeded/Failed/Pending or already terminating,
//   the namespace's PodDisruptionBudgets (/apis/policy/v1/poddisruptionbudgets) whose spec.selector
//   matches the pod's labels (matchLabels; matchExpressions In, NotIn, Exists, DoesNotExist; no
//   selector matches nothing, an empty one every pod): more than one is 500 "This pod has more
//   than one PodDisruptionBudget..."; with one, status.observedGeneration < metadata.generation is
//   429 "still being processed" (Retry-After 10), status.disruptionsAllowed < 0 is 403, 0 is the
//   429 of 24 (cause "The disruption budget NAME needs desiredHealthy healthy pods and has
//   currentHealthy currently"), else disruptionsAllowed - 1 and status.disruptedPods[pod] = now
//   are stored (MODIFIED to watchers). An unready pod (no Ready=True condition) while
//   currentHealthy >= desiredHealthy > 0 goes without a decrement. Then the delete:
//   deleteOptions.preconditions.uid / resourceVersion that differ are 409 Conflict ("...
//   Precondition failed: UID in precondition: X, UID in object meta: Y"); dry run (?dryRun=All or
//   deleteOptions.dryRun ["All"]) runs every check and changes nothing (20, 21); else the pod is
//   removed (DELETED), or with options.evicted_pods_terminate stays terminating (23). Success is
//   201 with a Status (22).
// - Create: POST to a collection (namespaced ones under /namespaces/NS) of any known resource:
//   201 with the object as stored (uid, resourceVersion, creationTimestamp; generateName gets five
//   characters); 409 AlreadyExists as 32; 400 when metadata.namespace is not the URL's. Events of
//   both APIs (33, 34) get their null fields (eventTime, deprecated*) added.
// - Update: PUT of one object: 400 when metadata.name is not the URL's; a stale
//   metadata.resourceVersion is 409 Conflict as 31; none is 422 for a Lease (unconditional for the
//   others); 200 with the new resourceVersion (30), uid and creationTimestamp kept. A PUT of a
//   missing Lease or Event creates it (201), as the apiserver does (AllowCreateOnUpdate); other
//   resources answer 404.
// - JSON Patch (RFC 6902, Content-Type application/json-patch+json): PATCH of one object, applied
//   as the apiserver's patch handler does: 400 for a body that is not a list of operations; 404
//   for a missing object; 422 Invalid "the server rejected our request due to an error in our
//   request" (the failure as its cause) when an operation fails (a `test` that does not hold, a
//   missing path); 409 Conflict when the patched metadata.resourceVersion is not the current one;
//   200 with the object and a new resourceVersion (uid, creationTimestamp, namespace kept). Merge,
//   strategic merge and apply patches answer 415 (the apiserver takes them; the fake does not).
// - DELETE, POST to a named object and other subresources: 405 MethodNotAllowed.
// Where it differs from the real server: no admission, validation or defaulting beyond the above;
// no managedFields; events.k8s.io/v1 and core v1 Events are two collections (the apiserver stores
// them once); an eviction writes the pod once (the apiserver writes the DisruptionTarget condition,
// then the delete: two events); no retries on PDB conflicts; no DisruptionAllowed condition update
// at 0; an empty PDB selector matches every pod (v1.29+ behaviour; v1.26.3 ignored such a PDB
// for evictions, fixed by kubernetes PR 119732); `dryRun` on create/update is ignored.
// Authentication: a bearer token (options.tokens; set_token / remove_token at run time), or a
// client certificate signed by the CA (the user is its CN, the groups its O). Missing or unknown
// credentials: 401 as recorded. Authorization: the user "admin" and members of group
// system:masters may do anything; a user with options.rules (or set_rules) may do what one of its
// rules allows (verbs, resources with subresources such as "pods/eviction", api groups, namespace,
// resource names); any other user may only get/list/watch pods. Discovery is open to everyone.
// Anything else is 403 in the recorded format (36, 37).
// Every answer: compact JSON + "\n", Content-Type application/json, Cache-Control "no-cache,
// private", Date, the API Priority and Fairness headers (not on 401). Answers over 2 KB go chunked,
// smaller ones carry Content-Length, like Go's net/http.
//
// Thread-safe: the test thread may change objects while the server answers. Not copyable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace loadshift::testing {

// One rule of a user's permissions, like a rule of a (Cluster)Role bound to that user.
struct FakeRbacRule {
  std::vector<std::string>
      verbs;  // "get", "list", "watch", "create", "update", "patch", "delete", "*"
  std::vector<std::string>
      resources;  // "pods", "pods/eviction", "leases", "events", "*" (every one, subresources too)
  std::vector<std::string> api_groups;  // "", "coordination.k8s.io", "*"; empty: any group
  std::string namespace_;  // "": every namespace and cluster-scoped resources (a ClusterRole)
  std::vector<std::string>
      resource_names;  // empty: every object; else only these names (never a list or a create)
};

struct FakeApiServerOptions {
  // https with a CA generated at start (EC P-256 keys, a CA cert, a server cert for 127.0.0.1 and
  // "localhost" as subjectAltNames); false: plain http.
  bool tls = true;
  // bearer token -> user name. The user "admin" may do anything.
  std::map<std::string, std::string> tokens = {{"admin-token", "admin"}};
  // mTLS: the TLS handshake fails without a client certificate signed by the CA. (Without this
  // option a client certificate is still accepted, as by the real server, but not required.)
  bool require_client_cert = false;
  // user name -> the rules that user is granted (nothing else). A user not in this map (and not
  // admin / system:masters) may get, list and watch pods, nothing else (the recorded "tester").
  std::map<std::string, std::vector<FakeRbacRule>> rules;
  // false (default): an evicted pod is removed at once (watchers see DELETED). true: it stays
  // terminating, as with a real kubelet: deletionTimestamp (now + grace period),
  // deletionGracePeriodSeconds, the DisruptionTarget condition (MODIFIED to watchers), until the
  // test calls remove(). A grace period of 0, an unscheduled pod or a Succeeded/Failed one is
  // removed at once either way, like the real server.
  bool evicted_pods_terminate = false;
  // true: watches take sendInitialEvents=true (the streaming watch-list, beta and on by default
  // since v1.32): ADDED for every object, then a BOOKMARK annotated k8s.io/initial-events-end.
  // false (default): refused with 422 Invalid, as a v1.27-v1.31 server without the WatchList
  // feature gate refuses it (v1.26 refuses resourceVersionMatch on a watch the same way).
  bool watch_list = false;
  // true: the watch options sendInitialEvents and resourceVersionMatch are dropped unread, as by
  // a proxy that does not know them: a plain watch is served (for an empty resourceVersion, ADDED
  // per object and no bookmark that ends them).
  bool drop_watch_list_options = false;
  // true (default): lists and watches of Pods and Nodes are answered in protobuf
  // (application/vnd.kubernetes.protobuf; a watch as ";stream=watch", length-prefixed WatchEvent
  // frames) to a client whose Accept header asks for it first, as the real server answers them
  // (a list's errors then come as a protobuf Status, a watch's ERROR events as one). Other kinds
  // and single objects are JSON. false: JSON always, as a server behind a proxy that strips it.
  bool protobuf = true;
};

// One request as received. Header names are lower-case; query is the raw query string (no '?').
struct RecordedRequest {
  std::string method, path, query, body;
  std::map<std::string, std::string> headers;
  int status =
      0;  // the status the fake answered; 0: no answer (yet, or the connection was dropped)
};

class FakeApiServer {
 public:
  // Listens on 127.0.0.1, a free port, answering from a pool of background threads.
  // Throws std::runtime_error when it cannot generate its certificates or listen.
  explicit FakeApiServer(FakeApiServerOptions options = {});
  // Ends every watch stream, stops, joins its threads and removes its temp files.
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const;  // "https://127.0.0.1:PORT" (or http://)
  int port() const;
  std::string ca_file() const;  // PEM file of the CA (in the server's temp dir)
  std::string ca_pem() const;   // the same, as text
  // A client certificate signed by the CA: CN "cert-user", O "system:masters" (so it is admin).
  std::string client_cert_file() const;
  std::string client_key_file() const;

  // The objects served, per collection path, e.g. "/api/v1/pods", "/api/v1/nodes",
  // "/apis/policy/v1/poddisruptionbudgets", "/apis/topology.volcano.sh/v1alpha1/hypernodes".
  // The list kind is derived (Pod -> PodList). Objects are kept sorted by namespace/name; each
  // write bumps the global resourceVersion and sets metadata.resourceVersion of the object.
  // set_objects replaces the whole collection as ONE write (one resourceVersion for all objects);
  // watchers see DELETED for objects that went away and ADDED/MODIFIED for the others.
  // Throws std::invalid_argument for an object without metadata.name or an unknown path shape.
  void set_objects(const std::string& collection, std::vector<nlohmann::json> objects);
  // Faster form for benchmarks: objects already serialized (one JSON object each).
  void set_objects_serialized(const std::string& collection,
                              const std::vector<std::string>& objects);
  // For benchmarks: encodes every Pod and Node stored now in protobuf, as the first protobuf list
  // or watch would (the fake builds each object's message from its JSON: slow, about 0.4 ms a
  // pod), so that what is timed next is the client's side, not the fake's encoder.
  void encode_protobuf_ahead();
  void upsert(const std::string& collection,
              nlohmann::json object);  // ADDED or MODIFIED to watchers
  // DELETED to watchers; returns false (and changes nothing) when there is no such object.
  bool remove(const std::string& collection, const std::string& ns, const std::string& name);
  // Every group/version of fake_api_resources.cc is installed at start (Volcano's CRDs too).
  void set_group_version_installed(const std::string& group_version, bool installed);

  // Failure injection, consumed in order (one list of rules for fail_next and drop_next) by the
  // requests of any method (GET, POST, PUT, ...) whose path starts with `path_prefix`; each rule
  // answers `times` requests.
  // fail_next: 401/403/429/500 (other codes: a generic Status) with the recorded bodies and
  // headers; 403's message names the request's user, verb and resource; 429 adds Retry-After
  // (header and details.retryAfterSeconds) when retry_after_seconds is given.
  void fail_next(const std::string& path_prefix, int status, int times = 1,
                 std::optional<int> retry_after_seconds = {});
  // Closes the connection without an answer; a watch request gets its 200, the events due at its
  // start (initial ADDED / replay), then the connection is cut mid-stream (no final chunk).
  void drop_next(const std::string& path_prefix, int times = 1);
  // Cuts every current watch stream of the collection mid-stream (no final zero-length chunk).
  void drop_watches(const std::string& collection);
  // Every continue token issued so far answers 410 Expired (with a fresh token at rv -1, which
  // continues from the same key with the current state, like 17).
  void expire_continue_tokens();
  // Everything before the current resourceVersion is compacted: watches from an older
  // resourceVersion get 200 + an ERROR 410 event, lists with resourceVersionMatch=Exact or limit +
  // an older resourceVersion, and continue tokens of an older resourceVersion, answer 410.
  void compact();
  // A BOOKMARK to the current watchers of the collection that asked for bookmarks. As in 1.26, the
  // bookmark carries the resourceVersion of the last write to that collection and is dropped for a
  // watcher that started at or after it (a quiet collection gives no bookmark, like 14).
  void send_bookmark(const std::string& collection);
  // Bytes no server sends, to the current watchers of the collection, as they are (a JSON
  // watcher gets them as its next line, a protobuf watcher as its next frame's bytes after the
  // 4-byte length): what a broken server or proxy could send.
  void send_unreadable_event(const std::string& collection, const std::string& bytes);

  // Credentials and permissions at run time (e.g. a token rotation while a client runs).
  void set_token(const std::string& token, const std::string& user);  // adds or replaces
  void remove_token(const std::string& token);                        // its next request is 401
  // Replaces the user's rules (an empty vector: the user may do nothing); clear_rules: back to the
  // default (get/list/watch pods).
  void set_rules(const std::string& user, std::vector<FakeRbacRule> rules);
  void clear_rules(const std::string& user);

  std::vector<RecordedRequest> requests() const;  // every request so far, in order
  // Every request but GET (POST, PUT, PATCH, DELETE) so far, in order, with the status answered.
  std::vector<RecordedRequest> writes() const;
  // The current objects of a collection ("/apis/coordination.k8s.io/v1/leases",
  // "/apis/policy/v1/poddisruptionbudgets", "/api/v1/events"), every namespace, in namespace/name
  // order, with kind, apiVersion and metadata.resourceVersion.
  std::vector<nlohmann::json> objects(const std::string& collection) const;
  size_t watchers(const std::string& collection) const;  // open watch streams (all namespaces)
  uint64_t resource_version() const;
  // Lists served as the API server's watch cache serves them (resourceVersion=0: the whole
  // collection, any limit ignored; a version not older than one it has, without a limit).
  size_t cache_lists() const;
  // Watch-lists served (sendInitialEvents=true, accepted).
  size_t watch_lists() const;
  // List answers (and their errors) and watch streams sent in protobuf.
  size_t protobuf_lists() const;
  size_t protobuf_watches() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::testing

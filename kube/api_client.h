// Requests to the Kubernetes API server: authentication, client-side rate limits, retries with
// backoff, and errors a person can act on. Thread-safe: each call uses its own connection from a
// small pool.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "http/http_client.h"
#include "kube/cluster_access.h"

namespace loadshift::kube {

// An answer the request cannot go on from. `status` is the HTTP status (0: no answer at all: the
// connection, TLS or the credentials failed); `reason` the API Status reason ("Forbidden",
// "Expired", "NotFound", ...) or a short word for transport failures ("Connect", "Tls",
// "Timeout"). The message says what happened, to whom, and what to check:
//   "GET https://10.0.0.1:6443/api/v1/nodes: the token was refused (401 Unauthorized); check the
//    token in /var/run/.../token (in-cluster service account)"
//   "... 403: nodes is forbidden: User \"tester\" cannot list resource \"nodes\" in API group \"\"
//    at the cluster scope; grant that RBAC verb and resource to the user"
class ApiError : public std::runtime_error {
 public:
  ApiError(long status, std::string reason, const std::string& message)
      : std::runtime_error(message), status_(status), reason_(std::move(reason)) {}
  long status() const { return status_; }
  const std::string& reason() const { return reason_; }

 private:
  long status_;
  std::string reason_;
};

// The answer to a write (ApiClient::send), whatever its status.
struct ApiAnswer {
  long status = 0;
  std::string body;
  std::string reason;   // the Status reason ("TooManyRequests", "Conflict", ...); "" on 2xx
  std::string message;  // the Status message, or the start of a non-Status body; "" on 2xx
  bool ok() const { return status >= 200 && status < 300; }
};

// Per-call limits of a write (ApiClient::send); 0: the client's own.
struct WriteOptions {
  // 1: no retry of any answer or failure (the one credential refresh after a 401 aside, which
  // asks `permission` again before it goes out).
  int max_attempts = 0;
  std::chrono::milliseconds timeout{0};  // the whole request
  // Asked right before each request leaves (after the rate-limit wait and the credentials): ""
  // lets it go; anything else sends nothing, and send() returns status 0, reason "NotAllowed",
  // that text as message. May be null.
  const std::function<std::string()>* permission = nullptr;
  // The body's Content-Type; null: "application/json". A JSON Patch (RFC 6902) is
  // "application/json-patch+json".
  const char* content_type = nullptr;
};

// Client-side rate limit, as client-go's (and the descheduler's --kube-api-qps/--kube-api-burst).
struct RateLimit {
  double qps = 5;  // requests per second, sustained; <= 0: unlimited
  int burst = 10;  // requests allowed at once
};

struct ClientOptions {
  RateLimit rate;
  std::chrono::milliseconds request_timeout{60000};  // non-streaming requests
  int max_attempts = 5;  // 429, 5xx and connection failures are retried up to this many times
  std::chrono::milliseconds first_backoff{200};
  std::chrono::milliseconds max_backoff{5000};
  std::chrono::milliseconds max_retry_after{60000};  // the longest Retry-After honoured
};

struct StreamOptions {
  // A stream that delivers nothing for this long fails (a stalled connection); 0: no limit.
  std::chrono::milliseconds idle_timeout{0};
  // Set from another thread, ends the request quietly within about a second. May be null.
  const std::atomic<bool>* cancel = nullptr;
  // false: a continuation page of a list that already took its token from the rate limit (a
  // paginated LIST counts once, as an unpaginated one would).
  bool rate_limited = true;
  // false: a 504 is not asked again (a watch cache that has not reached the resourceVersion
  // asked for answers 504 "Too large resource version" after waiting 3 s; the caller has a
  // better next step than waiting again).
  bool retry_gateway_timeout = true;
  // The Accept header; empty: application/json.
  std::string accept;
  // When set, receives the Content-Type of the 2xx answer before its first body byte.
  std::string* content_type = nullptr;
};

class ApiClient {
 public:
  explicit ApiClient(ClusterAccess access, ClientOptions options = {});
  ~ApiClient();
  ApiClient(const ApiClient&) = delete;
  ApiClient& operator=(const ApiClient&) = delete;

  const ClusterAccess& access() const { return access_; }

  // GET `path` ("/api/v1/nodes?limit=500") and return the body of a 2xx answer. Retries 429
  // (honouring Retry-After), 5xx and connection failures with backoff; refreshes an exec
  // credential once after a 401. Throws ApiError for anything else (the Status message quoted).
  std::string get(const std::string& path);

  // GET `path` and hand the body of a 2xx answer to `on_body` as it arrives (never held whole).
  // Retries as get() does, but only before the first body byte: a stream that breaks midway
  // throws ApiError (reason "Interrupted"), and the caller starts over. `on_body` returning false
  // stops the request quietly.
  void stream(const std::string& path, const std::function<bool(std::string_view)>& on_body,
              const StreamOptions& options = {});

  // Sends a write: `method` (POST, PUT, PATCH, DELETE) to `path` with the JSON `body`, and
  // returns the answer whatever its status, so the caller decides what a 404, 409 or 429 means
  // for it. Retries only what the server cannot have carried out: a connection that failed
  // before an answer (as get() does) and a 429 with Retry-After (API Priority and Fairness turned
  // the request away). A 429 without Retry-After (an eviction a PodDisruptionBudget forbids), a
  // 409 and a 5xx come back at once. Throws ApiError for 401 (after one credential refresh) and
  // 403 (RBAC: the message names the verb and resource), and when no answer came at all.
  // `options` bound the attempts and the time (an eviction must not outlive its permission).
  ApiAnswer send(std::string_view method, const std::string& path, const std::string& body,
                 const WriteOptions& options = {});

  // True when the API serves `group_version` ("topology.volcano.sh/v1alpha1", "v1"): discovery
  // answers it; false for 404 (a CRD that is not installed). Other failures throw ApiError.
  bool serves(const std::string& group_version);

  // Requests sent so far (attempts included), for tests and benchmarks.
  size_t requests_sent() const;

 private:
  struct Impl;
  // What exchange() sends besides the GET of a path.
  struct Write {
    std::string_view method;
    const std::string* body = nullptr;
    ApiAnswer* answer = nullptr;  // receives every answer but 401/403
    WriteOptions options;
  };
  // One request with retries; `on_body` null: the 2xx body is collected into *body. `write`
  // null: a GET whose non-2xx answers throw.
  void exchange(const std::string& path, const std::function<bool(std::string_view)>* on_body,
                std::string* body, const StreamOptions& options, const Write* write = nullptr);
  ClusterAccess access_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::kube

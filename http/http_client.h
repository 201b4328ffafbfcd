// HTTP over libcurl: the one HTTP layer of loadshift, used by the Prometheus usage source
// (metrics/) and the Kubernetes API client (kube/). One request at a time per HttpClient; the
// client keeps its connection between requests. Use one per thread.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loadshift::http {

// How to trust the server and how to prove who we are. Every field is optional.
struct TlsSettings {
  std::string ca_file;  // PEM bundle; empty (and no ca_pem): the system's CA bundle
  std::string ca_pem;   // PEM text (kubeconfig certificate-authority-data, decoded)
  std::string client_cert_file, client_key_file;  // PEM files (mutual TLS)
  std::string client_cert_pem, client_key_pem;    // PEM text, same
  // Verify the server's certificate against this name instead of the URL's host (kubeconfig
  // tls-server-name). The connection still goes to the URL's host.
  std::string server_name;
  bool insecure_skip_verify = false;
};

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, DELETE, PATCH
  std::string url;
  std::string body;                  // sent as is (POST/PUT/PATCH)
  // "Name: value"; Accept: application/json is added unless an Accept header is given.
  std::vector<std::string> headers;
  TlsSettings tls;
  std::string proxy;  // e.g. "http://proxy:3128"; empty: none (libcurl's environment rules apply)
  // The whole exchange, connecting included; 0: no limit (a watch ends by itself).
  std::chrono::milliseconds timeout{0};
  // A stream that delivers nothing for this long is dropped (a dead watch); 0: no limit.
  std::chrono::milliseconds idle_timeout{0};
  // Ask for a gzip-compressed answer. Off for streams whose pieces must arrive as they are sent
  // (a compressor on the way holds them back).
  bool compressed = true;
  // Set from another thread to stop the exchange within about a second (TransportError
  // kAborted), e.g. a watch when its cache shuts down. May be null.
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpAnswer {
  long status = 0;
  std::string body;                                          // empty when streamed
  std::vector<std::pair<std::string, std::string>> headers;  // lower-case names, in order
  // The first header named `name` (lower case), or empty.
  std::string header(std::string_view name) const;
};

// Why an exchange failed before an HTTP status came back (or while the body streamed).
class TransportError : public std::runtime_error {
 public:
  enum class Kind {
    kTimeout,   // the timeout or idle_timeout passed
    kConnect,   // refused, reset, unreachable, or the name did not resolve
    kTls,       // a certificate or handshake problem: asking again will not fix it
    kTooLarge,  // a buffered body over the limit
    kAborted,   // the body callback asked to stop
    kOther,     // a malformed URL, an unsupported protocol, ...
  };
  TransportError(Kind kind, const std::string& message)
      : TransportError(kind, message, kind == Kind::kTimeout || kind == Kind::kConnect) {}
  TransportError(Kind kind, const std::string& message, bool retryable)
      : std::runtime_error(message), kind_(kind), retryable_(retryable) {}
  Kind kind() const { return kind_; }
  // True when asking again may work: timeouts, connection failures, and a TLS handshake the
  // server broke off (not a certificate that failed verification).
  bool retryable() const { return retryable_; }

 private:
  Kind kind_;
  bool retryable_;
};

// `url` fit for a log line, an error or a report: without its user and password, query and
// fragment (any of which may carry a credential), parsed as libcurl parses it:
// "https://u:secret@prom:9090/p?token=x" -> "https://prom:9090/p". A URL with none of '@', '?'
// and '#' is returned as given; one libcurl cannot parse gives "(a URL that cannot be shown)".
std::string redact_url(const std::string& url);

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` and returns whatever status came back, with the body (at most 256 MiB).
  // Throws TransportError; its message names the URL's host and what failed (for TLS failures
  // the CA used and the name verified).
  HttpAnswer send(const HttpRequest& request);

  // Sends `request` and hands the body to `on_body` piece by piece as it arrives, never holding
  // it whole. `on_body` returns false to stop (TransportError kAborted). The status and headers
  // are known before the first piece: `on_status` is called once with them (its answer has no
  // body) and may also return false to stop. Returns the answer without a body.
  HttpAnswer stream(const HttpRequest& request,
                    const std::function<bool(const HttpAnswer&)>& on_status,
                    const std::function<bool(std::string_view)>& on_body);

  // "a=1&b=x%20y": each value percent-encoded.
  static std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);
  // One value percent-encoded, e.g. for a query string.
  static std::string escape(std::string_view value);

 private:
  HttpAnswer perform(const HttpRequest& request,
                     const std::function<bool(const HttpAnswer&)>* on_status,
                     const std::function<bool(std::string_view)>* on_body);
  void* curl_;  // CURL*
};

}  // namespace loadshift::http

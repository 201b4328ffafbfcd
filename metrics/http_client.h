// One HTTP POST at a time over libcurl (internal to metrics/). An HttpClient keeps its connection
// between requests; use one per thread.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace loadshift::metrics {

struct HttpRequest {
  std::string url;
  std::string form_body;             // application/x-www-form-urlencoded
  std::vector<std::string> headers;  // "Name: value"
  std::string ca_file;               // empty: the system's CA bundle
  bool insecure_skip_verify = false;
};

struct HttpAnswer {
  long status = 0;
  std::string body;
};

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` as a POST and returns whatever status came back. Gives up after `timeout`
  // (connecting included). Throws QueryFailure: reason "timeout" (retryable), "connect" for a
  // refused or reset connection, an unresolvable host (retryable) or a TLS failure (not
  // retryable: asking again will not fix a certificate), "bad_response" for a body over 256 MiB.
  HttpAnswer post(const HttpRequest& request, std::chrono::milliseconds timeout);

  // "a=1&b=x%20y": each value percent-encoded.
  static std::string form_encode(const std::vector<std::pair<std::string, std::string>>& fields);

 private:
  void* curl_;  // CURL*
};

}  // namespace loadshift::metrics

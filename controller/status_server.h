// The controller's one HTTP port: /healthz, /readyz and /metrics (cpp-httplib; TLS when a
// certificate and key are given).
//   /healthz  200 "ok" while the process serves at all.
//   /readyz   200 or 503 with the Readiness detail as text: cache synced, last cycle recent,
//             leader or standby, and why the last cycle did nothing.
//   /metrics  every metric of the registry, in the Prometheus text format.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <prometheus/registry.h>

namespace loadshift::controller {

struct Readiness {
  bool ready = false;
  std::string detail;  // lines "key: value" for a person
};

struct StatusServerOptions {
  std::string address = "0.0.0.0:10258";    // --metrics-addr HOST:PORT (port 0: any free one)
  std::string tls_cert_file, tls_key_file;  // both or neither
};

// Splits "HOST:PORT" ("[::1]:8080", ":10258" = all interfaces); "" or why not.
std::string parse_listen_address(const std::string& address, std::string* host, int* port);

class StatusServer {
 public:
  // `registry` must outlive the server; `readiness` is called from the server's threads.
  StatusServer(StatusServerOptions options, std::shared_ptr<prometheus::Registry> registry,
               std::function<Readiness()> readiness);
  ~StatusServer();  // stops and joins
  StatusServer(const StatusServer&) = delete;
  StatusServer& operator=(const StatusServer&) = delete;

  // Binds and starts serving in a thread. Returns "" or why not (naming --metrics-addr or the
  // certificate files).
  std::string start();
  void stop();
  int port() const;  // the bound port (after start)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::controller

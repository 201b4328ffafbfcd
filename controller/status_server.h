// The controller's one HTTP port: /healthz, /readyz, /metrics and the status page (cpp-httplib;
// TLS when a certificate and key are given). Every path is read-only (GET and HEAD).
//   /healthz    200 "ok" while the process serves at all.
//   /readyz     200 or 503 with the Readiness detail as text: cache synced, last cycle recent,
//               leader or standby, and why the last cycle did nothing.
//   /metrics    every metric of the registry, in the Prometheus text format.
//   /           the last plan as the HTML report (report_html.h) with the cycle's status; 503 and
//               a page that says why when there is none (standby, no cycle planned yet).
//   /plan.json  the same plan as the report's JSON contract (docs/report.md); 503 and
//               {"error": why} when there is none.
// The last two only with a plan source (run's --plan-page, on by default); else 404.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <prometheus/registry.h>

#include "report/plan_view.h"

namespace loadshift::controller {

struct Readiness {
  bool ready = false;
  std::string detail;  // lines "key: value" for a person
};

// The plan the status page shows: the last cycle that planned, while this replica leads (a
// standby shows none: the leader's is the one that counts).
struct PublishedPlan {
  std::shared_ptr<const report::PlanView> view;  // null: no plan to show, `status` says why
  // For a person: when that cycle ran, dry run or not, what became of its evictions; and when a
  // later cycle could not plan, that and why.
  std::string status;
};

struct StatusServerOptions {
  std::string address = "0.0.0.0:10258";    // --metrics-addr HOST:PORT (port 0: any free one)
  std::string tls_cert_file, tls_key_file;  // both or neither
};

// Splits "HOST:PORT" ("[::1]:8080", ":10258" = all interfaces); "" or why not.
std::string parse_listen_address(const std::string& address, std::string* host, int* port);

class StatusServer {
 public:
  // `registry` must outlive the server; `readiness` and `plan` are called from the server's
  // threads. An empty `plan`: no status page (/ and /plan.json answer 404). `generator` names
  // the program in the page ("loadshift 0.1.0").
  StatusServer(StatusServerOptions options, std::shared_ptr<prometheus::Registry> registry,
               std::function<Readiness()> readiness, std::function<PublishedPlan()> plan = {},
               std::string generator = {});
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

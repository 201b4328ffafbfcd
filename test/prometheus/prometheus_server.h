// A real Prometheus server for tests and benchmarks: imports an OpenMetrics file into a fresh TSDB
// with promtool, starts `prometheus` on a free loopback port, waits until it is ready, and stops it
// (SIGTERM, then wait) and removes its files when destroyed.
//
// The binaries come from PATH (then /usr/bin); LOADSHIFT_PROMETHEUS and LOADSHIFT_PROMTOOL name
// other ones. Nothing is scraped: the server answers queries over the imported blocks only. The
// child dies with the test process (PR_SET_PDEATHSIG), so a crashed test leaves no server behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

namespace loadshift::testing {

// Prometheus could not be installed, imported into or started; the message says why.
class PrometheusUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it when destroyed.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

class PrometheusServer {
 public:
  // Imports `openmetrics` into `<dir>/data` (promtool tsdb create-blocks-from openmetrics), then
  // starts Prometheus over it. `dir` must exist and outlive the server. Throws
  // PrometheusUnavailable naming the step that failed, with the tail of its log.
  static std::unique_ptr<PrometheusServer> start(
      const std::filesystem::path& dir, const std::filesystem::path& openmetrics,
      std::chrono::seconds ready_timeout = std::chrono::seconds(60));
  ~PrometheusServer();  // SIGTERM and wait (SIGKILL after 20 s)
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // http://127.0.0.1:<port>
  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }
  double import_seconds() const { return import_seconds_; }
  double startup_seconds() const { return startup_seconds_; }
  // The server's peak resident set (VmHWM) in MiB, -1 when unreadable.
  double peak_rss_mib() const;

 private:
  PrometheusServer() = default;

  std::string address_;
  pid_t pid_ = -1;
  double import_seconds_ = 0;
  double startup_seconds_ = 0;
};

}  // namespace loadshift::testing

// PolicyWatcher: hot reload of the policy file.
//
// Kubernetes updates a ConfigMap volume by writing the new files into a fresh directory and
// swapping the `..data` symlink, so the path keeps its name while its content changes at once.
// The watcher re-reads the file on every poll() and compares the bytes with the last ones it
// saw: a valid new policy replaces the current one; an invalid one is logged with every error,
// counted, and the old policy keeps running. The same invalid bytes are reported only once.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <memory>
#include <string>

#include "policy/loader.h"
#include "policy/policy.h"

namespace loadshift::controller {

enum class PolicyReload {
  kUnchanged,  // same bytes as last time
  kReloaded,   // a new valid policy is current
  kRejected,   // new bytes that do not load; the previous policy stays current
};

class PolicyWatcher {
 public:
  // Watches `path`; counts reloads in `registry` as
  // loadshift_policy_reloads_total{result="success"|"failure"} and sets loadshift_policy_valid
  // (1 while the file's last bytes loaded, 0 while they are refused and an older policy runs).
  // Call load_initial() before use.
  PolicyWatcher(std::string path, prometheus::Registry& registry);
  PolicyWatcher(const PolicyWatcher&) = delete;
  PolicyWatcher& operator=(const PolicyWatcher&) = delete;

  // Loads the policy for the first time. Returns the result; on error nothing is current and
  // the caller should exit with the errors.
  policy::LoadResult load_initial();

  // Re-reads the file; see PolicyReload. `result` (optional) receives the load result of a
  // changed file, for logging or tests.
  PolicyReload poll(policy::LoadResult* result = nullptr);

  // The policy in force (null before a successful load_initial). Shared so a running cycle keeps
  // its policy while a reload installs the next one.
  std::shared_ptr<const policy::Policy> current() const { return current_; }

 private:
  bool read_file(std::string& bytes, std::string& error) const;
  std::string path_;
  std::string last_bytes_;
  std::shared_ptr<const policy::Policy> current_;
  prometheus::Counter& reload_success_;
  prometheus::Counter& reload_failure_;
  prometheus::Gauge& valid_;
};

}  // namespace loadshift::controller

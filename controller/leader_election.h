// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it (and
// the descheduler's --leader-elect flags configure it): only the holder evicts.
//
// Every retry_period the elector reads the Lease. It holds it when holderIdentity is itself and
// renews renewTime; it takes it when the lease is free (no holder, or holderIdentity emptied by a
// release) or has not been renewed for lease_duration as observed on this replica's own clock
// (so clocks of different machines are never compared). Updates carry metadata.resourceVersion:
// of two replicas racing for the lease, the API server lets one win (409 for the other).
//
// is_leader() is true only while the last successful renewal was *sent* less than
// renew_deadline ago: a replica that cannot renew stops evicting before any other replica can
// see the lease as expired (renew_deadline < lease_duration). The controller asks before every
// single eviction.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "kube/api_client.h"

namespace loadshift::controller {

struct LeaderElectionConfig {
  std::string namespace_ = "kube-system";           // --leader-elect-resource-namespace
  std::string name = "loadshift";                   // --leader-elect-resource-name
  std::string identity;                             // this replica: "<pod name>_<random>"
  std::chrono::milliseconds lease_duration{15000};  // --leader-elect-lease-duration
  std::chrono::milliseconds renew_deadline{10000};  // --leader-elect-renew-deadline
  std::chrono::milliseconds retry_period{2000};     // --leader-elect-retry-period
};

// "" when the durations can work together, else what is wrong: lease_duration >= 1 s and at
// least 1 s longer than renew_deadline (the margin an eviction request has), renew_deadline >
// retry_period > 0.
std::string check_leader_election(const LeaderElectionConfig& config);

// leaseDurationSeconds as written to the Lease: lease_duration rounded up to whole seconds (never
// shorter than this replica's own idea of it).
int lease_duration_seconds(const LeaderElectionConfig& config);

// A unique identity for this process: $POD_NAME (or the host name) + "_" + 8 random hex digits.
std::string make_identity();

class LeaderElector {
 public:
  // `client` must outlive the elector. `on_change(true|false)` (may be empty) is called from the
  // elector's thread when leadership is gained or lost; `on_log(message)` for each change and
  // failure worth a log line.
  LeaderElector(kube::ApiClient& client, LeaderElectionConfig config,
                std::function<void(bool)> on_change = {},
                std::function<void(const std::string&)> on_log = {});
  // Stops (without releasing) and joins.
  ~LeaderElector();
  LeaderElector(const LeaderElector&) = delete;
  LeaderElector& operator=(const LeaderElector&) = delete;

  // Starts trying to acquire, then renew, in a thread of its own.
  void start();
  // Stops trying; when this replica holds the lease, releases it (holderIdentity emptied, as
  // client-go's ReleaseOnCancel) so another replica takes over at its next try. Returns once
  // the thread is joined. Safe to call twice.
  void stop_and_release();

  // True while this replica holds a lease renewed less than renew_deadline ago.
  bool is_leader() const;
  // The holder this replica last saw ("" when none or not read yet).
  std::string observed_holder() const;
  const LeaderElectionConfig& config() const { return config_; }

 private:
  void run();
  void try_acquire_or_renew();
  void release();
  void set_leading(bool leading);
  void log(const std::string& message) const;
  kube::WriteOptions write_options() const;

  kube::ApiClient& client_;
  LeaderElectionConfig config_;
  std::function<void(bool)> on_change_;
  std::function<void(const std::string&)> on_log_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
  // Steady-clock time (ns since epoch) at which the last successful renewal was sent; 0: none.
  std::atomic<int64_t> renewed_sent_ns_{0};
  bool leading_ = false;  // last value passed to on_change_
  std::string observed_holder_;
  std::string observed_record_;  // holder + renewTime as last read
  std::chrono::steady_clock::time_point observed_at_{};
  std::string last_failure_;  // to log each distinct failure once
  std::string held_lease_;    // the Lease as this replica last wrote it (for the release)
};

}  // namespace loadshift::controller

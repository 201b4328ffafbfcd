// The Lease read / create / update cycle of leader election.
#include "controller/leader_election.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

#include "model/rfc3339.h"

namespace loadshift::controller {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::string now_micro() {
  return model::format_micro_time(std::chrono::system_clock::now());
}

int64_t steady_ns(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

int lease_duration_seconds(const LeaderElectionConfig& config) {
  auto ms = config.lease_duration.count();
  return static_cast<int>((ms + 999) / 1000);  // whole seconds, rounded up
}

std::string check_leader_election(const LeaderElectionConfig& config) {
  using std::chrono::milliseconds;
  if (config.retry_period <= milliseconds(0)) {
    return "--leader-elect-retry-period must be more than 0";
  }
  if (config.renew_deadline <= config.retry_period) {
    return "--leader-elect-renew-deadline must be longer than --leader-elect-retry-period";
  }
  if (config.lease_duration < milliseconds(1000)) {
    return "--leader-elect-lease-duration must be at least 1s (a Lease counts whole seconds)";
  }
  if (config.lease_duration <= config.renew_deadline) {
    return "--leader-elect-lease-duration must be longer than --leader-elect-renew-deadline";
  }
  if (config.lease_duration - config.renew_deadline < milliseconds(1000)) {
    return "--leader-elect-lease-duration must be at least 1s longer than "
           "--leader-elect-renew-deadline (an eviction request sent while leading must be "
           "answered or abandoned within that margin)";
  }
  if (config.name.empty()) return "--leader-elect-resource-name must not be empty";
  if (config.namespace_.empty()) return "--leader-elect-resource-namespace must not be empty";
  return "";
}

std::string make_identity() {
  std::string base;
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') {
    base = pod;
  } else {
    char host[256] = {};
    base = gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' ? host : "loadshift";
  }
  std::random_device random;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random()));
  return base + "_" + suffix;
}

LeaderElector::LeaderElector(kube::ApiClient& client, LeaderElectionConfig config,
                             std::function<void(bool)> on_change,
                             std::function<void(const std::string&)> on_log)
    : client_(client),
      config_(std::move(config)),
      on_change_(std::move(on_change)),
      on_log_(std::move(on_log)) {}

LeaderElector::~LeaderElector() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaderElector::start() {
  thread_ = std::thread([this] { run(); });
}

void LeaderElector::stop_and_release() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (renewed_sent_ns_.load() != 0) release();
  set_leading(false);
}

bool LeaderElector::is_leader() const {
  int64_t sent = renewed_sent_ns_.load();
  if (sent == 0) return false;
  auto deadline = std::chrono::duration_cast<std::chrono::nanoseconds>(config_.renew_deadline);
  return steady_ns(Clock::now()) - sent < deadline.count();
}

std::string LeaderElector::observed_holder() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return observed_holder_;
}

void LeaderElector::log(const std::string& message) const {
  if (on_log_) on_log_(message);
}

void LeaderElector::set_leading(bool leading) {
  bool changed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    changed = leading != leading_;
    leading_ = leading;
  }
  if (changed && on_change_) on_change_(leading);
}

void LeaderElector::run() {
  while (true) {
    try_acquire_or_renew();
    set_leading(is_leader());
    std::unique_lock<std::mutex> lock(mutex_);
    if (wake_.wait_for(lock, config_.retry_period, [this] { return stop_; })) return;
  }
}

void LeaderElector::try_acquire_or_renew() {
  const std::string collection =
      "/apis/coordination.k8s.io/v1/namespaces/" + config_.namespace_ + "/leases";
  const std::string path = collection + "/" + config_.name;
  Clock::time_point sent = Clock::now();
  auto failed = [&](const std::string& why) {
    if (why != last_failure_) log("leader election: " + why);
    last_failure_ = why;
  };
  try {
    kube::ApiAnswer current = client_.send("GET", path, "", write_options());
    const int lease_seconds = lease_duration_seconds(config_);
    if (current.status == 404) {
      json lease = {{"apiVersion", "coordination.k8s.io/v1"},
                    {"kind", "Lease"},
                    {"metadata", {{"name", config_.name}, {"namespace", config_.namespace_}}},
                    {"spec",
                     {{"holderIdentity", config_.identity},
                      {"leaseDurationSeconds", lease_seconds},
                      {"acquireTime", now_micro()},
                      {"renewTime", now_micro()},
                      {"leaseTransitions", 0}}}};
      sent = Clock::now();
      kube::ApiAnswer created = client_.send("POST", collection, lease.dump(), write_options());
      if (created.ok()) {
        renewed_sent_ns_ = steady_ns(sent);
        std::lock_guard<std::mutex> lock(mutex_);
        observed_holder_ = config_.identity;
        held_lease_ = created.body;
        last_failure_.clear();
        return;
      }
      failed("creating Lease " + config_.namespace_ + "/" + config_.name + ": " +
             std::to_string(created.status) + " " + created.reason + " " + created.message);
      return;
    }
    if (!current.ok()) {
      failed("reading Lease " + config_.namespace_ + "/" + config_.name + ": " +
             std::to_string(current.status) + " " + current.reason + " " + current.message);
      return;
    }
    json lease = json::parse(current.body, nullptr, false);
    if (!lease.is_object() || !lease.contains("metadata") || !lease["metadata"].is_object()) {
      failed("reading Lease " + config_.namespace_ + "/" + config_.name +
             ": the answer is not a Lease object");
      return;
    }
    json spec =
        lease.contains("spec") && lease["spec"].is_object() ? lease["spec"] : json::object();
    std::string holder = string_field(spec, "holderIdentity");
    std::string record = holder + "|" + string_field(spec, "renewTime");
    int observed_seconds =
        spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer()
            ? spec["leaseDurationSeconds"].get<int>()
            : lease_seconds;
    Clock::time_point now = Clock::now();
    bool expired;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (record != observed_record_) {
        observed_record_ = record;
        observed_at_ = now;
      }
      observed_holder_ = holder;
      expired = now - observed_at_ > std::chrono::seconds(observed_seconds);
    }
    const bool mine = holder == config_.identity;
    if (!mine && !holder.empty() && !expired) {
      // Someone else leads; a lease of ours that lapsed is gone for good.
      renewed_sent_ns_ = 0;
      last_failure_.clear();
      return;
    }
    int transitions =
        spec.contains("leaseTransitions") && spec["leaseTransitions"].is_number_integer()
            ? spec["leaseTransitions"].get<int>()
            : 0;
    spec["holderIdentity"] = config_.identity;
    spec["leaseDurationSeconds"] = lease_seconds;
    spec["renewTime"] = now_micro();
    if (!mine) {
      spec["acquireTime"] = now_micro();
      spec["leaseTransitions"] = transitions + 1;
    }
    lease["spec"] = spec;
    sent = Clock::now();
    kube::ApiAnswer updated = client_.send("PUT", path, lease.dump(), write_options());
    if (updated.ok()) {
      if (!mine) log("leader election: acquired Lease " + config_.namespace_ + "/" + config_.name);
      renewed_sent_ns_ = steady_ns(sent);
      last_failure_.clear();
      std::lock_guard<std::mutex> lock(mutex_);
      observed_holder_ = config_.identity;
      held_lease_ = updated.body;
      return;
    }
    failed((mine ? "renewing" : "acquiring") + std::string(" Lease ") + config_.namespace_ + "/" +
           config_.name + ": " + std::to_string(updated.status) + " " + updated.reason + " " +
           updated.message);
  } catch (const std::exception& e) {  // ApiError, and anything unexpected: never out of the thread
    failed(e.what());
  }
}

void LeaderElector::release() {
  const std::string path =
      "/apis/coordination.k8s.io/v1/namespaces/" + config_.namespace_ + "/leases/" + config_.name;
  renewed_sent_ns_ = 0;  // no eviction from here on, whatever the release's answer
  std::string held;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    held = held_lease_;
  }
  // One PUT of the Lease as this replica last wrote it (its resourceVersion: if anyone changed it
  // since, the API answers 409 and the Lease is not ours to release any more).
  json lease = json::parse(held, nullptr, false);
  if (!lease.is_object() || !lease.contains("spec") || !lease["spec"].is_object()) return;
  if (string_field(lease["spec"], "holderIdentity") != config_.identity) return;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  lease["spec"]["renewTime"] = now_micro();
  try {
    kube::ApiAnswer released = client_.send("PUT", path, lease.dump(), write_options());
    if (released.status == 409) {
      // The last renewal may have been applied without its answer reaching us: read the Lease
      // once, and release it only if it is still ours.
      kube::ApiAnswer current = client_.send("GET", path, "", write_options());
      json now = json::parse(current.ok() ? current.body : "", nullptr, false);
      if (now.is_object() && now.contains("spec") && now["spec"].is_object() &&
          string_field(now["spec"], "holderIdentity") == config_.identity) {
        now["spec"]["holderIdentity"] = "";
        now["spec"]["leaseDurationSeconds"] = 1;
        now["spec"]["renewTime"] = now_micro();
        released = client_.send("PUT", path, now.dump(), write_options());
      }
    }
    log(released.ok() ? "leader election: released Lease " + config_.namespace_ + "/" + config_.name
                      : "leader election: releasing the Lease failed: " +
                            std::to_string(released.status) + " " + released.message);
  } catch (const std::exception& e) {
    log(std::string("leader election: releasing the Lease failed: ") + e.what());
  }
}

kube::WriteOptions LeaderElector::write_options() const {
  // One attempt (the next try is a retry period away), never longer than the renew deadline or
  // 5 s: a stop never waits long on a slow API server.
  return {1, std::min<std::chrono::milliseconds>(config_.renew_deadline,
                                                 std::chrono::milliseconds(5000))};
}

}  // namespace loadshift::controller

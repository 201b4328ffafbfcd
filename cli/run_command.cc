// `loadshift run`: flags -> the parts of the controller -> the loop until told to stop.
#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "cli/command_inputs.h"
#include "cli/commands.h"
#include "cli/live_cluster.h"
#include "controller/controller_metrics.h"
#include "controller/descheduling_loop.h"
#include "controller/heap_settings.h"
#include "controller/leader_election.h"
#include "controller/policy_watcher.h"
#include "controller/status_server.h"
#include "controller/structured_log.h"
#include "kube/api_client.h"
#include "kube/cluster_access.h"
#include "kube/watch_cache.h"
#include "metrics/self_metrics.h"
#include "policy/field_reader.h"

namespace loadshift::cli {
namespace {

using std::chrono::milliseconds;

// The namespace this pod runs in: $POD_NAMESPACE, the service account's namespace file, else
// kube-system (the descheduler's).
std::string own_namespace() {
  if (const char* ns = std::getenv("POD_NAMESPACE"); ns != nullptr && *ns != '\0') return ns;
  std::ifstream file("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string ns;
  if (file && std::getline(file, ns) && !ns.empty()) return ns;
  return "kube-system";
}

// Sleeps `duration` in short steps, returning early (false) when `stop` is set.
bool sleep_unless_stopped(milliseconds duration, const std::atomic<bool>& stop) {
  auto end = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < end) {
    if (stop.load()) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        milliseconds(100), end - std::chrono::steady_clock::now()));
  }
  return !stop.load();
}

}  // namespace

int run_controller(const RunOptions& options, std::ostream& err,
                   const std::atomic<bool>* stop_flag) {
  static const std::atomic<bool> never{false};
  const std::atomic<bool>& stop = stop_flag != nullptr ? *stop_flag : never;

  // ---- flags: every problem at once, exit 2 ----
  bool ok = true;
  if (options.policy_file.empty()) {
    err << "error: --policy: required: the DeschedulerPolicy file (bare or in a ConfigMap)\n";
    ok = false;
  }
  milliseconds interval{0};
  ok &=
      parse_flag_duration("--descheduling-interval", options.descheduling_interval, &interval, err);
  strategies::PlanOverrides plan_overrides;
  ok &= parse_plan_flags(options.plan, &plan_overrides, err);
  controller::LeaderElectionConfig election;
  bool durations_ok = parse_flag_duration("--leader-elect-lease-duration", options.lease_duration,
                                          &election.lease_duration, err) &
                      parse_flag_duration("--leader-elect-renew-deadline", options.renew_deadline,
                                          &election.renew_deadline, err) &
                      parse_flag_duration("--leader-elect-retry-period", options.retry_period,
                                          &election.retry_period, err);
  ok &= durations_ok;
  election.name = options.lease_name;
  election.namespace_ = options.lease_namespace.empty() ? own_namespace() : options.lease_namespace;
  election.identity = controller::make_identity();
  if (options.leader_elect && durations_ok) {
    if (std::string why = controller::check_leader_election(election); !why.empty()) {
      err << "error: " << why << "\n";
      ok = false;
    }
  }
  std::optional<controller::LogFormat> log_format =
      controller::parse_log_format(options.log_format);
  if (!log_format) {
    err << "error: --log-format: expected text or json, found \"" << options.log_format << "\"\n";
    ok = false;
  }
  if (!usage::check_prometheus_flag(options.prometheus_url, err)) ok = false;
  {
    std::string host;
    int port = 0;
    if (std::string why = controller::parse_listen_address(options.metrics_addr, &host, &port);
        !why.empty()) {
      err << "error: --metrics-addr: " << why << "\n";
      ok = false;
    }
  }
  ok &= check_kube_flags(options.kube, err);
  if (!ok) return 2;
  controller::configure_logging(*log_format);
  // Before the cache's first lists: their pages are the first large blocks.
  if (!controller::apply_heap_settings()) {
    controller::log_line(spdlog::level::warn,
                         "malloc refused a fixed mmap threshold: freed large blocks may stay "
                         "resident",
                         {});
  }

  // ---- the policy ----
  auto registry = std::make_shared<prometheus::Registry>();
  controller::PolicyWatcher policy(options.policy_file, *registry);
  policy::LoadResult initial = policy.load_initial();  // logs its warnings
  if (!initial.ok()) {
    for (const policy::Diagnostic& e : initial.errors) err << "error: " << e.to_string() << "\n";
    err << options.policy_file << ": " << initial.errors.size()
        << (initial.errors.size() == 1 ? " error" : " errors") << "\n";
    return 2;
  }

  // ---- the cluster ----
  kube::ClusterAccess access;
  try {
    access = kube::find_cluster({options.kube.kubeconfig, options.kube.context},
                                kube::Environment::current());
  } catch (const kube::ConfigError& e) {
    err << "error: " << e.what() << "\n";
    return 2;
  }
  kube::ClientOptions client_options;
  client_options.rate = {options.kube.qps, options.kube.burst};
  kube::ApiClient client(access, client_options);

  controller::ControllerMetrics metrics(*registry, version());
  metrics::SelfMetrics self_metrics(registry);
  kube::WatchCache cache(client);

  // The elector has a client of its own: its renewals must never queue behind the watch cache's
  // lists in the shared rate limit (a renewal late by the renew deadline stops the evictions).
  kube::ApiClient election_client(access, client_options);
  std::unique_ptr<controller::LeaderElector> elector;
  metrics.set_dry_run(options.dry_run);
  if (options.leader_elect && !options.dry_run) {
    elector = std::make_unique<controller::LeaderElector>(
        election_client, election,
        [&metrics](bool leading) {
          metrics.set_leader(leading);
          controller::log_line(spdlog::level::info, leading ? "leading" : "standing by", {});
        },
        [](const std::string& message) { controller::log_line(spdlog::level::info, message, {}); });
  } else {
    metrics.set_leader(!options.dry_run);
    if (options.leader_elect) {
      controller::log_line(
          spdlog::level::info,
          "--dry-run: no leader election (a Lease is a write); this replica plans only", {});
    }
  }

  controller::LoopSettings settings;
  settings.prometheus_url = options.prometheus_url;
  settings.dry_run = options.dry_run;
  settings.plan = plan_overrides;
  settings.publish_plan = options.plan_page;
  // The settings the first cycle plans with (a policy reload may change them; each cycle applies
  // the flags to the policy it runs).
  const policy::PlanSettings first_settings =
      strategies::effective_settings(policy.current()->loadshift, plan_overrides);
  settings.interval = interval;
  controller::DeschedulingLoop loop(client, cache, policy, metrics, self_metrics, elector.get(),
                                    settings, stop);

  controller::StatusServer server(
      {options.metrics_addr, options.tls_cert_file, options.tls_key_file}, registry,
      [&loop] { return loop.readiness(); },
      options.plan_page
          ? std::function<controller::PublishedPlan()>([&loop] { return loop.published_plan(); })
          : std::function<controller::PublishedPlan()>(),
      "loadshift " + std::string(version()));
  if (std::string why = server.start(); !why.empty()) {
    err << "error: " << why << "\n";
    return 2;
  }
  controller::log_line(
      spdlog::level::info, "started",
      {{"version", std::string(version())},
       {"cluster", access.server},
       {"policy", options.policy_file},
       {"interval", options.descheduling_interval},
       {"dry_run", options.dry_run ? "true" : "false"},
       {"leader_elect", elector ? "true" : "false"},
       {"workload_cooldown", first_settings.workload_cooldown.text},
       {"max_in_flight_per_workload", std::to_string(first_settings.max_in_flight_per_workload)},
       {"soft_taint_hot_nodes", first_settings.soft_taint_hot_nodes ? "true" : "false"},
       {"metrics_addr", options.metrics_addr},
       {"metrics_port", std::to_string(server.port())}});

  if (first_settings.workload_cooldown.milliseconds > 3600000) {
    controller::log_line(
        spdlog::level::info, "cool-down longer than the Events' lifetime",
        {{"workload_cooldown", first_settings.workload_cooldown.text},
         {"note",
          "the API server deletes Events after its --event-ttl (1h by default): after a "
          "restart the cool-down remembers only the evictions whose Events are still there"}});
  }
  cache.start();
  if (elector) elector->start();
  // The first cycle waits for the cache's first list (at most 5 minutes; cycles then say why).
  for (auto waited = milliseconds(0); !cache.synced() && waited < milliseconds(300000) && !stop;
       waited += milliseconds(200)) {
    cache.wait_synced(milliseconds(200));
  }
  // With election, give the elector one try before the first cycle.
  if (elector) {
    for (int i = 0; i < 20 && !elector->is_leader() && elector->observed_holder().empty() && !stop;
         ++i) {
      std::this_thread::sleep_for(milliseconds(100));
    }
  }

  int exit_code = 0;
  std::mt19937 random(std::random_device{}());
  while (!stop.load()) {
    controller::CycleOutcome outcome = loop.run_cycle();
    if (interval.count() == 0) {
      exit_code = outcome.result == "skipped" ? 1 : 0;
      break;
    }
    std::uniform_real_distribution<double> jitter(0.0, 0.05);
    auto wait = milliseconds(
        static_cast<int64_t>(static_cast<double>(interval.count()) * (1.0 + jitter(random))));
    if (!sleep_unless_stopped(wait, stop)) break;
  }
  controller::log_line(spdlog::level::info, "stopping", {});
  if (elector) elector->stop_and_release();
  server.stop();
  return exit_code;
}

}  // namespace loadshift::cli

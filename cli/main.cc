// loadshift: a load-aware descheduler for Kubernetes. Command-line entry point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>

#include "cli/commands.h"

namespace {

// Set by SIGTERM / SIGINT; `loadshift run` stops between evictions and releases its lease.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_stop_signal(int) {
  g_stop.store(true);
}

// --kubeconfig, --context, --kube-api-qps, --kube-api-burst, as kubectl and the descheduler.
void add_kube_flags(CLI::App* command, loadshift::cli::KubeFlags& flags) {
  command->add_option("--kubeconfig", flags.kubeconfig,
                      "kubeconfig file; default: $KUBECONFIG, ~/.kube/config, in-cluster");
  command->add_option("--context", flags.context, "kubeconfig context; default: the current one");
  command->add_option("--kube-api-qps", flags.qps,
                      "Requests per second to the API server (default 5; 0: no limit)");
  command->add_option("--kube-api-burst", flags.burst,
                      "Requests to the API server allowed at once (default 10)");
}

// The plan flags of run, report and simulate as CLI11 binds them; given_plan_flags() keeps only
// those on the command line, so the policy's `loadshift` section holds for the others.
struct PlanFlagValues {
  std::string workload_cooldown;
  int max_in_flight_per_workload = 0;
  bool soft_taint_hot_nodes = false;
  bool no_landing_prediction = false;
};

void add_plan_flags(CLI::App* command, PlanFlagValues& values) {
  command->add_option("--workload-cooldown", values.workload_cooldown,
                      "Within this time of a move, no pod of the workload is moved back or off a "
                      "node that received one, e.g. 30m (default: the policy's "
                      "loadshift.workloadCooldown, 30m; 0: off)");
  command->add_option("--max-in-flight-per-workload", values.max_in_flight_per_workload,
                      "At most this many pods of one workload evicted and not Ready again "
                      "(default: the policy's loadshift.maxInFlightPerWorkload, 1; 0: no limit)");
  command->add_flag("--soft-taint-hot-nodes", values.soft_taint_hot_nodes,
                    "Taint every overutilized node with "
                    "loadshift.io/overutilized:PreferNoSchedule until it cools; =false turns the "
                    "policy's loadshift.softTaintHotNodes off (run needs nodes patch)");
  command->add_flag("--no-landing-prediction", values.no_landing_prediction,
                    "Evict without predicting where the scheduler puts the replacement (to "
                    "compare)");
}

loadshift::cli::PlanFlags given_plan_flags(const CLI::App* command, const PlanFlagValues& values) {
  loadshift::cli::PlanFlags flags;
  if (command->count("--workload-cooldown") > 0) flags.workload_cooldown = values.workload_cooldown;
  if (command->count("--max-in-flight-per-workload") > 0) {
    flags.max_in_flight_per_workload = values.max_in_flight_per_workload;
  }
  if (command->count("--soft-taint-hot-nodes") > 0) {
    flags.soft_taint_hot_nodes = values.soft_taint_hot_nodes;
  }
  flags.no_landing_prediction = values.no_landing_prediction;
  return flags;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loadshift: a load-aware descheduler for Kubernetes"};
  app.require_subcommand(1);

  app.add_subcommand("version", "Print the version")->callback([] {
    std::cout << "loadshift " << loadshift::cli::version() << "\n";
  });

  std::vector<std::string> snapshots;
  int exit_code = 0;
  auto* feasible = app.add_subcommand(
      "feasible", "Print the decoded cluster and, for every pod, the nodes it may run on");
  feasible->add_option("--snapshot", snapshots, "Kubernetes JSON or YAML file (repeatable)")
      ->required()
      ->check(CLI::ExistingFile);
  feasible->callback(
      [&] { exit_code = loadshift::cli::run_feasible(snapshots, std::cout, std::cerr); });

  std::string policy_file;
  bool print_effective = false;
  auto* validate = app.add_subcommand(
      "validate", "Check a DeschedulerPolicy file (bare or in a ConfigMap) and summarize it");
  validate->add_option("file", policy_file, "Policy file (YAML or JSON)")->required();
  validate->add_flag("--effective", print_effective,
                     "Print the effective policy (every default filled in) as YAML");
  std::string effective_for;
  validate->add_option("--for", effective_for,
                       "With --effective: loadshift (default; every loadshift field) or volcano "
                       "(only what Volcano's descheduler reads)");
  validate->callback([&] {
    exit_code = loadshift::cli::run_validate(policy_file, std::cout, std::cerr, print_effective,
                                             effective_for);
  });

  // run_report checks the flags itself (exclusive flags, --at, --output), so that every bad
  // input exits 2 with a message that names the flag and what was expected.
  PlanFlagValues report_plan, simulate_plan, run_plan;
  loadshift::cli::ReportOptions report_options;
  auto* report = app.add_subcommand(
      "report", "Dry run: print the plan (evictions, targets, why every other pod stays)");
  report->add_option("--policy", report_options.policy_file,
                     "DeschedulerPolicy file (bare or in a ConfigMap)");
  report->add_option("--snapshot", report_options.snapshot_files,
                     "Kubernetes JSON or YAML file, as `kubectl get ... -o json` or `loadshift "
                     "snapshot` writes it (repeatable); none: read the live cluster");
  add_kube_flags(report, report_options.kube);
  report->add_option("--usage", report_options.usage_file,
                     "Node usage JSON file (see docs/report.md); not with --prometheus");
  report->add_option("--prometheus", report_options.prometheus_url,
                     "Prometheus base URL, replacing the policy's LoadAware metrics.address");
  report->add_option("--at", report_options.at,
                     "Evaluation time, RFC 3339 (e.g. 2026-11-22T04:00:00Z); default: now");
  report->add_option("--output", report_options.output,
                     "table (default), json, markdown or html (one self-contained page)");
  add_plan_flags(report, report_plan);
  report->callback([&] {
    report_options.colour = isatty(STDOUT_FILENO) != 0;
    report_options.plan = given_plan_flags(report, report_plan);
    exit_code = loadshift::cli::run_report(report_options, std::cout, std::cerr);
  });

  loadshift::cli::ExplainOptions explain_options;
  PlanFlagValues explain_plan;
  auto* explain = app.add_subcommand(
      "explain",
      "For one pod: what each plugin did with it and why, every node's verdict and scheduler "
      "score, where its replacement would land");
  explain->add_option("pod", explain_options.pod, "The pod, as NAMESPACE/NAME")->required();
  explain->add_option("--policy", explain_options.report.policy_file,
                      "DeschedulerPolicy file (bare or in a ConfigMap)");
  explain->add_option("--snapshot", explain_options.report.snapshot_files,
                      "Kubernetes JSON or YAML file (repeatable); none: read the live cluster");
  add_kube_flags(explain, explain_options.report.kube);
  explain->add_option("--usage", explain_options.report.usage_file,
                      "Node usage JSON file; not with --prometheus");
  explain->add_option("--prometheus", explain_options.report.prometheus_url,
                      "Prometheus base URL, replacing the policy's");
  explain->add_option("--at", explain_options.report.at, "Evaluation time, RFC 3339; default: now");
  explain->add_option("--output", explain_options.output, "table (default), json or html");
  add_plan_flags(explain, explain_plan);
  explain->callback([&] {
    explain_options.report.plan = given_plan_flags(explain, explain_plan);
    exit_code = loadshift::cli::run_explain(explain_options, std::cout, std::cerr);
  });

  loadshift::cli::SnapshotOptions snapshot_options;
  auto* snapshot = app.add_subcommand(
      "snapshot", "Save the live cluster (and its usage) for `report --snapshot ... --usage ...`");
  snapshot->add_option("--output", snapshot_options.output,
                       "File to write the cluster to, as a v1 List");
  snapshot->add_option("--usage-output", snapshot_options.usage_output,
                       "File to write the usage to (needs --policy), as `report --usage` reads it");
  snapshot->add_option("--policy", snapshot_options.policy_file,
                       "DeschedulerPolicy that says where usage comes from");
  snapshot->add_option("--prometheus", snapshot_options.prometheus_url,
                       "Prometheus base URL, replacing the policy's");
  snapshot->add_option("--at", snapshot_options.at,
                       "Evaluation time of the usage, RFC 3339; default: now");
  add_kube_flags(snapshot, snapshot_options.kube);
  snapshot->callback(
      [&] { exit_code = loadshift::cli::run_snapshot(snapshot_options, std::cout, std::cerr); });

  loadshift::cli::SimulateOptions simulate_options;
  auto* simulate = app.add_subcommand(
      "simulate",
      "Plan, evict, place each replacement where the scheduler would, repeat: does the policy "
      "converge or ping-pong?");
  simulate->add_option("--policy", simulate_options.policy_file,
                       "DeschedulerPolicy file (bare or in a ConfigMap)");
  simulate->add_option("--snapshot", simulate_options.snapshot_files,
                       "Kubernetes JSON or YAML file (repeatable)");
  simulate->add_option("--usage", simulate_options.usage_file,
                       "Node and pod usage JSON file (see docs/report.md)");
  simulate->add_option("--cycles", simulate_options.cycles, "Number of cycles (default 10)");
  simulate->add_option("--interval", simulate_options.interval,
                       "Time between cycles, e.g. 10m (default)");
  simulate->add_option("--at", simulate_options.at,
                       "Time of the first cycle, RFC 3339; default: now");
  add_plan_flags(simulate, simulate_plan);
  simulate->add_option("--seed", simulate_options.seed,
                       "Seed of the scheduler's random choice among equal nodes (default 1)");
  simulate->add_option("--output", simulate_options.output, "table (default), json or html");
  simulate->add_option("--chart", simulate_options.chart,
                       "SVG file to draw node usage per cycle into");
  simulate->callback([&] {
    simulate_options.plan = given_plan_flags(simulate, simulate_plan);
    exit_code = loadshift::cli::run_simulate(simulate_options, std::cout, std::cerr);
  });

  loadshift::cli::RunOptions run_options;
  auto* run = app.add_subcommand(
      "run",
      "The controller: every interval, plan from the live cluster and evict through the "
      "Eviction API");
  run->add_option("--policy", run_options.policy_file,
                  "DeschedulerPolicy file (bare or in a ConfigMap); re-read every cycle");
  run->add_option("--descheduling-interval", run_options.descheduling_interval,
                  "Time between cycles, e.g. 30s, 10m, 1h30m (default 10m); 0: one cycle, then "
                  "exit");
  run->add_flag("--dry-run", run_options.dry_run,
                "Plan and log, but write nothing to the API (no evictions, Events or Leases)");
  add_kube_flags(run, run_options.kube);
  run->add_option("--prometheus", run_options.prometheus_url,
                  "Prometheus base URL, replacing the policy's");
  run->add_option("--metrics-addr", run_options.metrics_addr,
                  "HOST:PORT of /healthz, /readyz and /metrics (default 0.0.0.0:10258)");
  run->add_option("--tls-cert-file", run_options.tls_cert_file,
                  "Serve that port over TLS with this PEM certificate");
  run->add_option("--tls-private-key-file", run_options.tls_key_file,
                  "The PEM private key of --tls-cert-file");
  run->add_option("--log-format", run_options.log_format, "text (default) or json");
  run->add_flag("--plan-page,!--no-plan-page", run_options.plan_page,
                "Serve the last plan on the metrics port: / (the HTML report) and /plan.json "
                "(its JSON); default on, --no-plan-page or --plan-page=false: off");
  run->add_flag("--leader-elect", run_options.leader_elect,
                "Elect a leader on a Lease; only the leader evicts (default false)");
  run->add_option("--leader-elect-lease-duration", run_options.lease_duration,
                  "How long a lease holds without renewal (default 15s)");
  run->add_option("--leader-elect-renew-deadline", run_options.renew_deadline,
                  "The leader stops evicting when it has not renewed for this long (default 10s)");
  run->add_option("--leader-elect-retry-period", run_options.retry_period,
                  "Time between tries to acquire or renew (default 2s)");
  run->add_option("--leader-elect-resource-name", run_options.lease_name,
                  "Name of the Lease (default loadshift)");
  run->add_option("--leader-elect-resource-namespace", run_options.lease_namespace,
                  "Namespace of the Lease (default: the pod's own, else kube-system)");
  add_plan_flags(run, run_plan);
  run->callback([&] {
    run_options.plan = given_plan_flags(run, run_plan);
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGINT, on_stop_signal);
    exit_code = loadshift::cli::run_controller(run_options, std::cerr, &g_stop);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; any other command-line mistake is bad input: exit 2.
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return exit_code;
}

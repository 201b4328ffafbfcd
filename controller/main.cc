// loadshift: a load-aware descheduler for Kubernetes. Command-line entry point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "controller/commands.h"

namespace {

// --kubeconfig, --context, --kube-api-qps, --kube-api-burst, as kubectl and the descheduler.
void add_kube_flags(CLI::App* command, loadshift::controller::KubeFlags& flags) {
  command->add_option("--kubeconfig", flags.kubeconfig,
                      "kubeconfig file; default: $KUBECONFIG, ~/.kube/config, in-cluster");
  command->add_option("--context", flags.context, "kubeconfig context; default: the current one");
  command->add_option("--kube-api-qps", flags.qps,
                      "Requests per second to the API server (default 5; 0: no limit)");
  command->add_option("--kube-api-burst", flags.burst,
                      "Requests to the API server allowed at once (default 10)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"loadshift: a load-aware descheduler for Kubernetes"};
  app.require_subcommand(1);

  app.add_subcommand("version", "Print the version")->callback([] {
    std::cout << "loadshift " << loadshift::controller::version() << "\n";
  });

  std::vector<std::string> snapshots;
  int exit_code = 0;
  auto* feasible = app.add_subcommand(
      "feasible", "Print the decoded cluster and, for every pod, the nodes it may run on");
  feasible->add_option("--snapshot", snapshots, "Kubernetes JSON or YAML file (repeatable)")
      ->required()
      ->check(CLI::ExistingFile);
  feasible->callback(
      [&] { exit_code = loadshift::controller::run_feasible(snapshots, std::cout, std::cerr); });

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
    exit_code = loadshift::controller::run_validate(policy_file, std::cout, std::cerr,
                                                    print_effective, effective_for);
  });

  // run_report checks the flags itself (exclusive flags, --at, --output), so that every bad
  // input exits 2 with a message that names the flag and what was expected.
  loadshift::controller::ReportOptions report_options;
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
  report->add_option("--output", report_options.output, "table (default), json or markdown");
  report->callback([&] {
    report_options.colour = isatty(STDOUT_FILENO) != 0;
    exit_code = loadshift::controller::run_report(report_options, std::cout, std::cerr);
  });

  loadshift::controller::SnapshotOptions snapshot_options;
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
  snapshot->callback([&] {
    exit_code = loadshift::controller::run_snapshot(snapshot_options, std::cout, std::cerr);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help prints and succeeds; any other command-line mistake is bad input: exit 2.
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  return exit_code;
}

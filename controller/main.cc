// loadshift: a load-aware descheduler for Kubernetes. Command-line entry point.
#include <CLI/CLI.hpp>
#include <iostream>

#include "controller/commands.h"

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
  validate->callback([&] {
    exit_code =
        loadshift::controller::run_validate(policy_file, std::cout, std::cerr, print_effective);
  });

  CLI11_PARSE(app, argc, argv);
  return exit_code;
}

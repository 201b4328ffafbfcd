// The loadshift subcommands, callable without the command line (tests use them directly).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace loadshift::cli {

// The release version, e.g. "0.1.0".
std::string_view version();

// `loadshift feasible --snapshot FILE...`: decodes the files and writes the feasibility report to
// `out`. Returns 0, or 2 after writing every decode error to `err`.
int run_feasible(const std::vector<std::string>& snapshot_files, std::ostream& out,
                 std::ostream& err);

// `loadshift validate FILE [--effective [--for loadshift|volcano]]`: loads the policy at `file`
// and writes its warnings to `err`. When it is valid, writes a summary of the effective policy
// to `out` and returns 0; with `print_effective`, the effective policy itself as YAML instead:
// for `effective_for` "loadshift" (or empty) every loadshift field, for "volcano" only what
// Volcano's descheduler reads (each setting it cannot carry is also a warning on `err`).
// Otherwise (or for another `effective_for`) writes every error to `err`, one per line as
// `error: file:line:col: path: message`, and returns 2.
int run_validate(const std::string& file, std::ostream& out, std::ostream& err,
                 bool print_effective = false, const std::string& effective_for = "");

// How to reach the live cluster (flags as kubectl and the descheduler spell them).
struct KubeFlags {
  std::string kubeconfig;  // --kubeconfig FILE; empty: $KUBECONFIG, ~/.kube/config, in-cluster
  std::string context;     // --context NAME; empty: the current context
  double qps = 5;          // --kube-api-qps (the descheduler's default)
  int burst = 10;          // --kube-api-burst
};

// The flags of `run`, `report` and `simulate` that override the policy's `loadshift` section
// (policy::PlanSettings): each empty when not given, so the policy's value holds.
struct PlanFlags {
  std::optional<std::string> workload_cooldown;   // --workload-cooldown DURATION ("0": off)
  std::optional<int> max_in_flight_per_workload;  // --max-in-flight-per-workload N (0: no limit)
  std::optional<bool> soft_taint_hot_nodes;       // --soft-taint-hot-nodes[=false]
  bool no_landing_prediction = false;             // --no-landing-prediction (to compare)
};

// What `loadshift report` was asked for (its flags, as given).
struct ReportOptions {
  std::string policy_file;                  // --policy FILE (required)
  std::vector<std::string> snapshot_files;  // --snapshot FILE...; none: the live cluster
  KubeFlags kube;
  std::string usage_file;        // --usage FILE
  std::string prometheus_url;    // --prometheus URL (not with --usage)
  std::string at;                // --at TIME, RFC 3339; empty: now
  std::string output = "table";  // --output table|json|markdown
  bool colour = false;           // ANSI colours in the table (stdout is a terminal)
  PlanFlags plan;                // override the policy's `loadshift` section
};

// `loadshift report`: loads the policy and the snapshot files, fetches node usage (the file, or
// Prometheus as the policy's first LoadAware configures it, else at the policy's metricsProviders
// url with default settings, plus LowNodeUtilization's MetricResource query when it asks for one;
// `prometheus_url` overriding the address; evaluated at `at`), makes the plan
// (strategies::make_plan) and writes the report to `out` in the `output` format. Policy warnings go
// to `err`. Returns 0 when a plan was made (even an empty one); 2 after writing to `err` why the
// input is bad (each message names the flag or file and what was expected): a bad flag, a policy or
// snapshot error, a usage source that cannot answer at all.
int run_report(const ReportOptions& options, std::ostream& out, std::ostream& err);

// What `loadshift explain NAMESPACE/POD` was asked for: the report's inputs and one pod.
struct ExplainOptions {
  std::string pod;  // NAMESPACE/NAME (required)
  ReportOptions report;  // policy, snapshot or live cluster, usage, --at, plan flags
  std::string output = "table";  // --output table|json
};

// `loadshift explain`: for one pod, what each enabled plugin did with it and why (the plan's
// decision or skip reason, the class of its node), every node's placement verdict with its
// reason, the scheduler model's score per plugin on every feasible node, and the nodes the
// scheduler may pick for its replacement with their chance. This is what a user runs when
// loadshift "does nothing". Returns 0, or 2 after writing to `err` what is wrong with the flags
// or the inputs (a pod that is not in the snapshot included).
int run_explain(const ExplainOptions& options, std::ostream& out, std::ostream& err);

// What `loadshift simulate` was asked for.
struct SimulateOptions {
  std::string policy_file;                  // --policy FILE (required)
  std::vector<std::string> snapshot_files;  // --snapshot FILE... (required)
  std::string usage_file;                   // --usage FILE (required: node and pod usage)
  int cycles = 10;                          // --cycles N (1..1000)
  std::string interval = "10m";             // --interval: time between cycles
  std::string at;                           // --at TIME, RFC 3339: the first cycle; empty: now
  PlanFlags plan;                           // override the policy's `loadshift` section
  uint64_t seed = 1;                        // --seed: the scheduler's choice among ties
  std::string output = "table";             // --output table|json
  std::string chart;                        // --chart FILE.svg: node usage per cycle
};

// `loadshift simulate`: loads the policy, the snapshot and the usage file, runs the simulation
// (simulation/simulation.h) and writes one row per cycle to `out` (table or JSON), and with
// `chart` the SVG chart to that file. Returns 0, or 2 after writing to `err` what is wrong with
// the flags or the inputs.
int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

// What `loadshift snapshot` was asked for.
struct SnapshotOptions {
  std::string output;          // --output FILE (required): the cluster as a v1 List
  std::string usage_output;    // --usage-output FILE: the usage, fetched as --policy says
  std::string policy_file;     // --policy FILE: needed for --usage-output
  std::string prometheus_url;  // --prometheus URL: replaces the policy's address
  std::string at;              // --at TIME: Prometheus' evaluation time; empty: now
  KubeFlags kube;
};

// `loadshift snapshot`: reads the live cluster once (every kind the plan reads) and writes it
// to `output` as a v1 List that `report --snapshot` reads back, and with `usage_output` the
// usage fetched right after, in the `--usage` file format. Says on `out` what it wrote and the
// `report` command that reproduces the plan. Returns 0, or 2 after saying why on `err`.
int run_snapshot(const SnapshotOptions& options, std::ostream& out, std::ostream& err);

// What `loadshift run` was asked for (its flags, as given; durations as the descheduler writes
// them: "30s", "10m", "1h30m").
struct RunOptions {
  std::string policy_file;                    // --policy FILE (required)
  std::string descheduling_interval = "10m";  // --descheduling-interval; "0": one cycle
  bool dry_run = false;                       // --dry-run: no write of any kind
  KubeFlags kube;
  std::string prometheus_url;                  // --prometheus URL
  std::string metrics_addr = "0.0.0.0:10258";  // --metrics-addr HOST:PORT
  std::string tls_cert_file, tls_key_file;     // --tls-cert-file, --tls-private-key-file
  std::string log_format = "text";             // --log-format text|json
  bool plan_page = true;  // --plan-page (default) / --no-plan-page: / and /plan.json
  bool leader_elect = false;                   // --leader-elect
  std::string lease_duration = "15s";          // --leader-elect-lease-duration
  std::string renew_deadline = "10s";          // --leader-elect-renew-deadline
  std::string retry_period = "2s";             // --leader-elect-retry-period
  std::string lease_name = "loadshift";        // --leader-elect-resource-name
  std::string lease_namespace;                 // --leader-elect-resource-namespace; "": own
  PlanFlags plan;  // override the policy's `loadshift` section (re-read with the policy)
};

// `loadshift run`: the controller. Checks the flags and the policy (exit 2 with every problem on
// `err`), reaches the cluster, starts the watch cache, the HTTP port and (with leader_elect) the
// elector, then runs a cycle every interval (plus up to 5% jitter) until `*stop` is set (by
// SIGTERM/SIGINT in main) or, with interval 0, after one cycle. On stop: finishes the eviction
// in flight, releases the lease, returns 0. With interval 0 returns 1 when the one cycle was
// skipped (an input was missing), so a Job shows it. Logs go to stderr (configure_logging).
int run_controller(const RunOptions& options, std::ostream& err,
                   const std::atomic<bool>* stop = nullptr);

}  // namespace loadshift::cli

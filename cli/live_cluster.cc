#include "cli/live_cluster.h"

#include "controller/workload_moves.h"

namespace loadshift::cli {

bool check_kube_flags(const KubeFlags& flags, std::ostream& err) {
  bool ok = true;
  if (!(flags.qps >= 0)) {
    err << "error: --kube-api-qps: expected a number >= 0 (0: no limit), found " << flags.qps
        << "\n";
    ok = false;
  }
  if (flags.burst < 1) {
    err << "error: --kube-api-burst: expected an integer >= 1, found " << flags.burst << "\n";
    ok = false;
  }
  return ok;
}

bool read_live_cluster(const KubeFlags& flags, model::Snapshot* snapshot, std::ostream& err,
                       kube::PageObserver* observer, LiveMoves* moves) {
  kube::ClusterAccess access;
  try {
    access = kube::find_cluster({flags.kubeconfig, flags.context}, kube::Environment::current());
  } catch (const kube::ConfigError& e) {
    err << "error: " << e.what() << "\n";
    return false;
  }
  kube::ClientOptions options;
  options.rate = {flags.qps, flags.burst};
  kube::ApiClient client(access, options);
  kube::ClusterRead read;
  try {
    read = kube::read_cluster(client, {}, observer);
  } catch (const kube::ApiError& e) {
    err << "error: reading the cluster: " << e.what() << "\n";
    return false;
  } catch (const std::exception& e) {
    err << "error: reading the cluster (" << access.origin << "): " << e.what() << "\n";
    return false;
  }
  if (!read.errors.empty()) {
    for (const model::DecodeError& e : read.errors) err << "error: " << e.to_string() << "\n";
    err << "error: " << read.errors.size()
        << " objects of the cluster could not be read; nothing is planned on a partial cluster\n";
    return false;
  }
  for (const std::string& refused : read.not_permitted) {
    err << "warning: read without " << refused
        << "; what needs them falls back (docs/cluster-access.md)\n";
  }
  *snapshot = std::move(read.snapshot);
  if (moves != nullptr) {
    controller::MovesRebuild events =
        controller::rebuild_workload_moves(client, moves->now, moves->window);
    if (!events.error.empty()) {
      err << "warning: the workload cool-down's recent moves were not read (" << events.error
          << "): the plan knows no earlier eviction, as a controller that cannot read its "
             "Events\n";
    } else {
      // Like the snapshot, the Events are today's: with --at in the past, the moves after it are
      // left out.
      strategies::WorkloadMoves kept;
      for (auto& [workload, list] : events.moves) {
        for (const strategies::WorkloadMove& move : list) {
          if (move.at <= moves->now) kept[workload].push_back(move);
        }
      }
      moves->moves = std::move(kept);
    }
  }
  return true;
}

}  // namespace loadshift::cli

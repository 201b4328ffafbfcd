#include "controller/live_cluster.h"

#include "controller/workload_moves.h"

namespace loadshift::controller {

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

namespace {

// The cluster the flags name, or nullopt after writing why not to `err`.
std::optional<kube::ClusterAccess> find_access(const KubeFlags& flags, std::ostream& err) {
  try {
    return kube::find_cluster({flags.kubeconfig, flags.context}, kube::Environment::current());
  } catch (const kube::ConfigError& e) {
    err << "error: " << e.what() << "\n";
    return std::nullopt;
  }
}

kube::ClientOptions client_options(const KubeFlags& flags) {
  kube::ClientOptions options;
  options.rate = {flags.qps, flags.burst};
  return options;
}

}  // namespace

bool read_live_cluster(const KubeFlags& flags, placement::Snapshot* snapshot, std::ostream& err,
                       kube::PageObserver* observer) {
  std::optional<kube::ClusterAccess> found = find_access(flags, err);
  if (!found) return false;
  kube::ClusterAccess& access = *found;
  kube::ApiClient client(access, client_options(flags));
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
    for (const placement::DecodeError& e : read.errors) err << "error: " << e.to_string() << "\n";
    err << "error: " << read.errors.size()
        << " objects of the cluster could not be read; nothing is planned on a partial cluster\n";
    return false;
  }
  for (const std::string& refused : read.not_permitted) {
    err << "warning: read without " << refused
        << "; what needs them falls back (docs/cluster-access.md)\n";
  }
  *snapshot = std::move(read.snapshot);
  return true;
}

bool read_live_moves(const KubeFlags& flags, std::chrono::system_clock::time_point now,
                     std::chrono::seconds window, strategies::WorkloadMoves* moves,
                     std::ostream& err) {
  std::optional<kube::ClusterAccess> access = find_access(flags, err);
  if (!access) return false;
  kube::ApiClient client(*access, client_options(flags));
  MovesRebuild read = rebuild_workload_moves(client, now, window);
  if (!read.error.empty()) {
    err << "warning: the workload cool-down's recent moves were not read (" << read.error
        << "): the plan knows no earlier eviction, as the controller's first cycle would not; "
           "grant list on events.k8s.io events to fix\n";
    return true;
  }
  *moves = std::move(read.moves);
  return true;
}

}  // namespace loadshift::controller

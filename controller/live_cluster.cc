#include "controller/live_cluster.h"

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

bool read_live_cluster(const KubeFlags& flags, placement::Snapshot* snapshot, std::ostream& err,
                       kube::PageObserver* observer) {
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

}  // namespace loadshift::controller

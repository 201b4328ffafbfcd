// Reading the live cluster for the commands: the flags -> kube::ClusterAccess -> one full read.
// Internal to controller/.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>

#include "cli/commands.h"
#include "kube/cluster_reader.h"
#include "strategies/workload.h"

namespace loadshift::cli {

// The workload cool-down's memory, read with the cluster as the controller rebuilds it when it
// starts (workload_moves.h): loadshift's eviction Events of the `window` before `now`, none after
// `now` (Events, like the cluster, are read as they are today).
struct LiveMoves {
  std::chrono::system_clock::time_point now;
  std::chrono::seconds window{0};
  strategies::WorkloadMoves moves;  // the result
};

// Finds the cluster as the flags say and reads it into `*snapshot`. Returns false after writing
// to `err` why not: the configuration (naming the file, context or field), the API's answer
// (401, 403 with the RBAC verb and resource, TLS, connection), or objects the decoder could not
// read (a partial cluster is never planned on). `observer` (may be null) sees the raw pages.
// With `moves` (may be null), also reads the cool-down's moves with the same client; an Events
// list that fails is a warning on `err` and leaves them empty.
bool read_live_cluster(const KubeFlags& flags, model::Snapshot* snapshot, std::ostream& err,
                       kube::PageObserver* observer = nullptr, LiveMoves* moves = nullptr);

// Checks --kube-api-qps and --kube-api-burst; writes the problem to `err` and returns false.
bool check_kube_flags(const KubeFlags& flags, std::ostream& err);

}  // namespace loadshift::cli

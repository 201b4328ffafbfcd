// Reading the live cluster for the commands: the flags -> kube::ClusterAccess -> one full read.
// Internal to controller/.
#pragma once

#include <optional>
#include <ostream>

#include "controller/commands.h"
#include "kube/cluster_reader.h"

namespace loadshift::controller {

// Finds the cluster as the flags say and reads it into `*snapshot`. Returns false after writing
// to `err` why not: the configuration (naming the file, context or field), the API's answer
// (401, 403 with the RBAC verb and resource, TLS, connection), or objects the decoder could not
// read (a partial cluster is never planned on). `observer` (may be null) sees the raw pages.
bool read_live_cluster(const KubeFlags& flags, placement::Snapshot* snapshot, std::ostream& err,
                       kube::PageObserver* observer = nullptr);

// Checks --kube-api-qps and --kube-api-burst; writes the problem to `err` and returns false.
bool check_kube_flags(const KubeFlags& flags, std::ostream& err);

}  // namespace loadshift::controller

// The feasibility report: the decoded cluster and, for every pod, the nodes the placement core
// would accept it on (and why each other node is refused). The first form of the dry-run report;
// it shows exactly what the placement core decides.
#pragma once

#include <ostream>

#include "placement/cluster_index.h"

namespace loadshift::report {

// Writes the node table, then one block per pod: its node, feasible targets with their score,
// and each refused node with the reasons.
void write_feasibility_report(const placement::ClusterIndex& index, std::ostream& out);

}  // namespace loadshift::report

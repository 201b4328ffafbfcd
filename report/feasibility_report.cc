#include "report/feasibility_report.h"

#include <iomanip>
#include <numeric>
#include <vector>

#include "placement/ledger.h"
#include "placement/placer.h"

namespace loadshift::report {
namespace {

using model::format_amount;
using model::Node;
using placement::ClusterIndex;
using placement::NodeId;
using placement::PodId;

std::string percent(int64_t used, int64_t total) {
  if (total <= 0) return "-";
  return std::to_string(used * 100 / total) + "%";
}

void write_nodes(const ClusterIndex& index, std::ostream& out) {
  const auto& nodes = index.snapshot().nodes;
  out << "Nodes (" << nodes.size() << ")\n";
  out << std::left << std::setw(14) << "  NODE" << std::setw(11) << "POOL" << std::setw(7)
      << "READY" << std::setw(16) << "CPU REQ" << std::setw(18) << "MEMORY REQ"
      << "TAINTS\n";
  for (NodeId id = 0; id < nodes.size(); ++id) {
    const Node& node = nodes[id];
    const std::string* pool = node.meta.labels.find(index.options().pool_label);
    const auto* ready = node.condition("Ready");
    const auto& req = index.requested(id);
    std::string taints;
    for (const auto& t : node.taints) {
      taints += (taints.empty() ? "" : ",") + t.key + (t.value.empty() ? "" : "=" + t.value) + ":" +
                std::string(model::to_string(t.effect));
    }
    out << "  " << std::setw(12) << node.meta.name << std::setw(11) << (pool ? *pool : "-")
        << std::setw(7) << (ready ? ready->status : "?") << std::setw(16)
        << (format_amount("cpu", req.cpu_milli) + " " +
            percent(req.cpu_milli, node.allocatable.cpu_milli))
        << std::setw(18)
        << (format_amount("memory", req.memory) + " " +
            percent(req.memory, node.allocatable.memory))
        << (taints.empty() ? "-" : taints) << (node.unschedulable ? " (cordoned)" : "") << "\n";
  }
}

}  // namespace

void write_feasibility_report(const ClusterIndex& index, std::ostream& out) {
  const auto& snapshot = index.snapshot();
  write_nodes(index, out);
  placement::Placer placer(index);
  placement::Ledger ledger(snapshot.nodes.size(), &index.pod_topology());
  std::vector<NodeId> all(snapshot.nodes.size());
  std::iota(all.begin(), all.end(), 0);

  out << "\nPods (" << snapshot.pods.size() << ")\n";
  for (PodId id = 0; id < snapshot.pods.size(); ++id) {
    const auto& pod = snapshot.pods[id];
    out << "  " << pod.key() << " on " << (pod.node_name.empty() ? "(unbound)" : pod.node_name)
        << " [" << model::to_string(pod.phase) << "] requests " << index.requests(id).describe()
        << "\n";
    placement::TargetChoice choice = placer.best_target(id, all, ledger);
    std::string feasible;
    for (NodeId node : all) {
      if (placer.feasible(id, node, ledger)) {
        feasible += (feasible.empty() ? "" : ", ") + snapshot.nodes[node].meta.name;
      }
    }
    out << "    feasible: " << (feasible.empty() ? "none" : feasible) << "\n";
    if (choice.target) {
      out << "    best:     " << snapshot.nodes[*choice.target].meta.name << " (preferred affinity "
          << choice.score.preferred_affinity << ")\n";
    }
    for (const auto& [node, verdict] : choice.rejected) {
      out << "    refused " << snapshot.nodes[node].meta.name << ": " << verdict.describe() << "\n";
    }
  }
  if (!index.warnings().empty()) {
    out << "\nWarnings\n";
    for (const auto& w : index.warnings()) out << "  " << w << "\n";
  }
}

}  // namespace loadshift::report

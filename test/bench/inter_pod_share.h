// Gives a share of a synthetic cluster's workloads the inter-pod rules production Deployments
// use, for the benchmarks: one replica per node (required anti-affinity on the hostname), a zone
// spread (DoNotSchedule, maxSkew 1) and a hostname spread (ScheduleAnyway), all by the `app`
// label. gen_cluster.py makes none, so the benchmarks add them after decoding.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "model/model.h"

namespace loadshift::bench {

// Adds the rules to every pod whose `app` label hashes into the first `percent` of 100 buckets;
// returns how many pods got them.
inline size_t add_inter_pod_rules(model::Snapshot& snapshot, int percent) {
  using namespace placement;
  using namespace model;
  size_t touched = 0;
  for (Pod& pod : snapshot.pods) {
    const std::string* app = pod.meta.labels.find("app");
    if (app == nullptr || std::hash<std::string>{}(*app) % 100 >= static_cast<size_t>(percent)) {
      continue;
    }
    LabelSelector same_app;
    same_app.match_labels.set("app", *app);
    PodAffinityTerm one_per_node;
    one_per_node.label_selector = same_app;
    one_per_node.topology_key = "kubernetes.io/hostname";
    pod.pod_anti_affinity.required.push_back(one_per_node);
    TopologySpreadConstraint zones;
    zones.max_skew = 1;
    zones.topology_key = "topology.kubernetes.io/zone";
    zones.label_selector = same_app;
    pod.topology_spread.push_back(zones);
    TopologySpreadConstraint hosts = zones;
    hosts.topology_key = "kubernetes.io/hostname";
    hosts.when_unsatisfiable = UnsatisfiableAction::kScheduleAnyway;
    pod.topology_spread.push_back(hosts);
    ++touched;
  }
  return touched;
}

}  // namespace loadshift::bench

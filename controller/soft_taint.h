// The soft taint on hot nodes (run --soft-taint-hot-nodes): loadshift.io/overutilized with an
// empty value and effect PreferNoSchedule, so that the scheduler prefers other nodes for the
// replacements of the pods evicted from hot nodes while the evictions settle.
//
// After the plan and before the evictions (never in dry run):
//  - every node the plan classes overutilized gets the taint (evictions from it or not);
//  - a node carrying it that the plan classes underutilized or appropriate (it cooled) loses it;
//  - a node carrying it whose class is unknown or unclassified (no usage data, out of scope, not
//    Ready) keeps it, and the log says so; so does an overutilized node (still hot).
// The scheduler model of the plan (PlanOptions::soft_taint_hot_nodes) counted the taint on every
// overutilized node, for every pod's landing: when the taint could not be put on a node (403, an
// error), every eviction of this cycle is skipped (NodeWrites::refused).
//
// The write is a JSON Patch (RFC 6902) of the node, not a read-modify-write PUT: its first
// operation tests metadata.resourceVersion against the node as the cache saw it, so the positions
// it names are exact, and it only appends or removes loadshift's own entry of spec.taints: every
// other taint is left as it is, fields loadshift does not decode (timeAdded) included. It needs
// only the `patch` verb on nodes (a PUT would need `get` and `update` and would write back the
// whole node as decoded). The API server answers a failed test with 422 (and a changed
// resourceVersion with 409): the node changed since; the patch is made again from the cache's
// newer copy, at most 3 attempts.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "controller/plan_executor.h"
#include "kube/api_client.h"
#include "kube/watch_cache.h"
#include "model/model.h"
#include "strategies/plan.h"

namespace loadshift::controller {

inline constexpr const char* kSoftTaintKey = "loadshift.io/overutilized";

// True when `node` carries loadshift.io/overutilized:PreferNoSchedule (any value).
bool has_soft_taint(const model::Node& node);

struct SoftTaintChange {
  placement::NodeId node = placement::kNoNode;
  bool add = true;  // false: remove
  std::string why;  // "overutilized: cpu 92.0% > 80%, 2 eviction(s)", "cooled: appropriate ..."
};

struct SoftTaintPlan {
  std::vector<SoftTaintChange> changes;  // in snapshot order
  // Nodes that keep the taint because their class is unknown: (node, the plan's why).
  std::vector<std::pair<placement::NodeId, std::string>> kept_unknown;
  size_t carrying = 0;  // nodes of the snapshot that carry the taint now
};

// What should change, from the snapshot the plan was made on and the plan. Pure.
SoftTaintPlan plan_soft_taints(const model::Snapshot& snapshot, const strategies::Plan& plan);

struct SoftTaintResult {
  NodeWrites writes;   // for the PlanExecutor
  size_t tainted = 0;  // nodes carrying the taint after the changes that succeeded
  size_t added = 0, removed = 0, failed = 0;
};

class SoftTainter {
 public:
  // `client` and `cache` must outlive the tainter. Each patch is one request of at most
  // `request_timeout`, sent only while `may_write` says "" (the lease).
  SoftTainter(kube::ApiClient& client, const kube::WatchCache& cache,
              std::chrono::milliseconds request_timeout);

  // Carries out plan_soft_taints(): logs every taint added ("soft taint added"), removed ("soft
  // taint removed"), kept on an unknown node ("soft taint kept") or not written ("soft taint
  // failed", a warning). A failed add refuses the node's evictions (writes.refused); a failed
  // removal only warns (the next cycle tries again). Never throws.
  SoftTaintResult apply(const model::Snapshot& snapshot, const strategies::Plan& plan,
                        const std::function<std::string()>& may_write);

 private:
  // Adds or removes the taint on `name`, seen first as `seen`; "" or why not. `resource_version`
  // receives the node's version after a patch of `seen` itself ("" when nothing needed writing,
  // or the patch was made again on a node changed since).
  std::string patch(const std::string& name, const model::Node& seen, bool add,
                    const std::function<std::string()>& may_write, std::string* resource_version);

  kube::ApiClient& client_;
  const kube::WatchCache& cache_;
  std::chrono::milliseconds request_timeout_;
};

}  // namespace loadshift::controller

// The per-workload cool-down's memory (run --workload-cooldown): when each workload last had a
// pod evicted, kept in memory by the controller and rebuilt, after a restart or a change of
// leader, from the Events loadshift itself wrote.
//
// Every Event of an eviction (PodEvictor::post_event) names the pod's controlling owner in its
// `related` object reference (apiVersion, kind, name, namespace, uid). rebuild_workload_moves()
// lists events.k8s.io/v1 Events in every namespace, page by page, and keeps those with
// reportingController "loadshift.io/descheduler", action "Descheduled", type Normal and a
// `related` object; the time is the Event's eventTime, or its series.lastObservedTime when that is
// later. An Event without `related` (written by an older loadshift) is left out. Events expire
// (the apiserver's --event-ttl, 1 h by default): a cool-down longer than that is only remembered
// by the running controller.
#pragma once

#include <chrono>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "kube/api_client.h"
#include "strategies/plan.h"

namespace loadshift::controller {

// The reportingController of loadshift's Events.
inline constexpr const char* kReportingController = "loadshift.io/descheduler";

// The workload key (strategies::workload_key) an Event's `related` reference stands for:
// "namespace/Kind/name", the namespace from the reference or else the Event's own; "" when the
// Event is not one of loadshift's eviction Events with a `related` controller (see above).
// `when` receives its time; an Event without a readable eventTime or series time gives "".
std::string workload_of_event(const nlohmann::json& event,
                              std::chrono::system_clock::time_point* when);

struct MovesRebuild {
  strategies::WorkloadMoves moves;  // the latest time per workload, within the window
  size_t events = 0;                // Events read
  size_t used = 0;                  // of them, loadshift's eviction Events within the window
  size_t without_related = 0;       // loadshift's eviction Events that name no workload
  std::string error;                // "" or why the list failed (the moves are then empty)
};

// Lists events.k8s.io/v1 Events in all namespaces (limit `page_size`, continue) and keeps, per
// workload, the latest time of loadshift's eviction Events newer than `now - window`. Never
// throws: a list that fails (403, the server down after the client's retries, an answer that is
// not an EventList) gives empty moves and `error` naming why.
MovesRebuild rebuild_workload_moves(kube::ApiClient& client,
                                    std::chrono::system_clock::time_point now,
                                    std::chrono::seconds window, size_t page_size = 500);

// Drops the entries at least `window` old (a time after `now`, from a clock step back, stays).
void prune_workload_moves(strategies::WorkloadMoves& moves,
                          std::chrono::system_clock::time_point now, std::chrono::seconds window);

// Merges `from` into `into`, keeping the later time of a workload in both.
void merge_workload_moves(strategies::WorkloadMoves& into, const strategies::WorkloadMoves& from);

}  // namespace loadshift::controller

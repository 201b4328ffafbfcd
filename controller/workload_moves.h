// The per-workload cool-down's memory (strategies/cooldown.h): each workload's recent moves (from
// which node, toward which, when), kept in memory by the controller and rebuilt, after a restart
// or a change of leader, from the Events loadshift itself wrote.
//
// Every Event of an eviction (PodEvictor::post_event) names the pod's controlling owner in its
// `related` object reference (apiVersion, kind, name, namespace, uid). rebuild_workload_moves()
// lists events.k8s.io/v1 Events in every namespace, page by page, and keeps those with
// reportingController "loadshift.io/descheduler", action "Descheduled", type Normal and a
// `related` object; the time is the Event's eventTime, or its series.lastObservedTime when that is
// later; the nodes are its annotations loadshift.io/from-node and loadshift.io/to-node. An Event without `related` (written by an older loadshift) is left out. Events expire
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
// `move` receives the move: its time (eventTime, or series.lastObservedTime when later) and its
// nodes from the annotations loadshift.io/from-node and loadshift.io/to-node ("" when absent: an
// Event of an older loadshift). The Event of a finished pod's removal (annotation
// loadshift.io/finished "true") is no move: "" too. An Event without a readable eventTime or series time gives "".
std::string workload_of_event(const nlohmann::json& event, strategies::WorkloadMove* move);

struct MovesRebuild {
  strategies::WorkloadMoves moves;  // per workload, its moves within the window, oldest first
  size_t events = 0;                // Events read
  size_t used = 0;                  // of them, loadshift's eviction Events within the window
  size_t without_related = 0;       // loadshift's eviction Events that name no workload
  std::string error;                // "" or why the list failed (the moves are then empty)
};

// Lists events.k8s.io/v1 Events in all namespaces (limit `page_size`, continue) and keeps, per
// workload, the moves of loadshift's eviction Events newer than `now - window`. Never
// throws: a list that fails (403, the server down after the client's retries, an answer that is
// not an EventList) gives empty moves and `error` naming why.
MovesRebuild rebuild_workload_moves(kube::ApiClient& client,
                                    std::chrono::system_clock::time_point now,
                                    std::chrono::seconds window, size_t page_size = 500);

// Drops the moves at least `window` old (a time after `now`, from a clock step back, stays), and
// the workloads left without one.
void prune_workload_moves(strategies::WorkloadMoves& moves,
                          std::chrono::system_clock::time_point now, std::chrono::seconds window);

// Merges `from` into `into`: a move of `from` joins its workload's unless one with the same nodes
// is there within a second of it (the Event's time has microseconds), oldest first.
void merge_workload_moves(strategies::WorkloadMoves& into, const strategies::WorkloadMoves& from);

}  // namespace loadshift::controller

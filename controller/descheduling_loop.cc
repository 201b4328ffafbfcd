// The cycle: every input checked before a plan is made, the plan carried out or logged.
#include "controller/descheduling_loop.h"

#include <openssl/evp.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "controller/soft_taint.h"
#include "controller/structured_log.h"
#include "controller/workload_moves.h"
#include "model/rfc3339.h"
#include "placement/cluster_index.h"
#include "report/report.h"
#include "strategies/plan.h"

namespace loadshift::controller {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Standard base64 (a Secret's data) -> bytes; empty optional when it is not base64.
std::optional<std::string> base64_decode(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  size_t padding = 0;
  if (!text.empty() && text.back() == '=') ++padding;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++padding;
  out.resize(static_cast<size_t>(n) - padding);
  return out;
}

}  // namespace

DeschedulingLoop::DeschedulingLoop(kube::ApiClient& client, kube::WatchCache& cache,
                                   PolicyWatcher& policy, ControllerMetrics& metrics,
                                   metrics::SelfMetrics& self_metrics, LeaderElector* elector,
                                   LoopSettings settings, const std::atomic<bool>& stop)
    : client_(client),
      cache_(cache),
      policy_(policy),
      metrics_(metrics),
      self_metrics_(self_metrics),
      elector_(elector),
      settings_(std::move(settings)),
      stop_(stop) {
  metrics_.set_interval(std::chrono::duration<double>(settings_.interval).count());
}

bool DeschedulingLoop::may_evict_now(std::string* why) const {
  if (stop_.load()) {
    *why = "stopping: a signal asked the controller to end";
    return false;
  }
  if (elector_ != nullptr && !elector_->is_leader()) {
    *why = "lease lost: not renewed within --leader-elect-renew-deadline";
    return false;
  }
  return true;
}

CycleOutcome DeschedulingLoop::skipped(std::string reason, std::string why) {
  CycleOutcome outcome;
  outcome.result = "skipped";
  outcome.skip_reason = std::move(reason);
  outcome.why = std::move(why);
  return outcome;
}

std::optional<std::string> DeschedulingLoop::read_providers_token(const policy::Policy& policy,
                                                                  std::string* error) {
  const auto& prometheus = policy.metrics_providers.prometheus;
  if (!prometheus || prometheus->auth_secret_name.empty()) return std::nullopt;
  const std::string where = "Secret " + prometheus->auth_secret_namespace + "/" +
                            prometheus->auth_secret_name +
                            " (metricsProviders prometheus authToken secretReference)";
  kube::ApiAnswer answer;
  try {
    answer = client_.send("GET",
                          "/api/v1/namespaces/" + prometheus->auth_secret_namespace + "/secrets/" +
                              prometheus->auth_secret_name,
                          "", kube::WriteOptions{1, std::chrono::milliseconds(5000)});
  } catch (const kube::ApiError& e) {
    *error = where + ": " + e.what();
    return std::nullopt;
  }
  if (!answer.ok()) {
    *error =
        where + ": " + std::to_string(answer.status) + " " + answer.reason + ": " + answer.message;
    return std::nullopt;
  }
  nlohmann::json secret = nlohmann::json::parse(answer.body, nullptr, false);
  const nlohmann::json* value = nullptr;
  if (secret.is_object() && secret.contains("data") && secret["data"].is_object() &&
      secret["data"].contains("prometheusAuthToken")) {
    value = &secret["data"]["prometheusAuthToken"];
  }
  if (value == nullptr || !value->is_string()) {
    *error = where + ": expected the key data.prometheusAuthToken";
    return std::nullopt;
  }
  std::optional<std::string> token = base64_decode(value->get<std::string>());
  if (!token) {
    *error = where + ": data.prometheusAuthToken is not base64";
    return std::nullopt;
  }
  while (!token->empty() &&
         (token->back() == '\n' || token->back() == '\r' || token->back() == ' ')) {
    token->pop_back();
  }
  for (char c : *token) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      *error = where + ": data.prometheusAuthToken holds a control character; a token cannot";
      return std::nullopt;
    }
  }
  if (token->empty()) {
    *error = where + ": data.prometheusAuthToken is empty";
    return std::nullopt;
  }
  return token;
}

void DeschedulingLoop::rebuild_moves(std::chrono::seconds window) {
  moves_rebuilt_ = true;
  MovesRebuild read = rebuild_workload_moves(client_, std::chrono::system_clock::now(), window);
  if (!read.error.empty()) {
    log_line(spdlog::level::warn, "workload cool-down not rebuilt",
             {{"error", read.error},
              {"consequence",
               "the cool-down counts only the evictions of this replica from now on; grant list "
               "on events.k8s.io events to fix"}});
    return;
  }
  merge_workload_moves(last_moved_, read.moves);
  log_line(spdlog::level::info, "workload cool-down rebuilt",
           {{"events", std::to_string(read.events)},
            {"evictions", std::to_string(read.used)},
            {"workloads", std::to_string(read.moves.size())},
            {"without_related", std::to_string(read.without_related)}});
}

CycleOutcome DeschedulingLoop::run_cycle() {
  const Clock::time_point started = Clock::now();
  CycleOutcome outcome;
  strategies::Plan plan;
  bool planned = false;
  std::shared_ptr<const report::PlanView> view;  // this cycle's, for the status page
  auto cycle = [&] {
    policy_.poll();  // logs a reload or a rejection itself
    std::shared_ptr<const policy::Policy> policy = policy_.current();
    // The policy's `loadshift` section with run's flags over it: what this cycle plans with.
    const policy::PlanSettings plan_settings =
        strategies::effective_settings(policy->loadshift, settings_.plan);
    const std::chrono::seconds cooldown(plan_settings.workload_cooldown.milliseconds / 1000);

    if (elector_ != nullptr && !elector_->is_leader()) {
      moves_rebuilt_ = false;  // the leader evicts meanwhile: read its Events when leading
      // Only the leader's plan and usage are exported: a former leader's would go stale.
      metrics_.forget_plan();
      self_metrics_.record_usage(metrics::UsageMap{});
      outcome.result = "standby";
      std::string holder = elector_->observed_holder();
      outcome.why = "standby: " + (holder.empty() ? std::string("no replica holds the lease yet")
                                                  : "the lease is held by " + holder);
      return;
    }
    if (!cache_.synced()) {
      std::string waiting;
      for (const std::string& name : cache_.unsynced())
        waiting += (waiting.empty() ? "" : ", ") + name;
      outcome =
          skipped("cache_not_synced", "the cache has not finished its first list of: " + waiting);
      return;
    }
    if (std::vector<model::DecodeError> errors = cache_.decode_errors(); !errors.empty()) {
      outcome = skipped("cache_unreadable_objects",
                        std::to_string(errors.size()) +
                            " object(s) in the cache could not be read, so the cluster is only "
                            "partly known; first: " +
                            errors.front().to_string());
      return;
    }
    kube::WatchCacheStats stats = cache_.stats();
    if (!(stats.max_seconds_since_contact <= settings_.cache_max_staleness_seconds)) {
      std::string errors;
      for (const std::string& e : stats.errors) errors += "; " + e;
      outcome = skipped(
          "cache_stale",
          "the cache has had no answer from the API server for " +
              std::to_string(static_cast<int>(stats.max_seconds_since_contact)) + " s (limit " +
              std::to_string(static_cast<int>(settings_.cache_max_staleness_seconds)) + " s)" +
              errors);
      return;
    }
    // An optional collection the RBAC refuses: planned without it, said every cycle.
    for (const std::string& collection : stats.not_permitted) {
      log_line(spdlog::level::warn, "cache warning",
               {{"warning", "the API server refuses to list or watch " + collection +
                                " (403): planned without them (a pod affinity namespaceSelector "
                                "and DefaultEvictor's namespaceLabelSelector fall back, see "
                                "docs/cluster-access.md); grant list and watch to fix"}});
    }
    // A reload that lengthens the cool-down (or turns it on) reads the Events again: moves pruned
    // under the shorter window may still be in them.
    if (cooldown > moves_window_) moves_rebuilt_ = false;
    moves_window_ = cooldown;
    if (cooldown.count() > 0 && !moves_rebuilt_) rebuild_moves(cooldown);
    // Usage first, then the snapshot: the fetch's answers (large with per-pod usage) are freed
    // before the snapshot and the index exist, and the snapshot, which shares the cache's pods,
    // does not keep pods the cache replaces during the fetch alive: the two never add up. (A node
    // that joins during the fetch is in the snapshot without usage: unknown for this cycle.)
    usage::UsageFlags flags;
    flags.prometheus_url = settings_.prometheus_url;
    flags.self_metrics = &self_metrics_;
    std::string secret_error;
    flags.providers_token = read_providers_token(*policy, &secret_error);
    if (!secret_error.empty()) {
      outcome = skipped("usage_secret", secret_error);
      return;
    }
    metrics::UsageMap usage;
    std::string why_none;
    std::unique_ptr<metrics::NodeUsageSource> source;
    try {
      source = usage::make_usage_source(flags, *policy, &why_none);
    } catch (const std::exception& e) {
      outcome = skipped("usage_fetch_failed", std::string("usage source: ") + e.what());
      return;
    }
    if (!source) {
      usage = usage::usage_without_source(why_none);
      metrics_.set_coverage(0);  // no usage data: none of the nodes is covered
    } else {
      const Clock::time_point fetch_started = Clock::now();
      try {
        std::vector<metrics::NodeIdentity> nodes;  // read in place: no copy of the nodes
        cache_.visit_nodes(
            [&nodes](const model::Node& node) { nodes.push_back(usage::node_identity(node)); });
        usage = source->fetch(nodes, usage::usage_request(*policy));
        metrics_.observe_usage_fetch(seconds_since(fetch_started), true);
      } catch (const std::exception& e) {
        metrics_.observe_usage_fetch(seconds_since(fetch_started), false);
        outcome = skipped("usage_fetch_failed", std::string("usage fetch: ") + e.what());
        return;
      }
      for (std::string& warning : usage::usage_source_warnings(flags, *policy)) {
        usage.warnings.push_back(std::move(warning));
      }
      self_metrics_.record_usage(usage);
      metrics_.set_coverage(usage.coverage_percent() / 100.0);
    }
    for (const std::string& warning : usage.warnings) {
      log_line(spdlog::level::warn, "usage warning", {{"warning", warning}});
    }

    // Const: reading pods through a const snapshot never copies the ones it shares.
    const model::Snapshot snapshot = cache_.snapshot();
    metrics_.record_cache(snapshot, stats.max_seconds_since_contact);
    placement::ClusterIndex index(snapshot, strategies::placement_options(*policy));

    strategies::PlanOptions plan_options =
        strategies::plan_options(plan_settings, std::chrono::system_clock::now());
    prune_workload_moves(last_moved_, plan_options.now, cooldown);
    metrics_.set_cooling_workloads(last_moved_.size());
    plan_options.last_moved = &last_moved_;
    plan = strategies::make_plan(index, usage, *policy, plan_options);
    planned = true;
    metrics_.record_nodes(index, plan);
    if (settings_.publish_plan) {
      view = std::make_shared<const report::PlanView>(
          report::make_plan_view(index, plan, usage, model::format_rfc3339(plan_options.now)));
    }
    outcome.planned = plan.evictions.size();
    for (const std::string& note : plan.notes) {
      log_line(spdlog::level::info, "plan note", {{"note", note}});
    }
    for (const strategies::SkippedPod& skip : plan.skipped) {
      if (skip.code != strategies::SkipCode::kCoolingDown) continue;
      log_line(
          spdlog::level::info, "cooling down",
          {{"pod", snapshot.pods[skip.pod].key()},
           {"node", skip.node == placement::kNoNode ? "" : snapshot.nodes[skip.node].meta.name},
           {"strategy", skip.strategy},
           {"reason", skip.reason}});
    }

    if (settings_.dry_run) {
      std::ostringstream table;
      report::write_report(index, plan, usage, report::ReportFormat::kTable,
                           report::ReportStyle{false, model::format_rfc3339(plan_options.now)},
                           table);
      for (const strategies::EvictionDecision& decision : plan.evictions) {
        const model::Pod& pod = snapshot.pods[decision.pod];
        log_line(spdlog::level::info, "would evict (dry run)",
                 {{"pod", pod.key()},
                  {"node", snapshot.nodes[decision.node].meta.name},
                  {"target", decision.target == placement::kNoNode
                                 ? ""
                                 : snapshot.nodes[decision.target].meta.name},
                  {"landing", decision.landing == placement::kNoNode
                                  ? ""
                                  : snapshot.nodes[decision.landing].meta.name},
                  {"strategy", decision.strategy},
                  {"reason", decision.reason}});
      }
      log_line(spdlog::level::info, "plan (dry run)", {{"report", table.str()}});
      metrics_.record_soft_taints(plan_soft_taints(snapshot, plan).carrying, 0, 0, 0);
      outcome.result = "nothing_to_do";
      outcome.why = "dry run: " + std::to_string(plan.evictions.size()) +
                    " eviction(s) planned, none carried out";
      return;
    }

    PodEvictorOptions evictor_options;
    evictor_options.grace_period_seconds = policy->grace_period_seconds;
    evictor_options.reporting_instance =
        elector_ != nullptr ? elector_->config().identity : make_identity();
    if (elector_ != nullptr) {
      // A request sent while leading is answered or abandoned before another replica can lead.
      auto margin = elector_->config().lease_duration - elector_->config().renew_deadline;
      evictor_options.request_timeout =
          std::min<std::chrono::milliseconds>(margin, std::chrono::milliseconds(5000));
    }
    PodEvictor evictor(client_, evictor_options);
    PlanExecutor executor(cache_, evictor, metrics_,
                          ExecutorOptions{static_cast<int>(plan_settings.max_in_flight_per_workload),
                                          policy->eviction_failure_event_notification});
    const std::function<std::string()> may_write = [this] {
      std::string why;
      return may_evict_now(&why) ? std::string() : why;
    };
    // The soft taints go on before the evictions: the plan's scheduler model assumed them.
    SoftTaintResult taints;
    if (plan_settings.soft_taint_hot_nodes) {
      SoftTainter tainter(client_, cache_, evictor_options.request_timeout);
      taints = tainter.apply(snapshot, plan, may_write);
    } else {
      taints.tainted = plan_soft_taints(snapshot, plan).carrying;
    }
    metrics_.record_soft_taints(taints.tainted, taints.added, taints.removed, taints.failed);
    ExecutionSummary summary = executor.execute(index, plan, may_write, &taints.writes);
    // Every eviction the API accepted joins the cool-down, at the time its request was sent.
    for (const ExecutedEviction& done : summary.evictions) {
      if (done.outcome != "evicted") continue;
      const strategies::EvictionDecision& decision = plan.evictions[done.decision];
      const model::Pod& pod = snapshot.pods[decision.pod];
      std::string workload = strategies::workload_key(pod);
      if (workload.empty() || pod.terminated()) continue;
      auto name = [&](placement::NodeId node) {
        return node == placement::kNoNode ? std::string() : snapshot.nodes[node].meta.name;
      };
      last_moved_[workload].push_back(
          strategies::WorkloadMove{name(decision.node), name(decision.placed()), done.sent});
    }
    outcome.evicted = summary.evicted;
    outcome.failed = summary.failed;
    outcome.skipped = summary.skipped;
    outcome.result = summary.evicted > 0 ? "evicted" : "nothing_to_do";
    if (!summary.stopped.empty()) {
      outcome.why = summary.stopped;
    } else if (plan.evictions.empty()) {
      std::string notes;
      for (const std::string& note : plan.notes) notes += (notes.empty() ? "" : "; ") + note;
      outcome.why =
          notes.empty() ? "the plan has no eviction" : "the plan has no eviction: " + notes;
    }
  };
  try {
    cycle();
  } catch (const std::exception& e) {
    // A bug or an answer nobody foresaw: this cycle ends here, the controller goes on.
    outcome = skipped("internal_error", std::string("the cycle failed: ") + e.what());
  }

  metrics_.observe_cycle(seconds_since(started), planned ? &plan : nullptr);
  metrics_.count_cycle(outcome.result, outcome.skip_reason);
  LogFields fields{{"result", outcome.result},
                   {"planned", std::to_string(outcome.planned)},
                   {"evicted", std::to_string(outcome.evicted)},
                   {"failed", std::to_string(outcome.failed)},
                   {"skipped", std::to_string(outcome.skipped)},
                   {"seconds", std::to_string(seconds_since(started))}};
  if (!outcome.skip_reason.empty()) fields.emplace_back("skip_reason", outcome.skip_reason);
  if (!outcome.why.empty()) fields.emplace_back("why", outcome.why);
  log_line(outcome.result == "skipped" ? spdlog::level::warn : spdlog::level::info, "cycle",
           fields);
#ifdef __GLIBC__
  // A cycle's snapshot, index and usage answers are freed here; give the pages back instead of
  // keeping them in the allocator's per-thread arenas until the next cycle.
  malloc_trim(0);
#endif
  const std::string at = model::format_rfc3339(std::chrono::system_clock::now());
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = outcome;
  last_cycle_end_ = Clock::now();
  cycled_ = true;
  if (outcome.result == "standby") {
    published_ = {nullptr, outcome.why};
  } else if (view) {
    std::string what =
        settings_.dry_run
            ? "dry run: " + std::to_string(outcome.planned) +
                  " eviction(s) planned, none carried out"
            : std::to_string(outcome.evicted) + " of " + std::to_string(outcome.planned) +
                  " planned eviction(s) carried out, " + std::to_string(outcome.failed) +
                  " failed, " + std::to_string(outcome.skipped) + " skipped";
    if (outcome.result == "skipped") {
      what = "stopped: " + outcome.why;
    } else if (!outcome.why.empty() && !settings_.dry_run) {
      what += " (" + outcome.why + ")";  // e.g. the lease lost mid-cycle: the rest not sent
    }
    std::string status = "the cycle of " + view->content.at + ": " + what;
    published_ = {std::move(view), std::move(status)};
  } else if (settings_.publish_plan) {
    // A cycle that could not plan keeps the last plan on show, and says so.
    std::string status = "the cycle of " + at + " did not plan: " + outcome.why;
    if (published_.view) status += " (shown: the plan of " + published_.view->content.at + ")";
    published_.status = std::move(status);
  }
  return outcome;
}

PublishedPlan DeschedulingLoop::published_plan() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return published_;
}

Readiness DeschedulingLoop::readiness() const {
  Readiness r;
  const bool synced = cache_.synced();
  std::lock_guard<std::mutex> lock(mutex_);
  const double since =
      cycled_ ? std::chrono::duration<double>(Clock::now() - last_cycle_end_).count() : -1;
  const double recent_limit = 2 * std::chrono::duration<double>(settings_.interval).count() + 60;
  r.ready = synced && cycled_ && since <= recent_limit;
  r.detail = std::string("cache: ") + (synced ? "synced" : "not synced") + "\n";
  if (elector_ != nullptr) {
    r.detail += std::string("role: ") + (elector_->is_leader() ? "leader" : "standby") + "\n";
  } else {
    r.detail += settings_.dry_run ? "role: dry run\n" : "role: leader (no election)\n";
  }
  if (!cycled_) {
    r.detail += "last cycle: none yet\n";
  } else {
    r.detail +=
        "last cycle: " + std::to_string(static_cast<int>(since)) + " s ago, " + last_.result + "\n";
    if (!last_.why.empty()) r.detail += "why: " + last_.why + "\n";
  }
  return r;
}

}  // namespace loadshift::controller

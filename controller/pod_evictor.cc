// Eviction requests and Events, and what each API answer means.
#include "controller/pod_evictor.h"

#include <atomic>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

#include "controller/workload_moves.h"
#include "model/rfc3339.h"

namespace loadshift::controller {
namespace {

using nlohmann::json;

std::string answer_text(const kube::ApiAnswer& answer) {
  std::string text = std::to_string(answer.status);
  if (!answer.reason.empty()) text += " " + answer.reason;
  if (!answer.message.empty()) text += ": " + answer.message;
  return text;
}

// The message of the answer's DisruptionBudget cause ("The disruption budget db needs 2 healthy
// pods and has 2 currently", or the reason of a budget still being computed), "" without one.
std::string disruption_budget_cause(const std::string& body) {
  json status = json::parse(body, nullptr, false);
  if (!status.is_object()) return "";
  auto details = status.find("details");
  if (details == status.end() || !details->is_object()) return "";
  auto causes = details->find("causes");
  if (causes == details->end() || !causes->is_array()) return "";
  for (const json& cause : *causes) {
    if (!cause.is_object()) continue;
    auto reason = cause.find("reason");
    if (reason == cause.end() || !reason->is_string() || *reason != "DisruptionBudget") continue;
    auto message = cause.find("message");
    return message != cause.end() && message->is_string() ? message->get<std::string>()
                                                          : std::string("DisruptionBudget");
  }
  return "";
}

// The API server words a failed uid precondition two ways: the registry's check before a delete
// ("the UID in the precondition (X) does not match the UID in record (Y) ...") and the storage
// layer's ("Precondition failed: UID in precondition: X, UID in object meta: Y").
bool uid_precondition_failed(const std::string& message) {
  return message.find("UID in precondition") != std::string::npos ||
         message.find("the UID in the precondition (") != std::string::npos;
}

}  // namespace

const char* to_string(EvictionResult result) {
  switch (result) {
    case EvictionResult::kEvicted:
      return "evicted";
    case EvictionResult::kBlockedByPdb:
      return "blocked_by_pdb";
    case EvictionResult::kGone:
      return "gone";
    case EvictionResult::kReplaced:
      return "replaced";
    case EvictionResult::kFailed:
      return "failed";
  }
  return "failed";
}

PodEvictor::PodEvictor(kube::ApiClient& client, PodEvictorOptions options)
    : client_(client), options_(std::move(options)) {}

EvictionOutcome PodEvictor::evict(const model::Pod& pod, const SendPermission& may_send) {
  json delete_options = {{"preconditions", {{"uid", pod.meta.uid}}}};
  if (options_.grace_period_seconds) {
    delete_options["gracePeriodSeconds"] = *options_.grace_period_seconds;
  }
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod.meta.name}, {"namespace", pod.meta.namespace_}}},
                   {"deleteOptions", delete_options}};
  const std::string path =
      "/api/v1/namespaces/" + pod.meta.namespace_ + "/pods/" + pod.meta.name + "/eviction";
  const std::string body = eviction.dump();
  // Asked again right before the request leaves (after any rate-limit wait).
  const std::function<std::string()> permission = may_send;
  const kube::WriteOptions one_attempt{1, options_.request_timeout, &permission};
  EvictionOutcome outcome;
  bool maybe_done = false;  // an attempt got no answer: the eviction may have been carried out
  auto backoff = options_.first_backoff;
  for (int attempt = 1;; ++attempt) {
    auto stop = [&](const std::string& why_not) {
      outcome.result = EvictionResult::kFailed;
      outcome.stopped = true;
      outcome.maybe_evicted = maybe_done;
      outcome.detail = why_not + (outcome.detail.empty() ? "" : "; last answer: " + outcome.detail);
      return outcome;
    };
    if (std::string why_not = may_send(); !why_not.empty()) return stop(why_not);
    kube::ApiAnswer answer;
    bool answered = true;
    try {
      answer = client_.send("POST", path, body, one_attempt);
    } catch (const kube::ApiError& e) {
      outcome.attempts = attempt;
      if (e.status() == 401 || e.status() == 403) {  // configuration: another try cannot help
        outcome.result = EvictionResult::kFailed;
        outcome.detail = e.what();
        return outcome;
      }
      answered = false;  // no answer (connection, timeout): the eviction may or may not be done
      maybe_done = true;
      outcome.detail = e.what();
    }
    if (answered) {
      if (answer.status == 0 && answer.reason == "NotAllowed") return stop(answer.message);
      outcome.attempts = attempt;
      outcome.detail = answer.message;
      if (answer.ok()) {
        outcome.result = EvictionResult::kEvicted;
        outcome.detail.clear();
        return outcome;
      }
      const bool gone = answer.status == 404;
      const bool replaced = answer.status == 409 && uid_precondition_failed(answer.message);
      if ((gone || replaced) && maybe_done) {
        // An earlier attempt that got no answer did it: the pod went (or was replaced) since.
        outcome.result = EvictionResult::kEvicted;
        outcome.detail =
            "an earlier attempt got no answer; the pod is gone now (" + answer_text(answer) + ")";
        return outcome;
      }
      if (gone) {
        outcome.result = EvictionResult::kGone;
        return outcome;
      }
      if (answer.status == 429) {
        std::string cause = disruption_budget_cause(answer.body);
        outcome.result = cause.empty() ? EvictionResult::kFailed : EvictionResult::kBlockedByPdb;
        outcome.detail = answer_text(answer) + (cause.empty() ? "" : " (" + cause + ")");
        return outcome;
      }
      if (replaced) {
        outcome.result = EvictionResult::kReplaced;
        return outcome;
      }
      outcome.detail = answer_text(answer);
    }
    const bool retryable = !answered || answer.status == 409 || answer.status >= 500;
    if (!retryable || attempt >= options_.max_attempts) {
      outcome.result = EvictionResult::kFailed;
      outcome.maybe_evicted = maybe_done;
      if (attempt > 1) outcome.detail += " (after " + std::to_string(attempt) + " attempts)";
      return outcome;
    }
    std::this_thread::sleep_for(backoff);
    backoff *= 2;
  }
}

std::string PodEvictor::post_event(const model::Pod& pod, const EventNote& event) {
  static std::atomic<uint64_t> sequence{0};
  auto now = std::chrono::system_clock::now();
  // Unique per pod and moment, as client-go names events: <pod>.<hex nanoseconds>.
  char suffix[32];
  std::snprintf(
      suffix, sizeof suffix, "%llx",
      static_cast<unsigned long long>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() +
          static_cast<int64_t>(sequence++)));
  std::string note = event.note.size() > 1024 ? event.note.substr(0, 1021) + "..." : event.note;
  json body = {
      {"apiVersion", "events.k8s.io/v1"},
      {"kind", "Event"},
      {"metadata", {{"name", pod.meta.name + "." + suffix}, {"namespace", pod.meta.namespace_}}},
      {"eventTime", model::format_micro_time(now)},
      {"reportingController", kReportingController},
      {"reportingInstance", options_.reporting_instance},
      {"action", "Descheduled"},
      {"reason", event.reason},
      {"type", event.type},
      {"note", note},
      {"regarding",
       {{"apiVersion", "v1"},
        {"kind", "Pod"},
        {"namespace", pod.meta.namespace_},
        {"name", pod.meta.name},
        {"uid", pod.meta.uid}}}};
  json annotations = json::object();
  if (!event.from_node.empty()) annotations[kFromNodeAnnotation] = event.from_node;
  if (!event.to_node.empty()) annotations[kToNodeAnnotation] = event.to_node;
  if (event.finished) annotations[kFinishedAnnotation] = "true";
  if (!annotations.empty()) body["metadata"]["annotations"] = std::move(annotations);
  // The workload, so that a restarted controller finds when it last moved one of its pods
  // (workload_moves.h reads it back).
  if (const model::OwnerReference* owner = pod.controller()) {
    body["related"] = {{"apiVersion", owner->api_version},
                       {"kind", owner->kind},
                       {"namespace", pod.meta.namespace_},
                       {"name", owner->name},
                       {"uid", owner->uid}};
  }
  const std::string path = "/apis/events.k8s.io/v1/namespaces/" + pod.meta.namespace_ + "/events";
  try {
    kube::ApiAnswer answer =
        client_.send("POST", path, body.dump(-1, ' ', false, json::error_handler_t::replace),
                     kube::WriteOptions{1, options_.request_timeout});
    if (answer.ok()) return "";
    return "Event for " + pod.key() + ": " + answer_text(answer);
  } catch (const kube::ApiError& e) {
    return std::string("Event for ") + pod.key() + ": " + e.what();
  }
}

}  // namespace loadshift::controller

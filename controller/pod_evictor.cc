// Eviction requests and Events, and what each API answer means.
#include "controller/pod_evictor.h"

#include <atomic>
#include <ctime>
#include <nlohmann/json.hpp>
#include <thread>

namespace loadshift::controller {
namespace {

using nlohmann::json;

std::string micro_time(std::chrono::system_clock::time_point now) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()) %
                std::chrono::seconds(1);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char date[40];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[64];
  std::snprintf(out, sizeof out, "%s.%06lldZ", date, static_cast<long long>(micros.count()));
  return out;
}

std::string answer_text(const kube::ApiAnswer& answer) {
  std::string text = std::to_string(answer.status);
  if (!answer.reason.empty()) text += " " + answer.reason;
  if (!answer.message.empty()) text += ": " + answer.message;
  return text;
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

EvictionOutcome PodEvictor::evict(const placement::Pod& pod) {
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
  EvictionOutcome outcome;
  auto backoff = options_.first_backoff;
  for (int attempt = 1;; ++attempt) {
    outcome.attempts = attempt;
    kube::ApiAnswer answer;
    try {
      answer = client_.send("POST", path, body);
    } catch (const kube::ApiError& e) {
      // 401/403 or no answer after the client's own retries: nothing more to try here.
      outcome.result = EvictionResult::kFailed;
      outcome.detail = e.what();
      return outcome;
    }
    outcome.detail = answer.message;
    if (answer.ok()) {
      outcome.result = EvictionResult::kEvicted;
      outcome.detail.clear();
      return outcome;
    }
    if (answer.status == 404) {
      outcome.result = EvictionResult::kGone;
      return outcome;
    }
    if (answer.status == 429) {
      outcome.result = EvictionResult::kBlockedByPdb;
      outcome.detail = answer_text(answer);
      // The first cause names the budget and its counts, when the API gave one.
      json status = json::parse(answer.body, nullptr, false);
      if (status.is_object() && status.contains("details") && status["details"].is_object()) {
        const json& causes = status["details"].value("causes", json::array());
        if (causes.is_array() && !causes.empty() && causes[0].is_object()) {
          outcome.detail += " (" + causes[0].value("message", "") + ")";
        }
      }
      return outcome;
    }
    if (answer.status == 409 && answer.message.find("Precondition failed") != std::string::npos) {
      outcome.result = EvictionResult::kReplaced;
      return outcome;
    }
    const bool retryable = answer.status == 409 || answer.status >= 500;
    if (!retryable || attempt >= options_.max_attempts) {
      outcome.result = EvictionResult::kFailed;
      outcome.detail = answer_text(answer) +
                       (attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "");
      return outcome;
    }
    std::this_thread::sleep_for(backoff);
    backoff *= 2;
  }
}

std::string PodEvictor::post_event(const placement::Pod& pod, const EventNote& event) {
  static std::atomic<uint64_t> sequence{0};
  auto now = std::chrono::system_clock::now();
  // Unique per pod and moment, as client-go names events: <pod>.<hex nanoseconds>.
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, "%llx",
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch())
                        .count() +
                    static_cast<int64_t>(sequence++)));
  std::string note = event.note.size() > 1024 ? event.note.substr(0, 1021) + "..." : event.note;
  json body = {{"apiVersion", "events.k8s.io/v1"},
               {"kind", "Event"},
               {"metadata",
                {{"name", pod.meta.name + "." + suffix}, {"namespace", pod.meta.namespace_}}},
               {"eventTime", micro_time(now)},
               {"reportingController", "loadshift.io/descheduler"},
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
  const std::string path = "/apis/events.k8s.io/v1/namespaces/" + pod.meta.namespace_ + "/events";
  try {
    kube::ApiAnswer answer =
        client_.send("POST", path, body.dump(-1, ' ', false, json::error_handler_t::replace));
    if (answer.ok()) return "";
    return "Event for " + pod.key() + ": " + answer_text(answer);
  } catch (const kube::ApiError& e) {
    return std::string("Event for ") + pod.key() + ": " + e.what();
  }
}

}  // namespace loadshift::controller

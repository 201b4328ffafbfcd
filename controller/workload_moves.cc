// The cool-down's memory: Events -> workload keys and times, pruning, merging.
#include "controller/workload_moves.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "controller/pod_evictor.h"
#include "http/http_client.h"
#include "model/rfc3339.h"

namespace loadshift::controller {
namespace {

using nlohmann::json;
using Time = std::chrono::system_clock::time_point;

std::string string_field(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<Time> time_field(const json& object, const char* name) {
  std::string text = string_field(object, name);
  if (text.empty()) return std::nullopt;
  return model::parse_rfc3339(text);
}

}  // namespace

std::string workload_of_event(const json& event, strategies::WorkloadMove* move) {
  if (!event.is_object()) return "";
  if (string_field(event, "reportingController") != kReportingController ||
      string_field(event, "action") != "Descheduled" || string_field(event, "type") != "Normal") {
    return "";
  }
  auto related = event.find("related");
  if (related == event.end() || !related->is_object()) return "";
  const std::string kind = string_field(*related, "kind");
  const std::string name = string_field(*related, "name");
  std::string namespace_ = string_field(*related, "namespace");
  if (namespace_.empty()) {
    auto meta = event.find("metadata");
    if (meta != event.end() && meta->is_object()) namespace_ = string_field(*meta, "namespace");
  }
  if (kind.empty() || name.empty() || namespace_.empty()) return "";
  std::optional<Time> at = time_field(event, "eventTime");
  auto series = event.find("series");
  if (series != event.end() && series->is_object()) {
    std::optional<Time> last = time_field(*series, "lastObservedTime");
    if (last && (!at || *last > *at)) at = last;
  }
  if (!at) return "";
  *move = strategies::WorkloadMove{};
  move->at = *at;
  auto meta = event.find("metadata");
  if (meta != event.end() && meta->is_object()) {
    auto annotations = meta->find("annotations");
    if (annotations != meta->end() && annotations->is_object()) {
      // A finished pod's removal moved nothing.
      if (string_field(*annotations, kFinishedAnnotation) == "true") return "";
      move->from = string_field(*annotations, kFromNodeAnnotation);
      move->to = string_field(*annotations, kToNodeAnnotation);
    }
  }
  return namespace_ + "/" + kind + "/" + name;
}

MovesRebuild rebuild_workload_moves(kube::ApiClient& client, Time now, std::chrono::seconds window,
                                    size_t page_size) {
  MovesRebuild out;
  std::string continue_token;
  const std::string where = "list of events.k8s.io/v1 Events in all namespaces";
  try {
    do {
      std::string path = "/apis/events.k8s.io/v1/events?limit=" + std::to_string(page_size);
      if (!continue_token.empty()) path += "&continue=" + http::HttpClient::escape(continue_token);
      // A paginated list takes one token of the client's rate limit, as one unpaginated list
      // would: a cluster with many Events is not read at --kube-api-qps pages a second.
      kube::StreamOptions stream;
      stream.rate_limited = continue_token.empty();
      stream.idle_timeout = std::chrono::milliseconds(60000);
      std::string body;
      client.stream(
          path,
          [&body](std::string_view bytes) {
            body.append(bytes);
            return true;
          },
          stream);
      json page = json::parse(body, nullptr, false);
      if (!page.is_object() || !page.contains("items") || !page["items"].is_array()) {
        out = MovesRebuild{};
        out.error = where + ": the answer is not an EventList";
        return out;
      }
      for (const json& event : page["items"]) {
        ++out.events;
        strategies::WorkloadMove move;
        std::string key = workload_of_event(event, &move);
        if (key.empty()) {
          if (event.is_object() && !event.contains("related") &&
              string_field(event, "reportingController") == kReportingController &&
              string_field(event, "action") == "Descheduled") {
            ++out.without_related;
          }
          continue;
        }
        if (now - move.at >= window) continue;
        ++out.used;
        out.moves[key].push_back(std::move(move));
      }
      continue_token.clear();
      auto meta = page.find("metadata");
      if (meta != page.end() && meta->is_object()) continue_token = string_field(*meta, "continue");
    } while (!continue_token.empty());
  } catch (const kube::ApiError& e) {
    out = MovesRebuild{};
    out.error = e.what();
  }
  for (auto& [key, moves] : out.moves) {
    std::stable_sort(moves.begin(), moves.end(),
                     [](const auto& a, const auto& b) { return a.at < b.at; });
  }
  return out;
}

void prune_workload_moves(strategies::WorkloadMoves& moves, Time now, std::chrono::seconds window) {
  for (auto it = moves.begin(); it != moves.end();) {
    std::erase_if(it->second, [&](const strategies::WorkloadMove& m) { return now - m.at >= window; });
    it = it->second.empty() ? moves.erase(it) : std::next(it);
  }
}

void merge_workload_moves(strategies::WorkloadMoves& into, const strategies::WorkloadMoves& from) {
  for (const auto& [key, moves] : from) {
    std::vector<strategies::WorkloadMove>& kept = into[key];
    for (const strategies::WorkloadMove& move : moves) {
      const bool known = std::any_of(kept.begin(), kept.end(), [&](const auto& k) {
        auto apart = k.at > move.at ? k.at - move.at : move.at - k.at;
        return k.from == move.from && k.to == move.to && apart < std::chrono::seconds(1);
      });
      if (!known) kept.push_back(move);
    }
    std::stable_sort(kept.begin(), kept.end(),
                     [](const auto& a, const auto& b) { return a.at < b.at; });
  }
}

}  // namespace loadshift::controller

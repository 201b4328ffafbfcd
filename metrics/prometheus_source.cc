// PrometheusSource: renders the queries, runs them in parallel (one thread and one HTTP client per
// query, retries inside the fetch's time budget) and assembles the answers.
#include "metrics/prometheus_source.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "http/http_client.h"
#include "metrics/node_matcher.h"
#include "metrics/prometheus_response.h"
#include "metrics/promql_text.h"
#include "metrics/usage_assembly.h"

namespace loadshift::metrics {

namespace {

// One query over the shared HTTP layer; transport failures become QueryFailures with the reasons
// the self metrics count: timeout (retryable), connect (retryable unless a certificate failed
// verification or the URL is bad),
// bad_response for a body over the limit.
http::HttpAnswer post_query(http::HttpClient& client, const http::HttpRequest& request) {
  try {
    return client.send(request);
  } catch (const http::TransportError& e) {
    using Kind = http::TransportError::Kind;
    switch (e.kind()) {
      case Kind::kTimeout:
        throw QueryFailure("timeout", std::string("timeout: ") + e.what(), true);
      case Kind::kTooLarge:
        throw QueryFailure("bad_response", e.what(), false);
      default:
        throw QueryFailure("connect", e.what(), e.retryable());
    }
  }
}

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kFirstBackoff{100};
constexpr milliseconds kMaxBackoff{2000};

double unix_seconds(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string unix_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

// The evaluation timeout asked of Prometheus: a little under the client's, so that Prometheus'
// own "query timed out" answer arrives before the client gives up.
int64_t server_timeout(milliseconds remaining) {
  return std::max<int64_t>(1, remaining.count() * 9 / 10);
}

std::string trim(std::string text) {
  size_t end = text.find_last_not_of(" \t\r\n");
  text.erase(end == std::string::npos ? 0 : end + 1);
  size_t start = text.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? std::string() : text.substr(start);
}

std::string read_token(const std::string& path, const std::string& url) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw UsageError("prometheus " + url + ": bearer token file " + path +
                     ": cannot read: " + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string token = trim(text.str());
  if (token.empty())
    throw UsageError("prometheus " + url + ": bearer token file " + path + " is empty");
  if (token.find_first_of("\r\n") != std::string::npos) {
    throw UsageError("prometheus " + url + ": bearer token file " + path +
                     " holds more than one line; expected one token");
  }
  return token;
}

std::string template_or_default(const std::string& configured, Query query,
                                const std::string& node_label) {
  return configured.empty() ? default_query(query, node_label) : configured;
}

}  // namespace

// Answers of this size or more are decoded one at a time (Impl::large_decode).
constexpr size_t kLargeAnswerBytes = size_t{1} << 20;

struct PrometheusSource::Impl {
  PrometheusSettings settings;
  SelfMetrics* self_metrics;
  std::string url;
  std::string cpu, memory, pod_cpu, pod_memory;  // rendered
  std::atomic<size_t> requests{0};
  // Large answers (the pod queries': 16 MB at 150,000 pods) are decoded one at a time: each
  // decode holds about three times its body (simdjson's copy, index and tape, the samples), and
  // two at once were the largest part of the controller's peak. The downloads still overlap.
  std::mutex large_decode;

  // Runs one query until it is answered, fails for good or the deadline passes. Never throws.
  QueryAnswer run(std::string name, std::string promql, const std::vector<std::string>& headers,
                  double evaluation_time, SteadyClock::time_point deadline);
  void count_error(const std::string& query, const std::string& reason) {
    if (self_metrics) self_metrics->count_query_error(query, reason);
  }
};

PrometheusSource::PrometheusSource(PrometheusSettings settings, SelfMetrics* self_metrics)
    : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  if (settings.address.rfind("http://", 0) != 0 && settings.address.rfind("https://", 0) != 0) {
    throw std::invalid_argument("prometheus address \"" + http::redact_url(settings.address) +
                                "\": expected an http:// or https:// URL");
  }
  if (settings.window_ms <= 0 || settings.step_ms <= 0 || settings.timeout_ms <= 0) {
    throw std::invalid_argument("prometheus settings: window, step and timeout must be positive");
  }
  if (!is_label_name(settings.node_label)) {
    throw std::invalid_argument("prometheus settings: node label \"" + settings.node_label +
                                "\" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)");
  }
  for (const auto& [name, value] : settings.headers) {
    if (name.empty() || name.find_first_of(":\r\n ") != std::string::npos ||
        value.find_first_of("\r\n") != std::string::npos) {
      throw std::invalid_argument("prometheus settings: header \"" + name +
                                  "\" is not a valid HTTP header name and value");
    }
  }
  std::string base = settings.address;
  while (!base.empty() && base.back() == '/') base.pop_back();
  impl.url = base + "/api/v1/query";
  auto render = [&](const std::string& configured, Query query) {
    return render_query(template_or_default(configured, query, settings.node_label),
                        settings.window_ms, settings.step_ms);
  };
  impl.cpu = render(settings.cpu_query, Query::kCpu);
  impl.memory = render(settings.memory_query, Query::kMemory);
  impl.pod_cpu = render(settings.pod_cpu_query, Query::kPodCpu);
  impl.pod_memory = render(settings.pod_memory_query, Query::kPodMemory);
  impl.settings = std::move(settings);
  impl.self_metrics = self_metrics;
}

PrometheusSource::~PrometheusSource() = default;

size_t PrometheusSource::requests_sent() const {
  return impl_->requests.load();
}

QueryAnswer PrometheusSource::Impl::run(std::string name, std::string promql,
                                        const std::vector<std::string>& headers,
                                        double evaluation_time, SteadyClock::time_point deadline) {
  QueryAnswer answer;
  answer.name = std::move(name);
  answer.promql = std::move(promql);
  auto started = SteadyClock::now();
  int attempts = 0;
  try {
    http::HttpClient client;
    http::HttpRequest request;
    request.method = "POST";
    request.url = url;
    request.headers = headers;
    request.tls.ca_file = settings.ca_file;
    request.tls.insecure_skip_verify = settings.insecure_skip_verify;
    milliseconds backoff = kFirstBackoff;
    while (true) {
      auto remaining = std::chrono::duration_cast<milliseconds>(deadline - SteadyClock::now());
      if (remaining.count() < 1) {
        throw QueryFailure("timeout", "no time left in the " + std::to_string(settings.timeout_ms) +
                                          " ms timeout");
      }
      request.body =
          http::HttpClient::form_encode({{"query", answer.promql},
                                   {"time", unix_text(evaluation_time)},
                                   {"timeout", prometheus_duration(server_timeout(remaining))}});
      try {
        ++attempts;
        ++requests;
        request.timeout = remaining;
        http::HttpAnswer reply = post_query(client, request);
        std::unique_lock<std::mutex> one_at_a_time(large_decode, std::defer_lock);
        if (reply.body.size() >= kLargeAnswerBytes) one_at_a_time.lock();
        answer.result = decode_http_answer(reply.status, reply.body);
        break;
      } catch (const QueryFailure& failure) {
        count_error(answer.name, failure.reason());
        auto left = deadline - SteadyClock::now();
        if (!failure.retryable() || left <= backoff) throw;
        std::this_thread::sleep_for(backoff);
        backoff = std::min(backoff * 2, kMaxBackoff);
      }
    }
  } catch (const std::exception& e) {
    answer.failure = e.what();
    if (attempts > 1) {
      answer.failure += " (" + std::to_string(attempts) + " attempts within the " +
                        std::to_string(settings.timeout_ms) + " ms timeout)";
    }
  }
  if (self_metrics) {
    self_metrics->observe_query(
        answer.name, std::chrono::duration<double>(SteadyClock::now() - started).count());
  }
  return answer;
}

UsageMap PrometheusSource::fetch(std::span<const NodeIdentity> nodes, const UsageRequest& request) {
  Impl& impl = *impl_;
  const PrometheusSettings& settings = impl.settings;
  const auto deadline = SteadyClock::now() + milliseconds(settings.timeout_ms);
  const auto evaluation = settings.evaluation_time.value_or(std::chrono::system_clock::now());
  const double evaluation_time = unix_seconds(evaluation);

  std::vector<std::string> headers;
  for (const auto& [name, value] : settings.headers) headers.push_back(name + ": " + value);
  if (!settings.bearer_token_file.empty()) {
    headers.push_back("Authorization: Bearer " +
                      read_token(settings.bearer_token_file, http::redact_url(impl.url)));
  } else if (!settings.bearer_token.empty()) {
    headers.push_back("Authorization: Bearer " + settings.bearer_token);
  }
  if (request.sustained_for_ms && *request.sustained_for_ms <= 0) {
    throw UsageError("prometheus " + http::redact_url(impl.url) +
                     ": sustainedFor must be positive, got " +
                     std::to_string(*request.sustained_for_ms) + " ms");
  }

  if (!request.node_usage && request.metric_resource_query.empty()) {
    throw UsageError("prometheus " + http::redact_url(impl.url) +
                     ": nothing to fetch: neither node usage nor a MetricResource query was asked");
  }

  // The queries of this fetch, all at the same evaluation time.
  std::vector<std::pair<std::string, std::string>> queries;
  if (request.node_usage) queries = {{"cpu", impl.cpu}, {"memory", impl.memory}};
  if (request.node_usage && request.sustained_for_ms) {
    int64_t period = *request.sustained_for_ms;
    queries.emplace_back("cpu_min", sustained_query(impl.cpu, "min", period, settings.step_ms));
    queries.emplace_back("cpu_max", sustained_query(impl.cpu, "max", period, settings.step_ms));
    queries.emplace_back("memory_min",
                         sustained_query(impl.memory, "min", period, settings.step_ms));
    queries.emplace_back("memory_max",
                         sustained_query(impl.memory, "max", period, settings.step_ms));
  }
  if (request.node_usage && request.pods) {
    queries.emplace_back("pod_cpu", impl.pod_cpu);
    queries.emplace_back("pod_memory", impl.pod_memory);
  }
  if (!request.metric_resource_query.empty()) {
    queries.emplace_back("metric_resource", request.metric_resource_query);
  }
  std::vector<QueryAnswer> answers(queries.size());
  {
    std::vector<std::thread> threads;
    threads.reserve(queries.size());
    try {
      for (size_t i = 0; i < queries.size(); ++i) {
        threads.emplace_back([&, i] {
          answers[i] =
              impl.run(queries[i].first, queries[i].second, headers, evaluation_time, deadline);
        });
      }
    } catch (const std::system_error& e) {
      for (auto& thread : threads) thread.join();
      throw UsageError("prometheus " + http::redact_url(impl.url) +
                       ": cannot start a query thread: " + e.what());
    }
    for (auto& thread : threads) thread.join();
  }

  FetchAnswers fetched;
  for (auto& answer : answers) {
    if (answer.name == "cpu")
      fetched.cpu = std::move(answer);
    else if (answer.name == "memory")
      fetched.memory = std::move(answer);
    else if (answer.name == "cpu_min")
      fetched.cpu_min = std::move(answer);
    else if (answer.name == "cpu_max")
      fetched.cpu_max = std::move(answer);
    else if (answer.name == "memory_min")
      fetched.memory_min = std::move(answer);
    else if (answer.name == "memory_max")
      fetched.memory_max = std::move(answer);
    else if (answer.name == "pod_cpu")
      fetched.pod_cpu = std::move(answer);
    else if (answer.name == "pod_memory")
      fetched.pod_memory = std::move(answer);
    else if (answer.name == "metric_resource")
      fetched.metric_resource = std::move(answer);
  }

  // A node query that no node can use fails the whole fetch. Without node usage, the MetricResource
  // query is the node query.
  std::vector<const QueryAnswer*> node_queries = {&fetched.cpu, &fetched.memory};
  if (!request.node_usage) node_queries = {&*fetched.metric_resource};
  std::vector<std::string> failures;
  for (const QueryAnswer* answer : node_queries) {
    std::string problem = node_query_problem(*answer, settings.node_label);
    if (problem.empty()) continue;
    if (answer->result) impl.count_error(answer->name, "bad_response");  // a scalar
    failures.push_back(answer->name + " query `" + answer->promql + "`: " + problem);
  }
  if (!failures.empty()) {
    if (impl.self_metrics) {
      UsageMap none;
      for (const auto& node : nodes) none.unknown[node.name] = "usage fetch failed";
      impl.self_metrics->record_usage(none);
    }
    std::string message = "prometheus " + http::redact_url(impl.url) + ": ";
    for (size_t i = 0; i < failures.size(); ++i) message += (i ? "; " : "") + failures[i];
    throw UsageError(message);
  }

  NodeMatcher matcher(nodes, settings.node_label, settings.node_match);
  AssembledUsage assembled =
      request.node_usage
          ? assemble_usage(nodes, fetched, matcher, evaluation_time)
          : assemble_metric_only(nodes, *fetched.metric_resource, matcher, evaluation_time);
  for (const auto& [query, reason] : assembled.errors) impl.count_error(query, reason);
  assembled.usage.origin =
      "prometheus " + http::redact_url(settings.address) + " at " + rfc3339(evaluation);
  if (impl.self_metrics) impl.self_metrics->record_usage(assembled.usage);
  return std::move(assembled.usage);
}

}  // namespace loadshift::metrics

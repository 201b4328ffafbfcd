// ApiClient: one HTTP layer (http/http_client.h), Kubernetes semantics on top.
#include "kube/api_client.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "model/protobuf_decode.h"

namespace loadshift::kube {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kMaxErrorBody = 64 * 1024;

struct StatusText {
  std::string reason, message;
};

// The API's Status object (or the plain text of a 404 for an unknown group/version).
StatusText status_of(long status, const std::string& body) {
  StatusText out;
  nlohmann::json doc;
  auto text_of = [&](const char* key) {
    auto it = doc.find(key);
    return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (auto status_message = model::decode_protobuf_status(body)) {
    // The Status of a request that asked for protobuf.
    out.reason = status_message->reason;
    out.message = status_message->message;
  } else if (doc = nlohmann::json::parse(body, nullptr, false);
             doc.is_object() && text_of("kind") == "Status") {
    out.reason = text_of("reason");
    out.message = text_of("message");
  } else {
    std::string text = body.substr(0, 200);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    out.message = text;
  }
  if (out.reason.empty()) {
    switch (status) {
      case 401:
        out.reason = "Unauthorized";
        break;
      case 403:
        out.reason = "Forbidden";
        break;
      case 404:
        out.reason = "NotFound";
        break;
      case 409:
        out.reason = "Conflict";
        break;
      case 410:
        out.reason = "Expired";
        break;
      case 429:
        out.reason = "TooManyRequests";
        break;
      default:
        out.reason = status >= 500 ? "InternalError" : "BadRequest";
        break;
    }
  }
  return out;
}

bool retryable_status(long status) {
  return status == 429 || status >= 500;
}

}  // namespace

struct ApiClient::Impl {
  ClientOptions options;
  std::mutex pool_mutex;
  std::vector<std::unique_ptr<http::HttpClient>> pool;
  std::mutex rate_mutex;
  double tokens = 0;
  Clock::time_point refilled = Clock::now();
  std::atomic<size_t> sent{0};

  // Waits for a token of the rate limit.
  void take_token() {
    if (options.rate.qps <= 0) return;
    std::unique_lock<std::mutex> lock(rate_mutex);
    while (true) {
      auto now = Clock::now();
      double elapsed = std::chrono::duration<double>(now - refilled).count();
      tokens =
          std::min<double>(std::max(1, options.rate.burst), tokens + elapsed * options.rate.qps);
      refilled = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      auto wait = std::chrono::duration<double>((1 - tokens) / options.rate.qps);
      lock.unlock();
      std::this_thread::sleep_for(wait);
      lock.lock();
    }
  }

  std::unique_ptr<http::HttpClient> borrow() {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (pool.empty()) return std::make_unique<http::HttpClient>();
    auto client = std::move(pool.back());
    pool.pop_back();
    return client;
  }
  void give_back(std::unique_ptr<http::HttpClient> client) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    if (pool.size() < 8) pool.push_back(std::move(client));
  }
};

ApiClient::ApiClient(ClusterAccess access, ClientOptions options)
    : access_(std::move(access)), impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  impl_->tokens = std::max(1, options.rate.burst);
}

ApiClient::~ApiClient() = default;

size_t ApiClient::requests_sent() const {
  return impl_->sent.load();
}

namespace {

// What one attempt came to.
struct Attempt {
  long status = 0;
  std::string error_body;  // non-2xx answers only
  std::string retry_after;
  bool body_started = false;
};

}  // namespace

void ApiClient::exchange(const std::string& path,
                         const std::function<bool(std::string_view)>* on_body, std::string* body,
                         const StreamOptions& stream_options, const Write* write) {
  const std::atomic<bool>* cancel = stream_options.cancel;
  const ClusterAccess& access = access_;
  Impl& impl = *impl_;
  const int max_attempts = write != nullptr && write->options.max_attempts > 0
                               ? write->options.max_attempts
                               : impl.options.max_attempts;
  const std::string what = (write != nullptr ? std::string(write->method) : std::string("GET")) +
                           " " + access.server + path;
  milliseconds backoff = impl.options.first_backoff;
  bool refreshed_credentials = false;
  for (int attempt = 1;; ++attempt) {
    if (cancel != nullptr && cancel->load()) return;
    http::HttpRequest request;
    request.url = access.server + path;
    if (write != nullptr) {
      request.method = std::string(write->method);
      request.body = *write->body;
      request.headers.push_back(std::string("Content-Type: ") +
                                (write->options.content_type != nullptr
                                     ? write->options.content_type
                                     : "application/json"));
    }
    request.tls = access.tls;
    request.proxy = access.proxy;
    if (on_body == nullptr) request.timeout = impl.options.request_timeout;
    if (write != nullptr && write->options.timeout.count() > 0) {
      request.timeout = write->options.timeout;
    }
    request.idle_timeout = stream_options.idle_timeout;
    request.cancel = cancel;
    // A watch's events must arrive one by one, as the API server sends them (it never
    // compresses a watch; a fake or a proxy that would, must not be asked to).
    request.compressed = path.find("watch=") == std::string::npos;
    if (write == nullptr && !stream_options.accept.empty()) {
      request.headers.push_back("Accept: " + stream_options.accept);
    }
    try {
      std::string authorization = access.credentials.authorization();
      if (!authorization.empty()) request.headers.push_back("Authorization: " + authorization);
    } catch (const ConfigError& e) {
      throw ApiError(0, "Credentials", what + ": " + e.what());
    }

    Attempt result;
    auto on_status = [&](const http::HttpAnswer& answer) {
      result.status = answer.status;
      result.retry_after = answer.header("retry-after");
      if (stream_options.content_type != nullptr && answer.status >= 200 && answer.status < 300) {
        *stream_options.content_type = answer.header("content-type");
      }
      return true;
    };
    auto on_data = [&](std::string_view bytes) {
      if (result.status >= 200 && result.status < 300) {
        result.body_started = true;
        if (on_body != nullptr) return (*on_body)(bytes);
        body->append(bytes);
        return true;
      }
      if (result.error_body.size() < kMaxErrorBody) result.error_body.append(bytes);
      return true;
    };
    if (stream_options.rate_limited || attempt > 1) impl.take_token();
    if (write != nullptr && write->options.permission != nullptr) {
      if (std::string why_not = (*write->options.permission)(); !why_not.empty()) {
        *write->answer = ApiAnswer{0, "", "NotAllowed", why_not};
        return;
      }
    }
    ++impl.sent;
    auto http_client = impl.borrow();
    try {
      http_client->stream(request, on_status, on_data);
      impl.give_back(std::move(http_client));
    } catch (const http::TransportError& e) {
      if (e.kind() == http::TransportError::Kind::kAborted) return;  // the caller stopped
      if (result.body_started) {
        throw ApiError(0, "Interrupted", what + ": the answer broke off: " + e.what());
      }
      if (!e.retryable() || attempt >= max_attempts) {
        using Kind = http::TransportError::Kind;
        std::string reason = e.kind() == Kind::kTls       ? "Tls"
                             : e.kind() == Kind::kTimeout ? "Timeout"
                                                          : "Connect";
        throw ApiError(0, reason,
                       what + ": " + e.what() + " (" + access.origin + ")" +
                           (attempt > 1 ? " after " + std::to_string(attempt) + " attempts" : ""));
      }
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, impl.options.max_backoff);
      continue;
    }
    if (result.status >= 200 && result.status < 300) {
      if (write != nullptr) write->answer->status = result.status;
      return;
    }

    StatusText status = status_of(result.status, result.error_body);
    if (result.status == 401 && !refreshed_credentials) {
      // An exec credential may have expired early, a token file may have rotated: once more.
      refreshed_credentials = true;
      access.credentials.invalidate();
      continue;
    }
    bool retry = write == nullptr ? retryable_status(result.status)
                                  : result.status == 429 && !result.retry_after.empty();
    if (result.status == 504 && !stream_options.retry_gateway_timeout) retry = false;
    if (retry && attempt >= max_attempts) retry = false;
    if (write != nullptr && !retry && result.status != 401 && result.status != 403) {
      *write->answer =
          ApiAnswer{result.status, std::move(result.error_body), status.reason, status.message};
      return;
    }
    if (retry) {
      milliseconds wait = backoff;
      if (!result.retry_after.empty()) {
        try {
          wait = std::min(milliseconds(std::stoll(result.retry_after) * 1000),
                          impl.options.max_retry_after);
        } catch (const std::exception&) {
        }
      }
      std::this_thread::sleep_for(wait);
      backoff = std::min(backoff * 2, impl.options.max_backoff);
      continue;
    }
    std::string code = std::to_string(result.status) + " " + status.reason;
    if (result.status == 401) {
      throw ApiError(401, status.reason,
                     what + ": the token was refused (" + code + "); check " +
                         access.credentials.describe() + " (" + access.origin + ")");
    }
    if (result.status == 403) {
      throw ApiError(403, status.reason,
                     what + ": " + code + ": " + status.message +
                         "; grant that RBAC verb and resource to the user (" + access.origin + ")");
    }
    throw ApiError(result.status, status.reason,
                   what + ": " + code + (status.message.empty() ? "" : ": " + status.message) +
                       (attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : ""));
  }
}

std::string ApiClient::get(const std::string& path) {
  std::string body;
  exchange(path, nullptr, &body, StreamOptions{});
  return body;
}

void ApiClient::stream(const std::string& path,
                       const std::function<bool(std::string_view)>& on_body,
                       const StreamOptions& options) {
  exchange(path, &on_body, nullptr, options);
}

ApiAnswer ApiClient::send(std::string_view method, const std::string& path, const std::string& body,
                          const WriteOptions& options) {
  ApiAnswer answer;
  std::string ok_body;
  Write write{method, &body, &answer, options};
  exchange(path, nullptr, &ok_body, StreamOptions{}, &write);
  if (answer.ok()) answer.body = std::move(ok_body);
  return answer;
}

bool ApiClient::serves(const std::string& group_version) {
  const std::string path = group_version.find('/') == std::string::npos ? "/api/" + group_version
                                                                        : "/apis/" + group_version;
  try {
    get(path);
    return true;
  } catch (const ApiError& e) {
    if (e.status() == 404) return false;
    throw;
  }
}

}  // namespace loadshift::kube

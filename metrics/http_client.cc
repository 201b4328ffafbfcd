// libcurl easy interface, one handle per HttpClient.
#include "metrics/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <mutex>
#include <stdexcept>

#include "metrics/prometheus_response.h"

namespace loadshift::metrics {

namespace {

constexpr size_t kMaxBody = size_t{256} << 20;

void initialize_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
      throw std::runtime_error("libcurl: curl_global_init failed");
    }
  });
}

struct BodySink {
  std::string body;
  bool too_large = false;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  size_t n = size * count;
  if (sink->body.size() + n > kMaxBody) {
    sink->too_large = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  sink->body.append(data, n);
  return n;
}

class HeaderList {
 public:
  explicit HeaderList(const std::vector<std::string>& lines) {
    for (const auto& line : lines) append(line.c_str());
    append("Accept: application/json");
    append("Expect:");  // no 100-continue round trip for large queries
  }
  ~HeaderList() { curl_slist_free_all(list_); }
  HeaderList(const HeaderList&) = delete;
  HeaderList& operator=(const HeaderList&) = delete;
  curl_slist* get() const { return list_; }

 private:
  void append(const char* line) {
    curl_slist* next = curl_slist_append(list_, line);
    if (next == nullptr) throw std::bad_alloc();
    list_ = next;
  }
  curl_slist* list_ = nullptr;
};

}  // namespace

HttpClient::HttpClient() {
  initialize_curl_once();
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw std::runtime_error("libcurl: curl_easy_init failed");
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

std::string HttpClient::form_encode(
    const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    char* escaped = curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size()));
    if (escaped == nullptr) throw std::bad_alloc();
    out += escaped;
    curl_free(escaped);
  }
  return out;
}

HttpAnswer HttpClient::post(const HttpRequest& request, std::chrono::milliseconds timeout) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  BodySink sink;
  HeaderList headers(request.headers);
  char error_buffer[CURL_ERROR_SIZE] = {0};
  long timeout_ms = static_cast<long>(std::max<int64_t>(1, timeout.count()));

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.form_body.size()));
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.form_body.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "loadshift");
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode (gzip)
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  if (!request.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, request.ca_file.c_str());
  if (request.insecure_skip_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
    switch (code) {
      case CURLE_OPERATION_TIMEDOUT:
        throw QueryFailure("timeout", "timeout: " + detail, true);
      case CURLE_WRITE_ERROR:
        if (sink.too_large) {
          throw QueryFailure("bad_response", "response larger than 256 MiB", false);
        }
        break;
      case CURLE_SSL_CONNECT_ERROR:
      case CURLE_PEER_FAILED_VERIFICATION:
      case CURLE_SSL_CACERT_BADFILE:
      case CURLE_SSL_CERTPROBLEM:
      case CURLE_URL_MALFORMAT:
      case CURLE_UNSUPPORTED_PROTOCOL:
        throw QueryFailure("connect", detail, false);
      default:
        break;
    }
    throw QueryFailure("connect", detail, true);
  }
  HttpAnswer answer;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  answer.body = std::move(sink.body);
  return answer;
}

}  // namespace loadshift::metrics

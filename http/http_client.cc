// libcurl easy interface, one handle per HttpClient.
#include "http/http_client.h"

#include <curl/curl.h>

#include <strings.h>
#include <algorithm>

#include <cctype>
#include <memory>
#include <mutex>

namespace loadshift::http {

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

class HeaderList {
 public:
  explicit HeaderList(const std::vector<std::string>& lines) {
    bool accept = false;
    for (const auto& line : lines) {
      append(line.c_str());
      accept = accept || (line.size() > 7 && strncasecmp(line.c_str(), "Accept:", 7) == 0);
    }
    if (!accept) append("Accept: application/json");
    append("Expect:");  // no 100-continue round trip for large bodies
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

// What one perform() collects while curl runs.
struct Exchange {
  CURL* curl = nullptr;
  HttpAnswer answer;
  const std::function<bool(const HttpAnswer&)>* on_status = nullptr;
  const std::function<bool(std::string_view)>* on_body = nullptr;
  bool status_sent = false;
  bool too_large = false;
  bool aborted = false;

  // Hands the status and headers to on_status once, before the first body byte (or at the end
  // for an empty body). False: stop.
  bool deliver_status() {
    if (status_sent) return true;
    status_sent = true;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
    if (on_status != nullptr && !(*on_status)(answer)) {
      aborted = true;
      return false;
    }
    return true;
  }
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* exchange = static_cast<Exchange*>(user);
  size_t n = size * count;
  std::string_view line(data, n);
  // A new status line (after a 100 Continue, or a proxy's CONNECT answer) starts over.
  if (line.rfind("HTTP/", 0) == 0) {
    exchange->answer.headers.clear();
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  exchange->answer.headers.emplace_back(std::move(name), std::string(value));
  return n;
}

// libcurl calls this at least once a second, also while no data arrives.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  return cancel->load() ? 1 : 0;  // non-zero aborts with CURLE_ABORTED_BY_CALLBACK
}

size_t on_data(char* data, size_t size, size_t count, void* user) {
  auto* exchange = static_cast<Exchange*>(user);
  size_t n = size * count;
  if (!exchange->deliver_status()) return 0;
  if (exchange->on_body != nullptr) {
    if (!(*exchange->on_body)(std::string_view(data, n))) {
      exchange->aborted = true;
      return 0;  // CURLE_WRITE_ERROR
    }
    return n;
  }
  if (exchange->answer.body.size() + n > kMaxBody) {
    exchange->too_large = true;
    return 0;
  }
  exchange->answer.body.append(data, n);
  return n;
}

struct UrlParts {
  std::string host, port;
};

UrlParts url_parts(const std::string& url) {
  UrlParts parts;
  CURLU* handle = curl_url();
  if (handle == nullptr) throw std::bad_alloc();
  if (curl_url_set(handle, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    char* host = nullptr;
    char* port = nullptr;
    if (curl_url_get(handle, CURLUPART_HOST, &host, 0) == CURLUE_OK) parts.host = host;
    if (curl_url_get(handle, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
      parts.port = port;
    }
    curl_free(host);
    curl_free(port);
  }
  curl_url_cleanup(handle);
  return parts;
}

// The URL with its host replaced by `host`.
std::string with_host(const std::string& url, const std::string& host) {
  std::string out = url;
  CURLU* handle = curl_url();
  if (handle == nullptr) throw std::bad_alloc();
  if (curl_url_set(handle, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
      curl_url_set(handle, CURLUPART_HOST, host.c_str(), 0) == CURLUE_OK) {
    char* text = nullptr;
    if (curl_url_get(handle, CURLUPART_URL, &text, 0) == CURLUE_OK) out = text;
    curl_free(text);
  }
  curl_url_cleanup(handle);
  return out;
}

std::string describe_trust(const TlsSettings& tls, const std::string& verified_name) {
  std::string ca = !tls.ca_file.empty()  ? "CA file " + tls.ca_file
                   : !tls.ca_pem.empty() ? std::string("the configured CA data")
                                         : std::string("the system's CA bundle");
  return "trusting " + ca + ", verifying the server name " + verified_name;
}

curl_blob blob_of(const std::string& text) {
  curl_blob blob;
  blob.data = const_cast<char*>(text.data());
  blob.len = text.size();
  blob.flags = CURL_BLOB_COPY;
  return blob;
}

}  // namespace

std::string redact_url(const std::string& url) {
  // Nothing to take out: as given (libcurl would add a '/' to a bare host).
  if (url.find_first_of("@?#") == std::string::npos) return url;
  CURLU* handle = curl_url();
  std::string out;
  if (handle != nullptr &&
      curl_url_set(handle, CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK) {
    for (CURLUPart part : {CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS, CURLUPART_QUERY,
                           CURLUPART_FRAGMENT}) {
      curl_url_set(handle, part, nullptr, 0);
    }
    char* shown = nullptr;
    if (curl_url_get(handle, CURLUPART_URL, &shown, 0) == CURLUE_OK && shown != nullptr) {
      out = shown;
      curl_free(shown);
    }
  }
  if (handle != nullptr) curl_url_cleanup(handle);
  return out.empty() ? "(a URL that cannot be shown)" : out;
}

std::string HttpAnswer::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

HttpClient::HttpClient() {
  initialize_curl_once();
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw std::runtime_error("libcurl: curl_easy_init failed");
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

std::string HttpClient::escape(std::string_view value) {
  char* escaped = curl_easy_escape(nullptr, value.data(), static_cast<int>(value.size()));
  if (escaped == nullptr) throw std::bad_alloc();
  std::string out(escaped);
  curl_free(escaped);
  return out;
}

std::string HttpClient::form_encode(
    const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += escape(value);
  }
  return out;
}

HttpAnswer HttpClient::send(const HttpRequest& request) {
  return perform(request, nullptr, nullptr);
}

HttpAnswer HttpClient::stream(const HttpRequest& request,
                              const std::function<bool(const HttpAnswer&)>& on_status,
                              const std::function<bool(std::string_view)>& on_body) {
  return perform(request, &on_status, &on_body);
}

HttpAnswer HttpClient::perform(const HttpRequest& request,
                               const std::function<bool(const HttpAnswer&)>* on_status,
                               const std::function<bool(std::string_view)>* on_body) {
  CURL* curl = static_cast<CURL*>(curl_);
  curl_easy_reset(curl);
  Exchange exchange;
  exchange.curl = curl;
  exchange.on_status = on_status;
  exchange.on_body = on_body;
  HeaderList headers(request.headers);
  char error_buffer[CURL_ERROR_SIZE] = {0};

  const UrlParts parts = url_parts(request.url);
  std::string url = request.url;
  std::string connect_to;
  curl_slist* connect_list = nullptr;
  if (!request.tls.server_name.empty() && request.tls.server_name != parts.host) {
    // Ask for the server name in the URL (SNI and verification) but connect to the real host.
    url = with_host(request.url, request.tls.server_name);
    connect_to = request.tls.server_name + ":" + parts.port + ":" + parts.host + ":" + parts.port;
    connect_list = curl_slist_append(nullptr, connect_to.c_str());
    if (connect_list == nullptr) throw std::bad_alloc();
  }
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> connect_guard(connect_list,
                                                                   curl_slist_free_all);

  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);  // a peer that vanished is noticed
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "loadshift");
  // gzip: what the API server (for answers over 128 KiB) and Prometheus compress with. Not
  // libcurl's whole list: brotli costs a server far more CPU than it saves on a LAN.
  if (request.compressed) curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "gzip");
  if (request.method == "POST" || request.method == "PUT" || request.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.body.size()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.c_str());
  }
  if (request.method != "GET" && request.method != "POST") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  if (request.timeout.count() > 0) {
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.timeout.count()));
  }
  if (request.idle_timeout.count() > 0) {
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(std::max<int64_t>(1, request.idle_timeout.count() / 1000)));
  }
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &exchange);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &exchange);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  if (connect_list != nullptr) curl_easy_setopt(curl, CURLOPT_CONNECT_TO, connect_list);
  if (request.cancel != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(request.cancel));
  }
  if (!request.proxy.empty()) curl_easy_setopt(curl, CURLOPT_PROXY, request.proxy.c_str());

  const TlsSettings& tls = request.tls;
  curl_blob ca = blob_of(tls.ca_pem), cert = blob_of(tls.client_cert_pem),
            key = blob_of(tls.client_key_pem);
  if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.ca_pem.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  // A configured CA is the only one trusted (as in client-go): not the system's CA directory too.
  if (!tls.ca_file.empty() || !tls.ca_pem.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAPATH, static_cast<char*>(nullptr));
  }
  if (!tls.client_cert_file.empty())
    curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.client_cert_file.c_str());
  if (!tls.client_key_file.empty())
    curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.client_key_file.c_str());
  if (!tls.client_cert_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
  if (!tls.client_key_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  if (tls.insecure_skip_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  CURLcode code = curl_easy_perform(curl);
  if (code == CURLE_OK) {
    // An empty body never reached on_data: the status still goes out once.
    if (!exchange.deliver_status()) {
      throw TransportError(TransportError::Kind::kAborted,
                           redact_url(request.url) + ": stopped by the caller");
    }
    return std::move(exchange.answer);
  }
  const std::string where =
      parts.host.empty() ? redact_url(request.url) : parts.host + ":" + parts.port;
  std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  using Kind = TransportError::Kind;
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      throw TransportError(Kind::kTimeout, where + ": timed out: " + detail);
    case CURLE_ABORTED_BY_CALLBACK:
      throw TransportError(Kind::kAborted, where + ": cancelled");
    case CURLE_WRITE_ERROR:
      if (exchange.too_large) {
        throw TransportError(Kind::kTooLarge, where + ": response larger than 256 MiB");
      }
      if (exchange.aborted) {
        throw TransportError(Kind::kAborted, where + ": stopped by the caller");
      }
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
      throw TransportError(Kind::kConnect,
                           "cannot resolve the server name " + parts.host + ": " + detail);
    case CURLE_COULDNT_CONNECT:
      throw TransportError(Kind::kConnect, "cannot connect to the server " + where + ": " + detail);
    case CURLE_SSL_CONNECT_ERROR:
      // The handshake broke off (a reset, the server's alert, a client certificate it wanted):
      // worth another try; the message still says TLS.
      throw TransportError(
          Kind::kTls,
          "TLS with " + where + " failed: " + detail + " (" +
              describe_trust(tls, tls.server_name.empty() ? parts.host : tls.server_name) + ")",
          true);
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
      throw TransportError(
          Kind::kTls,
          "TLS with " + where + " failed: " + detail + " (" +
              describe_trust(tls, tls.server_name.empty() ? parts.host : tls.server_name) + ")");
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      throw TransportError(Kind::kOther, redact_url(request.url) + ": " + detail);
    default:
      break;
  }
  throw TransportError(Kind::kConnect, where + ": " + detail);
}

}  // namespace loadshift::http

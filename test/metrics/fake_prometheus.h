// A tiny HTTP server on 127.0.0.1 that plays Prometheus for tests: one thread, one connection at a
// time, canned answers, every request recorded (method, target, headers, body).
//
//   FakePrometheus server;
//   server.set_handler([](const FakeRequest& r) { return FakeResponse{200, vector_body(...)}; });
//   settings.address = server.url();
//
// Answers come from the queue (enqueue(), served first, in order), else from the handler, else a
// 404. A response with never_answer keeps the connection open and silent until the server is
// destroyed (to prove client timeouts). closed_port() gives a port nobody listens on.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace loadshift::testing {

struct FakeRequest {
  std::string method;
  std::string target;                          // path and query string
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
  // A field of the form body (application/x-www-form-urlencoded), decoded; "" when absent.
  std::string form(std::string_view key) const {
    size_t pos = 0;
    while (pos <= body.size()) {
      size_t end = body.find('&', pos);
      if (end == std::string::npos) end = body.size();
      std::string_view field(body.data() + pos, end - pos);
      size_t eq = field.find('=');
      if (eq != std::string_view::npos && field.substr(0, eq) == key) {
        return url_decode(field.substr(eq + 1));
      }
      pos = end + 1;
    }
    return "";
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  static std::string url_decode(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '+') {
        out += ' ';
      } else if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
                 hex(text[i + 2]) >= 0) {
        out += static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2]));
        i += 2;
      } else {
        out += text[i];
      }
    }
    return out;
  }
};

struct FakeResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  bool never_answer = false;
};

// {"status":"success","data":{"resultType":"vector","result":[...]}} with one sample per entry:
// (labels, value text), stamped `timestamp`.
inline std::string vector_body(
    const std::vector<std::pair<std::map<std::string, std::string>, std::string>>& samples,
    double timestamp = 1700000000) {
  std::string out = R"({"status":"success","data":{"resultType":"vector","result":[)";
  for (size_t i = 0; i < samples.size(); ++i) {
    if (i) out += ',';
    out += R"({"metric":{)";
    bool first = true;
    for (const auto& [name, value] : samples[i].first) {
      if (!first) out += ',';
      first = false;
      out += '"' + name + "\":\"" + value + '"';
    }
    out += R"(},"value":[)" + std::to_string(timestamp) + ",\"" + samples[i].second + "\"]}";
  }
  return out + "]}}";
}

class FakePrometheus {
 public:
  FakePrometheus() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (listen_fd_ < 0) throw std::runtime_error("fake prometheus: socket failed");
    int yes = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_fd_, 64) != 0) {
      ::close(listen_fd_);
      throw std::runtime_error("fake prometheus: cannot listen on 127.0.0.1");
    }
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }

  ~FakePrometheus() {
    stop_ = true;
    thread_.join();
    for (int fd : silent_) ::close(fd);
    ::close(listen_fd_);
  }
  FakePrometheus(const FakePrometheus&) = delete;
  FakePrometheus& operator=(const FakePrometheus&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void set_handler(std::function<FakeResponse(const FakeRequest&)> handler) {
    std::lock_guard<std::mutex> lock(mutex_);
    handler_ = std::move(handler);
  }
  void enqueue(FakeResponse response) {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(response));
  }
  std::vector<FakeRequest> requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_.size();
  }

  // A loopback port with no listener (bound, then released).
  static int closed_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) continue;
      FakeRequest request;
      if (!read_request(fd, request)) {
        ::close(fd);
        continue;
      }
      FakeResponse response = answer(request);
      if (response.never_answer) {
        silent_.push_back(fd);
        continue;
      }
      std::string text = "HTTP/1.1 " + std::to_string(response.status) + " Fake\r\n" +
                         "Content-Type: " + response.content_type + "\r\n" +
                         "Content-Length: " + std::to_string(response.body.size()) + "\r\n" +
                         "Connection: close\r\n\r\n" + response.body;
      size_t sent = 0;
      while (sent < text.size()) {
        ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      ::close(fd);
    }
  }

  FakeResponse answer(const FakeRequest& request) {
    std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
    if (!queue_.empty()) {
      FakeResponse next = std::move(queue_.front());
      queue_.pop_front();
      return next;
    }
    if (handler_) return handler_(request);
    return FakeResponse{404, "404 page not found", "text/plain", false};
  }

  // Reads one request (headers, then Content-Length bytes of body); false on error or 2 s silence.
  static bool read_request(int fd, FakeRequest& out) {
    std::string data;
    size_t header_end = std::string::npos;
    size_t body_size = 0;
    char buffer[65536];
    while (true) {
      if (header_end != std::string::npos && data.size() >= header_end + 4 + body_size) break;
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 2000) <= 0) return false;
      ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<size_t>(n));
      if (header_end == std::string::npos) {
        header_end = data.find("\r\n\r\n");
        if (header_end == std::string::npos) continue;
        parse_head(data.substr(0, header_end), out);
        std::string length = out.header("content-length");
        body_size = length.empty() ? 0 : std::stoul(length);
      }
    }
    out.body = data.substr(header_end + 4, body_size);
    return true;
  }

  static void parse_head(const std::string& head, FakeRequest& out) {
    size_t line_end = head.find("\r\n");
    std::string first = head.substr(0, line_end);
    size_t sp1 = first.find(' ');
    size_t sp2 = first.find(' ', sp1 + 1);
    out.method = first.substr(0, sp1);
    out.target = first.substr(sp1 + 1, sp2 - sp1 - 1);
    size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
    while (pos < head.size()) {
      size_t end = head.find("\r\n", pos);
      if (end == std::string::npos) end = head.size();
      std::string line = head.substr(pos, end - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        size_t value = line.find_first_not_of(' ', colon + 1);
        out.headers[name] = value == std::string::npos ? "" : line.substr(value);
      }
      pos = end + 2;
    }
  }

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::function<FakeResponse(const FakeRequest&)> handler_;
  std::deque<FakeResponse> queue_;
  std::vector<FakeRequest> requests_;
  std::vector<int> silent_;  // connections held open by never_answer
};

}  // namespace loadshift::testing

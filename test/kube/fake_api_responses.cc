#include "test/kube/fake_api_responses.h"

#include <cstdio>
#include <ctime>
#include <random>

#include <nlohmann/json.hpp>

namespace loadshift::testing {

std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump();
}

std::string status_body(int code, const std::string& reason, const std::string& message,
                        const std::string& details_json, const std::string& metadata_json) {
  std::string out = R"({"kind":"Status","apiVersion":"v1","metadata":)" + metadata_json +
                    R"(,"status":"Failure","message":)" + json_string(message) + R"(,"reason":)" +
                    json_string(reason);
  if (!details_json.empty()) out += R"(,"details":)" + details_json;
  out += R"(,"code":)" + std::to_string(code) + "}\n";
  return out;
}

std::string injected_status_body(int code, std::optional<int> retry_after_seconds) {
  switch (code) {
    case 401:
      return status_body(401, "Unauthorized", "Unauthorized");
    case 429: {
      std::string details;
      if (retry_after_seconds)
        details = R"({"retryAfterSeconds":)" + std::to_string(*retry_after_seconds) + "}";
      return status_body(429, "TooManyRequests", "Too many requests, please try again later.",
                         details);
    }
    case 500:
      return status_body(500, "InternalError", "Internal error occurred: injected failure",
                         R"({"causes":[{"message":"injected failure"}]})");
    case 503:
      return status_body(503, "ServiceUnavailable",
                         "the server is currently unable to handle the request");
    case 504:
      return status_body(504, "Timeout",
                         "the server was unable to return a response in the time allotted");
    default:
      return status_body(code, "", "injected failure " + std::to_string(code));
  }
}

std::string qualified_resource(const std::string& resource, const std::string& group) {
  return group.empty() ? resource : resource + "." + group;
}

std::string details_json(const std::string& name, const std::string& group,
                         const std::string& resource) {
  std::string details = "{";
  if (!name.empty()) details += R"("name":)" + json_string(name) + ",";
  if (!group.empty()) details += R"("group":)" + json_string(group) + ",";
  return details + R"("kind":)" + json_string(resource) + "}";
}

std::string not_found_body(const std::string& resource, const std::string& group,
                           const std::string& name) {
  return status_body(404, "NotFound",
                     qualified_resource(resource, group) + " " + json_string(name) + " not found",
                     details_json(name, group, resource));
}

std::string forbidden_body(const std::string& user, const std::string& verb,
                           const std::string& resource, const std::string& subresource,
                           const std::string& group, const std::string& ns,
                           const std::string& name) {
  const std::string qualified = qualified_resource(resource, group);
  std::string message = name.empty() ? qualified : qualified + " " + json_string(name);
  message += " is forbidden: User " + json_string(user) + " cannot " + verb + " resource " +
             json_string(subresource.empty() ? resource : resource + "/" + subresource) +
             " in API group " + json_string(group);
  message += ns.empty() ? " at the cluster scope" : " in the namespace " + json_string(ns);
  return status_body(403, "Forbidden", message, details_json(name, group, resource));
}

const char* reason_phrase(int code) {
  switch (code) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 422:
      return "Unprocessable Entity";
    case 410:
      return "Gone";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "Unknown";
  }
}

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(const std::string& in) {
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kAlphabet[(n >> s) & 63];
  }
  if (i + 1 == in.size()) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
  } else if (i + 2 == in.size()) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

std::optional<std::string> unbase64url(const std::string& in) {
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    if (c == '=') break;
    const char* at = std::char_traits<char>::find(kAlphabet, 64, c);
    if (c == '+') at = kAlphabet + 62;  // the apiserver also accepts standard base64
    if (c == '/') at = kAlphabet + 63;
    if (at == nullptr) return std::nullopt;
    bits = (bits << 6) | uint32_t(at - kAlphabet);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += char((bits >> count) & 0xff);
    }
  }
  return out;
}

}  // namespace

std::string encode_continue(int64_t rv, const std::string& start) {
  // The same bytes as Go's json.Marshal: NUL is written \u0000.
  std::string json = R"({"v":"meta.k8s.io/v1","rv":)" + std::to_string(rv) + R"(,"start":)" +
                     json_string(start) + "}";
  return base64url(json);
}

std::optional<ContinueToken> decode_continue(const std::string& token) {
  auto raw = unbase64url(token);
  if (!raw) return std::nullopt;
  auto json = nlohmann::json::parse(*raw, nullptr, false);
  if (json.is_discarded() || !json.is_object() || json.value("v", "") != "meta.k8s.io/v1" ||
      !json.contains("rv") || !json["rv"].is_number_integer() || !json.contains("start") ||
      !json["start"].is_string()) {
    return std::nullopt;
  }
  return ContinueToken{json["rv"].get<int64_t>(), json["start"].get<std::string>()};
}

std::string http_date() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

std::string rfc3339(std::chrono::system_clock::time_point when) {
  std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string new_uid() {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const uint64_t high = random(), low = random();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(high >> 32),
                static_cast<unsigned>((high >> 16) & 0xffff), static_cast<unsigned>(high & 0xfff),
                static_cast<unsigned>(0x8000 | ((low >> 48) & 0x3fff)),
                static_cast<unsigned long long>(low & 0xffffffffffffULL));
  return buf;
}

}  // namespace loadshift::testing

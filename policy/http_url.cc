#include "policy/http_url.h"

#include <algorithm>
#include <cctype>

namespace loadshift::policy {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_' ||
         c == '%' || c == '~';
}

}  // namespace

std::string check_http_url(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return "it contains whitespace or a control character";
    }
  }
  size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) return "it has no scheme (http:// or https://)";
  std::string scheme = lower(text.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") {
    return "the scheme must be http or https, found \"" + std::string(text.substr(0, scheme_end)) +
           "\"";
  }
  std::string_view rest = text.substr(scheme_end + 3);
  std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority = authority.substr(at + 1);
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return "unterminated IPv6 address in the host";
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return "unexpected text after the IPv6 address";
      port = after.substr(1);
      if (port.empty()) return "empty port";
    }
    bool ipv6 = !host.empty() && std::all_of(host.begin(), host.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.' || c == '%';
    });
    if (!ipv6) return "invalid IPv6 address in the host";
  } else {
    if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
      host = authority.substr(0, colon);
      port = authority.substr(colon + 1);
      if (port.empty()) return "empty port";
    }
    if (host.empty()) return "no host";
    if (!std::all_of(host.begin(), host.end(), is_host_char)) {
      return "invalid host \"" + std::string(host) + "\"";
    }
  }
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        })) {
      return "invalid port \"" + std::string(port) + "\"";
    }
    int number = std::stoi(std::string(port));
    if (number < 1 || number > 65535) return "port " + std::string(port) + " is not in 1..65535";
  }
  return "";
}

}  // namespace loadshift::policy

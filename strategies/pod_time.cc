#include "strategies/pod_time.h"

#include <cstdint>

namespace loadshift::strategies {
namespace {

// Reads exactly `digits` decimal digits at `pos`.
std::optional<int> digits_at(std::string_view text, size_t& pos, size_t digits) {
  if (pos + digits > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  return value;
}

bool take(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_pod_time(std::string_view text) {
  using namespace std::chrono;
  size_t pos = 0;
  std::optional<int> y = digits_at(text, pos, 4);
  if (!y || !take(text, pos, '-')) return std::nullopt;
  std::optional<int> mo = digits_at(text, pos, 2);
  if (!mo || !take(text, pos, '-')) return std::nullopt;
  std::optional<int> d = digits_at(text, pos, 2);
  if (!d || !(take(text, pos, 'T') || take(text, pos, 't'))) return std::nullopt;
  std::optional<int> h = digits_at(text, pos, 2);
  if (!h || !take(text, pos, ':')) return std::nullopt;
  std::optional<int> mi = digits_at(text, pos, 2);
  if (!mi || !take(text, pos, ':')) return std::nullopt;
  std::optional<int> s = digits_at(text, pos, 2);
  if (!s) return std::nullopt;
  int64_t nanos = 0;
  if (take(text, pos, '.')) {
    size_t start = pos;
    int scale = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (scale < 9) {
        nanos = nanos * 10 + (text[pos] - '0');
        ++scale;
      }
      ++pos;
    }
    if (pos == start) return std::nullopt;
    for (; scale < 9; ++scale) nanos *= 10;
  }
  minutes offset{0};
  if (take(text, pos, 'Z') || take(text, pos, 'z')) {
    // UTC
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    bool negative = text[pos++] == '-';
    std::optional<int> oh = digits_at(text, pos, 2);
    if (!oh || !take(text, pos, ':')) return std::nullopt;
    std::optional<int> om = digits_at(text, pos, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset = hours{*oh} + minutes{*om};
    if (negative) offset = -offset;
  } else {
    return std::nullopt;
  }
  if (pos != text.size() || *h > 23 || *mi > 59 || *s > 59) return std::nullopt;
  // system_clock counts nanoseconds since 1970 in 64 bits (1677-09-21 .. 2262-04-11): a year
  // outside would overflow in the conversion below and come back as another instant.
  if (*y < 1678 || *y > 2261) return std::nullopt;
  year_month_day date{year{*y}, month{static_cast<unsigned>(*mo)}, day{static_cast<unsigned>(*d)}};
  if (!date.ok()) return std::nullopt;
  auto local = sys_days{date} + hours{*h} + minutes{*mi} + seconds{*s};
  return time_point_cast<system_clock::duration>(local - offset + nanoseconds{nanos});
}

}  // namespace loadshift::strategies

#include "model/rfc3339.h"

#include <cctype>
#include <cstdio>

namespace loadshift::model {
namespace {

// Reads exactly `digits` decimal digits at `pos`.
std::optional<int> read_number(std::string_view text, size_t& pos, size_t digits) {
  if (pos + digits > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < digits; ++i) {
    char c = text[pos + i];
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += digits;
  return value;
}

bool expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  using namespace std::chrono;
  size_t pos = 0;
  auto year = read_number(text, pos, 4);
  if (!year || !expect(text, pos, '-')) return std::nullopt;
  auto month = read_number(text, pos, 2);
  if (!month || !expect(text, pos, '-')) return std::nullopt;
  auto day = read_number(text, pos, 2);
  if (!day || pos >= text.size()) return std::nullopt;
  char sep = text[pos++];
  if (sep != 'T' && sep != 't' && sep != ' ') return std::nullopt;
  auto hour = read_number(text, pos, 2);
  if (!hour || !expect(text, pos, ':')) return std::nullopt;
  auto minute = read_number(text, pos, 2);
  if (!minute || !expect(text, pos, ':')) return std::nullopt;
  auto second = read_number(text, pos, 2);
  if (!second) return std::nullopt;
  nanoseconds fraction{0};
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t nanos = 0;
    size_t scale = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
      if (scale < 9) {
        nanos = nanos * 10 + (text[pos] - '0');
        ++scale;
      }
      ++pos;
    }
    if (pos == start) return std::nullopt;
    for (; scale < 9; ++scale) nanos *= 10;
    fraction = nanoseconds{nanos};
  }
  if (pos >= text.size()) return std::nullopt;
  minutes offset{0};
  char zone = text[pos++];
  if (zone == 'Z' || zone == 'z') {
    // UTC
  } else if (zone == '+' || zone == '-') {
    auto oh = read_number(text, pos, 2);
    if (!oh || !expect(text, pos, ':')) return std::nullopt;
    auto om = read_number(text, pos, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset = hours{*oh} + minutes{*om};
    if (zone == '-') offset = -offset;
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  if (*hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  // system_clock counts nanoseconds since 1970 in 64 bits (1677-09-21 .. 2262-04-11): a year
  // outside would overflow in the conversion below and come back as another instant.
  if (*year < 1678 || *year > 2261) return std::nullopt;
  year_month_day date{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                      std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  auto local = sys_days{date} + hours{*hour} + minutes{*minute} + seconds{*second};
  return time_point_cast<system_clock::duration>(local - offset + fraction);
}

std::string format_rfc3339(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  auto secs = floor<seconds>(time);
  sys_days days = floor<std::chrono::days>(secs);
  year_month_day date{days};
  hh_mm_ss<seconds> clock{secs - days};
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return text;
}

std::string format_micro_time(std::chrono::system_clock::time_point time) {
  using namespace std::chrono;
  std::string whole = format_rfc3339(time);
  auto micros = duration_cast<microseconds>(time - floor<seconds>(time)).count();
  char fraction[32];
  std::snprintf(fraction, sizeof fraction, ".%06lldZ", static_cast<long long>(micros));
  whole.pop_back();  // the 'Z'
  return whole + fraction;
}

}  // namespace loadshift::model

// RFC 3339 pod times: the forms the API server writes, offsets and fractions, and what is refused.
#include <catch2/catch.hpp>

#include <chrono>

#include "model/rfc3339.h"

using loadshift::model::parse_rfc3339;

TEST_CASE("pod times in RFC 3339", "[rfc3339]") {
  using namespace std::chrono;
  auto base = parse_rfc3339("2026-11-20T08:00:00Z");
  REQUIRE(base);
  CHECK(duration_cast<seconds>(base->time_since_epoch()).count() == 1795161600);
  CHECK(parse_rfc3339("2026-11-20t08:00:00z") == base);
  CHECK(parse_rfc3339("2026-11-20T10:30:00+02:30") == base);
  CHECK(parse_rfc3339("2026-11-20T07:00:00-01:00") == base);
  CHECK(*parse_rfc3339("2026-11-20T08:00:00.25Z") - *base == milliseconds(250));
  CHECK(*parse_rfc3339("2026-11-20T08:00:01.123456789123Z") - *base ==
        duration_cast<system_clock::duration>(nanoseconds(1123456789)));
  CHECK(parse_rfc3339("2024-02-29T00:00:00Z").has_value());  // leap day
}

TEST_CASE("times that are not RFC 3339 are refused", "[rfc3339]") {
  for (const char* bad :
       {"", "yesterday", "2026-11-20", "2026-11-20T08:00:00", "2026-11-20_08:00:00Z",
        "2026-11-20T08:00Z", "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z", "2026-11-20T24:00:00Z", "2026-11-20T08:60:00Z",
        "2026-11-20T08:00:60Z", "2026-11-20T08:00:00.Z", "2026-11-20T08:00:00+0200",
        "2026-11-20T08:00:00+24:00", "2026-11-20T08:00:00Z ", "26-11-20T08:00:00Z"}) {
    INFO(bad);
    CHECK_FALSE(parse_rfc3339(bad).has_value());
  }
  // RFC 3339 section 5.6 lets a space stand for the "T" (handy for --at); the API server writes "T".
  CHECK(parse_rfc3339("2026-11-20 08:00:00Z") == parse_rfc3339("2026-11-20T08:00:00Z"));
}

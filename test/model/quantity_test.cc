#include <catch2/catch.hpp>

#include "model/quantity.h"

using loadshift::model::parse_quantity;
using loadshift::model::parse_resource_quantity;

namespace {

int64_t value(std::string_view text, int scale = 0) {
  auto result = parse_quantity(text, scale);
  INFO(text << ": " << result.error);
  REQUIRE(result.ok);
  return result.value;
}

}  // namespace

TEST_CASE("quantity forms give exact values", "[quantity]") {
  struct Case {
    const char* text;
    int scale;
    int64_t expected;
  };
  const Case cases[] = {
      {"0", 0, 0},          {"1", 0, 1},
      {"1", 3, 1000},       {"500m", 3, 500},
      {"0.5", 3, 500},      {".5", 3, 500},
      {"5.", 3, 5000},      {"1.5", 3, 1500},
      {"100m", 0, 1},       {"1m", 3, 1},
      {"0.1m", 3, 1},       {"1k", 0, 1000},
      {"1M", 0, 1000000},   {"1G", 0, 1000000000},
      {"1T", 0, 1000000000000},  {"1P", 0, 1000000000000000},
      {"1E", 0, 1000000000000000000},  {"1Ki", 0, 1024},
      {"1Mi", 0, 1048576},  {"1Gi", 0, 1073741824},
      {"1Ti", 0, 1099511627776},  {"1Pi", 0, 1125899906842624},
      {"1Ei", 0, 1152921504606846976},  {"1.5Gi", 0, 1610612736},
      {"134217728Ki", 0, 137438953472},  {"1e3", 0, 1000},
      {"1E3", 0, 1000},     {"1e-3", 3, 1},
      {"1.5e2", 0, 150},    {"1e+2", 0, 100},
      {"+1", 0, 1},         {"-1", 0, -1},
      {"-500m", 3, -500},   {"-0.1", 0, -1},
      {"0.0001", 0, 1},     {"9223372036854775807", 0, INT64_MAX},
      {"007", 0, 7},        {"1.000000000000000000000000000000000000001", 0, 2},
      {"12345678901234567890123456789e-20", 0, 123456790},
  };
  for (const Case& c : cases) {
    INFO(c.text << " at scale " << c.scale);
    CHECK(value(c.text, c.scale) == c.expected);
  }
}

TEST_CASE("0.5 cpu equals 500m and memory rounds up to whole bytes", "[quantity]") {
  CHECK(parse_resource_quantity("cpu", "0.5").value == parse_resource_quantity("cpu", "500m").value);
  CHECK(parse_resource_quantity("cpu", "2").value == 2000);
  CHECK(parse_resource_quantity("memory", "1Ki").value == 1024);
  CHECK(parse_resource_quantity("memory", "1.5").value == 2);
  CHECK(parse_resource_quantity("nvidia.com/gpu", "8").value == 8);
}

TEST_CASE("malformed quantities are errors that say why", "[quantity]") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "empty string"},
      {"abc", "expected digits"},
      {"+-1", "expected digits"},
      {"1Xi", "unknown suffix \"Xi\""},
      {"1KB", "unknown suffix \"KB\""},
      {"1kk", "unknown suffix \"kk\""},
      {"1 ", "unknown suffix \" \""},
      {"1e", "expected digits after the exponent"},
      {"1e3.5", "unexpected \".5\" in the exponent"},
      {"1.2.3", "unknown suffix \".3\""},
      {"10E", "out of range"},
      {"9223372036854775808", "out of range"},
      {"1e19", "out of range"},
      {"16Ei", "out of range"},
      // 2^76 Ei: the doubling used to overflow signed 128 bits (undefined) and give 0.
      {"75557863725914323419136Ei", "out of range"},
  };
  for (const Case& c : cases) {
    auto result = parse_quantity(c.text);
    INFO("\"" << c.text << "\" -> " << result.error);
    CHECK_FALSE(result.ok);
    CHECK_THAT(result.error, Catch::Contains(c.message));
    CHECK_THAT(result.error, Catch::Contains(std::string("\"") + c.text + "\""));
  }
}

TEST_CASE("nano and micro suffixes parse, as the API server writes them", "[quantity]") {
  // apimachinery suffix.go: "n" is 10^-9 and "u" 10^-6. The API server serialises cpu 1.5m as
  // "1500u" and 0.5m as "500u"; MilliValue rounds up.
  CHECK(value("1n", 3) == 1);
  CHECK(value("500u", 3) == 1);
  CHECK(value("1500u", 3) == 2);
  CHECK(value("1000000n", 3) == 1);
  CHECK(value("250000000n", 3) == 250);
  CHECK(value("2500000u", 0) == 3);
  CHECK(value("0n", 3) == 0);
  CHECK(value("-1500u", 3) == -2);
}

TEST_CASE("a number without digits is zero, as in Go's parseQuantityString", "[quantity]") {
  // ParseQuantity(".") and ("-.") succeed (quantity_test.go TestParseQuantityString); the
  // numerator defaults to "0" before any suffix.
  for (const char* text : {"-", "+", ".", "-.", "m", "Gi", "e3", "-e3"}) {
    INFO(text);
    CHECK(value(text, 3) == 0);
  }
  CHECK_FALSE(parse_quantity("abc").ok);
  CHECK_FALSE(parse_quantity("..").ok);
}

TEST_CASE("binary suffixes never overflow the 128-bit intermediate", "[quantity]") {
  // 2^66 Ei is 2^126: scaled to millicores, the old code multiplied it by 10 past 2^127.
  auto r = parse_quantity("73786976294838206464Ei", 3);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("out of range"));
  // 36 significant digits times 2^10 lies just above 2^126 before the division brings it back:
  // 0.123456789012345678901234567890123456 * 1024 = 126.419...
  CHECK(value("0.123456789012345678901234567890123456Ki", 3) == 126420);
  CHECK(value("0.123456789012345678901234567890123456Ki", 0) == 127);
}

TEST_CASE("cpu overflow is checked after scaling to millicores", "[quantity]") {
  CHECK(parse_quantity("9223372036854775", 3).ok);
  CHECK_FALSE(parse_quantity("9223372036854776", 3).ok);
}

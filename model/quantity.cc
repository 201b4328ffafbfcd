#include "model/quantity.h"

#include <limits>

namespace loadshift::model {
namespace {

using Int128 = __int128;
constexpr Int128 kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int kMaxMantissaDigits = 36;  // < 10^36: times 2^60 still inside 128 bits
constexpr Int128 kInt128Half = (static_cast<Int128>(1) << 126);

QuantityResult fail(std::string_view text, std::string_view why) {
  QuantityResult result;
  result.error = "invalid quantity \"" + std::string(text) + "\": " + std::string(why);
  return result;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The parts of a quantity: +/- mantissa * 10^decimal_exponent * 2^binary_exponent.
struct Parsed {
  bool negative = false;
  Int128 mantissa = 0;
  int decimal_exponent = 0;
  int binary_exponent = 0;
  size_t digits = 0;
};

// Reads sign and number; returns the position after them. Like Go's parseQuantityString it
// accepts a number without digits ("-", ".", "+.", or none before a suffix) and reads it as 0.
size_t read_number(std::string_view text, Parsed& out) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    out.negative = text[i] == '-';
    ++i;
  }
  size_t& digits = out.digits;
  size_t significant = 0;
  bool seen_dot = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seen_dot) break;
      seen_dot = true;
      continue;
    }
    if (!is_digit(c)) break;
    ++digits;
    if (out.mantissa == 0 && c == '0') {
      if (seen_dot) --out.decimal_exponent;
      continue;
    }
    if (significant >= kMaxMantissaDigits) {
      // Further digits cannot change a value that fits in int64 except by rounding up.
      if (!seen_dot) ++out.decimal_exponent;
      if (c != '0') out.mantissa |= 1;  // sticky bit: the value is above the kept digits
      continue;
    }
    out.mantissa = out.mantissa * 10 + (c - '0');
    ++significant;
    if (seen_dot) --out.decimal_exponent;
  }
  return i;
}

// Reads the suffix at text[pos..]; returns false with `why` on error.
bool read_suffix(std::string_view suffix, Parsed& out, std::string& why) {
  if (suffix.empty()) return true;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    static constexpr std::string_view kBinary = "KMGTPE";
    size_t k = kBinary.find(suffix[0]);
    if (k == std::string_view::npos) {
      why = "unknown suffix \"" + std::string(suffix) + "\" (expected Ki, Mi, Gi, Ti, Pi or Ei)";
      return false;
    }
    out.binary_exponent = 10 * static_cast<int>(k + 1);
    return true;
  }
  if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        out.decimal_exponent -= 9;
        return true;
      case 'u':
        out.decimal_exponent -= 6;
        return true;
      case 'm':
        out.decimal_exponent -= 3;
        return true;
      case 'k':
        out.decimal_exponent += 3;
        return true;
      case 'M':
        out.decimal_exponent += 6;
        return true;
      case 'G':
        out.decimal_exponent += 9;
        return true;
      case 'T':
        out.decimal_exponent += 12;
        return true;
      case 'P':
        out.decimal_exponent += 15;
        return true;
      case 'E':
        out.decimal_exponent += 18;
        return true;
      default:
        break;
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view exponent = suffix.substr(1);
    size_t i = 0;
    bool negative = false;
    if (i < exponent.size() && (exponent[i] == '+' || exponent[i] == '-')) {
      negative = exponent[i] == '-';
      ++i;
    }
    if (i == exponent.size()) {
      why = "expected digits after the exponent \"" + std::string(suffix.substr(0, 1)) + "\"";
      return false;
    }
    int value = 0;
    for (; i < exponent.size(); ++i) {
      if (!is_digit(exponent[i])) {
        why = "unexpected \"" + std::string(exponent.substr(i)) + "\" in the exponent";
        return false;
      }
      if (value > 1000) {
        why = "exponent out of range";
        return false;
      }
      value = value * 10 + (exponent[i] - '0');
    }
    out.decimal_exponent += negative ? -value : value;
    return true;
  }
  why = "unknown suffix \"" + std::string(suffix) +
        "\" (expected n, u, m, k, M, G, T, P, E, Ki..Ei or an exponent e<n>)";
  return false;
}

}  // namespace

QuantityResult parse_quantity(std::string_view text, int scale) {
  if (text.empty()) return fail(text, "empty string");
  Parsed parsed;
  std::string why;
  size_t end = read_number(text, parsed);
  if (!read_suffix(text.substr(end), parsed, why)) {
    return fail(text, parsed.digits == 0 ? "expected digits" : why);
  }

  int exponent = parsed.decimal_exponent + scale;
  Int128 value = parsed.mantissa;
  const char* overflow = "value out of range (larger than 2^63-1 in the stored unit)";
  if (value != 0) {
    // Checked before each step: a signed 128-bit overflow would be undefined (it used to wrap
    // "75557863725914323419136Ei" to 0).
    for (int i = 0; i < parsed.binary_exponent; ++i) {
      if (value >= kInt128Half) return fail(text, overflow);
      value *= 2;
    }
    for (; exponent > 0; --exponent) {
      if (value > kInt64Max) return fail(text, overflow);
      value *= 10;
      if (value > kInt64Max) return fail(text, overflow);
    }
    // Divide, rounding away from zero as Quantity.ScaledValue does.
    bool remainder = false;
    for (; exponent < 0 && value != 0; ++exponent) {
      remainder = remainder || value % 10 != 0;
      value /= 10;
    }
    if (remainder || (exponent < 0 && value == 0)) value += 1;
    if (value > kInt64Max) return fail(text, overflow);
  }
  QuantityResult result;
  result.ok = true;
  result.value = static_cast<int64_t>(parsed.negative ? -value : value);
  return result;
}

QuantityResult parse_resource_quantity(std::string_view resource, std::string_view text) {
  return parse_quantity(text, resource == "cpu" ? 3 : 0);
}

}  // namespace loadshift::model

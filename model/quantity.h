// Kubernetes resource.Quantity, parsed exactly.
//
// Grammar (k8s.io/apimachinery/pkg/api/resource):
//   quantity        ::= signedNumber suffix
//   suffix          ::= binarySI | decimalExponent | decimalSI
//   binarySI        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   decimalSI       ::= n | u | m | "" | k | M | G | T | P | E
//   decimalExponent ::= "e" signedNumber | "E" signedNumber
//   signedNumber    ::= sign number | number ;  sign ::= "+" | "-"
//   number          ::= digits | digits "." digits | digits "." | "." digits | "." | ""
// (as in Go's parser, a number without digits reads as 0: "-", ".", "m" and "Gi" are all zero)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace loadshift::model {

// Result of parsing a quantity: a value or an error message that says what was expected.
struct QuantityResult {
  bool ok = false;
  int64_t value = 0;
  std::string error;  // empty when ok
};

// Parses `text` and returns ceil(quantity * 10^scale) as an integer, rounding away from zero as
// Quantity.ScaledValue does. scale 0 gives Value() (bytes, devices), scale 3 gives MilliValue()
// (millicores). Values that do not fit in int64 are an error, never a wrapped number.
QuantityResult parse_quantity(std::string_view text, int scale = 0);

// The amount of `resource` in the unit placement stores: millicores for "cpu", Value() otherwise.
QuantityResult parse_resource_quantity(std::string_view resource, std::string_view text);

}  // namespace loadshift::model

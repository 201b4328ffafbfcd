// YAML documents turned into JSON text, so YAML goes through the same decoder as JSON.
//
// Internal to the decoder (model/decode.cc). Scalars are typed the way kubectl reads YAML
// (YAML 1.1, as go-yaml v2 resolves them): a plain scalar that reads as null, a boolean
// (true/false, yes/no, on/off, y/n in their usual casings), an integer (decimal, 0x, 0o, 0b) or a
// float becomes JSON null, a boolean or a number; quoted and block scalars, and explicit !!str,
// stay strings. So `cpu: 1` gives a number, `cpu: "1"` a string, and an unquoted `true` label
// value is a boolean, which the decoder then rejects as Kubernetes does. Anchors and aliases are
// expanded; merge keys (`<<`) are not.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace loadshift::model {

struct YamlError {
  int document = 0;  // 1-based index of the document it stopped in
  int line = 0;      // 1-based; 0 when yaml-cpp gives no position
  int column = 0;    // 1-based
  std::string message;
};

// Calls on_document(json, index, first_line) for each document of `yaml` in turn (index and
// line 1-based). Empty documents (nothing, or only null) are passed over. Returns the error that
// stopped the conversion: a YAML syntax error, or a construct JSON cannot hold (a mapping or
// sequence as a key). Documents before it have been delivered. Throws only std::bad_alloc.
std::optional<YamlError> convert_yaml_documents(
    std::string_view yaml,
    const std::function<void(std::string_view json, int index, int first_line)>& on_document);

}  // namespace loadshift::model

// Typed reads of simdjson On-Demand values, with errors that name the field path.
//
// Internal to model/object_decoder.cc, the one translation unit that includes <simdjson.h>
// (a very large header: keep it to one .cc file so the build stays quick on two cores).
//
// Every reader returns true on success. On failure it records what was wrong in the Decoding and
// returns false; each enclosing reader then adds its field name or index on the way out, so a
// path like `spec.containers[0].resources.requests.cpu` costs nothing unless something fails.
// JSON null reads as "absent" everywhere, as Go's encoding/json treats it.
#pragma once

#include <simdjson.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/kube_names.h"

namespace loadshift::model::json {

namespace od = simdjson::ondemand;

// The state of decoding one object: where its text ends and, after a failure, why it failed.
class Decoding {
 public:
  explicit Decoding(const char* text_end) : text_end_(text_end) {}

  // The value is valid JSON of the wrong type or content: the object is left out. Returns false.
  bool wrong(std::string message) {
    message_ = std::move(message);
    return false;
  }
  // wrong(message) about the member `field` of the current object. Returns false.
  bool wrong_at(std::string_view field, std::string message) {
    wrong(std::move(message));
    return in_field(field);
  }
  // simdjson found the JSON itself broken. Returns false.
  bool malformed(simdjson::error_code code) {
    malformed_ = true;
    message_ = simdjson::error_message(code);
    return false;
  }
  // Adds an enclosing member name / array index to the failure's path. Return false.
  bool in_field(std::string_view key) {
    reversed_path_.emplace_back(false, std::string(key));
    return false;
  }
  bool in_element(size_t index) {
    reversed_path_.emplace_back(true, "[" + std::to_string(index) + "]");
    return false;
  }

  bool is_malformed() const { return malformed_; }
  const std::string& message() const { return message_; }
  // "spec.containers[0].resources.requests.cpu"
  std::string path() const {
    std::string path;
    for (auto it = reversed_path_.rbegin(); it != reversed_path_.rend(); ++it) {
      if (!path.empty() && !it->first) path += '.';
      path += it->second;
    }
    return path;
  }

  // The key of `field` as written, escapes not decoded: enough to recognize field names.
  std::string_view raw_key(const od::field& field) const {
    const char* begin = field.key().raw();
    const char* from = begin;
    while (from < text_end_) {
      auto quote =
          static_cast<const char*>(std::memchr(from, '"', static_cast<size_t>(text_end_ - from)));
      if (quote == nullptr) break;
      size_t backslashes = 0;
      while (quote - backslashes > begin &&
             quote[-1 - static_cast<ptrdiff_t>(backslashes)] == '\\') {
        ++backslashes;
      }
      if (backslashes % 2 == 0) return {begin, static_cast<size_t>(quote - begin)};
      from = quote + 1;
    }
    return {begin, static_cast<size_t>(text_end_ - begin)};
  }

 private:
  const char* text_end_;
  bool malformed_ = false;
  std::string message_;
  std::vector<std::pair<bool, std::string>> reversed_path_;  // (is an index, segment)
};

// ---- describing what was found ----------------------------------------------------------------

inline std::string_view trim_right(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\r' ||
                           text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

// The error for a literal that starts like true or false but is neither ("tru").
inline simdjson::error_code bad_literal(od::value& value) {
  std::string_view token = value.raw_json_token();
  return !token.empty() && token[0] == 'f' ? simdjson::F_ATOM_ERROR : simdjson::T_ATOM_ERROR;
}

// True when `token` follows JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
inline bool is_json_number(std::string_view token) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < token.size() && token[i] >= '0' && token[i] <= '9') ++i;
    return i - start;
  };
  if (i < token.size() && token[i] == '-') ++i;
  if (i < token.size() && token[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < token.size() && token[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    ++i;
    if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == token.size();
}

// Reports a value of the wrong type: "expected a string, found the number 5". A scalar that is not
// well-formed JSON (`tru`, `1.2.3`, a bad escape) is reported as broken JSON instead.
inline bool wrong_type(Decoding& d, od::value& value, od::json_type type,
                       std::string_view expected) {
  std::string found;
  switch (type) {
    case od::json_type::string: {
      std::string_view text;
      if (auto error = value.get_string().get(text)) return d.malformed(error);
      found = "the string " + quoted(text);
      break;
    }
    case od::json_type::number: {
      // By the JSON grammar, not simdjson's number parser: 1e400 is valid JSON, if no double.
      std::string_view token = trim_right(value.raw_json_token());
      if (!is_json_number(token)) return d.malformed(simdjson::NUMBER_ERROR);
      found = "the number " + std::string(token.substr(0, 64));
      break;
    }
    case od::json_type::boolean: {
      if (value.get_bool().error()) return d.malformed(bad_literal(value));
      found = "the boolean " + std::string(trim_right(value.raw_json_token()));
      break;
    }
    case od::json_type::object:
      found = "an object";
      break;
    case od::json_type::array:
      found = "an array";
      break;
    case od::json_type::null:
      found = "null";
      break;
  }
  return d.wrong("expected " + std::string(expected) + ", found " + found);
}

// ---- scalars ------------------------------------------------------------------------------------

inline bool type_of(Decoding& d, od::value& value, od::json_type& type) {
  if (auto error = value.type().get(type)) return d.malformed(error);
  return true;
}

// Consumes a literal null (whose type() was null).
inline bool take_null(Decoding& d, od::value& value) {
  bool is_null = false;
  if (auto error = value.is_null().get(is_null)) return d.malformed(error);
  if (!is_null) return d.malformed(simdjson::N_ATOM_ERROR);
  return true;
}

// Sets `is_null` and consumes the value when it is null; leaves any other value unread.
inline bool check_null(Decoding& d, od::value& value, bool& is_null) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  is_null = type == od::json_type::null;
  return !is_null || take_null(d, value);
}

// A string, valid until the next object is decoded. null leaves `out` empty.
inline bool read_string_view(Decoding& d, od::value& value, std::string_view& out) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  if (type == od::json_type::string) {
    if (auto error = value.get_string().get(out)) return d.malformed(error);
    return true;
  }
  out = {};
  if (type == od::json_type::null) return take_null(d, value);
  return wrong_type(d, value, type, "a string");
}

inline bool read_string(Decoding& d, od::value& value, std::string& out) {
  std::string_view text;
  if (!read_string_view(d, value, text)) return false;
  out.assign(text.data(), text.size());
  return true;
}

inline bool read_bool(Decoding& d, od::value& value, bool& out) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  if (type == od::json_type::boolean) {
    if (value.get_bool().get(out) != simdjson::SUCCESS) return d.malformed(bad_literal(value));
    return true;
  }
  if (type == od::json_type::null) return take_null(d, value);
  return wrong_type(d, value, type, "a boolean");
}

// An integer in [min, max]; null leaves `out` empty.
inline bool read_integer(Decoding& d, od::value& value, std::optional<int64_t>& out, int64_t min,
                         int64_t max) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  if (type == od::json_type::null) {
    out.reset();
    return take_null(d, value);
  }
  std::string_view expected = max == INT32_MAX ? "a 32-bit integer" : "an integer";
  if (type != od::json_type::number) return wrong_type(d, value, type, expected);
  int64_t number = 0;
  if (value.get_int64().get(number) != simdjson::SUCCESS || number < min || number > max) {
    return wrong_type(d, value, type, expected);
  }
  out = number;
  return true;
}

inline bool read_int32(Decoding& d, od::value& value, int32_t& out) {
  std::optional<int64_t> number;
  if (!read_integer(d, value, number, INT32_MIN, INT32_MAX)) return false;
  out = static_cast<int32_t>(number.value_or(0));
  return true;
}

inline bool read_optional_int32(Decoding& d, od::value& value, std::optional<int32_t>& out) {
  std::optional<int64_t> number;
  if (!read_integer(d, value, number, INT32_MIN, INT32_MAX)) return false;
  out.reset();
  if (number) out = static_cast<int32_t>(*number);
  return true;
}

inline bool read_optional_int64(Decoding& d, od::value& value, std::optional<int64_t>& out) {
  return read_integer(d, value, out, INT64_MIN, INT64_MAX);
}

// An enum given by name. null or "" leave `out` empty; another name is an error.
template <typename Enum, size_t N>
bool read_enum(Decoding& d, od::value& value, const EnumNames<Enum, N>& names,
               std::optional<Enum>& out) {
  std::string_view text;
  if (!read_string_view(d, value, text)) return false;
  out.reset();
  if (text.empty()) return true;
  out = find_enum(names, text);
  if (out) return true;
  return d.wrong("expected " + one_of(names) + ", found " + quoted(text));
}

// ---- objects and arrays -------------------------------------------------------------------------

// Calls on_field(key, value) -> bool for every member of an object; null is an empty object.
// With kDecodedKeys the key has its escapes decoded (map keys: labels, resource names); without,
// it is the raw text (field names). A member whose value on_field leaves unread is skipped.
template <bool kDecodedKeys, typename OnField>
bool visit_object(Decoding& d, od::value& value, OnField&& on_field) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  if (type == od::json_type::null) return take_null(d, value);
  if (type != od::json_type::object) return wrong_type(d, value, type, "an object");
  od::object object;
  if (auto error = value.get_object().get(object)) return d.malformed(error);
  for (auto member : object) {
    od::field field;
    if (auto error = std::move(member).get(field)) return d.malformed(error);
    std::string_view key = d.raw_key(field);
    if constexpr (kDecodedKeys) {
      if (key.find('\\') != std::string_view::npos) {
        if (auto error = field.unescaped_key().get(key)) return d.malformed(error);
      }
    }
    if (!on_field(key, field.value())) return d.in_field(key);
  }
  return true;
}

template <typename OnField>
bool visit_fields(Decoding& d, od::value& value, OnField&& on_field) {
  return visit_object<false>(d, value, std::forward<OnField>(on_field));
}

template <typename OnEntry>
bool visit_map(Decoding& d, od::value& value, OnEntry&& on_entry) {
  return visit_object<true>(d, value, std::forward<OnEntry>(on_entry));
}

// Calls on_element(value, index) -> bool for every element of an array; null is an empty array.
// An element on_element leaves unread is skipped.
template <typename OnElement>
bool visit_array(Decoding& d, od::value& value, OnElement&& on_element) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  if (type == od::json_type::null) return take_null(d, value);
  if (type != od::json_type::array) return wrong_type(d, value, type, "an array");
  od::array array;
  if (auto error = value.get_array().get(array)) return d.malformed(error);
  size_t index = 0;
  for (auto element_result : array) {
    od::value element;
    if (auto error = std::move(element_result).get(element)) return d.malformed(error);
    if (!on_element(element, index)) return d.in_element(index);
    ++index;
  }
  return true;
}

inline bool count_elements(Decoding& d, od::value& value, int& count) {
  return visit_array(d, value, [&](od::value&, size_t) {
    ++count;
    return true;
  });
}

inline bool read_string_list(Decoding& d, od::value& value, std::vector<std::string>& out) {
  return visit_array(d, value, [&](od::value& element, size_t) {
    return read_string(d, element, out.emplace_back());
  });
}

}  // namespace loadshift::model::json

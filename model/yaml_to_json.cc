#include "model/yaml_to_json.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <array>
#include <cstdint>
#include <istream>
#include <streambuf>
#include <unordered_map>
#include <vector>

namespace loadshift::model {
namespace {

// An istream source over bytes we do not own, without copying them.
class ViewStreamBuffer : public std::streambuf {
 public:
  explicit ViewStreamBuffer(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // only ever read
    setg(begin, begin, begin + bytes.size());
  }
};

// A YAML construct that JSON cannot hold, thrown out of the event handler.
struct UnsupportedYaml {
  YAML::Mark mark;
  std::string message;
};

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
  for (std::string_view word : words) {
    if (text == word) return true;
  }
  return false;
}

// "-0x1F" -> "-31" for the 0x / 0o / 0b forms; nullopt when not one or out of range.
std::optional<std::string> prefixed_integer(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  if (text.size() < 3 || text[0] != '0') return std::nullopt;
  int base = text[1] == 'x' ? 16 : text[1] == 'o' ? 8 : text[1] == 'b' ? 2 : 0;
  if (base == 0) return std::nullopt;
  uint64_t value = 0;
  for (char c : text.substr(2)) {
    int digit = is_digit(c)              ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : 99;
    if (digit >= base || value > (UINT64_MAX - static_cast<uint64_t>(digit)) / base) {
      return std::nullopt;
    }
    value = value * base + static_cast<uint64_t>(digit);
  }
  return (negative && value != 0 ? "-" : "") + std::to_string(value);
}

// A decimal integer or float in JSON's spelling ("+.5" -> "0.5", "007" -> "7", "1." -> "1");
// nullopt when `text` is not one.
std::optional<std::string> json_number(std::string_view text) {
  std::string out;
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    if (text[i] == '-') out += '-';
    ++i;
  }
  size_t int_begin = i;
  while (i < text.size() && is_digit(text[i])) ++i;
  std::string_view int_digits = text.substr(int_begin, i - int_begin);
  std::string_view fraction;
  if (i < text.size() && text[i] == '.') {
    size_t fraction_begin = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    fraction = text.substr(fraction_begin, i - fraction_begin);
  }
  if (int_digits.empty() && fraction.empty()) return std::nullopt;
  std::string_view exponent;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    size_t exponent_begin = ++i;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    size_t digits_begin = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == digits_begin) return std::nullopt;
    exponent = text.substr(exponent_begin, i - exponent_begin);
  }
  if (i != text.size()) return std::nullopt;
  while (int_digits.size() > 1 && int_digits[0] == '0') int_digits.remove_prefix(1);
  out += int_digits.empty() ? std::string_view("0") : int_digits;
  if (!fraction.empty()) (out += '.') += fraction;
  if (!exponent.empty()) (out += 'e') += exponent;
  return out;
}

// The JSON for a scalar, typed as go-yaml v2 types plain scalars.
std::string json_scalar(const std::string& tag, const std::string& value) {
  std::string out;
  bool plain = tag == "?";
  bool resolve = plain || tag == "tag:yaml.org,2002:int" || tag == "tag:yaml.org,2002:float" ||
                 tag == "tag:yaml.org,2002:bool" || tag == "tag:yaml.org,2002:null";
  if (resolve) {
    if (one_of(value, {"", "~", "null", "Null", "NULL"})) return "null";
    if (one_of(value, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) {
      return "true";
    }
    if (one_of(value,
               {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) {
      return "false";
    }
    if (auto number = prefixed_integer(value)) return *number;
    if (auto number = json_number(value)) return *number;
  }
  append_json_string(out, value);
  return out;
}

// Writes the JSON text of one YAML document from yaml-cpp's parse events.
class JsonWriter : public YAML::EventHandler {
 public:
  // `yaml` is the text being parsed, to quote it in errors.
  explicit JsonWriter(std::string_view yaml) : yaml_(yaml) {}

  const std::string& json() const { return json_; }
  // True when the document is empty or a bare null.
  bool empty() const { return json_.empty() || json_ == "null"; }
  int first_line() const { return first_line_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp 0.7 reports a stray ',' at the top level as an endless run of empty documents
    // that all start at the same place: stop there instead of looping forever.
    if (mark.pos == last_document_pos_) {
      std::string found = static_cast<size_t>(mark.pos) < yaml_.size()
                              ? " '" + std::string(1, yaml_[static_cast<size_t>(mark.pos)]) + "'"
                              : std::string();
      throw UnsupportedYaml{mark, "unexpected" + found + " where a document should start"};
    }
    last_document_pos_ = mark.pos;
    json_.clear();
    frames_.clear();
    anchors_.clear();
    first_line_ = mark.line + 1;
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    write_scalar(mark, "null", "null", anchor);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    write_scalar(mark, value, json_scalar(tag, value), anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw UnsupportedYaml{mark, "alias to an unknown anchor"};
    if (at_key()) {
      if (it->second.empty() || it->second[0] != '"') {
        throw UnsupportedYaml{mark, "a mapping key must be a scalar"};
      }
      write_key_json(it->second);
      return;
    }
    begin_value();
    json_ += it->second;
    end_value();
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, '[', anchor);
  }
  void OnSequenceEnd() override { close(']'); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, '{', anchor);
  }
  void OnMapEnd() override { close('}'); }

 private:
  struct Frame {
    bool is_map = false;
    bool expecting_key = false;
    bool empty = true;
    YAML::anchor_t anchor = 0;
    size_t start = 0;  // offset of the opening bracket in json_
  };

  bool at_key() const {
    return !frames_.empty() && frames_.back().is_map && frames_.back().expecting_key;
  }

  // Separates this value from the previous element of an enclosing sequence.
  void begin_value() {
    if (frames_.empty() || frames_.back().is_map) return;
    if (!frames_.back().empty) json_ += ',';
    frames_.back().empty = false;
  }
  // After a map's value, the next scalar is a key.
  void end_value() {
    if (!frames_.empty() && frames_.back().is_map) frames_.back().expecting_key = true;
  }

  void write_key_json(std::string_view key_json) {
    Frame& frame = frames_.back();
    if (!frame.empty) json_ += ',';
    frame.empty = false;
    json_ += key_json;
    json_ += ':';
    frame.expecting_key = false;
  }

  void write_scalar(const YAML::Mark&, const std::string& text, const std::string& json,
                    YAML::anchor_t anchor) {
    if (at_key()) {
      std::string key;
      append_json_string(key, text);
      write_key_json(key);
      if (anchor != 0) anchors_[anchor] = key;
      return;
    }
    begin_value();
    json_ += json;
    if (anchor != 0) anchors_[anchor] = json;
    end_value();
  }

  void open(const YAML::Mark& mark, char bracket, YAML::anchor_t anchor) {
    if (at_key()) throw UnsupportedYaml{mark, "a mapping key must be a scalar"};
    begin_value();
    frames_.push_back({bracket == '{', bracket == '{', true, anchor, json_.size()});
    json_ += bracket;
  }

  void close(char bracket) {
    json_ += bracket;
    Frame frame = frames_.back();
    frames_.pop_back();
    if (frame.anchor != 0) anchors_[frame.anchor] = json_.substr(frame.start);
    end_value();
  }

  std::string json_;
  std::vector<Frame> frames_;
  std::unordered_map<YAML::anchor_t, std::string> anchors_;
  std::string_view yaml_;
  int first_line_ = 1;
  int last_document_pos_ = -1;
};

}  // namespace

std::optional<YamlError> convert_yaml_documents(
    std::string_view yaml,
    const std::function<void(std::string_view json, int index, int first_line)>& on_document) {
  ViewStreamBuffer buffer(yaml);
  std::istream input(&buffer);
  JsonWriter writer(yaml);
  int document = 0;
  try {
    YAML::Parser parser(input);
    while (true) {
      ++document;
      if (!parser.HandleNextDocument(writer)) break;
      if (!writer.empty()) on_document(writer.json(), document, writer.first_line());
    }
  } catch (const YAML::Exception& error) {
    bool located = !error.mark.is_null();
    return YamlError{document, located ? error.mark.line + 1 : 0,
                     located ? error.mark.column + 1 : 0, error.msg};
  } catch (const UnsupportedYaml& error) {
    return YamlError{document, error.mark.line + 1, error.mark.column + 1, error.message};
  }
  return std::nullopt;
}

}  // namespace loadshift::model

// Label-selector strings, parsed by hand: requirements split on commas outside parentheses, each
// one of "key", "!key", "key=value", "key==value", "key!=value", "key in (a,b)", "key notin (a,b)".
// Keys and values are tokens of letters, digits and "-_./" that start and end with a letter or a
// digit (values may also be empty).
#include "policy/selector_string.h"

#include <stdexcept>
#include <string_view>
#include <vector>

namespace loadshift::policy {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A label key or a non-empty label value as a selector string may hold it.
bool valid_token(std::string_view token) {
  if (token.empty() || !is_alnum(token.front()) || !is_alnum(token.back())) return false;
  for (char c : token) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.' && c != '/') return false;
  }
  return true;
}

std::string_view trim(std::string_view text) {
  size_t b = 0;
  while (b < text.size() && is_space(text[b])) ++b;
  size_t e = text.size();
  while (e > b && is_space(text[e - 1])) --e;
  return text.substr(b, e - b);
}

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument(message);
}

[[noreturn]] void cannot_parse(std::string_view part) {
  fail("cannot parse requirement \"" + std::string(part) +
       "\" (expected key, !key, key=value, key!=value, key in (a,b) or key notin (a,b))");
}

void check_key(std::string_view key) {
  if (!valid_token(key)) fail("invalid label key \"" + std::string(key) + "\"");
}

void check_value(std::string_view value) {
  if (!value.empty() && !valid_token(value)) {
    fail("invalid label value \"" + std::string(value) + "\"");
  }
}

// Splits on commas outside parentheses.
std::vector<std::string_view> split_requirements(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') ++depth;
    if (text[i] == ')') --depth;
    if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

// "key in (a,b)" / "key notin (a,b)" once the key is known; `rest` follows the key and starts
// with the whitespace that separates it from the operator. nullopt when `rest` is not that form.
std::optional<model::LabelSelectorRequirement> parse_set(std::string_view key,
                                                         std::string_view rest) {
  if (rest.empty() || !is_space(rest.front())) return std::nullopt;
  if (key.find('(') != std::string_view::npos) return std::nullopt;
  rest = trim(rest);
  std::string op;
  if (rest.substr(0, 5) == "notin") {
    op = "NotIn";
    rest.remove_prefix(5);
  } else if (rest.substr(0, 2) == "in") {
    op = "In";
    rest.remove_prefix(2);
  } else {
    return std::nullopt;
  }
  rest = trim(rest);
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  std::string_view inner = rest.substr(1, rest.size() - 2);
  if (inner.find_first_of("()") != std::string_view::npos) return std::nullopt;
  check_key(key);
  model::LabelSelectorRequirement requirement{std::string(key), op, {}};
  size_t start = 0;
  while (true) {
    size_t comma = inner.find(',', start);
    std::string_view value = trim(inner.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    check_value(value);
    requirement.values.emplace_back(value);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return requirement;
}

model::LabelSelectorRequirement parse_requirement(std::string_view raw, const std::string& text) {
  std::string_view part = trim(raw);
  if (part.empty()) fail("empty requirement in \"" + text + "\"");

  if (part.front() == '!') {
    std::string_view key = trim(part.substr(1));
    if (!valid_token(key)) cannot_parse(part);
    return {std::string(key), "DoesNotExist", {}};
  }

  size_t key_end = 0;
  while (key_end < part.size() && !is_space(part[key_end]) && part[key_end] != '!' &&
         part[key_end] != '=') {
    ++key_end;
  }
  std::string_view key = part.substr(0, key_end);
  std::string_view rest = part.substr(key_end);
  if (key.empty()) cannot_parse(part);
  if (rest.empty()) {
    if (!valid_token(key)) cannot_parse(part);
    return {std::string(key), "Exists", {}};
  }

  std::string_view after_key = trim(rest);
  std::string op;
  if (after_key.substr(0, 2) == "==") {
    op = "In";
    after_key.remove_prefix(2);
  } else if (after_key.substr(0, 2) == "!=") {
    op = "NotIn";
    after_key.remove_prefix(2);
  } else if (after_key.substr(0, 1) == "=") {
    op = "In";
    after_key.remove_prefix(1);
  }
  if (!op.empty()) {
    std::string_view value = trim(after_key);
    for (char c : value) {
      if (is_space(c) || c == '!' || c == '=' || c == ',') cannot_parse(part);
    }
    check_key(key);
    check_value(value);
    return {std::string(key), op, {std::string(value)}};
  }

  if (std::optional<model::LabelSelectorRequirement> set = parse_set(key, rest)) {
    return std::move(*set);
  }
  cannot_parse(part);
}

}  // namespace

model::LabelSelector parse_selector_string(const std::string& text) {
  model::LabelSelector selector;
  if (text.empty()) return selector;
  for (std::string_view part : split_requirements(text)) {
    selector.match_expressions.push_back(parse_requirement(part, text));
  }
  return selector;
}

}  // namespace loadshift::policy

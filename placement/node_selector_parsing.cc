#include "placement/node_selector_parsing.h"

#include <charconv>
#include <cstdint>

namespace loadshift::placement {
namespace {

bool is_alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Go's strconv.ParseInt(text, 10, 64) on a valid label value (which has no sign).
bool parses_as_int64(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && error == std::errc() && end == text.data() + text.size();
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

std::string describe(const model::NodeSelectorRequirement& r) {
  std::string text = r.key + " " + std::string(to_string(r.op)) + " [";
  for (size_t i = 0; i < r.values.size(); ++i) text += (i ? ", " : "") + r.values[i];
  return text + "]";
}

}  // namespace

bool is_valid_label_value(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63 || !is_alphanumeric(value.front()) || !is_alphanumeric(value.back())) {
    return false;
  }
  for (char c : value) {
    if (!is_alphanumeric(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool requirement_parses(const model::NodeSelectorRequirement& r) {
  switch (r.op) {
    case model::SelectorOperator::kIn:
    case model::SelectorOperator::kNotIn:
      if (r.values.empty()) return false;
      for (const std::string& value : r.values) {
        if (!is_valid_label_value(value)) return false;
      }
      return true;
    case model::SelectorOperator::kExists:
    case model::SelectorOperator::kDoesNotExist:
      return r.values.empty();
    case model::SelectorOperator::kGt:
    case model::SelectorOperator::kLt:
      return r.values.size() == 1 && is_valid_label_value(r.values[0]) &&
             parses_as_int64(r.values[0]);
  }
  return false;
}

bool field_requirement_parses(const model::NodeSelectorRequirement& r) {
  return (r.op == model::SelectorOperator::kIn || r.op == model::SelectorOperator::kNotIn) &&
         r.values.size() == 1;
}

std::string requirement_parse_error(const model::NodeSelectorRequirement& r, bool field) {
  if (field) {
    if (field_requirement_parses(r)) return {};
    if (r.op != model::SelectorOperator::kIn && r.op != model::SelectorOperator::kNotIn) {
      return "operator " + std::string(to_string(r.op)) + " is not supported for fields";
    }
    return "a field requirement needs exactly one value, has " + std::to_string(r.values.size());
  }
  if (requirement_parses(r)) return {};
  switch (r.op) {
    case model::SelectorOperator::kIn:
    case model::SelectorOperator::kNotIn:
      if (r.values.empty()) return "In and NotIn need at least one value";
      for (const std::string& value : r.values) {
        if (!is_valid_label_value(value)) {
          return "value " + quoted(value) +
                 " is not a valid label value (at most 63 characters of [-_.a-zA-Z0-9], "
                 "starting and ending with a letter or digit)";
        }
      }
      break;
    case model::SelectorOperator::kExists:
    case model::SelectorOperator::kDoesNotExist:
      return std::string(to_string(r.op)) + " takes no values, has " +
             std::to_string(r.values.size());
    case model::SelectorOperator::kGt:
    case model::SelectorOperator::kLt:
      if (r.values.size() != 1) {
        return std::string(to_string(r.op)) + " needs exactly one value, has " +
               std::to_string(r.values.size());
      }
      return "value " + quoted(r.values[0]) + " is not an integer (int64 without a sign)";
  }
  return "does not parse";
}

std::string term_parse_error(const model::NodeSelectorTerm& term) {
  for (size_t i = 0; i < term.match_expressions.size(); ++i) {
    std::string error = requirement_parse_error(term.match_expressions[i], false);
    if (!error.empty()) {
      return "matchExpressions[" + std::to_string(i) + "] " + describe(term.match_expressions[i]) +
             ": " + error;
    }
  }
  for (size_t i = 0; i < term.match_fields.size(); ++i) {
    std::string error = requirement_parse_error(term.match_fields[i], true);
    if (!error.empty()) {
      return "matchFields[" + std::to_string(i) + "] " + describe(term.match_fields[i]) + ": " +
             error;
    }
  }
  return {};
}

std::string preferred_terms_parse_error(const model::NodeAffinity& affinity) {
  for (size_t i = 0; i < affinity.preferred.size(); ++i) {
    const model::PreferredSchedulingTerm& term = affinity.preferred[i];
    if (term.weight == 0) continue;
    std::string error = term_parse_error(term.preference);
    if (!error.empty()) {
      return "preferred node-affinity term " + std::to_string(i) + " does not parse (" + error +
             "): the scheduler's NodeAffinity scoring fails for this pod whenever two or more "
             "nodes fit, so it would stay Pending; not moved";
    }
  }
  return {};
}

}  // namespace loadshift::placement

#include "policy/diagnostics.h"

#include <algorithm>
#include <cctype>

namespace loadshift::policy {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

}  // namespace

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  out += ": ";
  if (!path.empty()) out += path + ": ";
  out += message;
  return out;
}

Diagnostic Diagnostics::make(int line, int column, std::string path, std::string message) const {
  Diagnostic d;
  d.file = file_;
  if (line >= 0) {
    d.line = line + 1 + line_offset_;
    d.column = column + 1 + column_offset_;
  }
  d.path = std::move(path);
  d.message = std::move(message);
  return d;
}

void Diagnostics::error(int line, int column, std::string path, std::string message) {
  errors_.push_back(make(line, column, std::move(path), std::move(message)));
}

void Diagnostics::warning(int line, int column, std::string path, std::string message) {
  warnings_.push_back(make(line, column, std::move(path), std::move(message)));
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 3;
  for (const std::string& candidate : candidates) {
    if (lower(candidate) == lower(word)) return candidate;
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace loadshift::policy

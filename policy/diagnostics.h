// Policy diagnostics: every error and warning of a policy file, with file, line, column and the
// path inside the document (`profiles[0].pluginConfig[1].args.thresholds.cpu`).
#pragma once

#include <string>
#include <vector>

namespace loadshift::policy {

struct Diagnostic {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  std::string path;
  std::string message;  // what was expected and what was found

  // "policy.yaml:12:9: profiles[0].pluginConfig[1].args.thresholds.cpu: expected a number in
  // 0..100, found 120"
  std::string to_string() const;
};

// Collects diagnostics while a policy is read. Errors make the policy invalid; warnings do not.
class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  // `line` and `column` 0-based as yaml-cpp marks them (negative: unknown).
  void error(int line, int column, std::string path, std::string message);
  void warning(int line, int column, std::string path, std::string message);
  // Positions of an embedded document (a ConfigMap's policy.yaml) are shifted by these.
  void set_offset(int lines, int columns) {
    line_offset_ = lines;
    column_offset_ = columns;
  }

  const std::string& file() const { return file_; }
  const std::vector<Diagnostic>& errors() const { return errors_; }
  const std::vector<Diagnostic>& warnings() const { return warnings_; }
  bool ok() const { return errors_.empty(); }

 private:
  Diagnostic make(int line, int column, std::string path, std::string message) const;
  std::string file_;
  int line_offset_ = 0, column_offset_ = 0;
  std::vector<Diagnostic> errors_;
  std::vector<Diagnostic> warnings_;
};

// The closest of `candidates` to `word` (edit distance <= 2, or equal ignoring case), or empty.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace loadshift::policy

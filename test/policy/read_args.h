// Test helpers: read one plugin's args from a YAML snippet, as the loader would at
// profiles[0].pluginConfig[0].args, and look at the diagnostics as text.
#pragma once

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "policy/diagnostics.h"
#include "policy/field_reader.h"
#include "policy/plugin_schemas.h"

namespace loadshift::policy::testing {

constexpr const char* kArgsPath = "profiles[0].pluginConfig[0].args";

struct ReadResult {
  PluginArgs args;
  std::vector<std::string> errors;    // Diagnostic::to_string() of each error
  std::vector<std::string> warnings;  // and of each warning
};

// Parses `yaml` (the args mapping; line 1 is its first line) and reads it with `read`.
inline ReadResult read_args(PluginArgs (*read)(FieldReader&), const std::string& yaml) {
  Diagnostics diagnostics("policy.yaml");
  FieldReader reader(YAML::Load(yaml), kArgsPath, &diagnostics);
  ReadResult result{read(reader), {}, {}};
  for (const Diagnostic& d : diagnostics.errors()) result.errors.push_back(d.to_string());
  for (const Diagnostic& d : diagnostics.warnings()) result.warnings.push_back(d.to_string());
  return result;
}

// "policy.yaml:<line>:<column>: profiles[0].pluginConfig[0].args.<path>: <message>"
inline std::string at(int line, int column, const std::string& path, const std::string& message) {
  return "policy.yaml:" + std::to_string(line) + ":" + std::to_string(column) + ": " + kArgsPath +
         (path.empty() ? "" : "." + path) + ": " + message;
}

// Writes `args` with `write` and reads the text back with `read`; requires no diagnostics.
inline PluginArgs round_trip(const PluginArgs& args,
                             void (*write)(const PluginArgs&, YAML::Emitter&),
                             PluginArgs (*read)(FieldReader&), std::string* text = nullptr) {
  YAML::Emitter out;
  write(args, out);
  if (text != nullptr) *text = out.c_str();
  ReadResult back = read_args(read, out.c_str());
  for (const std::string& e : back.errors) UNSCOPED_INFO(e);
  for (const std::string& w : back.warnings) UNSCOPED_INFO(w);
  UNSCOPED_INFO(out.c_str());
  REQUIRE(back.errors.empty());
  REQUIRE(back.warnings.empty());
  return back.args;
}

}  // namespace loadshift::policy::testing

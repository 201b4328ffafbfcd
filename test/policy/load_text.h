// Test helpers: load a whole policy from text (file name "policy.yaml") and look at its
// diagnostics as "line:column: path: message" strings.
#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "policy/effective_policy.h"
#include "policy/loader.h"

namespace loadshift::policy::testing {

inline std::vector<std::string> lines_of(const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics) {
    out.push_back(std::to_string(d.line) + ":" + std::to_string(d.column) + ": " +
                  (d.path.empty() ? "" : d.path + ": ") + d.message);
  }
  return out;
}

struct Loaded {
  LoadResult result;
  std::vector<std::string> errors;    // "line:column: path: message"
  std::vector<std::string> warnings;  // likewise
};

inline Loaded load_text(const std::string& text) {
  Loaded loaded{load_policy(text, "policy.yaml"), {}, {}};
  loaded.errors = lines_of(loaded.result.errors);
  loaded.warnings = lines_of(loaded.result.warnings);
  return loaded;
}

// Loads `text` and requires it to be valid; returns the policy.
inline Policy load_valid(const std::string& text) {
  Loaded loaded = load_text(text);
  for (const std::string& e : loaded.errors) UNSCOPED_INFO(e);
  REQUIRE(loaded.result.ok());
  return *loaded.result.policy;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A bare policy with one profile "p" whose body (pluginConfig and plugins, indented by two
// spaces, starting with "  ") is `profile_body`. The body's first line is line 5 of the file.
inline std::string policy_with_profile(const std::string& profile_body) {
  return "apiVersion: descheduler/v1alpha2\n"
         "kind: DeschedulerPolicy\n"
         "profiles:\n"
         "- name: p\n" +
         profile_body;
}

}  // namespace loadshift::policy::testing

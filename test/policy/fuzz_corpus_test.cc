// Every input of the policy fuzzer's corpus (test/fuzz/corpus_policy), findings included, checked
// in the plain build with the fuzz target's own promise: errors and a policy exclude each other,
// and a policy that loads writes an effective policy that loads again, equal, and writes the same
// text again.
#include <catch2/catch.hpp>

#include <filesystem>

#include "test/policy/load_text.h"

using namespace loadshift::policy;
using namespace loadshift::policy::testing;

TEST_CASE("The policy fuzz corpus keeps the round-trip promise", "[policy][fuzz]") {
  const std::filesystem::path corpus =
      std::filesystem::path(LOADSHIFT_SOURCE_DIR) / "test/fuzz/corpus_policy";
  size_t inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    CAPTURE(entry.path().filename().string());
    LoadResult result = load_policy(read_file(entry.path().string()), "fuzz.yaml");
    REQUIRE(result.ok() == result.errors.empty());
    ++inputs;
    if (!result.ok()) continue;
    std::string written = write_policy_yaml(*result.policy);
    LoadResult again = load_policy(written, "effective.yaml");
    for (const std::string& e : lines_of(again.errors)) UNSCOPED_INFO(e);
    REQUIRE(again.ok());
    CHECK(*again.policy == *result.policy);
    CHECK(write_policy_yaml(*again.policy) == written);
  }
  CHECK(inputs >= 9);
}

// libFuzzer target for the policy loader: any bytes, never a crash, never an exception.
//
// Every input is loaded as a policy file. When it loads, its effective policy is written, loaded
// again and written again: the second load must succeed with an equal Policy and the two texts
// must be identical (the round-trip promise of policy/effective_policy.h). Errors and the policy
// must exclude each other.
//
// build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON
// run:   ./build-fuzz/test/fuzz_policy -max_total_time=60 test/fuzz/corpus_policy
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "policy/effective_policy.h"
#include "policy/loader.h"

using namespace loadshift::policy;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  LoadResult result = load_policy(bytes, "fuzz.yaml");
  if (result.ok() != result.errors.empty()) std::abort();
  if (!result.ok()) return 0;

  std::string written = write_policy_yaml(*result.policy);
  LoadResult again = load_policy(written, "effective.yaml");
  if (!again.ok() || !(*again.policy == *result.policy)) std::abort();
  if (write_policy_yaml(*again.policy) != written) std::abort();
  return 0;
}

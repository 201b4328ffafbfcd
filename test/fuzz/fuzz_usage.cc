// libFuzzer target for the two readers of usage data: Prometheus answers and usage files. Any
// bytes: never a crash, never an exception other than the documented ones, never a value that
// planning could mistake for real data.
//
// The first byte picks the reader: even -> parse_usage_json (usage file), odd -> decode_http_answer
// (Prometheus answer) with HTTP status 200 for bytes below 128, else 100 + (byte - 128) * 4. The rest
// is the text.
//
// build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON
// run:   ./build-fuzz/test/fuzz_usage -max_total_time=30 test/fuzz/corpus_usage
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "metrics/file_source.h"
#include "metrics/prometheus_response.h"

using namespace loadshift::metrics;

namespace {

void check_usage_file(const std::string& text) {
  const std::vector<NodeIdentity> nodes{{"te1", "10.0.0.1"}, {"te2", ""}};
  UsageMap usage;
  try {
    usage = parse_usage_json(text, "fuzz.json", nodes);
  } catch (const UsageError&) {
    return;
  }
  for (const NodeIdentity& node : nodes) {
    if (usage.nodes.count(node.name) + usage.unknown.count(node.name) != 1) std::abort();
  }
  for (const auto& [name, u] : usage.nodes) {
    for (double v : {u.cpu.percent, u.memory.percent}) {
      if (!std::isfinite(v) || v < 0 || v > 100) std::abort();
    }
  }
  for (const auto& [key, pod] : usage.pods) {
    if (!std::isfinite(pod.cpu_milli) || pod.cpu_milli < 0) std::abort();
    if (!std::isfinite(pod.memory_bytes) || pod.memory_bytes < 0) std::abort();
  }
}

void check_prometheus_answer(long status, const std::string& body) {
  try {
    InstantResult result = decode_http_answer(status, body);
    if (status < 200 || status > 299) std::abort();  // only 2xx may decode
    if (result.scalar && result.samples.size() != 1) std::abort();
  } catch (const QueryFailure&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    check_usage_file(text);
  } else {
    long status = data[0] < 128 ? 200 : 100 + (data[0] - 128) * 4;
    check_prometheus_answer(status, text);
  }
  return 0;
}

// libFuzzer target for the Kubernetes JSON decoder: any bytes, any split, never a crash.
//
// Each input is decoded twice: streamed in two chunks split at a point taken from the data, and
// in one piece with decode_json. Both must give the same summary and snapshot size, since the
// decoder promises that chunking does not matter.
//
// build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON
// run:   ./build-fuzz/test/fuzz_decode -max_total_time=30 test/fuzz/corpus_decode
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "model/decode.h"

using namespace loadshift::model;

namespace {

bool same(const DecodeSummary& a, const DecodeSummary& b) {
  if (a.objects != b.objects || a.skipped != b.skipped || a.errors.size() != b.errors.size() ||
      a.errors_dropped != b.errors_dropped) {
    return false;
  }
  for (size_t i = 0; i < a.errors.size(); ++i) {
    if (a.errors[i].to_string() != b.errors[i].to_string()) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // Split point: the last byte picks a position, so the fuzzer can move it.
  size_t split = size == 0 ? 0 : static_cast<size_t>(data[size - 1]) * 131 % (size + 1);

  Snapshot streamed;
  JsonSnapshotDecoder decoder(&streamed);
  decoder.feed(bytes.substr(0, split));
  decoder.feed(bytes.substr(split));
  DecodeSummary streamed_summary = decoder.finish();

  Snapshot whole;
  DecodeSummary whole_summary = decode_json(bytes, &whole);

  if (!same(streamed_summary, whole_summary) || object_count(streamed) != object_count(whole) ||
      object_count(whole) != whole_summary.objects) {
    std::abort();
  }
  return 0;
}

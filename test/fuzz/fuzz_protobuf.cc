// libFuzzer target for the Kubernetes protobuf decoder (model/protobuf_decode.h): any bytes, any
// split, never a crash, and the same answer streamed in two pieces as in one.
//
// build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON
// run:   ./build-fuzz/test/fuzz_protobuf -max_total_time=30 test/fuzz/corpus_protobuf
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/protobuf_decode.h"

using namespace loadshift::model;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  size_t split = size == 0 ? 0 : static_cast<size_t>(data[size - 1]) * 131 % (size + 1);

  Snapshot streamed;
  ProtobufSnapshotDecoder decoder(&streamed);
  decoder.feed(bytes.substr(0, split));
  decoder.feed(bytes.substr(split));
  DecodeSummary streamed_summary = decoder.finish();

  Snapshot whole;
  DecodeSummary whole_summary = decode_protobuf(bytes, &whole);

  bool same = streamed_summary.objects == whole_summary.objects &&
              streamed_summary.skipped == whole_summary.skipped &&
              streamed_summary.errors.size() == whole_summary.errors.size() &&
              object_count(streamed) == object_count(whole) &&
              object_count(whole) == whole_summary.objects;
  for (size_t i = 0; same && i < whole_summary.errors.size(); ++i) {
    same = streamed_summary.errors[i].to_string() == whole_summary.errors[i].to_string();
  }
  if (!same) std::abort();
  (void)decode_protobuf_status(bytes);
  return 0;
}

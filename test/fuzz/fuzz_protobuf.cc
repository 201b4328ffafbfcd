// libFuzzer target for the Kubernetes protobuf decoders: the same bytes as an answer
// (model/protobuf_decode.h) and as a watch stream (model/protobuf_watch.h): any bytes, any split,
// never a crash, and the same answer and the same frames streamed in two pieces as in one.
//
// build: cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DLOADSHIFT_FUZZ=ON
// run:   ./build-fuzz/test/fuzz_protobuf -max_total_time=30 test/fuzz/corpus_protobuf
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "model/protobuf_decode.h"
#include "model/protobuf_watch.h"

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

  // As a watch stream: the frames found, each decoded as an event.
  auto frames_of = [](std::vector<std::string_view> pieces) {
    WatchFrameReader reader;
    std::vector<std::string> frames;
    for (std::string_view piece : pieces) {
      reader.feed(piece);
      while (auto frame = reader.next()) frames.emplace_back(*frame);
    }
    return frames;
  };
  std::vector<std::string> frames = frames_of({bytes});
  if (frames != frames_of({bytes.substr(0, split), bytes.substr(split)})) std::abort();
  for (const std::string& frame : frames) {
    Snapshot object;
    WatchEventSummary event;
    if (decode_protobuf_watch_event(frame, &object, &event) &&
        object_count(object) != event.decoded.objects) {
      std::abort();
    }
  }
  return 0;
}

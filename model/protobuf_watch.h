// A watch stream in Kubernetes protobuf (Content-Type application/vnd.kubernetes.protobuf;
// stream=watch), as the API server writes it for a client that asks for protobuf: frames of a
// 4-byte big-endian length and that many bytes, each a metav1.WatchEvent {type, object}, whose
// object is a runtime.RawExtension holding a whole protobuf answer ("k8s\0", runtime.Unknown:
// model/protobuf_decode.h). An ERROR event's object is a metav1.Status; a BOOKMARK's is the
// watched kind with only its resourceVersion (and, ending a watch-list's initial events, the
// annotation k8s.io/initial-events-end).
//
// The JSON form of the same stream (a line per event) is model/decode.h's WatchEventDecoder;
// both fill a WatchEventSummary the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/decode.h"
#include "model/model.h"

namespace loadshift::model {

// Splits a watch stream's bytes, in chunks of any size, into its frames.
class WatchFrameReader {
 public:
  // No object is near this long (etcd keeps objects of at most 1.5 MiB by default): a longer
  // frame means the stream is not a protobuf watch.
  static constexpr uint32_t kMaxFrame = 64u << 20;

  void feed(std::string_view bytes);
  // The next whole frame's bytes (valid until the next feed() or next()), or nullopt when it is
  // not all here yet, or the stream is broken().
  std::optional<std::string_view> next();
  // A frame announced more than kMaxFrame bytes.
  bool broken() const { return broken_; }
  // Bytes of an incomplete frame held (a stream that ends with some was cut).
  size_t pending() const { return buffer_.size() - at_; }

 private:
  std::string buffer_;
  size_t at_ = 0;
  bool broken_ = false;
};

// One frame: false when it is not a WatchEvent with a type and an object in the envelope (one
// object of a named kind, not a list; `*out` then says nothing). Else fills `*out` as
// WatchEventDecoder::decode does: the type, the object's name, namespace and resourceVersion, the
// initial-events-end annotation of a BOOKMARK, an ERROR's Status code and text; ADDED and MODIFIED
// objects are decoded into `*snapshot` (a bad one left out and reported in out->decoded).
bool decode_protobuf_watch_event(std::string_view frame, Snapshot* snapshot,
                                 WatchEventSummary* out);

}  // namespace loadshift::model

// Kubernetes protobuf (application/vnd.kubernetes.protobuf) -> Snapshot: what kube-scheduler and
// kube-controller-manager read the API in, for the kinds it carries that loadshift reads most of:
// Pods and Nodes, single or in lists. Other kinds (and every CRD: Volcano's) are read as JSON
// (model/decode.h); in protobuf they are counted as skipped, never an error.
//
// An answer is the bytes "k8s\0" and a runtime.Unknown: the object's apiVersion and kind, then
// its own bytes. A list is decoded item by item while the bytes arrive, as the JSON decoder does:
// memory for one item, not the answer. The message definitions are loadshift's own subset of the
// published ones (model/proto/, checked against a real build by
// test/model/protobuf_schema_test.cc); fields outside it are skipped unread. An object reads the
// same as in JSON: same fields, defaults and errors (DecodeError names the object and the field
// path). One difference: an item whose bytes are malformed is one error and the items after it
// are still read (the list's framing says where each begins), where malformed JSON ends the
// document.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/decode.h"
#include "model/model.h"

namespace loadshift::model {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// True when `content_type` (a Content-Type header's value) names Kubernetes protobuf.
bool is_protobuf_content_type(std::string_view content_type);

// Streams one protobuf answer (an object or a list) into a Snapshot, as JsonSnapshotDecoder does
// for JSON: construct, feed() the bytes in chunks of any size, then finish(). Not copyable.
class ProtobufSnapshotDecoder {
 public:
  explicit ProtobufSnapshotDecoder(Snapshot* snapshot);
  ~ProtobufSnapshotDecoder();
  ProtobufSnapshotDecoder(const ProtobufSnapshotDecoder&) = delete;
  ProtobufSnapshotDecoder& operator=(const ProtobufSnapshotDecoder&) = delete;

  // Consumes the next bytes. Decodes every list item completed by them.
  void feed(std::string_view bytes);
  // Ends the answer: decodes a single object, checks nothing was cut short, and returns what was
  // decoded and every error met (a broken envelope is one error on "document").
  DecodeSummary finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Decodes a whole protobuf answer held in memory.
DecodeSummary decode_protobuf(std::string_view bytes, Snapshot* snapshot);

// A metav1.Status in protobuf (a failed request's answer when protobuf was asked for).
struct ProtobufStatus {
  int32_t code = 0;
  std::string status, reason, message;
};
// The Status `bytes` hold, or nullopt when they are not a protobuf Status.
std::optional<ProtobufStatus> decode_protobuf_status(std::string_view bytes);

}  // namespace loadshift::model

// A protobuf watch stream's frames, and each frame's WatchEvent, read with the wire reader of
// model/protobuf_wire.h; the object inside goes to model/protobuf_decode.cc.
#include "model/protobuf_watch.h"

#include <utility>

#include "model/proto/meta.pb.h"
#include "model/proto/runtime.pb.h"
#include "model/protobuf_decode.h"
#include "model/protobuf_wire.h"

namespace loadshift::model {

namespace metav1 = k8s::io::apimachinery::pkg::apis::meta::v1;
namespace runtime = k8s::io::apimachinery::pkg::runtime;

void WatchFrameReader::feed(std::string_view bytes) {
  if (broken_ || bytes.empty()) return;
  if (at_ > 0 && at_ >= buffer_.size() / 2) {
    buffer_.erase(0, at_);
    at_ = 0;
  }
  buffer_.append(bytes);
}

std::optional<std::string_view> WatchFrameReader::next() {
  if (broken_ || buffer_.size() - at_ < 4) return std::nullopt;
  const auto* head = reinterpret_cast<const unsigned char*>(buffer_.data() + at_);
  const uint32_t length = (uint32_t{head[0]} << 24) | (uint32_t{head[1]} << 16) |
                          (uint32_t{head[2]} << 8) | uint32_t{head[3]};
  if (length > kMaxFrame) {
    broken_ = true;
    return std::nullopt;
  }
  if (buffer_.size() - at_ - 4 < length) return std::nullopt;
  std::string_view frame(buffer_.data() + at_ + 4, length);
  at_ += 4 + length;
  return frame;
}

namespace {

constexpr std::string_view kMagic{"k8s\0", 4};

// The first length-delimited field `number` of `message`; false when the bytes are malformed.
bool find_bytes(std::string_view message, uint32_t number, std::optional<std::string_view>& out) {
  pb::Wire wire(message);
  while (wire.next()) {
    if (wire.number() == number && wire.type() == pb::Wire::kBytes && !out) out = wire.bytes();
  }
  return !wire.broken();
}

// The object's name, namespace, resourceVersion and the initial-events-end annotation, from its
// ObjectMeta (field 1 of every API object), as ObjectDecoder::read_identity reads them from JSON:
// a field of the wrong type is left empty. False when the bytes are malformed.
bool read_identity(std::string_view object, WatchEventSummary& event) {
  std::optional<std::string_view> meta;
  if (!find_bytes(object, 1, meta)) return false;
  if (!meta) return true;
  using M = metav1::ObjectMeta;
  pb::Wire wire(*meta);
  while (wire.next()) {
    if (wire.type() != pb::Wire::kBytes) continue;
    switch (wire.number()) {
      case M::kNameFieldNumber:
        event.name.assign(wire.bytes());
        break;
      case M::kNamespaceFieldNumber:
        event.namespace_.assign(wire.bytes());
        break;
      case M::kResourceVersionFieldNumber:
        event.resource_version.assign(wire.bytes());
        break;
      case M::kAnnotationsFieldNumber: {
        // A map entry: key 1, value 2.
        std::optional<std::string_view> key, value;
        if (!find_bytes(wire.bytes(), 1, key) || !find_bytes(wire.bytes(), 2, value)) return false;
        if (key && *key == "k8s.io/initial-events-end") {
          event.initial_events_end = value && *value == "true";
        }
        break;
      }
      default:
        break;
    }
  }
  return !wire.broken();
}

}  // namespace

bool decode_protobuf_watch_event(std::string_view frame, Snapshot* snapshot,
                                 WatchEventSummary* out) {
  using E = metav1::WatchEvent;
  WatchEventSummary event;
  std::optional<std::string_view> type, object, raw;
  if (!find_bytes(frame, E::kTypeFieldNumber, type) ||
      !find_bytes(frame, E::kObjectFieldNumber, object) || !type || !object ||
      !find_bytes(*object, runtime::RawExtension::kRawFieldNumber, raw) || !raw ||
      !raw->starts_with(kMagic)) {
    return false;
  }
  event.type.assign(*type);
  if (event.type == "ERROR") {
    if (std::optional<ProtobufStatus> status = decode_protobuf_status(*raw)) {
      event.error_code = status->code;
      event.error_text =
          (std::to_string(status->code) + " " + status->reason + ": " + status->message)
              .substr(0, 300);  // as long as the JSON decoder's
    } else {
      event.error_text = "an ERROR event whose object is not a Status";
    }
    *out = std::move(event);
    return true;
  }
  // The envelope: runtime.Unknown {typeMeta, raw}: one object (a list is no event), whose bytes
  // give the identity.
  const std::string_view envelope = raw->substr(kMagic.size());
  std::optional<std::string_view> type_meta, kind, inner;
  if (!find_bytes(envelope, runtime::Unknown::kTypeMetaFieldNumber, type_meta) || !type_meta ||
      !find_bytes(*type_meta, runtime::TypeMeta::kKindFieldNumber, kind) || !kind ||
      kind->empty() || kind->ends_with("List") ||
      !find_bytes(envelope, runtime::Unknown::kRawFieldNumber, inner) || !inner ||
      !read_identity(*inner, event)) {
    return false;
  }
  if (event.type != "BOOKMARK") event.initial_events_end = false;
  if (event.type == "ADDED" || event.type == "MODIFIED") {
    event.decoded = decode_protobuf(*raw, snapshot);
  }
  *out = std::move(event);
  return true;
}

}  // namespace loadshift::model

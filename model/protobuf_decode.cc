// The protobuf envelope and lists, walked as the bytes arrive; each object goes to
// model/protobuf_objects.cc.
#include "model/protobuf_decode.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <utility>

#include "model/proto/meta.pb.h"
#include "model/proto/runtime.pb.h"
#include "model/protobuf_objects.h"
#include "model/protobuf_wire.h"

namespace loadshift::model {

namespace runtime = k8s::io::apimachinery::pkg::runtime;

bool is_protobuf_content_type(std::string_view content_type) {
  // A media type is case-insensitive, its parameters (";stream=watch") come after it.
  std::string_view type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
  return type.size() == kProtobufContentType.size() &&
         std::equal(type.begin(), type.end(), kProtobufContentType.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

namespace {

constexpr std::string_view kMagic{"k8s\0", 4};

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

// No field is longer (the largest answers are a few GiB): a length beyond it is malformed, and
// the offsets it would be added to cannot overflow.
constexpr uint64_t kMaxFieldLength = uint64_t{1} << 40;

enum class Read { kOk, kMore, kBroken };

// A varint at view[pos]; moves pos past it.
Read read_varint(std::string_view view, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= view.size()) return Read::kMore;
    auto byte = static_cast<uint8_t>(view[pos++]);
    if (shift == 63 && byte > 1) return Read::kBroken;  // more than 64 bits
    out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return Read::kOk;
  }
  return Read::kBroken;
}

// One field's key and, for a length-delimited one, its length; fixed and varint fields are skipped
// whole (`length` 0, `pos` past them).
struct FieldHead {
  uint32_t number = 0;
  uint32_t wire = 0;
  uint64_t length = 0;
};

Read read_field_head(std::string_view view, size_t& pos, FieldHead& head) {
  uint64_t key = 0;
  if (Read r = read_varint(view, pos, key); r != Read::kOk) return r;
  if ((key >> 3) == 0 || (key >> 3) > pb::Wire::kMaxFieldNumber) return Read::kBroken;
  head.number = static_cast<uint32_t>(key >> 3);
  head.wire = static_cast<uint32_t>(key & 7);
  head.length = 0;
  switch (head.wire) {
    case kLength: {
      Read r = read_varint(view, pos, head.length);
      return r == Read::kOk && head.length > kMaxFieldLength ? Read::kBroken : r;
    }
    case kVarint: {
      uint64_t ignored = 0;
      return read_varint(view, pos, ignored);
    }
    case kFixed64:
      head.length = 8;
      return Read::kOk;
    case kFixed32:
      head.length = 4;
      return Read::kOk;
    default:
      return Read::kBroken;
  }
}

std::string object_label(std::string_view kind, const ObjectMeta& meta, std::string_view fallback) {
  if (meta.name.empty()) return std::string(fallback);
  std::string label(kind);
  label += ' ';
  if (kind == "Pod")
    label += (meta.namespace_.empty() ? std::string("default") : meta.namespace_) + "/";
  return label + meta.name;
}

}  // namespace

struct ProtobufSnapshotDecoder::State {
  enum class Phase { kMagic, kEnvelope, kList, kObject, kFailed };

  Snapshot* snapshot;
  DecodeSummary summary;
  Phase phase = Phase::kMagic;
  std::string buffer;  // bytes not yet consumed start at buffer[at]
  size_t at = 0;
  uint64_t offset = 0;   // document offset of buffer[at]
  uint64_t raw_end = 0;  // document offset where the Unknown's raw bytes end
  std::string api_version, kind;
  size_t items = 0;
  bool any_bytes = false;
  explicit State(Snapshot* s) : snapshot(s) {}

  std::string_view rest() const { return std::string_view(buffer).substr(at); }
  void consume(size_t n) {
    at += n;
    offset += n;
  }

  void error(std::string object, std::string path, std::string message) {
    if (summary.errors.size() < DecodeSummary::kMaxErrors) {
      summary.errors.push_back({std::move(object), std::move(path), std::move(message)});
    } else {
      ++summary.errors_dropped;
    }
  }
  void broken(const std::string& message) {
    error("document", "",
          "not a readable Kubernetes protobuf answer: " + message + " (at byte " +
              std::to_string(offset) + ")");
    phase = Phase::kFailed;
  }

  // The kind of the items of a list of `kind`: "Pod" for "PodList".
  std::string item_kind() const { return kind.substr(0, kind.size() - 4); }

  // One object of `object_kind`, its message bytes whole.
  void decode_object(std::string_view object_kind, std::string_view bytes, std::string fallback) {
    bool pod = object_kind == "Pod" && api_version == "v1";
    bool node = object_kind == "Node" && api_version == "v1";
    if (!pod && !node) {
      ++summary.skipped[api_version == "v1" ? std::string(object_kind)
                                            : std::string(object_kind) + " (" + api_version + ")"];
      return;
    }
    pb::Failure failure;
    if (pod) {
      Pod decoded;
      if (pb::read_pod(bytes, decoded, failure)) {
        snapshot->pods.push_back(std::move(decoded));
        ++summary.objects;
      } else {
        error(object_label("Pod", decoded.meta, fallback), failure.path(), failure.message());
      }
    } else {
      Node decoded;
      if (pb::read_node(bytes, decoded, failure)) {
        snapshot->nodes.push_back(std::move(decoded));
        ++summary.objects;
      } else {
        error(object_label("Node", decoded.meta, fallback), failure.path(), failure.message());
      }
    }
  }

  // Takes what the buffered bytes complete; returns when more are needed.
  void step() {
    while (phase != Phase::kFailed) {
      std::string_view view = rest();
      if (phase == Phase::kMagic) {
        if (view.size() < kMagic.size()) return;
        if (view.substr(0, kMagic.size()) != kMagic) return broken("it does not begin with k8s\\0");
        consume(kMagic.size());
        phase = Phase::kEnvelope;
        continue;
      }
      if (phase == Phase::kList && offset == raw_end) {
        phase = Phase::kEnvelope;
        continue;
      }
      if (phase == Phase::kObject) {
        if (view.size() < raw_end - offset) return;
        size_t length = static_cast<size_t>(raw_end - offset);
        decode_object(kind, view.substr(0, length), "document");
        consume(length);
        phase = Phase::kEnvelope;
        continue;
      }
      if (view.empty()) return;
      size_t pos = 0;
      FieldHead head;
      Read r = read_field_head(view, pos, head);
      if (r == Read::kMore) return;
      if (r == Read::kBroken) return broken("a field key or length is malformed");
      uint64_t end =
          offset + pos + (head.wire == kVarint ? 0 : head.length);  // no overflow: capped
      if (phase == Phase::kList && end > raw_end) return broken("a list item runs past its list");
      if (phase == Phase::kEnvelope && head.number == 2 && head.wire == kLength) {
        // runtime.Unknown.raw: the object or list itself. Go writes typeMeta (1) before it.
        if (kind.empty()) return broken("the object comes before its kind");
        consume(pos);
        raw_end = end;
        bool list = kind.size() > 4 && kind.ends_with("List");
        phase = list ? Phase::kList : Phase::kObject;
        continue;
      }
      if (view.size() < end - offset) return;  // the field is not all here yet
      std::string_view body = view.substr(pos, static_cast<size_t>(end - offset) - pos);
      if (phase == Phase::kEnvelope && head.wire == kLength) {
        if (head.number == 1) {
          runtime::TypeMeta type;
          if (!type.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
            return broken("its typeMeta is malformed");
          }
          api_version = type.apiversion();
          kind = type.kind();
          if (kind.empty()) return broken("its typeMeta names no kind");
        } else if (head.number == 3 && !body.empty()) {
          return broken("contentEncoding " + std::string(body) + " is not supported");
        }
      } else if (phase == Phase::kList && head.wire == kLength) {
        if (head.number == 1) {
          k8s::io::apimachinery::pkg::apis::meta::v1::ListMeta list_meta;
          if (!list_meta.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
            return broken("the list's metadata is malformed");
          }
          summary.list_resource_version = list_meta.resourceversion();
          summary.list_continue = list_meta.continue_();
        } else if (head.number == 2) {
          decode_object(item_kind(), body, "items[" + std::to_string(items) + "]");
          ++items;
        }
      }
      consume(static_cast<size_t>(end - offset));
    }
  }
};

ProtobufSnapshotDecoder::ProtobufSnapshotDecoder(Snapshot* snapshot)
    : state_(std::make_unique<State>(snapshot)) {}
ProtobufSnapshotDecoder::~ProtobufSnapshotDecoder() = default;

void ProtobufSnapshotDecoder::feed(std::string_view bytes) {
  State& s = *state_;
  if (bytes.empty() || s.phase == State::Phase::kFailed) return;
  s.any_bytes = true;
  if (s.at > 0 && s.at >= s.buffer.size() / 2) {
    s.buffer.erase(0, s.at);
    s.at = 0;
  }
  s.buffer.append(bytes);
  s.step();
}

DecodeSummary ProtobufSnapshotDecoder::finish() {
  State& s = *state_;
  if (s.phase != State::Phase::kFailed) {
    if (!s.any_bytes) {
      s.broken("the answer is empty");
    } else if (s.phase != State::Phase::kEnvelope || !s.rest().empty()) {
      s.broken("the answer ends inside " +
               std::string(s.phase == State::Phase::kMagic    ? "its first bytes"
                           : s.phase == State::Phase::kList   ? "the list"
                           : s.phase == State::Phase::kObject ? "the object"
                                                              : "a field"));
    } else if (s.kind.empty()) {
      s.broken("it names no kind");
    }
  }
  return std::move(s.summary);
}

DecodeSummary decode_protobuf(std::string_view bytes, Snapshot* snapshot) {
  ProtobufSnapshotDecoder decoder(snapshot);
  decoder.feed(bytes);
  return decoder.finish();
}

std::optional<ProtobufStatus> decode_protobuf_status(std::string_view bytes) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  bytes.remove_prefix(kMagic.size());
  runtime::Unknown envelope;
  if (!envelope.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) ||
      envelope.typemeta().kind() != "Status") {
    return std::nullopt;
  }
  k8s::io::apimachinery::pkg::apis::meta::v1::Status status;
  if (!status.ParseFromString(envelope.raw())) return std::nullopt;
  return ProtobufStatus{status.code(), status.status(), status.reason(), status.message()};
}

}  // namespace loadshift::model

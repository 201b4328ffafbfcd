// The protobuf wire format, read field by field from bytes held in memory: what the decoder of
// Pods and Nodes (model/protobuf_objects.cc) walks, straight into the model, without building
// the messages first. Field numbers come from the messages of model/proto/ (protoc's
// k<Name>FieldNumber constants), checked against a real Kubernetes build.
//
// Internal to the model's protobuf decoder.
#pragma once

#include <climits>
#include <cstdint>
#include <string_view>

namespace loadshift::model::pb {

class Wire {
 public:
  enum Type : uint32_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };
  static constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;

  explicit Wire(std::string_view bytes) : rest_(bytes) {}

  // Moves to the next field: false at the end, or when the bytes are malformed (broken()).
  bool next() {
    if (broken_ || rest_.empty()) return false;
    size_t pos = 0;
    uint64_t key = 0;
    if (!read_varint(pos, key)) return fail();
    if ((key >> 3) == 0 || (key >> 3) > kMaxFieldNumber) return fail();
    number_ = static_cast<uint32_t>(key >> 3);
    type_ = static_cast<uint32_t>(key & 7);
    value_ = 0;
    bytes_ = {};
    switch (type_) {
      case kVarint:
        if (!read_varint(pos, value_)) return fail();
        break;
      case kBytes: {
        uint64_t length = 0;
        if (!read_varint(pos, length) || length > rest_.size() - pos) return fail();
        bytes_ = rest_.substr(pos, static_cast<size_t>(length));
        pos += static_cast<size_t>(length);
        break;
      }
      case kFixed64:
      case kFixed32: {
        size_t length = type_ == kFixed64 ? 8 : 4;
        if (rest_.size() - pos < length) return fail();
        pos += length;
        break;
      }
      default:
        return fail();
    }
    rest_.remove_prefix(pos);
    return true;
  }

  uint32_t number() const { return number_; }
  uint32_t type() const { return type_; }
  // A length-delimited field's bytes (a string, a message, a map entry).
  std::string_view bytes() const { return bytes_; }
  // A varint field's value, as the int32/int64/bool it encodes. int32() is meaningful when
  // fits_int32() (Go writes a negative int32 sign-extended to 64 bits).
  bool fits_int32() const {
    auto value = static_cast<int64_t>(value_);
    return value >= INT32_MIN && value <= INT32_MAX;
  }
  int32_t int32() const { return static_cast<int32_t>(value_); }
  int64_t int64() const { return static_cast<int64_t>(value_); }
  bool boolean() const { return value_ != 0; }
  // The bytes ended inside a field, or a key or length was malformed.
  bool broken() const { return broken_; }

 private:
  bool fail() {
    broken_ = true;
    return false;
  }
  bool read_varint(size_t& pos, uint64_t& out) const {
    out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= rest_.size()) return false;
      auto byte = static_cast<uint8_t>(rest_[pos++]);
      if (shift == 63 && byte > 1) return false;  // more than 64 bits
      out |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }

  std::string_view rest_;
  std::string_view bytes_;
  uint64_t value_ = 0;
  uint32_t number_ = 0;
  uint32_t type_ = 0;
  bool broken_ = false;
};

}  // namespace loadshift::model::pb

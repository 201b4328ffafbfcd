#include "model/pod_conditions.h"

#include <cstring>

namespace loadshift::model {
namespace {

// Each condition is: one byte (1 when it has a lastTransitionTime), the time as an int64 (8
// bytes, host order), then type, status and reason, each as its length (LEB128: one byte below
// 128) and its bytes. A pod's four or five conditions take about 110 bytes.

void put_length(std::string& out, size_t size) {
  while (size >= 0x80) {
    out.push_back(static_cast<char>((size & 0x7f) | 0x80));
    size >>= 7;
  }
  out.push_back(static_cast<char>(size));
}

void put_text(std::string& out, std::string_view text) {
  put_length(out, text.size());
  out.append(text);
}

size_t get_length(const std::string& in, size_t& at) {
  size_t size = 0;
  for (int shift = 0;; shift += 7) {
    auto byte = static_cast<unsigned char>(in[at++]);
    size |= static_cast<size_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return size;
  }
}

std::string_view get_text(const std::string& in, size_t& at) {
  size_t size = get_length(in, at);
  std::string_view text(in.data() + at, size);
  at += size;
  return text;
}

}  // namespace

void PodConditions::add(const Condition& condition) {
  packed_.push_back(condition.last_transition_seconds ? 1 : 0);
  int64_t seconds = condition.last_transition_seconds.value_or(0);
  char bytes[sizeof seconds];
  std::memcpy(bytes, &seconds, sizeof seconds);
  packed_.append(bytes, sizeof seconds);
  put_text(packed_, condition.type);
  put_text(packed_, condition.status);
  put_text(packed_, condition.reason);
}

PodConditions::Condition PodConditions::read(size_t& at) const {
  Condition out;
  bool has_time = packed_[at++] != 0;
  int64_t seconds = 0;
  std::memcpy(&seconds, packed_.data() + at, sizeof seconds);
  at += sizeof seconds;
  if (has_time) out.last_transition_seconds = seconds;
  out.type = get_text(packed_, at);
  out.status = get_text(packed_, at);
  out.reason = get_text(packed_, at);
  return out;
}

std::vector<PodConditions::Condition> PodConditions::list() const {
  std::vector<Condition> out;
  any_of([&](const Condition& condition) {
    out.push_back(condition);
    return false;
  });
  return out;
}

}  // namespace loadshift::model

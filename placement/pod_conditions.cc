#include "placement/pod_conditions.h"

#include <cstring>

namespace loadshift::placement {
namespace {

// Each condition is: one byte (1 when it has a lastTransitionTime), the time as an int64 (8
// bytes, host order), then type, status and reason, each as a uint32 length and its bytes.

void put_u32(std::string& out, uint32_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

void put_text(std::string& out, std::string_view text) {
  put_u32(out, static_cast<uint32_t>(text.size()));
  out.append(text);
}

template <typename T>
T get(const std::string& in, size_t& at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

std::string_view get_text(const std::string& in, size_t& at) {
  uint32_t size = get<uint32_t>(in, at);
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
  int64_t seconds = get<int64_t>(packed_, at);
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

}  // namespace loadshift::placement

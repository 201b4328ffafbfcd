// The field types Pods and Nodes share, read from the wire (model/protobuf_wire.h): a field's
// bytes, text and numbers checked against the wire type the API gives it, lists and maps,
// metav1.Time, ObjectMeta, label and node selectors, enums by name, quantities. Each reader
// returns false with the failure's message and path in `failure`, as the JSON readers do
// (model/json_reading.h).
//
// Internal to the model's protobuf decoder (model/protobuf_objects.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/kube_names.h"
#include "model/model.h"
#include "model/proto/core.pb.h"
#include "model/protobuf_wire.h"

#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 takes a std::optional's payload for maybe-uninitialized right after it was checked
// (GCC bug 80635): a false positive in the readers of the protobuf decoder's files (which alone
// include this header), where every optional is read only when set.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace loadshift::model::pb {

namespace core = k8s::io::api::core::v1;
namespace metav1 = k8s::io::apimachinery::pkg::apis::meta::v1;
namespace resource = k8s::io::apimachinery::pkg::api::resource;

// Why a message was left out: the field path (built from the inside out as the failure returns)
// and what was expected.
class Failure {
 public:
  // Returns false, so a reader can `return failure.wrong(...)`.
  bool wrong(std::string message) {
    message_ = std::move(message);
    return false;
  }
  // Adds an enclosing field name / list index to the path. Return false.
  bool in_field(std::string_view name) {
    reversed_path_.emplace_back(std::string(name));
    return false;
  }
  bool in_element(size_t index) {
    reversed_path_.emplace_back("[" + std::to_string(index) + "]");
    return false;
  }
  const std::string& message() const { return message_; }
  // "spec.containers[0].resources.requests.cpu"
  std::string path() const;

 private:
  std::string message_;
  std::vector<std::string> reversed_path_;
};

// ---- the wire ---------------------------------------------------------------------------------

// Calls on_field(const Wire&) -> bool for each field of the message `bytes`.
template <typename OnField>
bool each_field(std::string_view bytes, Failure& failure, OnField&& on_field) {
  Wire wire(bytes);
  while (wire.next()) {
    if (!on_field(wire)) return false;
  }
  if (wire.broken()) {
    return failure.wrong(
        "malformed protobuf: the bytes end inside a field, or a key or length is "
        "malformed");
  }
  return true;
}

bool wrong_wire_type(const Wire& wire, Failure& failure);

// A length-delimited field: a string, a message or a map entry.
bool bytes_of(const Wire& wire, std::string_view& out, Failure& failure);
// A string field.
bool text(const Wire& wire, std::string& out, Failure& failure);
// A varint field (its value then read as wire.int64(), boolean(), ...).
bool varint_of(const Wire& wire, Failure& failure);
// An int32 field: out of range is malformed.
bool int32_of(const Wire& wire, int32_t& out, Failure& failure);

// A repeated message field: `read(bytes, element)` into a new element of `out`; a failure names
// the element's index (`index` counts the elements seen so far).
template <typename Out, typename Read>
bool element(const Wire& wire, std::vector<Out>& out, Failure& failure, Read&& read) {
  std::string_view bytes;
  if (!bytes_of(wire, bytes, failure)) return false;
  size_t index = out.size();
  if (!read(bytes, out.emplace_back())) return failure.in_element(index);
  return true;
}

// A repeated string field's next value.
bool string_element(const Wire& wire, std::vector<std::string>& out, Failure& failure);

// A map entry: key 1, value 2 (a string, or a message's bytes).
bool map_entry(const Wire& wire, std::string& key, std::string_view& value, Failure& failure);

// metav1.Time: seconds since the epoch (nanos are not read: Go's JSON has none), or nullopt for
// Go's zero time, which it writes as an empty message.
bool read_time(std::string_view bytes, std::optional<int64_t>& seconds, Failure& failure);

// A condition's lastTransitionTime as the JSON decoder reads it: none outside the years
// parse_rfc3339 reads (1678-2261, the range of the model's clock).
bool condition_time(std::string_view bytes, std::optional<int64_t>& seconds, Failure& failure);

// "2026-11-22T04:00:00Z", as the API server writes a metav1.Time in JSON; empty for Go's zero
// time (JSON null). Outside the years 1-9999, which Go's JSON cannot write, a text no reader
// takes for a time.
bool time_text(const Wire& wire, std::string& out, Failure& failure);

// ---- shared field types -------------------------------------------------------------------------

// An enum by name: "" leaves `out` empty; another name is an error.
template <typename Enum, size_t N>
bool read_enum(const Wire& wire, const EnumNames<Enum, N>& names, std::optional<Enum>& out,
               Failure& failure) {
  std::string_view text;
  if (!bytes_of(wire, text, failure)) return false;
  out.reset();
  if (text.empty()) return true;
  out = find_enum(names, text);
  if (out) return true;
  return failure.wrong("expected " + one_of(names) + ", found " + quoted(text));
}

// A required enum read (or not) as `value`: absent or empty is an error at `field`.
template <typename Enum, size_t N>
bool require_enum(std::string_view field, const std::optional<Enum>& value,
                  const EnumNames<Enum, N>& names, Enum& out, Failure& failure) {
  if (!value) {
    failure.wrong("expected " + one_of(names) + ", found nothing");
    return failure.in_field(field);
  }
  out = *value;
  return true;
}

// One entry of a map<string, string> into `pairs`.
bool string_entry(const Wire& wire, std::vector<std::pair<std::string, std::string>>& pairs,
                  Failure& failure);

// One entry of a map<string, Quantity> into `out`; its name is appended to `names` when given.
bool quantity_entry(const Wire& wire, ResourceList& out, Failure& failure,
                    std::vector<std::string>* names = nullptr);

// metadata, without managedFields and the last-applied annotation. Owner references go to
// `owners` when given, else they are skipped.
bool read_object_meta(std::string_view bytes, ObjectMeta& meta, std::vector<OwnerReference>* owners,
                      Failure& failure);

// The name every object must have, and the namespace a namespaced one gets when it has none.
bool complete_meta(ObjectMeta& meta, bool namespaced, Failure& failure);

bool read_label_selector(std::string_view bytes, LabelSelector& selector, Failure& failure);

// A pointer field: present is a selector (maybe empty), where absent stays an empty optional.
bool optional_label_selector(const Wire& wire, std::string_view name,
                             std::optional<LabelSelector>& out, Failure& failure);

bool read_node_selector_term(std::string_view bytes, NodeSelectorTerm& term, Failure& failure);

}  // namespace loadshift::model::pb

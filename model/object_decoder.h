// One Kubernetes object, as JSON text, into the Snapshot.
//
// Internal to the decoder (model/decode.cc), which cuts lists into objects and hands each one
// here. This is the one place that parses JSON (simdjson On-Demand, so only what the model needs
// is ever looked at) and knows each kind's fields.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "model/decode.h"
#include "model/json_item_splitter.h"
#include "model/model.h"

namespace loadshift::model {

// Where an object comes from and what its list says about it.
struct ObjectSource {
  // Names the object in errors until its metadata.name is known: "items[7]" or "document".
  std::string_view label;
  // The kind and apiVersion a typed list gives its items ("Pod", "v1" for a PodList); empty for a
  // v1 List or a single object. Items may then omit their own kind and apiVersion.
  std::string_view list_item_kind;
  std::string_view list_api_version;
  // Said when the object has no kind and the list gives none (the message of the error).
  std::string_view missing_kind_message;
  // Document offset of the object's first byte, to locate syntax errors.
  uint64_t offset = 0;
};

enum class ObjectOutcome : uint8_t {
  kAdded,      // appended to the snapshot
  kSkipped,    // a kind that is not read; `skipped_kind` names it
  kRejected,   // a field has the wrong type or value; left out, `error` says why
  kMalformed,  // the JSON itself is broken; `error` gives the document offset
};

struct ObjectResult {
  ObjectOutcome outcome = ObjectOutcome::kAdded;
  std::string skipped_kind;  // "ConfigMap", or "Job (batch/v1)" for a kind read only from one group
  DecodeError error;
};

// Decodes objects one at a time, reusing its parser's memory. Not copyable; not thread-safe.
class ObjectDecoder {
 public:
  ObjectDecoder();
  ~ObjectDecoder();
  ObjectDecoder(const ObjectDecoder&) = delete;
  ObjectDecoder& operator=(const ObjectDecoder&) = delete;

  // Decodes the JSON object held in `json` into `*snapshot`. On anything but kAdded the snapshot
  // is left as it was. Never throws except std::bad_alloc.
  ObjectResult decode(const PaddedBuffer& json, const ObjectSource& source, Snapshot* snapshot);

  // Splits one watch event line ({"type": ..., "object": {...}}): its type (escapes decoded) and
  // the text of its object, a view into `line`. False when `line` is not a JSON object with a
  // string "type" and an object "object".
  bool split_watch_event(const PaddedBuffer& line, std::string* type, std::string_view* object);

  // metadata.name, metadata.namespace and metadata.resourceVersion of `object` as written
  // (each empty when absent or not a string), and whether its annotation
  // k8s.io/initial-events-end is "true". False when `object` is not a JSON object.
  bool read_identity(const PaddedBuffer& object, WatchEventSummary* event);

  // The text of a JSON string given its raw body (the bytes between the quotes), escapes
  // decoded; nullopt when the body is not a valid JSON string.
  std::optional<std::string> unescape(std::string_view raw_body);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace loadshift::model

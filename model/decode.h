// Kubernetes JSON (and YAML) -> Snapshot.
//
// Accepts what the API server and `kubectl get -o json` return: single objects, `v1/List` with
// mixed kinds, and typed lists (`NodeList`, `PodList`, ...) whose items carry no kind of their
// own. Kinds read: Node, Pod, PriorityClass, PodDisruptionBudget, HyperNode
// (topology.volcano.sh), Job (batch.volcano.sh only), PodGroup (scheduling.volcano.sh),
// PersistentVolumeClaim, PersistentVolume and CSINode (storage.k8s.io). Other kinds are counted
// and skipped, never an error.
//
// Lists are decoded item by item while the bytes arrive: the decoder never holds the document
// tree, only the item being decoded, so a 1.5 GB list needs memory for the model, not the text.
// Fields planning never needs (managedFields, kubectl's last-applied-configuration annotation,
// status noise) are dropped while decoding.
//
// Errors are values: each names the object (`Pod default/web-1`, or `items[7]` before the name is
// known), the field path (`spec.containers[0].resources.requests.cpu`) and what was expected.
// A bad object is left out of the Snapshot; decoding goes on, so one run reports every error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "model/model.h"

namespace loadshift::model {

struct DecodeError {
  std::string object;   // "Pod default/web-1", "Node te1", "items[3]", or "document"
  std::string path;     // field path inside the object, may be empty
  std::string message;  // what was expected and what was found

  // "Pod default/web-1: spec.containers[0].resources.requests.cpu: expected a quantity ..."
  std::string to_string() const;
};

struct DecodeSummary {
  size_t objects = 0;                      // objects added to the snapshot
  std::map<std::string, size_t> skipped;   // kind -> count of objects of kinds not read
  std::vector<DecodeError> errors;         // at most kMaxErrors, then `errors_dropped` counts
  size_t errors_dropped = 0;
  // For a list document (a page of an API LIST): its metadata.resourceVersion and
  // metadata.continue; empty when absent or for a single object.
  std::string list_resource_version, list_continue;
  static constexpr size_t kMaxErrors = 200;

  bool ok() const { return errors.empty() && errors_dropped == 0; }
};

// Streams one JSON document (an object or a List) into a Snapshot.
// Usage: construct, feed() the bytes in chunks of any size, then finish().
// Not copyable; one decoder per document.
class JsonSnapshotDecoder {
 public:
  // Objects are appended to `*snapshot`, which must outlive the decoder.
  explicit JsonSnapshotDecoder(Snapshot* snapshot);
  ~JsonSnapshotDecoder();
  JsonSnapshotDecoder(const JsonSnapshotDecoder&) = delete;
  JsonSnapshotDecoder& operator=(const JsonSnapshotDecoder&) = delete;

  // Consumes the next bytes of the document. Decodes every list item completed by them.
  void feed(std::string_view bytes);
  // Ends the document: decodes a single (non-list) object, checks nothing is left open, and
  // returns what was decoded and every error met.
  DecodeSummary finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Decodes a whole JSON document held in memory.
DecodeSummary decode_json(std::string_view json, Snapshot* snapshot);

// One line of a watch stream: {"type": ADDED | MODIFIED | DELETED | BOOKMARK | ERROR, "object":
// {...}}.
struct WatchEventSummary {
  std::string type;  // as written
  // The object's metadata.name, namespace and resourceVersion, escapes decoded (empty when
  // absent).
  std::string name, namespace_, resource_version;
  // A BOOKMARK annotated k8s.io/initial-events-end: "true": a watch-list's initial objects
  // have all been sent (sendInitialEvents=true).
  bool initial_events_end = false;
  DecodeSummary decoded;  // ADDED and MODIFIED only: the object, as decode_json reports it
  // ERROR only: the Status' code (410 Expired: the resourceVersion is gone, list again; 0 when
  // the object is not a Status) and a text for the log.
  int64_t error_code = 0;
  std::string error_text;
};

// Decodes the lines of watch streams one at a time, reusing its parser and buffers: a watch
// brings many small documents, and a decoder made per event cost more than the event. Not
// copyable; not thread-safe (one per watching thread).
class WatchEventDecoder {
 public:
  WatchEventDecoder();
  ~WatchEventDecoder();
  WatchEventDecoder(const WatchEventDecoder&) = delete;
  WatchEventDecoder& operator=(const WatchEventDecoder&) = delete;

  // False when `line` is not a well-formed JSON object with a string "type" and an object
  // "object"; `*out` then says nothing. Else fills `*out`, and for ADDED and MODIFIED decodes the
  // object into `*snapshot` (a bad object is left out and reported in out->decoded, as by
  // decode_json). DELETED and BOOKMARK objects are not decoded; an ERROR's Status is read for
  // its code and text.
  bool decode(std::string_view line, Snapshot* snapshot, WatchEventSummary* out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Every object `snapshot` holds, of every kind (what DecodeSummary::objects counts as added).
size_t object_count(const Snapshot& snapshot);

// Decodes YAML: one or more documents separated by `---`, each an object or a List. Each
// document is turned into JSON and goes through the same decoder, so YAML and JSON agree.
DecodeSummary decode_yaml(std::string_view yaml, Snapshot* snapshot);

}  // namespace loadshift::model

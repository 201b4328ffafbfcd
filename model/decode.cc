#include "model/decode.h"

#include <exception>
#include <nlohmann/json.hpp>
#include <new>
#include <optional>
#include <utility>

#include "model/json_item_splitter.h"
#include "model/object_decoder.h"
#include "model/yaml_to_json.h"

namespace loadshift::model {
namespace {

constexpr std::string_view kListSuffix = "List";

// "PodList" -> "Pod"; "" for "List" and for kinds that are no list.
std::string_view typed_list_item_kind(std::string_view list_kind) {
  if (list_kind.size() <= kListSuffix.size() || !list_kind.ends_with(kListSuffix)) return {};
  return list_kind.substr(0, list_kind.size() - kListSuffix.size());
}

bool is_list_kind(std::string_view kind) {
  return kind.ends_with(kListSuffix);
}

void add_error(DecodeSummary& summary, DecodeError error) {
  if (summary.errors.size() < DecodeSummary::kMaxErrors) {
    summary.errors.push_back(std::move(error));
  } else {
    ++summary.errors_dropped;
  }
}

void merge(DecodeSummary& into, DecodeSummary&& from) {
  into.objects += from.objects;
  for (const auto& [kind, count] : from.skipped) into.skipped[kind] += count;
  for (DecodeError& error : from.errors) add_error(into, std::move(error));
  into.errors_dropped += from.errors_dropped;
}

}  // namespace

std::string DecodeError::to_string() const {
  std::string text = object;
  text += ": ";
  if (!path.empty()) {
    text += path;
    text += ": ";
  }
  text += message;
  return text;
}

// The decoder's state: the splitter feeds list items (and top-level strings) back to it.
struct JsonSnapshotDecoder::State : JsonItemSplitter::Listener {
  explicit State(Snapshot* target) : snapshot(target), splitter(this) {}

  void on_item(const PaddedBuffer& item, size_t index, uint64_t offset) override;
  void on_top_level_string(std::string_view key, std::string_view raw_value) override;

  void feed(std::string_view bytes);
  void finish();
  void read_list_metadata();
  void record(ObjectResult result);
  void stop(std::string message);
  std::string text_of(std::string_view raw_value);

  Snapshot* snapshot;
  JsonItemSplitter splitter;
  ObjectDecoder objects;
  DecodeSummary summary;
  std::optional<std::string> list_kind;  // the top-level kind, once seen
  std::string list_api_version;
  std::string item_label;
  bool stopped = false;  // after malformed JSON: the rest of the document is ignored
};

std::string JsonSnapshotDecoder::State::text_of(std::string_view raw_value) {
  if (raw_value.find('\\') == std::string_view::npos) return std::string(raw_value);
  return objects.unescape(raw_value).value_or(std::string(raw_value));
}

void JsonSnapshotDecoder::State::on_top_level_string(std::string_view key,
                                                     std::string_view raw_value) {
  if (key == "kind") list_kind = text_of(raw_value);
  if (key == "apiVersion") list_api_version = text_of(raw_value);
}

void JsonSnapshotDecoder::State::on_item(const PaddedBuffer& item, size_t index, uint64_t offset) {
  if (stopped) return;
  item_label = "items[" + std::to_string(index) + "]";
  ObjectSource source;
  source.label = item_label;
  source.offset = offset;
  if (!list_kind) {
    source.missing_kind_message =
        "missing, and the list's kind was not seen before its items (only a typed list such as "
        "PodList, with kind before items, gives its items a kind)";
  } else if (std::string_view item_kind = typed_list_item_kind(*list_kind); !item_kind.empty()) {
    source.list_item_kind = item_kind;
    source.list_api_version = list_api_version;
  } else {
    source.missing_kind_message = "missing: items of a v1 List carry their own kind";
  }
  record(objects.decode(item, source, snapshot));
}

void JsonSnapshotDecoder::State::record(ObjectResult result) {
  switch (result.outcome) {
    case ObjectOutcome::kAdded:
      ++summary.objects;
      break;
    case ObjectOutcome::kSkipped:
      ++summary.skipped[result.skipped_kind];
      break;
    case ObjectOutcome::kRejected:
      add_error(summary, std::move(result.error));
      break;
    case ObjectOutcome::kMalformed:
      add_error(summary, std::move(result.error));
      stopped = true;
      splitter.abandon();
      break;
  }
}

// The list's own metadata (small: the items are not in top_level()).
void JsonSnapshotDecoder::State::read_list_metadata() {
  nlohmann::json top = nlohmann::json::parse(splitter.top_level().view(), nullptr, false);
  if (!top.is_object() || !top.contains("metadata") || !top["metadata"].is_object()) return;
  const nlohmann::json& metadata = top["metadata"];
  if (metadata.contains("resourceVersion") && metadata["resourceVersion"].is_string()) {
    summary.list_resource_version = metadata["resourceVersion"].get<std::string>();
  }
  if (metadata.contains("continue") && metadata["continue"].is_string()) {
    summary.list_continue = metadata["continue"].get<std::string>();
  }
}

void JsonSnapshotDecoder::State::stop(std::string message) {
  add_error(summary, DecodeError{"document", "", std::move(message)});
  stopped = true;
}

void JsonSnapshotDecoder::State::feed(std::string_view bytes) {
  if (stopped) return;
  if (!splitter.feed(bytes) && !stopped) {
    stop("malformed JSON at byte " + std::to_string(splitter.error_offset()) + ": " +
         splitter.error());
  }
}

void JsonSnapshotDecoder::State::finish() {
  if (stopped) return;
  if (!splitter.finish()) {
    stop("malformed JSON at byte " + std::to_string(splitter.error_offset()) + ": " +
         splitter.error());
    return;
  }
  // A list without items ("items": null) is an empty list, not an object of kind PodList.
  if (splitter.has_items() || (list_kind && is_list_kind(*list_kind))) {
    read_list_metadata();
    return;
  }
  ObjectSource source;
  source.label = "document";
  source.missing_kind_message = "missing";
  record(objects.decode(splitter.top_level(), source, snapshot));
}

JsonSnapshotDecoder::JsonSnapshotDecoder(Snapshot* snapshot)
    : state_(std::make_unique<State>(snapshot)) {}

JsonSnapshotDecoder::~JsonSnapshotDecoder() = default;

void JsonSnapshotDecoder::feed(std::string_view bytes) {
  try {
    state_->feed(bytes);
  } catch (const std::bad_alloc&) {
    state_->stop("out of memory while decoding");
  } catch (const std::exception& error) {
    state_->stop(std::string("decoding failed: ") + error.what());
  } catch (...) {
    state_->stop("decoding failed");
  }
}

DecodeSummary JsonSnapshotDecoder::finish() {
  try {
    state_->finish();
  } catch (const std::bad_alloc&) {
    state_->stop("out of memory while decoding");
  } catch (const std::exception& error) {
    state_->stop(std::string("decoding failed: ") + error.what());
  } catch (...) {
    state_->stop("decoding failed");
  }
  state_->stopped = true;
  return std::move(state_->summary);
}

DecodeSummary decode_json(std::string_view json, Snapshot* snapshot) {
  JsonSnapshotDecoder decoder(snapshot);
  decoder.feed(json);
  return decoder.finish();
}

struct WatchEventDecoder::State {
  ObjectDecoder objects;
  PaddedBuffer line, object;
};

WatchEventDecoder::WatchEventDecoder() : state_(std::make_unique<State>()) {}
WatchEventDecoder::~WatchEventDecoder() = default;

bool WatchEventDecoder::decode(std::string_view line, Snapshot* snapshot, WatchEventSummary* out) {
  State& state = *state_;
  state.line.clear();
  state.line.append(line.data(), line.size());
  WatchEventSummary event;
  std::string_view object;
  if (!state.objects.split_watch_event(state.line, &event.type, &object)) return false;
  state.object.clear();
  state.object.append(object.data(), object.size());
  if (!state.objects.read_identity(state.object, &event)) return false;
  if (event.type != "BOOKMARK") event.initial_events_end = false;
  if (event.type == "ERROR") {  // rare: read whole (and strictly: nlohmann checks every byte)
    const nlohmann::json status = nlohmann::json::parse(
        std::string_view(state.object.data(), state.object.size()), nullptr, false);
    if (status.is_object() && status.contains("code") && status["code"].is_number_integer()) {
      event.error_code = status["code"].get<int64_t>();
    }
    event.error_text =
        status.is_discarded() ? std::string(object.substr(0, 300)) : status.dump().substr(0, 300);
  }
  if (event.type == "ADDED" || event.type == "MODIFIED") {
    ObjectSource source;
    source.label = "document";  // as decode_json names a single object
    source.missing_kind_message = "missing";
    ObjectResult result = state.objects.decode(state.object, source, snapshot);
    switch (result.outcome) {
      case ObjectOutcome::kAdded:
        ++event.decoded.objects;
        break;
      case ObjectOutcome::kSkipped:
        ++event.decoded.skipped[result.skipped_kind];
        break;
      case ObjectOutcome::kRejected:
      case ObjectOutcome::kMalformed:
        add_error(event.decoded, std::move(result.error));
        break;
    }
  }
  *out = std::move(event);
  return true;
}

namespace {

// Names errors of the index'th YAML document so that a person can find them.
void locate_in_yaml(DecodeSummary& summary, int index, int first_line) {
  std::string where =
      "document " + std::to_string(index) + " (line " + std::to_string(first_line) + ")";
  for (DecodeError& error : summary.errors) {
    if (error.object == "document") {
      error.object = where;
    } else if (error.object.starts_with("items[")) {
      error.object = where + " " + error.object;
    }
  }
}

}  // namespace

DecodeSummary decode_yaml(std::string_view yaml, Snapshot* snapshot) {
  DecodeSummary summary;
  try {
    std::optional<YamlError> error =
        convert_yaml_documents(yaml, [&](std::string_view json, int index, int first_line) {
          DecodeSummary document = decode_json(json, snapshot);
          locate_in_yaml(document, index, first_line);
          merge(summary, std::move(document));
        });
    if (error) {
      std::string message = "YAML error";
      if (error->line > 0) {
        message +=
            " at line " + std::to_string(error->line) + ", column " + std::to_string(error->column);
      }
      message += ": " + error->message;
      add_error(summary, DecodeError{"document " + std::to_string(error->document), "", message});
    }
  } catch (const std::bad_alloc&) {
    add_error(summary, DecodeError{"document", "", "out of memory while decoding"});
  } catch (const std::exception& error) {
    add_error(summary,
              DecodeError{"document", "", std::string("decoding failed: ") + error.what()});
  } catch (...) {
    add_error(summary, DecodeError{"document", "", "decoding failed"});
  }
  return summary;
}

size_t object_count(const Snapshot& s) {
  return s.nodes.size() + s.pods.size() + s.priority_classes.size() + s.pdbs.size() +
         s.hyper_nodes.size() + s.jobs.size() + s.pod_groups.size() +
         s.persistent_volume_claims.size() + s.persistent_volumes.size() + s.csi_nodes.size() +
         s.namespaces.size();
}

}  // namespace loadshift::placement

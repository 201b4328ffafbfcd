#include "model/object_decoder.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "model/json_reading.h"
#include "model/kube_json_kinds.h"
#include "model/kube_json_storage.h"
#include "model/pod_defaults.h"
#include "model/value_pool.h"

namespace loadshift::model {
namespace {

namespace od = simdjson::ondemand;
using json::Decoding;
using json::read_csi_node_field;
using json::read_hyper_node_field;
using json::read_node_field;
using json::read_object_meta;
using json::read_pdb_field;
using json::read_pod_field;
using json::read_pod_group_field;
using json::read_priority_class_field;
using json::read_pv_field;
using json::read_pvc_field;
using json::read_string_view;
using json::read_volcano_job_field;

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING,
              "PaddedBuffer pads less than simdjson reads past the end");

// ---- kinds ----------------------------------------------------------------------------------

enum class Kind : uint8_t {
  kNode,
  kPod,
  kPriorityClass,
  kPodDisruptionBudget,
  kHyperNode,
  kVolcanoJob,
  kPodGroup,
  kPersistentVolumeClaim,
  kPersistentVolume,
  kCsiNode,
  kNamespace
};

struct KindRule {
  std::string_view kind;
  std::string_view group;  // API group ("" is the core group)
  bool group_required;     // false: an object without apiVersion is read too
  bool namespaced;
  Kind id;
};

constexpr std::array<KindRule, 11> kKindRules{{
    {"Node", "", false, false, Kind::kNode},
    {"Pod", "", false, true, Kind::kPod},
    {"PriorityClass", "scheduling.k8s.io", false, false, Kind::kPriorityClass},
    {"PodDisruptionBudget", "policy", false, true, Kind::kPodDisruptionBudget},
    {"HyperNode", "topology.volcano.sh", false, false, Kind::kHyperNode},
    // batch/v1 Jobs are not Volcano's: only batch.volcano.sh Jobs are read.
    {"Job", "batch.volcano.sh", true, true, Kind::kVolcanoJob},
    {"PodGroup", "scheduling.volcano.sh", false, true, Kind::kPodGroup},
    {"PersistentVolumeClaim", "", false, true, Kind::kPersistentVolumeClaim},
    {"PersistentVolume", "", false, false, Kind::kPersistentVolume},
    {"CSINode", "storage.k8s.io", false, false, Kind::kCsiNode},
    {"Namespace", "", false, false, Kind::kNamespace},
}};

std::string_view api_group(std::string_view api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

// The rule that reads (kind, apiVersion), or nullptr with the name it is skipped under.
const KindRule* find_kind_rule(std::string_view kind, std::string_view api_version,
                               std::string* skipped_kind) {
  for (const KindRule& rule : kKindRules) {
    if (rule.kind != kind) continue;
    if (api_version.empty() ? !rule.group_required : api_group(api_version) == rule.group) {
      return &rule;
    }
    *skipped_kind =
        std::string(kind) + " (" +
        (api_version.empty() ? std::string("no apiVersion") : std::string(api_version)) + ")";
    return nullptr;
  }
  *skipped_kind = std::string(kind);
  return nullptr;
}

// Scratch space reused from object to object for what the model does not keep whole.
struct Scratch {
  ObjectMeta meta;                     // PriorityClass metadata (the model keeps the name)
  std::vector<OwnerReference> owners;  // PodGroup owners (the model keeps the Job's name)
};

// The object being decoded: already appended to the snapshot, removed again if it fails.
class Target {
 public:
  Target(const KindRule& rule, Snapshot& snapshot, Scratch& scratch)
      : rule_(rule), snapshot_(snapshot), scratch_(scratch) {
    switch (rule.id) {
      case Kind::kNode:
        meta_ = &snapshot.nodes.emplace_back().meta;
        break;
      case Kind::kPod:
        meta_ = &snapshot.pods.emplace_back().meta;
        owners_ = &snapshot.pods.back().owners.edit();
        break;
      case Kind::kPriorityClass:
        snapshot.priority_classes.emplace_back();
        scratch.meta = ObjectMeta{};
        meta_ = &scratch.meta;
        break;
      case Kind::kPodDisruptionBudget:
        meta_ = &snapshot.pdbs.emplace_back().meta;
        break;
      case Kind::kHyperNode:
        meta_ = &snapshot.hyper_nodes.emplace_back().meta;
        break;
      case Kind::kVolcanoJob:
        meta_ = &snapshot.jobs.emplace_back().meta;
        break;
      case Kind::kPodGroup:
        meta_ = &snapshot.pod_groups.emplace_back().meta;
        scratch.owners.clear();
        owners_ = &scratch.owners;
        break;
      case Kind::kPersistentVolumeClaim:
        meta_ = &snapshot.persistent_volume_claims.emplace_back().meta;
        break;
      case Kind::kPersistentVolume:
        meta_ = &snapshot.persistent_volumes.emplace_back().meta;
        break;
      case Kind::kCsiNode:
        meta_ = &snapshot.csi_nodes.emplace_back().meta;
        break;
      case Kind::kNamespace:
        meta_ = &snapshot.namespaces.emplace_back().meta;
        break;
    }
  }

  std::string_view kind() const { return rule_.kind; }

  // Reads one member of the object (not kind or apiVersion).
  bool read_field(Decoding& d, std::string_view key, od::value& value) {
    if (key == "metadata") return read_object_meta(d, value, *meta_, owners_);
    switch (rule_.id) {
      case Kind::kNode:
        return read_node_field(d, key, value, snapshot_.nodes.back());
      case Kind::kPod:
        return read_pod_field(d, key, value, snapshot_.pods.back());
      case Kind::kPriorityClass:
        return read_priority_class_field(d, key, value, snapshot_.priority_classes.back());
      case Kind::kPodDisruptionBudget:
        return read_pdb_field(d, key, value, snapshot_.pdbs.back());
      case Kind::kHyperNode:
        return read_hyper_node_field(d, key, value, snapshot_.hyper_nodes.back());
      case Kind::kVolcanoJob:
        return read_volcano_job_field(d, key, value, snapshot_.jobs.back());
      case Kind::kPodGroup:
        return read_pod_group_field(d, key, value, snapshot_.pod_groups.back());
      case Kind::kPersistentVolumeClaim:
        return read_pvc_field(d, key, value, snapshot_.persistent_volume_claims.back());
      case Kind::kPersistentVolume:
        return read_pv_field(d, key, value, snapshot_.persistent_volumes.back());
      case Kind::kCsiNode:
        return read_csi_node_field(d, key, value, snapshot_.csi_nodes.back());
      case Kind::kNamespace:
        return true;  // its labels (metadata) are all loadshift reads
    }
    return true;
  }

  // Checks what is required and fills defaults once every member is read.
  bool complete(Decoding& d) {
    if (meta_->name.empty()) {
      d.wrong("required field is missing");
      d.in_field("name");
      return d.in_field("metadata");
    }
    if (rule_.namespaced && meta_->namespace_.empty()) meta_->namespace_ = "default";
    switch (rule_.id) {
      case Kind::kPod:
        complete_pod(snapshot_.pods.back());
        share_alike(snapshot_.pods.back());
        break;
      case Kind::kPriorityClass:
        snapshot_.priority_classes.back().name = std::move(meta_->name);
        break;
      case Kind::kPodGroup:
        for (const OwnerReference& owner : scratch_.owners) {
          if (owner.controller && owner.kind == "Job") {
            snapshot_.pod_groups.back().job_name = owner.name;
          }
        }
        break;
      default:
        break;
    }
    return true;
  }

  // Removes the object from the snapshot.
  void discard() {
    switch (rule_.id) {
      case Kind::kNode:
        snapshot_.nodes.pop_back();
        break;
      case Kind::kPod:
        snapshot_.pods.pop_back();
        break;
      case Kind::kPriorityClass:
        snapshot_.priority_classes.pop_back();
        break;
      case Kind::kPodDisruptionBudget:
        snapshot_.pdbs.pop_back();
        break;
      case Kind::kHyperNode:
        snapshot_.hyper_nodes.pop_back();
        break;
      case Kind::kVolcanoJob:
        snapshot_.jobs.pop_back();
        break;
      case Kind::kPodGroup:
        snapshot_.pod_groups.pop_back();
        break;
      case Kind::kPersistentVolumeClaim:
        snapshot_.persistent_volume_claims.pop_back();
        break;
      case Kind::kPersistentVolume:
        snapshot_.persistent_volumes.pop_back();
        break;
      case Kind::kCsiNode:
        snapshot_.csi_nodes.pop_back();
        break;
      case Kind::kNamespace:
        snapshot_.namespaces.pop_back();
        break;
    }
  }

  bool has_name() const { return !meta_->name.empty(); }

  // "Pod default/web-1" once the name is known, else `fallback`.
  std::string label(std::string_view fallback) const {
    if (meta_->name.empty()) return std::string(fallback);
    return label(meta_->name, meta_->namespace_);
  }
  std::string label(std::string_view name, std::string_view namespace_name) const {
    std::string label(rule_.kind);
    label += ' ';
    if (rule_.namespaced) {
      label += namespace_name.empty() ? std::string_view("default") : namespace_name;
      label += '/';
    }
    label += name;
    return label;
  }

 private:
  const KindRule& rule_;
  Snapshot& snapshot_;
  Scratch& scratch_;
  ObjectMeta* meta_ = nullptr;
  std::vector<OwnerReference>* owners_ = nullptr;
};

// Reads every member of `root` but kind and apiVersion into `target`.
bool read_members(Decoding& d, od::object& root, Target& target) {
  for (auto member : root) {
    od::field field;
    if (auto error = std::move(member).get(field)) return d.malformed(error);
    std::string_view key = d.raw_key(field);
    if (key == "kind" || key == "apiVersion") continue;
    if (!target.read_field(d, key, field.value())) return d.in_field(key);
  }
  return true;
}

// Reads the document's root object. Returns true when it is decoded into `target` or skipped
// (`target` stays empty, `skipped_kind` names the kind). `target` may come set from a typed list.
bool read_root(Decoding& d, od::document& doc, const ObjectSource& source, Snapshot& snapshot,
               Scratch& scratch, std::optional<Target>& target, std::string& skipped_kind) {
  od::json_type root_type;
  if (auto error = doc.type().get(root_type)) return d.malformed(error);
  if (root_type != od::json_type::object) {
    return d.wrong(std::string("expected a JSON object, found ") +
                   (root_type == od::json_type::array ? "an array" : "a scalar"));
  }
  od::object root;
  if (auto error = doc.get_object().get(root)) return d.malformed(error);

  // First pass: find kind and apiVersion, reading the other members right away once the kind is
  // known. Only members met before the kind need a second pass.
  std::string_view kind;
  std::string_view api_version;
  bool api_version_seen = false;
  bool members_before_kind = false;
  for (auto member : root) {
    od::field field;
    if (auto error = std::move(member).get(field)) return d.malformed(error);
    std::string_view key = d.raw_key(field);
    if (key == "kind") {
      if (!read_string_view(d, field.value(), kind)) return d.in_field(key);
      if (target && !kind.empty() && kind != target->kind()) {
        return d.wrong_at(key, "expected " + std::string(target->kind()) +
                                   " as the list says, found " + quoted(kind));
      }
    } else if (key == "apiVersion") {
      if (!read_string_view(d, field.value(), api_version)) return d.in_field(key);
      api_version_seen = true;
    } else if (target) {
      if (!target->read_field(d, key, field.value())) return d.in_field(key);
    } else {
      members_before_kind = true;
    }
    if (!target && api_version_seen && !kind.empty()) {
      const KindRule* rule = find_kind_rule(kind, api_version, &skipped_kind);
      if (rule == nullptr) return true;
      target.emplace(*rule, snapshot, scratch);
      if (members_before_kind) break;
    }
  }
  if (!target) {
    if (kind.empty()) return d.wrong_at("kind", std::string(source.missing_kind_message));
    const KindRule* rule = find_kind_rule(kind, api_version, &skipped_kind);
    if (rule == nullptr) return true;
    target.emplace(*rule, snapshot, scratch);
  }
  if (!members_before_kind) return true;
  // The kind and apiVersion strings die here: rewinding reuses simdjson's string buffer.
  doc.rewind();
  if (auto error = doc.get_object().get(root)) return d.malformed(error);
  return read_members(d, root, *target);
}

// metadata.name and metadata.namespace of a well-formed document, read again from the start.
bool find_name(od::document& doc, std::string& name, std::string& namespace_name) {
  doc.rewind();
  od::object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return false;
  for (auto member : root) {
    od::field field;
    if (std::move(member).get(field) != simdjson::SUCCESS) return false;
    if (field.key() != "metadata") continue;
    od::object metadata;
    if (field.value().get_object().get(metadata) != simdjson::SUCCESS) return false;
    for (auto meta_member : metadata) {
      od::field meta_field;
      if (std::move(meta_member).get(meta_field) != simdjson::SUCCESS) return false;
      std::string_view text;
      bool is_name = meta_field.key() == "name";
      if (!is_name && meta_field.key() != "namespace") continue;
      if (meta_field.value().get_string().get(text) != simdjson::SUCCESS) return false;
      (is_name ? name : namespace_name).assign(text);
    }
    return !name.empty();
  }
  return false;
}

}  // namespace

// ---- ObjectDecoder ------------------------------------------------------------------------------

struct ObjectDecoder::Impl {
  od::parser parser;
  Scratch scratch;
};

ObjectDecoder::ObjectDecoder() : impl_(std::make_unique<Impl>()) {}
ObjectDecoder::~ObjectDecoder() = default;

ObjectResult ObjectDecoder::decode(const PaddedBuffer& json, const ObjectSource& source,
                                   Snapshot* snapshot) {
  ObjectResult result;
  std::optional<Target> target;
  if (!source.list_item_kind.empty()) {
    const KindRule* rule =
        find_kind_rule(source.list_item_kind, source.list_api_version, &result.skipped_kind);
    if (rule == nullptr) {
      result.outcome = ObjectOutcome::kSkipped;
      return result;
    }
    target.emplace(*rule, *snapshot, impl_->scratch);
  }

  Decoding d(json.data() + json.size());
  od::document doc;
  simdjson::padded_string_view text(json.data(), json.size(), json.size() + kJsonPadding);
  const char* location = nullptr;
  if (auto error = impl_->parser.iterate(text).get(doc)) {
    d.malformed(error);
  } else if (read_root(d, doc, source, *snapshot, impl_->scratch, target, result.skipped_kind)) {
    if (!target) {
      result.outcome = ObjectOutcome::kSkipped;
      return result;
    }
    if (target->complete(d)) return result;
  } else if (d.is_malformed() && doc.current_location().get(location) != simdjson::SUCCESS) {
    location = nullptr;
  }

  if (d.is_malformed()) {
    uint64_t offset = source.offset;
    if (location != nullptr && location >= json.data() && location <= json.data() + json.size()) {
      offset += static_cast<uint64_t>(location - json.data());
    }
    result.outcome = ObjectOutcome::kMalformed;
    result.error.object = "document";
    if (source.label != "document") result.error.path = std::string(source.label);
    result.error.message = "malformed JSON at byte " + std::to_string(offset) + ": " + d.message();
  } else {
    result.outcome = ObjectOutcome::kRejected;
    result.error.object = std::string(source.label);
    if (target && target->has_name()) {
      result.error.object = target->label(source.label);
    } else if (target) {
      // Failed before its metadata.name was read (kubectl sorts "labels" before "name"): look
      // the name up, so that the error names the object all the same.
      std::string name;
      std::string namespace_name;
      if (find_name(doc, name, namespace_name)) {
        result.error.object = target->label(name, namespace_name);
      }
    }
    result.error.path = d.path();
    result.error.message = d.message();
  }
  if (target) target->discard();
  return result;
}

bool ObjectDecoder::split_watch_event(const PaddedBuffer& line, std::string* type,
                                      std::string_view* object) {
  simdjson::padded_string_view text(line.data(), line.size(), line.size() + kJsonPadding);
  od::document doc;
  od::object root;
  if (impl_->parser.iterate(text).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(root) != simdjson::SUCCESS) {
    return false;
  }
  bool has_type = false, has_object = false;
  for (auto member : root) {
    od::field field;
    if (std::move(member).get(field) != simdjson::SUCCESS) return false;
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return false;
    if (key == "type") {
      std::string_view value;
      if (field.value().get_string().get(value) != simdjson::SUCCESS) return false;
      type->assign(value);
      has_type = true;
    } else if (key == "object") {
      od::object value;
      if (field.value().get_object().get(value) != simdjson::SUCCESS ||
          value.raw_json().get(*object) != simdjson::SUCCESS) {
        return false;
      }
      has_object = true;
    }
  }
  return has_type && has_object;
}

bool ObjectDecoder::read_identity(const PaddedBuffer& object, WatchEventSummary* event) {
  simdjson::padded_string_view text(object.data(), object.size(), object.size() + kJsonPadding);
  od::document doc;
  od::object root;
  if (impl_->parser.iterate(text).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(root) != simdjson::SUCCESS) {
    return false;
  }
  for (auto member : root) {
    od::field field;
    if (std::move(member).get(field) != simdjson::SUCCESS) return false;
    if (field.key() != "metadata") continue;
    od::object metadata;
    if (field.value().get_object().get(metadata) != simdjson::SUCCESS) return true;
    for (auto meta_member : metadata) {
      od::field meta_field;
      if (std::move(meta_member).get(meta_field) != simdjson::SUCCESS) return false;
      if (meta_field.key() == "annotations") {
        od::object annotations;
        if (meta_field.value().get_object().get(annotations) != simdjson::SUCCESS) continue;
        for (auto annotation : annotations) {
          od::field entry;
          if (std::move(annotation).get(entry) != simdjson::SUCCESS) return false;
          std::string_view value;
          if (entry.key() == "k8s.io/initial-events-end" &&
              entry.value().get_string().get(value) == simdjson::SUCCESS) {
            event->initial_events_end = value == "true";
          }
        }
        continue;
      }
      std::string* out = meta_field.key() == "name"              ? &event->name
                         : meta_field.key() == "namespace"       ? &event->namespace_
                         : meta_field.key() == "resourceVersion" ? &event->resource_version
                                                                 : nullptr;
      std::string_view value;
      if (out != nullptr && meta_field.value().get_string().get(value) == simdjson::SUCCESS) {
        out->assign(value);
      }
    }
    return true;
  }
  return true;
}

std::optional<std::string> ObjectDecoder::unescape(std::string_view raw_body) {
  PaddedBuffer quoted_body;
  quoted_body.append("\"", 1);
  quoted_body.append(raw_body.data(), raw_body.size());
  quoted_body.append("\"", 1);
  simdjson::padded_string_view text(quoted_body.data(), quoted_body.size(),
                                    quoted_body.size() + kJsonPadding);
  od::document doc;
  std::string_view value;
  if (impl_->parser.iterate(text).get(doc) != simdjson::SUCCESS ||
      doc.get_string().get(value) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return std::string(value);
}

}  // namespace loadshift::model

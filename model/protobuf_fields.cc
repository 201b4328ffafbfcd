// The shared field types of model/protobuf_fields.h.
#include "model/protobuf_fields.h"

#include <chrono>
#include <cstdio>

#include "model/quantity.h"

namespace loadshift::model::pb {

std::string Failure::path() const {
  std::string path;
  for (auto it = reversed_path_.rbegin(); it != reversed_path_.rend(); ++it) {
    if (!path.empty() && (*it)[0] != '[') path += '.';
    path += *it;
  }
  return path;
}

namespace {

bool read_owner_reference(std::string_view bytes, OwnerReference& owner, Failure& failure) {
  using O = metav1::OwnerReference;
  return each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case O::kApiVersionFieldNumber:
        return text(field, owner.api_version, failure) || failure.in_field("apiVersion");
      case O::kKindFieldNumber:
        return text(field, owner.kind, failure) || failure.in_field("kind");
      case O::kNameFieldNumber:
        return text(field, owner.name, failure) || failure.in_field("name");
      case O::kUidFieldNumber:
        return text(field, owner.uid, failure) || failure.in_field("uid");
      case O::kControllerFieldNumber:
        if (!varint_of(field, failure)) return failure.in_field("controller");
        owner.controller = field.boolean();
        return true;
      default:
        return true;
    }
  });
}

}  // namespace

bool wrong_wire_type(const Wire& wire, Failure& failure) {
  return failure.wrong("malformed protobuf: field " + std::to_string(wire.number()) +
                       " has wire type " + std::to_string(wire.type()) +
                       ", not the one the API gives it");
}

bool bytes_of(const Wire& wire, std::string_view& out, Failure& failure) {
  if (wire.type() != Wire::kBytes) return wrong_wire_type(wire, failure);
  out = wire.bytes();
  return true;
}
bool text(const Wire& wire, std::string& out, Failure& failure) {
  std::string_view bytes;
  if (!bytes_of(wire, bytes, failure)) return false;
  out.assign(bytes);
  return true;
}
bool varint_of(const Wire& wire, Failure& failure) {
  return wire.type() == Wire::kVarint || wrong_wire_type(wire, failure);
}
bool int32_of(const Wire& wire, int32_t& out, Failure& failure) {
  if (!varint_of(wire, failure)) return false;
  if (!wire.fits_int32()) {
    return failure.wrong("malformed protobuf: field " + std::to_string(wire.number()) + " holds " +
                         std::to_string(wire.int64()) + ", not an int32");
  }
  out = wire.int32();
  return true;
}

bool string_element(const Wire& wire, std::vector<std::string>& out, Failure& failure) {
  return text(wire, out.emplace_back(), failure);
}

bool map_entry(const Wire& wire, std::string& key, std::string_view& value, Failure& failure) {
  std::string_view entry;
  if (!bytes_of(wire, entry, failure)) return false;
  key.clear();
  value = {};
  return each_field(entry, failure, [&](const Wire& field) {
    if (field.number() == 1) return text(field, key, failure);
    if (field.number() == 2) return bytes_of(field, value, failure);
    return true;
  });
}

bool read_time(std::string_view bytes, std::optional<int64_t>& seconds, Failure& failure) {
  int64_t whole = 0;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() != metav1::Time::kSecondsFieldNumber) return true;
    if (!varint_of(field, failure)) return false;
    whole = field.int64();
    return true;
  });
  seconds.reset();
  if (ok && !bytes.empty()) seconds = whole;
  return ok;
}

bool condition_time(std::string_view bytes, std::optional<int64_t>& seconds, Failure& failure) {
  constexpr int64_t kFirst = -9214560000;  // 1678-01-01T00:00:00Z
  constexpr int64_t kLast = 9214646399;    // 2261-12-31T23:59:59Z
  if (!read_time(bytes, seconds, failure)) return false;
  if (seconds && (*seconds < kFirst || *seconds > kLast)) seconds.reset();
  return true;
}

bool time_text(const Wire& wire, std::string& out, Failure& failure) {
  constexpr int64_t kFirst = -62135596800;  // 0001-01-01T00:00:00Z
  constexpr int64_t kLast = 253402300799;   // 9999-12-31T23:59:59Z
  std::string_view bytes;
  std::optional<int64_t> seconds;
  if (!bytes_of(wire, bytes, failure) || !read_time(bytes, seconds, failure)) return false;
  out.clear();
  if (!seconds) return true;
  if (*seconds < kFirst || *seconds > kLast) {
    out = "unreadable time: " + std::to_string(*seconds) + " seconds since the epoch";
    return true;
  }
  using namespace std::chrono;
  sys_seconds at{std::chrono::seconds(*seconds)};
  sys_days day = floor<days>(at);
  year_month_day date{day};
  hh_mm_ss clock{at - day};
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02lld:%02lld:%02lldZ",
                static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
                static_cast<unsigned>(date.day()), static_cast<long long>(clock.hours().count()),
                static_cast<long long>(clock.minutes().count()),
                static_cast<long long>(clock.seconds().count()));
  out = buffer;
  return true;
}

bool string_entry(const Wire& wire, std::vector<std::pair<std::string, std::string>>& pairs,
                  Failure& failure) {
  std::string key;
  std::string_view value;
  if (!map_entry(wire, key, value, failure)) return false;
  pairs.emplace_back(std::move(key), std::string(value));
  return true;
}

bool quantity_entry(const Wire& wire, ResourceList& out, Failure& failure,
                    std::vector<std::string>* names) {
  std::string resource;
  std::string_view quantity;
  if (!map_entry(wire, resource, quantity, failure)) return false;
  std::string text;
  if (!each_field(quantity, failure, [&](const Wire& field) {
        return field.number() != resource::Quantity::kStringFieldNumber ||
               pb::text(field, text, failure);
      })) {
    return failure.in_field(resource);
  }
  QuantityResult amount = parse_resource_quantity(resource, text);
  if (!amount.ok) {
    failure.wrong(amount.error);
    return failure.in_field(resource);
  }
  out.set(resource, amount.value);
  if (names != nullptr) names->push_back(resource);
  return true;
}

bool read_object_meta(std::string_view bytes, ObjectMeta& meta, std::vector<OwnerReference>* owners,
                      Failure& failure) {
  using M = metav1::ObjectMeta;
  std::vector<std::pair<std::string, std::string>> labels, annotations;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    switch (field.number()) {
      case M::kNameFieldNumber:
        return text(field, meta.name, failure) || failure.in_field("name");
      case M::kNamespaceFieldNumber:
        return text(field, meta.namespace_, failure) || failure.in_field("namespace");
      case M::kUidFieldNumber:
        return text(field, meta.uid, failure) || failure.in_field("uid");
      case M::kResourceVersionFieldNumber:
        return text(field, meta.resource_version, failure) || failure.in_field("resourceVersion");
      case M::kCreationTimestampFieldNumber:
        return time_text(field, meta.creation_timestamp, failure) ||
               failure.in_field("creationTimestamp");
      case M::kDeletionTimestampFieldNumber: {
        // A pointer: written only when set; a zero time is JSON's null.
        std::string_view time;
        if (!bytes_of(field, time, failure)) return failure.in_field("deletionTimestamp");
        meta.deleting = !time.empty();
        return true;
      }
      case M::kLabelsFieldNumber:
        return string_entry(field, labels, failure) || failure.in_field("labels");
      case M::kAnnotationsFieldNumber: {
        if (!string_entry(field, annotations, failure)) return failure.in_field("annotations");
        if (annotations.back().first == kLastAppliedAnnotation) annotations.pop_back();
        return true;
      }
      case M::kOwnerReferencesFieldNumber:
        if (owners == nullptr) return true;
        return element(field, *owners, failure,
                       [&](std::string_view item, OwnerReference& owner) {
                         return read_owner_reference(item, owner, failure);
                       }) ||
               failure.in_field("ownerReferences");
      default:
        return true;
    }
  });
  if (!ok) return failure.in_field("metadata");
  meta.labels = StringMap(std::move(labels));
  meta.annotations = StringMap(std::move(annotations));
  return true;
}

bool complete_meta(ObjectMeta& meta, bool namespaced, Failure& failure) {
  if (meta.name.empty()) {
    failure.wrong("required field is missing");
    failure.in_field("name");
    return failure.in_field("metadata");
  }
  if (namespaced && meta.namespace_.empty()) meta.namespace_ = "default";
  return true;
}

bool read_label_selector(std::string_view bytes, LabelSelector& selector, Failure& failure) {
  using S = metav1::LabelSelector;
  using R = metav1::LabelSelectorRequirement;
  std::vector<std::pair<std::string, std::string>> labels;
  bool ok = each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == S::kMatchLabelsFieldNumber) {
      return string_entry(field, labels, failure) || failure.in_field("matchLabels");
    }
    if (field.number() != S::kMatchExpressionsFieldNumber) return true;
    return element(field, selector.match_expressions, failure,
                   [&](std::string_view item, LabelSelectorRequirement& requirement) {
                     std::optional<std::string_view> op;
                     bool read = each_field(item, failure, [&](const Wire& f) {
                       switch (f.number()) {
                         case R::kKeyFieldNumber:
                           return text(f, requirement.key, failure) || failure.in_field("key");
                         case R::kOperatorFieldNumber:
                           return read_enum(f, kLabelSelectorOperators, op, failure) ||
                                  failure.in_field("operator");
                         case R::kValuesFieldNumber:
                           return string_element(f, requirement.values, failure) ||
                                  failure.in_field("values");
                         default:
                           return true;
                       }
                     });
                     std::string_view name;
                     if (!read ||
                         !require_enum("operator", op, kLabelSelectorOperators, name, failure)) {
                       return false;
                     }
                     requirement.op = std::string(name);
                     return true;
                   }) ||
           failure.in_field("matchExpressions");
  });
  selector.match_labels = StringMap(std::move(labels));
  return ok;
}

bool optional_label_selector(const Wire& wire, std::string_view name,
                             std::optional<LabelSelector>& out, Failure& failure) {
  std::string_view bytes;
  if (!bytes_of(wire, bytes, failure)) return failure.in_field(name);
  return read_label_selector(bytes, out.emplace(), failure) || failure.in_field(name);
}

bool read_node_selector_term(std::string_view bytes, NodeSelectorTerm& term, Failure& failure) {
  using T = core::NodeSelectorTerm;
  using R = core::NodeSelectorRequirement;
  auto requirement = [&](std::string_view item, NodeSelectorRequirement& out) {
    std::optional<SelectorOperator> op;
    bool read = each_field(item, failure, [&](const Wire& f) {
      switch (f.number()) {
        case R::kKeyFieldNumber:
          return text(f, out.key, failure) || failure.in_field("key");
        case R::kOperatorFieldNumber:
          return read_enum(f, kNodeSelectorOperators, op, failure) || failure.in_field("operator");
        case R::kValuesFieldNumber:
          return string_element(f, out.values, failure) || failure.in_field("values");
        default:
          return true;
      }
    });
    return read && require_enum("operator", op, kNodeSelectorOperators, out.op, failure);
  };
  return each_field(bytes, failure, [&](const Wire& field) {
    if (field.number() == T::kMatchExpressionsFieldNumber) {
      return element(field, term.match_expressions, failure, requirement) ||
             failure.in_field("matchExpressions");
    }
    if (field.number() == T::kMatchFieldsFieldNumber) {
      return element(field, term.match_fields, failure, requirement) ||
             failure.in_field("matchFields");
    }
    return true;
  });
}

}  // namespace loadshift::model::pb

// Kubernetes field types shared by several kinds, read from simdjson On-Demand values: string
// maps, quantities and resource lists, metadata, label and node selectors, taints, tolerations.
//
// Internal to model/object_decoder.cc, the one translation unit that includes <simdjson.h>.
// Readers follow model/json_reading.h: true on success, else the failure is in the Decoding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/json_reading.h"
#include "model/model.h"
#include "model/quantity.h"
#include "model/resources.h"

namespace loadshift::model::json {

inline bool read_string_map(Decoding& d, od::value& value, StringMap& out,
                            std::string_view dropped_key = {}) {
  std::vector<std::pair<std::string, std::string>> pairs;
  bool ok = visit_map(d, value, [&](std::string_view key, od::value& entry) {
    if (!dropped_key.empty() && key == dropped_key) return true;
    std::string_view text;
    if (!read_string_view(d, entry, text)) return false;
    pairs.emplace_back(key, text);
    return true;
  });
  if (!ok) return false;
  out = StringMap(std::move(pairs));
  return true;
}

// A resource.Quantity: a string, or a bare JSON number as Quantity.UnmarshalJSON also accepts.
inline bool read_quantity(Decoding& d, od::value& value, std::string_view resource,
                          int64_t& amount) {
  od::json_type type;
  if (!type_of(d, value, type)) return false;
  std::string_view text;
  if (type == od::json_type::string) {
    if (auto error = value.get_string().get(text)) return d.malformed(error);
  } else if (type == od::json_type::number) {
    text = trim_right(value.raw_json_token());
    if (!is_json_number(text)) return d.malformed(simdjson::NUMBER_ERROR);
  } else if (type == od::json_type::null) {
    amount = 0;
    return take_null(d, value);
  } else {
    return wrong_type(d, value, type, "a quantity such as \"500m\" or \"1Gi\"");
  }
  QuantityResult quantity = parse_resource_quantity(resource, text);
  if (!quantity.ok) return d.wrong(quantity.error);
  amount = quantity.value;
  return true;
}

// Reads a ResourceList; when `names` is given, the name of every entry read is appended to it
// (an entry of amount 0 is there too, which the list alone cannot tell from an absent one).
inline bool read_resource_list(Decoding& d, od::value& value, ResourceList& out,
                               std::vector<std::string>* names = nullptr) {
  return visit_map(d, value, [&](std::string_view resource, od::value& entry) {
    int64_t amount = 0;
    if (!read_quantity(d, entry, resource, amount)) return false;
    out.set(resource, amount);
    if (names != nullptr) names->emplace_back(resource);
    return true;
  });
}

inline bool read_owner_references(Decoding& d, od::value& value,
                                  std::vector<OwnerReference>& owners) {
  return visit_array(d, value, [&](od::value& element, size_t) {
    OwnerReference& owner = owners.emplace_back();
    return visit_fields(d, element, [&](std::string_view key, od::value& field) {
      if (key == "apiVersion") return read_string(d, field, owner.api_version);
      if (key == "kind") return read_string(d, field, owner.kind);
      if (key == "name") return read_string(d, field, owner.name);
      if (key == "uid") return read_string(d, field, owner.uid);
      if (key == "controller") return read_bool(d, field, owner.controller);
      return true;
    });
  });
}

// metadata, without managedFields and the last-applied annotation. Owner references go to
// `owners` when given, else they are skipped.
inline bool read_object_meta(Decoding& d, od::value& value, ObjectMeta& meta,
                             std::vector<OwnerReference>* owners) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "name") return read_string(d, field, meta.name);
    if (key == "namespace") return read_string(d, field, meta.namespace_);
    if (key == "uid") return read_string(d, field, meta.uid);
    if (key == "labels") return read_string_map(d, field, meta.labels);
    if (key == "annotations") {
      return read_string_map(d, field, meta.annotations, kLastAppliedAnnotation);
    }
    if (key == "creationTimestamp") return read_string(d, field, meta.creation_timestamp);
    if (key == "resourceVersion") return read_string(d, field, meta.resource_version);
    if (key == "deletionTimestamp") {
      std::string_view timestamp;
      if (!read_string_view(d, field, timestamp)) return false;
      meta.deleting = !timestamp.empty();
      return true;
    }
    if (key == "ownerReferences" && owners != nullptr) {
      return read_owner_references(d, field, *owners);
    }
    return true;
  });
}

// A required enum field that was absent.
template <typename Enum, size_t N>
inline bool missing_enum(Decoding& d, std::string_view field, const EnumNames<Enum, N>& names) {
  return d.wrong_at(field, "expected " + one_of(names) + ", found nothing");
}

inline bool read_label_selector(Decoding& d, od::value& value, LabelSelector& selector) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "matchLabels") return read_string_map(d, field, selector.match_labels);
    if (key != "matchExpressions") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      LabelSelectorRequirement& requirement = selector.match_expressions.emplace_back();
      std::optional<std::string_view> op;
      bool ok = visit_fields(d, element, [&](std::string_view name, od::value& item) {
        if (name == "key") return read_string(d, item, requirement.key);
        if (name == "operator") return read_enum(d, item, kLabelSelectorOperators, op);
        if (name == "values") return read_string_list(d, item, requirement.values);
        return true;
      });
      if (!ok) return false;
      if (!op) return missing_enum(d, "operator", kLabelSelectorOperators);
      requirement.op = std::string(*op);
      return true;
    });
  });
}

// A LabelSelector where null means "none" (an empty optional).
inline bool read_optional_label_selector(Decoding& d, od::value& value,
                                         std::optional<LabelSelector>& out) {
  bool is_null = false;
  if (!check_null(d, value, is_null)) return false;
  out.reset();
  if (is_null) return true;
  return read_label_selector(d, value, out.emplace());
}

inline bool read_taint(Decoding& d, od::value& value, Taint& taint) {
  std::optional<TaintEffect> effect;
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "key") return read_string(d, field, taint.key);
    if (key == "value") return read_string(d, field, taint.value);
    if (key == "effect") return read_enum(d, field, kTaintEffects, effect);
    return true;
  });
  if (!ok) return false;
  if (!effect) return missing_enum(d, "effect", kTaintEffects);
  taint.effect = *effect;
  return true;
}

inline bool read_node_selector_requirement(Decoding& d, od::value& value,
                                           NodeSelectorRequirement& requirement) {
  std::optional<SelectorOperator> op;
  bool ok = visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "key") return read_string(d, field, requirement.key);
    if (key == "operator") return read_enum(d, field, kNodeSelectorOperators, op);
    if (key == "values") return read_string_list(d, field, requirement.values);
    return true;
  });
  if (!ok) return false;
  if (!op) return missing_enum(d, "operator", kNodeSelectorOperators);
  requirement.op = *op;
  return true;
}

inline bool read_node_selector_term(Decoding& d, od::value& value, NodeSelectorTerm& term) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    std::vector<NodeSelectorRequirement>* requirements = nullptr;
    if (key == "matchExpressions") requirements = &term.match_expressions;
    if (key == "matchFields") requirements = &term.match_fields;
    if (requirements == nullptr) return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      return read_node_selector_requirement(d, element, requirements->emplace_back());
    });
  });
}

inline bool read_node_affinity(Decoding& d, od::value& value, NodeAffinity& affinity) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "requiredDuringSchedulingIgnoredDuringExecution") {
      bool is_null = false;
      if (!check_null(d, field, is_null)) return false;
      if (is_null) return true;
      // Present: even without terms it constrains (an empty list matches no node).
      std::vector<NodeSelectorTerm>& terms = affinity.required.emplace();
      return visit_fields(d, field, [&](std::string_view name, od::value& list) {
        if (name != "nodeSelectorTerms") return true;
        return visit_array(d, list, [&](od::value& element, size_t) {
          return read_node_selector_term(d, element, terms.emplace_back());
        });
      });
    }
    if (key != "preferredDuringSchedulingIgnoredDuringExecution") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      PreferredSchedulingTerm& term = affinity.preferred.emplace_back();
      return visit_fields(d, element, [&](std::string_view name, od::value& item) {
        if (name == "weight") return read_int32(d, item, term.weight);
        if (name == "preference") return read_node_selector_term(d, item, term.preference);
        return true;
      });
    });
  });
}

inline bool read_toleration(Decoding& d, od::value& value, Toleration& toleration) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "key") return read_string(d, field, toleration.key);
    if (key == "operator") {
      std::optional<TolerationOperator> op;
      if (!read_enum(d, field, kTolerationOperators, op)) return false;
      toleration.op = op.value_or(TolerationOperator::kEqual);
      return true;
    }
    if (key == "value") return read_string(d, field, toleration.value);
    if (key == "effect") return read_enum(d, field, kTaintEffects, toleration.effect);
    if (key == "tolerationSeconds")
      return read_optional_int64(d, field, toleration.toleration_seconds);
    return true;
  });
}

}  // namespace loadshift::model::json

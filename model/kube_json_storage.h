// The fields of the storage kinds the decoder reads (PersistentVolumeClaim, PersistentVolume,
// CSINode), from simdjson On-Demand values. Each read_<kind>_field reads one top-level member
// other than kind, apiVersion and metadata; members not in the model are skipped unread.
//
// Internal to model/object_decoder.cc, the one translation unit that includes <simdjson.h>.
#pragma once

#include <optional>
#include <string_view>

#include "model/json_reading.h"
#include "model/kube_json_fields.h"
#include "model/model.h"

namespace loadshift::model::json {

inline bool read_pvc_field(Decoding& d, std::string_view key, od::value& value,
                           PersistentVolumeClaim& claim) {
  if (key == "spec") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      return name != "volumeName" || read_string(d, field, claim.volume_name);
    });
  }
  if (key == "status") {
    return visit_fields(d, value, [&](std::string_view name, od::value& field) {
      return name != "phase" || read_string(d, field, claim.phase);
    });
  }
  return true;
}

// spec.nodeAffinity of a PersistentVolume: {required: {nodeSelectorTerms: [...]}}.
inline bool read_volume_node_affinity(Decoding& d, od::value& value,
                                      std::optional<std::vector<NodeSelectorTerm>>& out) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key != "required") return true;
    bool is_null = false;
    if (!check_null(d, field, is_null)) return false;
    if (is_null) return true;
    std::vector<NodeSelectorTerm>& terms = out.emplace();
    return visit_fields(d, field, [&](std::string_view name, od::value& list) {
      if (name != "nodeSelectorTerms") return true;
      return visit_array(d, list, [&](od::value& element, size_t) {
        return read_node_selector_term(d, element, terms.emplace_back());
      });
    });
  });
}

inline bool read_pv_field(Decoding& d, std::string_view key, od::value& value,
                          PersistentVolume& volume) {
  if (key != "spec") return true;
  return visit_fields(d, value, [&](std::string_view name, od::value& field) {
    if (name == "nodeAffinity") return read_volume_node_affinity(d, field, volume.node_affinity);
    if (name != "csi") return true;
    return visit_fields(d, field, [&](std::string_view item, od::value& entry) {
      if (item == "driver") return read_string(d, entry, volume.csi_driver);
      if (item == "volumeHandle") return read_string(d, entry, volume.csi_volume_handle);
      return true;
    });
  });
}

inline bool read_csi_node_driver(Decoding& d, od::value& value, CsiNodeDriver& driver) {
  return visit_fields(d, value, [&](std::string_view key, od::value& field) {
    if (key == "name") return read_string(d, field, driver.name);
    if (key != "allocatable") return true;
    return visit_fields(d, field, [&](std::string_view name, od::value& item) {
      return name != "count" || read_optional_int32(d, item, driver.allocatable_count);
    });
  });
}

inline bool read_csi_node_field(Decoding& d, std::string_view key, od::value& value,
                                CsiNode& csi_node) {
  if (key != "spec") return true;
  return visit_fields(d, value, [&](std::string_view name, od::value& field) {
    if (name != "drivers") return true;
    return visit_array(d, field, [&](od::value& element, size_t) {
      return read_csi_node_driver(d, element, csi_node.drivers.emplace_back());
    });
  });
}

}  // namespace loadshift::model::json

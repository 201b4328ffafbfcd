#include "placement/gpu_annotations.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace loadshift::placement {
namespace {

using Json = nlohmann::json;

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

std::vector<std::string_view> split_fields(std::string_view text, char separator) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    size_t end = text.find(separator, start);
    if (end == std::string_view::npos) {
      fields.push_back(text.substr(start));
      return fields;
    }
    fields.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

bool parse_int(std::string_view text, int64_t* value) {
  text = trim(text);
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return error == std::errc() && end == text.data() + text.size();
}

std::string quoted(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

// Parses `text` as JSON; on failure returns the discarded value and sets `error`.
Json parse_json(std::string_view text, std::string* error) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at ..." -> "parse error at ..."
    if (size_t close = what.find("] "); what.starts_with("[") && close != std::string::npos) {
      what.erase(0, close + 2);
    }
    *error = "not valid JSON: " + what;
    return Json(Json::value_t::discarded);
  }
}

// Reads an optional non-negative integer field of a JSON object into `*value`.
bool json_int(const Json& object, const char* key, int64_t* value, std::string* error) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_number_integer()) {
    *error = std::string("field \"") + key + "\" is not an integer";
    return false;
  }
  int64_t v = it->is_number_unsigned()
                  ? static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX))
                  : it->get<int64_t>();
  if (v < 0) {
    *error = std::string("field \"") + key + "\" is negative";
    return false;
  }
  *value = v;
  return true;
}

bool json_string(const Json& object, const char* key, std::string* value, std::string* error) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_string()) {
    *error = std::string("field \"") + key + "\" is not a string";
    return false;
  }
  *value = it->get<std::string>();
  return true;
}

bool json_bool(const Json& object, const char* key, bool* value, std::string* error) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return true;
  if (!it->is_boolean()) {
    *error = std::string("field \"") + key + "\" is not a boolean";
    return false;
  }
  *value = it->get<bool>();
  return true;
}

int32_t clamp_int32(int64_t value) {
  return static_cast<int32_t>(std::min<int64_t>(value, INT32_MAX));
}

// Shared skeleton of the JSON registers: an array of objects, each read by `read_device`.
template <typename ReadDevice>
RegisterDecode decode_json_devices(std::string_view text, ReadDevice read_device) {
  RegisterDecode result;
  Json document = parse_json(text, &result.error);
  if (!result.ok()) return result;
  if (!document.is_array()) {
    result.error = "expected a JSON array of devices";
    return result;
  }
  for (size_t i = 0; i < document.size(); ++i) {
    const Json& item = document[i];
    std::string error;
    GpuDevice device;
    if (!item.is_object()) {
      error = "not an object";
    } else {
      read_device(item, &device, &error);
    }
    if (!error.empty()) {
      result.error = "device " + std::to_string(i) + ": " + error;
      result.devices.clear();
      return result;
    }
    result.devices.push_back(std::move(device));
  }
  return result;
}

RegisterDecode decode_hami_json(std::string_view text) {
  return decode_json_devices(text, [](const Json& item, GpuDevice* d, std::string* error) {
    int64_t index = 0, numa = 0;
    bool ok =
        json_string(item, "id", &d->uuid, error) && json_int(item, "index", &index, error) &&
        json_int(item, "count", &d->slots, error) && json_int(item, "devmem", &d->mem_mib, error) &&
        json_int(item, "devcore", &d->cores, error) && json_string(item, "type", &d->type, error) &&
        json_int(item, "numa", &numa, error) && json_string(item, "mode", &d->mode, error) &&
        json_bool(item, "health", &d->healthy, error);
    if (ok && d->uuid.empty()) *error = "field \"id\" is missing";
    d->index = clamp_int32(index);
    d->numa = clamp_int32(numa);
  });
}

RegisterDecode decode_hami_legacy(std::string_view text) {
  RegisterDecode result;
  int position = 0;
  for (std::string_view entry : split_fields(text, ':')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    std::vector<std::string_view> fields = split_fields(entry, ',');
    std::string where = "device " + std::to_string(position);
    if (fields.size() != 7 && fields.size() != 9) {
      result.error = where + ": expected 7 or 9 comma-separated fields, found " +
                     std::to_string(fields.size());
      result.devices.clear();
      return result;
    }
    GpuDevice d;
    d.uuid = std::string(trim(fields[0]));
    int64_t numa = 0, index = position;
    const char* bad = nullptr;
    if (d.uuid.empty()) {
      bad = "UUID";
    } else if (!parse_int(fields[1], &d.slots) || d.slots < 0) {
      bad = "count";
    } else if (!parse_int(fields[2], &d.mem_mib) || d.mem_mib < 0) {
      bad = "devmem";
    } else if (!parse_int(fields[3], &d.cores) || d.cores < 0) {
      bad = "devcore";
    } else if (!parse_int(fields[5], &numa)) {
      bad = "numa";
    } else if (!parse_go_bool(trim(fields[6]), &d.healthy)) {
      bad = "health";
    } else if (fields.size() == 9 && (!parse_int(fields[7], &index) || index < 0)) {
      bad = "index";
    }
    if (bad != nullptr) {
      result.error = where + ": bad " + bad + " field";
      result.devices.clear();
      return result;
    }
    d.type = std::string(trim(fields[4]));
    d.numa = clamp_int32(numa);
    d.index = clamp_int32(index);
    if (fields.size() == 9) d.mode = std::string(trim(fields[8]));
    result.devices.push_back(std::move(d));
    ++position;
  }
  return result;
}

}  // namespace

RegisterDecode decode_hami_register(std::string_view text) {
  std::string_view body = trim(text);
  // A UUID never starts with a bracket, so '{' (a malformed JSON register) is JSON too.
  if (body.starts_with('[') || body.starts_with('{')) return decode_hami_json(body);
  return decode_hami_legacy(body);
}

RegisterDecode decode_volcano_register(std::string_view text) {
  RegisterDecode result;
  int position = 0;
  for (std::string_view entry : split_fields(trim(text), ':')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    std::vector<std::string_view> fields = split_fields(entry, ',');
    std::string where = "device " + std::to_string(position);
    if (fields.size() < 6) {
      result.error =
          where + ": expected 6 comma-separated fields, found " + std::to_string(fields.size());
      result.devices.clear();
      return result;
    }
    GpuDevice d;
    d.uuid = std::string(trim(fields[0]));
    d.type = std::string(trim(fields[3]));
    d.mode = std::string(trim(fields[5]));
    d.index = position;
    d.cores = 100;
    const char* bad = nullptr;
    if (d.uuid.empty()) {
      bad = "UUID";
    } else if (!parse_int(fields[1], &d.slots) || d.slots < 0) {
      bad = "count";
    } else if (!parse_int(fields[2], &d.mem_mib) || d.mem_mib < 0) {
      bad = "devmem";
    } else if (!parse_go_bool(trim(fields[4]), &d.healthy)) {
      bad = "health";
    }
    if (bad != nullptr) {
      result.error = where + ": bad " + bad + " field";
      result.devices.clear();
      return result;
    }
    result.devices.push_back(std::move(d));
    ++position;
  }
  return result;
}

RegisterDecode decode_metax_sgpu_register(std::string_view text) {
  RegisterDecode result = decode_json_devices(trim(text), [](const Json& item, GpuDevice* d,
                                                             std::string* error) {
    int64_t numa = 0, link_zone = 0;
    bool ok =
        json_string(item, "uuid", &d->uuid, error) && json_string(item, "model", &d->type, error) &&
        json_int(item, "totalDevCount", &d->slots, error) &&
        json_int(item, "totalCompute", &d->cores, error) &&
        json_int(item, "totalVRam", &d->mem_mib, error) && json_int(item, "numa", &numa, error) &&
        json_bool(item, "healthy", &d->healthy, error) &&
        json_string(item, "qosPolicy", &d->qos, error);
    // linkZone may be negative (no MetaXLink), so it is read without the sign check.
    if (ok) {
      auto it = item.find("linkZone");
      if (it != item.end() && !it->is_null()) {
        if (!it->is_number_integer()) {
          *error = "field \"linkZone\" is not an integer";
          return;
        }
        link_zone = it->is_number_unsigned()
                        ? static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT32_MAX))
                        : it->get<int64_t>();
      }
    }
    if (ok && d->uuid.empty()) *error = "field \"uuid\" is missing";
    d->numa = clamp_int32(numa);
    d->link_zone = static_cast<int32_t>(std::clamp<int64_t>(link_zone, INT32_MIN, INT32_MAX));
  });
  for (size_t i = 0; i < result.devices.size(); ++i) {
    result.devices[i].index = static_cast<int32_t>(i);
  }
  return result;
}

AllocationDecode decode_device_allocations(std::string_view text) {
  AllocationDecode result;
  int container = 0;
  for (std::string_view container_text : split_fields(text, ';')) {
    for (std::string_view entry : split_fields(container_text, ':')) {
      entry = trim(entry);
      if (entry.empty()) continue;
      std::vector<std::string_view> fields = split_fields(entry, ',');
      DeviceAllocation a;
      bool ok = fields.size() >= 4 && parse_int(fields[2], &a.mem_mib) &&
                parse_int(fields[3], &a.cores) && a.mem_mib >= 0 && a.cores >= 0;
      a.uuid = std::string(trim(fields[0]));
      if (!ok || a.uuid.empty()) {
        result.error = "container " + std::to_string(container) + ": bad device entry " +
                       quoted(entry) + " (expected UUID,TYPE,MEM,CORES)";
        result.entries.clear();
        return result;
      }
      a.type = std::string(trim(fields[1]));
      result.entries.push_back(std::move(a));
    }
    ++container;
  }
  return result;
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> items;
  for (std::string_view item : split_fields(text, separator)) {
    item = trim(item);
    if (!item.empty()) items.emplace_back(item);
  }
  return items;
}

std::string sanitize_product(std::string_view model) {
  std::string out;
  bool in_space = false;
  for (char c : trim(model)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isspace(u)) {
      in_space = true;
      continue;
    }
    if (!std::isalnum(u) && c != '-' && c != '_' && c != '.') continue;
    if (in_space && !out.empty()) out += '-';
    in_space = false;
    out += c;
  }
  return out;
}

bool parse_go_bool(std::string_view text, bool* value) {
  if (text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true" ||
      text == "True") {
    *value = true;
    return true;
  }
  if (text == "0" || text == "f" || text == "F" || text == "FALSE" || text == "false" ||
      text == "False") {
    *value = false;
    return true;
  }
  return false;
}

}  // namespace loadshift::placement

// JSON -> protobuf by the messages' descriptors, field name for field name (the API's protobuf
// field names are its JSON names), with the few types whose JSON is not their message: Quantity
// (text), Time (RFC 3339 text) and a Volume's source (inline in JSON).
#include "test/kube/fake_api_protobuf.h"

#include <chrono>
#include <stdexcept>

#include "model/proto/core.pb.h"
#include "model/proto/meta.pb.h"
#include "model/proto/runtime.pb.h"
#include "model/rfc3339.h"

namespace loadshift::testing {
namespace {

namespace gp = google::protobuf;
namespace core = k8s::io::api::core::v1;
namespace meta = k8s::io::apimachinery::pkg::apis::meta::v1;
namespace runtime = k8s::io::apimachinery::pkg::runtime;

[[noreturn]] void unfit(const std::string& path, const std::string& what) {
  throw std::invalid_argument("protobuf encoding: " + path + ": " + what);
}

void fill(const nlohmann::json& value, gp::Message* message, const std::string& path);

void set_scalar(const nlohmann::json& value, gp::Message* message, const gp::FieldDescriptor* field,
                bool add, const std::string& path) {
  const gp::Reflection* r = message->GetReflection();
  switch (field->cpp_type()) {
    case gp::FieldDescriptor::CPPTYPE_STRING:
      if (!value.is_string()) unfit(path, "expected a string");
      add ? r->AddString(message, field, value.get<std::string>())
          : r->SetString(message, field, value.get<std::string>());
      return;
    case gp::FieldDescriptor::CPPTYPE_BOOL:
      if (!value.is_boolean()) unfit(path, "expected a boolean");
      add ? r->AddBool(message, field, value.get<bool>())
          : r->SetBool(message, field, value.get<bool>());
      return;
    case gp::FieldDescriptor::CPPTYPE_INT32:
      if (!value.is_number_integer()) unfit(path, "expected an integer");
      add ? r->AddInt32(message, field, value.get<int32_t>())
          : r->SetInt32(message, field, value.get<int32_t>());
      return;
    case gp::FieldDescriptor::CPPTYPE_INT64:
      if (!value.is_number_integer()) unfit(path, "expected an integer");
      add ? r->AddInt64(message, field, value.get<int64_t>())
          : r->SetInt64(message, field, value.get<int64_t>());
      return;
    default:
      unfit(path, "a field type the fake does not encode");
  }
}

void set_field(const nlohmann::json& value, gp::Message* message, const gp::FieldDescriptor* field,
               const std::string& path) {
  const gp::Reflection* r = message->GetReflection();
  if (field->is_map()) {
    if (!value.is_object()) unfit(path, "expected an object");
    for (const auto& [key, item] : value.items()) {
      gp::Message* entry = r->AddMessage(message, field);
      const gp::Descriptor* d = entry->GetDescriptor();
      entry->GetReflection()->SetString(entry, d->FindFieldByNumber(1), key);
      const gp::FieldDescriptor* value_field = d->FindFieldByNumber(2);
      if (value_field->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
        fill(item, entry->GetReflection()->MutableMessage(entry, value_field), path + "." + key);
      } else {
        set_scalar(item, entry, value_field, false, path + "." + key);
      }
    }
    return;
  }
  if (field->is_repeated()) {
    if (!value.is_array()) unfit(path, "expected a list");
    for (size_t i = 0; i < value.size(); ++i) {
      std::string at = path + "[" + std::to_string(i) + "]";
      if (field->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
        fill(value[i], r->AddMessage(message, field), at);
      } else {
        set_scalar(value[i], message, field, true, at);
      }
    }
    return;
  }
  if (field->cpp_type() == gp::FieldDescriptor::CPPTYPE_MESSAGE) {
    fill(value, r->MutableMessage(message, field), path);
  } else {
    set_scalar(value, message, field, false, path);
  }
}

void fill(const nlohmann::json& value, gp::Message* message, const std::string& path) {
  const gp::Descriptor* d = message->GetDescriptor();
  if (d->name() == "Quantity") {
    // A quantity is text; a bare JSON number is one too (Quantity.UnmarshalJSON accepts it).
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    static_cast<k8s::io::apimachinery::pkg::api::resource::Quantity*>(message)->set_string(text);
    return;
  }
  if (d->name() == "Time") {
    if (!value.is_string()) unfit(path, "expected an RFC 3339 time");
    auto time = model::parse_rfc3339(value.get<std::string>());
    if (!time) unfit(path, "expected an RFC 3339 time");
    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(time->time_since_epoch());
    static_cast<meta::Time*>(message)->set_seconds(seconds.count());
    return;
  }
  if (!value.is_object()) unfit(path, "expected an object");
  bool volume = d->full_name() == "k8s.io.api.core.v1.Volume";
  for (const auto& [key, item] : value.items()) {
    if (item.is_null()) continue;  // JSON null: a pointer field Go does not write
    std::string at = path.empty() ? key : path + "." + key;
    gp::Message* target = message;
    const gp::FieldDescriptor* field = d->FindFieldByName(key);
    if (volume && key != "name") {
      // A volume's source is inline in JSON, an embedded VolumeSource in protobuf.
      target = static_cast<core::Volume*>(message)->mutable_volumesource();
      field = target->GetDescriptor()->FindFieldByName(key);
    }
    if (field == nullptr) continue;  // outside loadshift's subset
    set_field(item, target, field, at);
  }
}

void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out += static_cast<char>((value & 0x7f) | 0x80);
    value >>= 7;
  }
  out += static_cast<char>(value);
}

void append_length_field(std::string& out, uint32_t number, std::string_view bytes) {
  append_varint(out, (uint64_t{number} << 3) | 2);
  append_varint(out, bytes.size());
  out.append(bytes);
}

}  // namespace

bool prefers_protobuf(std::string_view accept) {
  return accept.starts_with("application/vnd.kubernetes.protobuf");
}

bool protobuf_kind(std::string_view api_version, std::string_view kind) {
  return api_version == "v1" && (kind == "Pod" || kind == "Node");
}

std::string encode_protobuf_object(const nlohmann::json& object, std::string_view kind) {
  std::string bytes;
  if (kind == "Pod") {
    core::Pod pod;
    fill(object, &pod, "");
    pod.SerializeToString(&bytes);
  } else if (kind == "Node") {
    core::Node node;
    fill(object, &node, "");
    node.SerializeToString(&bytes);
  } else {
    throw std::invalid_argument("protobuf encoding: the fake encodes Pods and Nodes, not " +
                                std::string(kind));
  }
  return bytes;
}

std::string protobuf_envelope(std::string_view api_version, std::string_view kind,
                              std::string_view raw) {
  runtime::TypeMeta type;
  type.set_apiversion(std::string(api_version));
  type.set_kind(std::string(kind));
  std::string out("k8s\0", 4);
  append_length_field(out, 1, type.SerializeAsString());
  append_length_field(out, 2, raw);
  return out;
}

std::string protobuf_list_raw(const std::string& resource_version,
                              const std::string& continue_token,
                              std::optional<int64_t> remaining_items,
                              const std::vector<const std::string*>& items) {
  meta::ListMeta list_meta;
  list_meta.set_resourceversion(resource_version);
  list_meta.set_continue_(continue_token);
  if (remaining_items) list_meta.set_remainingitemcount(*remaining_items);
  std::string raw;
  append_length_field(raw, 1, list_meta.SerializeAsString());
  for (const std::string* item : items) append_length_field(raw, 2, *item);
  return raw;
}

std::string protobuf_status(const nlohmann::json& status) {
  meta::Status message;
  message.set_status(status.value("status", ""));
  message.set_message(status.value("message", ""));
  message.set_reason(status.value("reason", ""));
  message.set_code(status.value("code", 0));
  return protobuf_envelope("v1", "Status", message.SerializeAsString());
}

}  // namespace loadshift::testing

// JSON -> protobuf by the messages' descriptors, field name for field name (the API's protobuf
// field names are its JSON names), with the types whose JSON is not their message: Quantity
// (text), Time and MicroTime (RFC 3339 text), IntOrString (a number or text), FieldsV1 and
// RawExtension (any JSON, carried as its bytes), and the members JSON inlines (a Volume's source).
//
// Pods and Nodes are encoded with the API's own messages, from the descriptors of a real build
// (test/data/kube-proto/kubectl-descriptors.binpb): every field the JSON carries, the ones the
// decoder skips included. Unlike Go, the fake leaves out the empty strings and zeros of fields
// the JSON omits (Go writes every non-pointer field); the Pod kubectl encoded
// (kubectl-debug-copy.pb) has them.
#include "test/kube/fake_api_protobuf.h"

#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

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

// The API's messages as a real build defines them, loaded once.
class ApiMessages {
 public:
  ApiMessages() {
    const std::string path = LOADSHIFT_SOURCE_DIR "/test/data/kube-proto/kubectl-descriptors.binpb";
    std::ifstream in(path, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    gp::FileDescriptorSet files;
    if (!in.good() || !files.ParseFromString(bytes.str())) {
      throw std::runtime_error("fake API server: cannot read " + path);
    }
    // The files import gogo.proto for its options only: an empty file stands in for it.
    gp::FileDescriptorProto gogo;
    gogo.set_name("github.com/gogo/protobuf/gogoproto/gogo.proto");
    gogo.set_package("gogoproto");
    pool_.BuildFile(gogo);
    for (const gp::FileDescriptorProto& file : files.file()) {
      if (pool_.BuildFile(file) == nullptr) {
        throw std::runtime_error("fake API server: " + path + ": cannot build " + file.name());
      }
    }
  }
  // A new, empty message of the API's type `full_name` ("k8s.io.api.core.v1.Pod").
  std::unique_ptr<gp::Message> make(const std::string& full_name) {
    const gp::Descriptor* type = pool_.FindMessageTypeByName(full_name);
    if (type == nullptr) throw std::runtime_error("fake API server: no message " + full_name);
    return std::unique_ptr<gp::Message>(factory_.GetPrototype(type)->New());
  }

 private:
  gp::DescriptorPool pool_;
  gp::DynamicMessageFactory factory_{&pool_};
};

ApiMessages& api_messages() {
  static ApiMessages messages;
  return messages;
}

// Members of these names are written inline in JSON: their fields are the enclosing object's.
const std::set<std::string, std::less<>> kInlineMembers = {
    "volumeSource", "handler", "ephemeralContainerCommon", "persistentVolumeSource"};

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

void set_text(gp::Message* message, const char* field, const std::string& text) {
  message->GetReflection()->SetString(message, message->GetDescriptor()->FindFieldByName(field),
                                      text);
}

void set_time(const nlohmann::json& value, gp::Message* message, bool nanos,
              const std::string& path) {
  if (!value.is_string()) unfit(path, "expected an RFC 3339 time");
  auto time = model::parse_rfc3339(value.get<std::string>());
  if (!time) unfit(path, "expected an RFC 3339 time");
  auto since = time->time_since_epoch();
  auto seconds = std::chrono::floor<std::chrono::seconds>(since);
  const gp::Reflection* r = message->GetReflection();
  const gp::Descriptor* d = message->GetDescriptor();
  r->SetInt64(message, d->FindFieldByName("seconds"), seconds.count());
  if (nanos) {
    r->SetInt32(message, d->FindFieldByName("nanos"),
                static_cast<int32_t>(std::chrono::nanoseconds(since - seconds).count()));
  }
}

void fill(const nlohmann::json& value, gp::Message* message, const std::string& path) {
  const gp::Descriptor* d = message->GetDescriptor();
  const std::string& type = d->full_name();
  if (type == "k8s.io.apimachinery.pkg.api.resource.Quantity") {
    // A quantity is text; a bare JSON number is one too (Quantity.UnmarshalJSON accepts it).
    set_text(message, "string", value.is_string() ? value.get<std::string>() : value.dump());
    return;
  }
  if (type == "k8s.io.apimachinery.pkg.apis.meta.v1.Time" ||
      type == "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime") {
    set_time(value, message, d->name() == "MicroTime", path);
    return;
  }
  if (type == "k8s.io.apimachinery.pkg.util.intstr.IntOrString") {
    const gp::Reflection* r = message->GetReflection();
    if (value.is_number_integer()) {
      r->SetInt64(message, d->FindFieldByName("type"), 0);
      r->SetInt32(message, d->FindFieldByName("intVal"), value.get<int32_t>());
    } else if (value.is_string()) {
      r->SetInt64(message, d->FindFieldByName("type"), 1);
      r->SetString(message, d->FindFieldByName("strVal"), value.get<std::string>());
    } else {
      unfit(path, "expected an integer or a string");
    }
    return;
  }
  if (type == "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1" ||
      type == "k8s.io.apimachinery.pkg.runtime.RawExtension") {
    set_text(message, d->field(0)->name().c_str(), value.dump());  // Raw / raw: the JSON itself
    return;
  }
  if (!value.is_object()) unfit(path, "expected an object");
  for (const auto& [key, item] : value.items()) {
    if (item.is_null()) continue;  // JSON null: a pointer field Go does not write
    std::string at = path.empty() ? key : path + "." + key;
    gp::Message* target = message;
    const gp::FieldDescriptor* field = d->FindFieldByName(key);
    for (int i = 0; field == nullptr && i < d->field_count(); ++i) {
      // A member of an inline field (a Volume's emptyDir is its volumeSource's).
      const gp::FieldDescriptor* inline_field = d->field(i);
      if (kInlineMembers.count(inline_field->name()) == 0) continue;
      const gp::FieldDescriptor* member = inline_field->message_type()->FindFieldByName(key);
      if (member == nullptr) continue;
      target = message->GetReflection()->MutableMessage(message, inline_field);
      field = member;
    }
    if (field == nullptr) continue;  // a field these messages do not have
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
  if (kind != "Pod" && kind != "Node") {
    throw std::invalid_argument("protobuf encoding: the fake encodes Pods and Nodes, not " +
                                std::string(kind));
  }
  std::unique_ptr<gp::Message> message =
      api_messages().make("k8s.io.api.core.v1." + std::string(kind));
  fill(object, message.get(), "");
  return message->SerializeAsString();
}

std::string protobuf_envelope(std::string_view api_version, std::string_view kind,
                              std::string_view raw) {
  runtime::TypeMeta type;
  type.set_apiversion(std::string(api_version));
  type.set_kind(std::string(kind));
  std::string out("k8s\0", 4);
  append_length_field(out, 1, type.SerializeAsString());
  append_length_field(out, 2, raw);
  append_length_field(out, 3, "");  // contentEncoding and contentType: Go writes them, empty
  append_length_field(out, 4, "");
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

std::string protobuf_watch_frame(std::string_view json_line, std::string_view api_version,
                                 std::string_view kind) {
  const nlohmann::json event = nlohmann::json::parse(json_line);
  const std::string type = event.at("type").get<std::string>();
  const nlohmann::json& object = event.at("object");
  return protobuf_watch_frame_of(
      type, type == "ERROR"
                ? protobuf_status(object)
                : protobuf_envelope(api_version, kind, encode_protobuf_object(object, kind)));
}

std::string protobuf_watch_frame_of(std::string_view type, std::string_view object_answer) {
  meta::WatchEvent message;
  message.set_type(std::string(type));
  message.mutable_object()->set_raw(std::string(object_answer));
  return protobuf_frame(message.SerializeAsString());
}

std::string protobuf_frame(std::string_view body) {
  std::string frame(4, '\0');
  for (int i = 0; i < 4; ++i) {
    frame[static_cast<size_t>(i)] = static_cast<char>((body.size() >> (8 * (3 - i))) & 0xff);
  }
  return frame.append(body);
}

}  // namespace loadshift::testing

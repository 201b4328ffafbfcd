// loadshift's protobuf messages (model/proto/) against the API's own, as a real Kubernetes build
// carries them (test/data/kube-proto/kubectl-descriptors.binpb, recorded from kubectl v1.32.4 by
// record.py there): every field loadshift declares has the number, type, label and message type
// the API gives it. A wrong number would decode silently wrong pods; this is where it would show.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>

#include "model/proto/core.pb.h"
#include "model/proto/meta.pb.h"
#include "model/proto/resource.pb.h"
#include "model/proto/runtime.pb.h"

namespace {

namespace gp = google::protobuf;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every message of the recorded files by full name ("k8s.io.api.core.v1.Pod"), nested ones
// (map entries) included.
void index_messages(const std::string& scope, const gp::DescriptorProto& message,
                    std::map<std::string, const gp::DescriptorProto*>& out) {
  std::string name = scope + "." + message.name();
  out[name] = &message;
  for (const gp::DescriptorProto& nested : message.nested_type()) index_messages(name, nested, out);
}

// Our message `ours` against the recorded one: each of our fields exists there, the same.
void compare(const gp::Descriptor& ours, const gp::DescriptorProto& theirs, size_t& fields) {
  for (int i = 0; i < ours.field_count(); ++i) {
    const gp::FieldDescriptor& field = *ours.field(i);
    INFO(ours.full_name() << "." << field.name());
    const gp::FieldDescriptorProto* match = nullptr;
    for (const gp::FieldDescriptorProto& candidate : theirs.field()) {
      if (candidate.name() == field.name()) match = &candidate;
    }
    REQUIRE(match != nullptr);
    CHECK(match->number() == field.number());
    CHECK(static_cast<int>(match->type()) == static_cast<int>(field.type()));
    CHECK(static_cast<int>(match->label()) == static_cast<int>(field.label()));
    if (field.message_type() != nullptr) {
      CHECK(match->type_name() == "." + field.message_type()->full_name());
    }
    ++fields;
  }
  for (int i = 0; i < ours.nested_type_count(); ++i) {
    // Only map entries: their own fields (key 1, value 2) are compared by the caller's index.
    CHECK(ours.nested_type(i)->options().map_entry());
  }
}

}  // namespace

TEST_CASE("every protobuf field loadshift reads has the number a real Kubernetes build gives it",
          "[protobuf]") {
  gp::FileDescriptorSet recorded;
  REQUIRE(recorded.ParseFromString(
      read_file(LOADSHIFT_SOURCE_DIR "/test/data/kube-proto/kubectl-descriptors.binpb")));
  std::map<std::string, const gp::DescriptorProto*> theirs;
  for (const gp::FileDescriptorProto& file : recorded.file()) {
    for (const gp::DescriptorProto& message : file.message_type()) {
      index_messages("." + file.package(), message, theirs);
    }
  }
  REQUIRE(theirs.count(".k8s.io.api.core.v1.Pod") == 1);

  size_t messages = 0, fields = 0;
  for (const gp::FileDescriptor* file :
       {k8s::io::api::core::v1::Pod::descriptor()->file(),
        k8s::io::apimachinery::pkg::apis::meta::v1::ObjectMeta::descriptor()->file(),
        k8s::io::apimachinery::pkg::api::resource::Quantity::descriptor()->file(),
        k8s::io::apimachinery::pkg::runtime::Unknown::descriptor()->file()}) {
    std::vector<const gp::Descriptor*> all;
    for (int i = 0; i < file->message_type_count(); ++i) {
      all.push_back(file->message_type(i));
      for (int j = 0; j < file->message_type(i)->nested_type_count(); ++j) {
        all.push_back(file->message_type(i)->nested_type(j));
      }
    }
    for (const gp::Descriptor* message : all) {
      INFO(message->full_name());
      auto it = theirs.find("." + message->full_name());
      REQUIRE(it != theirs.end());
      compare(*message, *it->second, fields);
      ++messages;
    }
  }
  // The subset is what the decoder reads: a message or field lost from model/proto/ shows here.
  CHECK(messages >= 59);
  CHECK(fields >= 150);
}

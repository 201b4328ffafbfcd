// The protobuf decoder (model/protobuf_decode.h): bytes kubectl's own serializer wrote read as
// their JSON does; every Pod and Node of the examples reads the same in both encodings; the
// envelope and lists streamed in pieces; what is broken or unknown is reported, never guessed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/decode.h"
#include "model/proto/core.pb.h"
#include "model/protobuf_decode.h"
#include "model/yaml_to_json.h"
#include "test/kube/fake_api_protobuf.h"

namespace {

using namespace loadshift;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kData = LOADSHIFT_SOURCE_DIR "/test/data/kube-proto/";

model::Snapshot decode_json_clean(const std::string& json) {
  model::Snapshot snapshot;
  model::DecodeSummary summary = model::decode_json(json, &snapshot);
  for (const model::DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  return snapshot;
}

model::Snapshot decode_protobuf_clean(std::string_view bytes) {
  model::Snapshot snapshot;
  model::DecodeSummary summary = model::decode_protobuf(bytes, &snapshot);
  for (const model::DecodeError& error : summary.errors) INFO(error.to_string());
  REQUIRE(summary.ok());
  return snapshot;
}

std::string pod_answer(const nlohmann::json& pod) {
  return testing::protobuf_envelope("v1", "Pod", testing::encode_protobuf_object(pod, "Pod"));
}

// Each Pod and Node (apiVersion v1) of the JSON and YAML files of the examples and tests.
std::vector<nlohmann::json> example_objects() {
  std::vector<nlohmann::json> objects;
  auto take = [&](const nlohmann::json& doc, auto&& self) -> void {
    if (doc.contains("items") && doc["items"].is_array()) {
      for (const nlohmann::json& item : doc["items"]) self(item, self);
      return;
    }
    if (doc.value("apiVersion", "") == "v1" &&
        (doc.value("kind", "") == "Pod" || doc.value("kind", "") == "Node")) {
      objects.push_back(doc);
    }
  };
  for (const char* dir : {"/examples", "/test/data/placement-fidelity", "/test/data/kube-proto",
                          "/test/data/shared/seed-examples"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::string(LOADSHIFT_SOURCE_DIR) + dir)) {
      std::string ext = entry.path().extension();
      if (entry.path().filename() == "usage.json") continue;
      if (ext == ".json") {
        take(nlohmann::json::parse(read_file(entry.path())), take);
      } else if (ext == ".yaml") {
        model::convert_yaml_documents(
            read_file(entry.path()),
            [&](std::string_view json, int, int) { take(nlohmann::json::parse(json), take); });
      }
    }
  }
  return objects;
}

}  // namespace

TEST_CASE("a Pod kubectl encoded in protobuf reads as the JSON it was copied from", "[protobuf]") {
  // `kubectl debug trainer-0 --copy-to=trainer-copy --same-node --keep-*` read rich-pod.json and
  // sent its copy in protobuf (test/data/kube-proto/record.py): the real serializer's bytes.
  std::string bytes = read_file(kData + "kubectl-debug-copy.pb");
  REQUIRE(bytes.substr(0, 4) == std::string("k8s\0", 4));
  model::Snapshot copied = decode_protobuf_clean(bytes);
  REQUIRE(copied.pods.size() == 1);
  model::Pod copy = copied.pods[0];

  model::Snapshot original = decode_json_clean(read_file(kData + "rich-pod.json"));
  REQUIRE(original.pods.size() == 1);
  model::Pod expected = original.pods[0];
  // What a copy is not: its own name, no identity or status yet (a pod kubectl creates).
  expected.meta.name = "trainer-copy";
  expected.meta.uid.clear();
  expected.meta.resource_version.clear();
  expected.meta.creation_timestamp.clear();
  expected.owners.edit().clear();
  expected.phase = model::PodPhase::kPending;
  expected.qos_class.clear();
  expected.start_time.clear();
  expected.ready.reset();
  expected.container_statuses.clear();
  expected.init_container_statuses.clear();
  expected.conditions = {};

  // The fields planning reads, one by one first (a failure then names the field), then whole.
  CHECK(copy.meta == expected.meta);
  CHECK(copy.node_name == "gpu-node-7");
  CHECK(copy.priority == std::optional<int32_t>(100000));
  CHECK(copy.scheduler_name == "volcano");
  CHECK((copy.containers == expected.containers));
  CHECK(copy.containers.pointer()->at(0).requests.get("nvidia.com/gpu") == 8);
  CHECK(copy.init_containers == expected.init_containers);
  CHECK(copy.init_containers.at(1).restart_always);
  CHECK(copy.init_containers.at(1).requests.cpu_milli == 200);  // the limit, defaulted
  CHECK(copy.host_ports == expected.host_ports);
  CHECK(copy.overhead == expected.overhead);
  CHECK(copy.node_selector == expected.node_selector);
  CHECK((copy.node_affinity == expected.node_affinity));
  CHECK(copy.node_affinity.pointer()->required->size() == 2);
  CHECK(copy.pod_affinity == expected.pod_affinity);
  CHECK(copy.pod_anti_affinity == expected.pod_anti_affinity);
  REQUIRE(copy.pod_anti_affinity.required.size() == 1);
  CHECK(copy.pod_anti_affinity.required[0].namespace_selector.has_value());  // {} is not null
  CHECK(copy.topology_spread == expected.topology_spread);
  CHECK((copy.tolerations == expected.tolerations));
  CHECK(copy.tolerations.pointer()->at(2).toleration_seconds == std::optional<int64_t>(300));
  CHECK(copy.volumes == expected.volumes);
  CHECK(copy.has_resource_claims);
  CHECK(copy.restart_policy == "OnFailure");
  CHECK((copy == expected));
}

TEST_CASE("every Pod and Node of the examples reads the same in protobuf as in JSON",
          "[protobuf]") {
  std::vector<nlohmann::json> objects = example_objects();
  REQUIRE(objects.size() >= 40);
  size_t pods = 0, nodes = 0;
  for (const nlohmann::json& object : objects) {
    std::string kind = object["kind"];
    INFO(kind << " " << object["metadata"].value("name", "?"));
    model::Snapshot from_json;
    model::DecodeSummary json_summary = model::decode_json(object.dump(), &from_json);
    model::Snapshot from_protobuf;
    model::DecodeSummary protobuf_summary = model::decode_protobuf(
        testing::protobuf_envelope("v1", kind, testing::encode_protobuf_object(object, kind)),
        &from_protobuf);
    REQUIRE(json_summary.errors.size() == protobuf_summary.errors.size());
    for (size_t i = 0; i < json_summary.errors.size(); ++i) {
      CHECK(protobuf_summary.errors[i].to_string() == json_summary.errors[i].to_string());
    }
    REQUIRE(from_json.pods.size() == from_protobuf.pods.size());
    REQUIRE((from_json.nodes == from_protobuf.nodes));
    for (size_t i = 0; i < from_json.pods.size(); ++i) {
      const model::Pod& a = from_json.pods[i];
      const model::Pod& b = from_protobuf.pods[i];
      CHECK(a.meta == b.meta);
      CHECK((a.owners == b.owners));
      CHECK((a.containers == b.containers));
      CHECK(a.init_containers == b.init_containers);
      CHECK(a.host_ports == b.host_ports);
      CHECK(a.overhead == b.overhead);
      CHECK(a.node_selector == b.node_selector);
      CHECK((a.node_affinity == b.node_affinity));
      CHECK(a.pod_affinity == b.pod_affinity);
      CHECK(a.pod_anti_affinity == b.pod_anti_affinity);
      CHECK(a.topology_spread == b.topology_spread);
      CHECK((a.tolerations == b.tolerations));
      CHECK(a.volumes == b.volumes);
      CHECK(a.container_statuses == b.container_statuses);
      CHECK(a.init_container_statuses == b.init_container_statuses);
      CHECK(a.conditions == b.conditions);
      CHECK(a.start_time == b.start_time);
      CHECK(a.phase == b.phase);
      CHECK(a.ready == b.ready);
      CHECK((a == b));
    }
    pods += from_json.pods.size();
    nodes += from_json.nodes.size();
  }
  CHECK(pods >= 20);
  CHECK(nodes >= 10);
}

TEST_CASE("a protobuf list is decoded item by item, in pieces of any size", "[protobuf]") {
  std::vector<nlohmann::json> objects = example_objects();
  std::vector<std::string> encoded;
  std::vector<const std::string*> items;
  std::string json_list = R"({"kind":"PodList","apiVersion":"v1","items":[)";
  for (const nlohmann::json& object : objects) {
    if (object["kind"] != "Pod") continue;
    encoded.push_back(testing::encode_protobuf_object(object, "Pod"));
    json_list += (encoded.size() > 1 ? "," : "") + object.dump();
  }
  json_list += "]}";
  for (const std::string& item : encoded) items.push_back(&item);
  std::string answer = testing::protobuf_envelope(
      "v1", "PodList", testing::protobuf_list_raw("812", "next-page", 40, items));
  model::Snapshot expected;
  model::DecodeSummary expected_summary = model::decode_json(json_list, &expected);

  for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, answer.size()}) {
    INFO("chunk " << chunk);
    model::Snapshot snapshot;
    model::ProtobufSnapshotDecoder decoder(&snapshot);
    for (size_t at = 0; at < answer.size(); at += chunk) {
      decoder.feed(std::string_view(answer).substr(at, chunk));
    }
    model::DecodeSummary summary = decoder.finish();
    CHECK(summary.objects == expected_summary.objects);
    CHECK(summary.errors.size() == expected_summary.errors.size());
    CHECK(summary.list_resource_version == "812");
    CHECK(summary.list_continue == "next-page");
    REQUIRE(snapshot.pods.size() == expected.pods.size());
    for (size_t i = 0; i < snapshot.pods.size(); ++i) CHECK((snapshot.pods[i] == expected.pods[i]));
  }
}

TEST_CASE("a protobuf object the model refuses is reported with its name and field", "[protobuf]") {
  nlohmann::json pod = nlohmann::json::parse(read_file(kData + "rich-pod.json"));
  // The fake encodes every field of the API's messages: probes, statuses' images, ... which the
  // decoder skips unread (the examples' equality above is with them present).
  CHECK(pod_answer(pod).find("/healthz") != std::string::npos);
  pod["spec"]["tolerations"][1]["effect"] = "NoScheduleAtAll";
  model::Snapshot snapshot;
  model::DecodeSummary summary = model::decode_protobuf(pod_answer(pod), &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].to_string() ==
        "Pod ml/trainer-0: spec.tolerations[1].effect: expected one of NoSchedule, "
        "PreferNoSchedule, NoExecute, found \"NoScheduleAtAll\"");
  CHECK(snapshot.pods.empty());

  pod = nlohmann::json::parse(read_file(kData + "rich-pod.json"));
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  summary = model::decode_protobuf(pod_answer(pod), &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].object == "Pod ml/trainer-0");
  CHECK(summary.errors[0].path == "spec.containers[0].resources.requests.cpu");

  pod["metadata"].erase("name");
  pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1";
  summary = model::decode_protobuf(pod_answer(pod), &snapshot);
  REQUIRE(summary.errors.size() == 1);
  CHECK(summary.errors[0].to_string() == "document: metadata.name: required field is missing");
  CHECK(snapshot.pods.empty());
}

TEST_CASE("broken protobuf answers are errors, other kinds are skipped", "[protobuf]") {
  nlohmann::json pod = nlohmann::json::parse(read_file(kData + "rich-pod.json"));
  std::string answer = pod_answer(pod);
  model::Snapshot snapshot;

  // Cut anywhere before the object's last byte: never a pod, always an error on the document
  // (the envelope's last 4 bytes are its empty contentEncoding and contentType: cut there, the
  // object is whole and read, and the cut is still an error).
  for (size_t cut :
       {size_t{0}, size_t{2}, size_t{9}, answer.size() / 2, answer.size() - 5, answer.size() - 1}) {
    INFO("cut at " << cut);
    model::DecodeSummary summary = model::decode_protobuf(answer.substr(0, cut), &snapshot);
    REQUIRE(summary.errors.size() == 1);
    CHECK(summary.errors[0].object == "document");
    CHECK(summary.errors[0].message.find("not a readable Kubernetes protobuf answer") == 0);
    CHECK(snapshot.pods.size() == (cut == answer.size() - 1 ? 1 : 0));
    snapshot = {};
  }

  // A length so large that the offset it ends at wraps around to the field's own start: an error,
  // at once (it once looped for ever), as are keys over 29 bits and varints over 64 bits.
  for (std::string bad_answer :
       {std::string("k8s\0\x22\xf5\xff\xff\xff\xff\xff\xff\xff\xff\x01", 15),
        std::string("k8s\0\x82\x80\x80\x80\x80\x02\x00", 11),
        std::string("k8s\0\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 15)}) {
    model::DecodeSummary summary = model::decode_protobuf(bad_answer, &snapshot);
    REQUIRE(summary.errors.size() == 1);
    CHECK(summary.errors[0].object == "document");
  }

  model::DecodeSummary json = model::decode_protobuf(R"({"kind":"PodList"})", &snapshot);
  REQUIRE(json.errors.size() == 1);
  CHECK(json.errors[0].message.find("does not begin with k8s\\0") != std::string::npos);

  // A list item whose bytes are no Pod: that item is an error, the others are read.
  std::string good = testing::encode_protobuf_object(pod, "Pod");
  std::string bad = "\x0a\xff\xff\xff";
  model::DecodeSummary mixed = model::decode_protobuf(
      testing::protobuf_envelope("v1", "PodList",
                                 testing::protobuf_list_raw("5", "", std::nullopt, {&good, &bad})),
      &snapshot);
  CHECK(mixed.objects == 1);
  REQUIRE(mixed.errors.size() == 1);
  CHECK(mixed.errors[0].object == "items[1]");
  CHECK(snapshot.pods.size() == 1);

  // A kind the protobuf decoder does not read is counted, as the JSON decoder counts it.
  model::Snapshot other;
  model::DecodeSummary skipped = model::decode_protobuf(
      testing::protobuf_envelope("v1", "ConfigMapList",
                                 testing::protobuf_list_raw("5", "", std::nullopt, {&good})),
      &other);
  CHECK(skipped.ok());
  CHECK(skipped.skipped.at("ConfigMap") == 1);
  CHECK(other.pods.empty());
}

TEST_CASE("a protobuf Status gives its code, reason and message", "[protobuf]") {
  std::string answer =
      testing::protobuf_status({{"status", "Failure"},
                                {"reason", "Expired"},
                                {"code", 410},
                                {"message", "The provided continue parameter is too old"}});
  auto status = model::decode_protobuf_status(answer);
  REQUIRE(status.has_value());
  CHECK(status->code == 410);
  CHECK(status->reason == "Expired");
  CHECK(status->message == "The provided continue parameter is too old");
  CHECK_FALSE(model::decode_protobuf_status(R"({"kind":"Status"})").has_value());
  CHECK_FALSE(model::decode_protobuf_status(
                  pod_answer(nlohmann::json::parse(read_file(kData + "rich-pod.json"))))
                  .has_value());
  CHECK(model::is_protobuf_content_type("application/vnd.kubernetes.protobuf"));
  CHECK(model::is_protobuf_content_type("application/vnd.kubernetes.protobuf;stream=watch"));
  CHECK(model::is_protobuf_content_type(" Application/VND.Kubernetes.Protobuf ; stream=watch"));
  CHECK_FALSE(model::is_protobuf_content_type("application/json"));
}

TEST_CASE("protobuf times read as their JSON: Go's zero time, the epoch, years JSON cannot hold",
          "[protobuf]") {
  namespace core = k8s::io::api::core::v1;
  auto decode = [](const core::Pod& message) {
    model::Snapshot snapshot;
    model::DecodeSummary summary = model::decode_protobuf(
        testing::protobuf_envelope("v1", "Pod", message.SerializeAsString()), &snapshot);
    for (const model::DecodeError& error : summary.errors) INFO(error.to_string());
    REQUIRE(summary.ok());
    REQUIRE(snapshot.pods.size() == 1);
    return snapshot.pods[0];
  };
  core::Pod message;
  message.mutable_metadata()->set_name("p");
  // Go's zero time is an empty message (JSON null); the epoch is seconds 0, written.
  message.mutable_metadata()->mutable_creationtimestamp();
  message.mutable_metadata()->mutable_deletiontimestamp();  // a pointer to the zero time: null
  message.mutable_status()->mutable_starttime()->set_seconds(0);
  core::PodCondition* old = message.mutable_status()->add_conditions();
  old->set_type("Ready");
  old->set_status("True");
  old->mutable_lasttransitiontime()->set_seconds(-62135596799);  // 0001-01-01T00:00:01Z
  core::PodCondition* epoch = message.mutable_status()->add_conditions();
  epoch->set_type("PodScheduled");
  epoch->mutable_lasttransitiontime()->set_seconds(0);
  model::Pod pod = decode(message);
  CHECK(pod.meta.creation_timestamp.empty());
  CHECK_FALSE(pod.meta.deleting);
  CHECK(pod.start_time == "1970-01-01T00:00:00Z");
  std::vector<model::PodConditions::Condition> conditions = pod.conditions.list();
  REQUIRE(conditions.size() == 2);
  // Outside the years the JSON decoder reads (1678-2261): no time, as from its JSON.
  CHECK_FALSE(conditions[0].last_transition_seconds.has_value());
  CHECK(conditions[1].last_transition_seconds == std::optional<int64_t>(0));

  // A year Go's JSON cannot write (about 67536) is not taken for another date.
  message.mutable_metadata()->mutable_creationtimestamp()->set_seconds(2069000000000);
  message.mutable_metadata()->mutable_deletiontimestamp()->set_seconds(1);
  pod = decode(message);
  CHECK(pod.meta.creation_timestamp.rfind("unreadable time", 0) == 0);
  CHECK(pod.meta.deleting);
}

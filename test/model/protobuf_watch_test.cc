// A protobuf watch stream (model/protobuf_watch.h): frames split from bytes in chunks of any
// size; each WatchEvent read as the JSON line of the same event is (model/decode.h's
// WatchEventDecoder): the same type, identity, bookmark, ERROR code, object and errors.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/decode.h"
#include "model/protobuf_watch.h"
#include "test/kube/fake_api_protobuf.h"

using namespace loadshift::model;
using loadshift::testing::protobuf_watch_frame;

namespace {

nlohmann::json pod(const std::string& name, const std::string& cpu = "250m") {
  return {{"kind", "Pod"},
          {"apiVersion", "v1"},
          {"metadata",
           {{"name", name},
            {"namespace", "ml"},
            {"resourceVersion", "120"},
            {"labels", {{"app", "trainer"}}},
            {"annotations", {{"team", "vision"}}}}},
          {"spec",
           {{"nodeName", "n1"},
            {"tolerations", {{{"key", "nvidia.com/gpu.product"}, {"operator", "Exists"}}}},
            {"containers", {{{"name", "c"}, {"resources", {{"requests", {{"cpu", cpu}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

std::string line(const std::string& type, const nlohmann::json& object) {
  return nlohmann::json{{"type", type}, {"object", object}}.dump();
}

// The frame's body (its 4-byte length taken off by a reader).
std::string body_of(const std::string& framed) {
  WatchFrameReader reader;
  reader.feed(framed);
  std::optional<std::string_view> frame = reader.next();
  REQUIRE(frame);
  return std::string(*frame);
}

struct Both {
  bool json_ok = false, protobuf_ok = false;
  WatchEventSummary json, protobuf;
  Snapshot json_object, protobuf_object;
};

// One event line decoded as JSON, and as the protobuf frame the fake API server makes of it.
Both decode_both(const std::string& event_line, const std::string& kind = "Pod") {
  Both both;
  WatchEventDecoder decoder;
  both.json_ok = decoder.decode(event_line, &both.json_object, &both.json);
  both.protobuf_ok = decode_protobuf_watch_event(
      body_of(protobuf_watch_frame(event_line, "v1", kind)), &both.protobuf_object, &both.protobuf);
  return both;
}

void check_same(const Both& both) {
  REQUIRE(both.json_ok);
  REQUIRE(both.protobuf_ok);
  CHECK(both.protobuf.type == both.json.type);
  CHECK(both.protobuf.name == both.json.name);
  CHECK(both.protobuf.namespace_ == both.json.namespace_);
  CHECK(both.protobuf.resource_version == both.json.resource_version);
  CHECK(both.protobuf.initial_events_end == both.json.initial_events_end);
  CHECK(both.protobuf.decoded.objects == both.json.decoded.objects);
  REQUIRE(both.protobuf.decoded.errors.size() == both.json.decoded.errors.size());
  for (size_t i = 0; i < both.json.decoded.errors.size(); ++i) {
    CHECK(both.protobuf.decoded.errors[i].to_string() == both.json.decoded.errors[i].to_string());
  }
  CHECK(both.protobuf.error_code == both.json.error_code);
  const Snapshot& a = both.protobuf_object;
  const Snapshot& b = both.json_object;
  CHECK(((std::vector<Pod>(a.pods.begin(), a.pods.end()) ==
          std::vector<Pod>(b.pods.begin(), b.pods.end()))));
  CHECK(((a.nodes == b.nodes)));
}

}  // namespace

TEST_CASE("protobuf watch: frames are split from bytes in pieces of any size",
          "[protobuf][watch]") {
  std::string stream;
  std::vector<std::string> bodies;
  for (int i = 0; i < 5; ++i) {
    std::string framed =
        protobuf_watch_frame(line("ADDED", pod("p" + std::to_string(i))), "v1", "Pod");
    bodies.push_back(framed.substr(4));
    stream += framed;
  }
  for (size_t piece : {size_t{1}, size_t{3}, size_t{4}, size_t{7}, size_t{4096}}) {
    INFO("pieces of " << piece);
    WatchFrameReader reader;
    std::vector<std::string> seen;
    for (size_t at = 0; at < stream.size(); at += piece) {
      reader.feed(std::string_view(stream).substr(at, piece));
      while (auto frame = reader.next()) seen.emplace_back(*frame);
    }
    CHECK(seen == bodies);
    CHECK(reader.pending() == 0);
    CHECK_FALSE(reader.broken());
  }
  // Cut inside a frame: held, not returned.
  WatchFrameReader cut;
  cut.feed(std::string_view(stream).substr(0, stream.size() - 3));
  size_t whole = 0;
  while (cut.next()) ++whole;
  CHECK(whole == 4);
  CHECK(cut.pending() == bodies.back().size() + 4 - 3);
  // An empty frame is a frame (no WatchEvent: its decoder refuses it).
  WatchFrameReader empty;
  empty.feed(std::string(4, '\0'));
  std::optional<std::string_view> nothing = empty.next();
  REQUIRE(nothing);
  CHECK(nothing->empty());
  Snapshot none;
  WatchEventSummary no_event;
  CHECK_FALSE(decode_protobuf_watch_event(*nothing, &none, &no_event));
  // The longest frame allowed is waited for; one byte more breaks the stream.
  auto length = [](uint32_t n) {
    return std::string{static_cast<char>(n >> 24), static_cast<char>((n >> 16) & 0xff),
                       static_cast<char>((n >> 8) & 0xff), static_cast<char>(n & 0xff)};
  };
  WatchFrameReader longest;
  longest.feed(length(WatchFrameReader::kMaxFrame) + "abc");
  CHECK_FALSE(longest.next());
  CHECK_FALSE(longest.broken());
  WatchFrameReader too_long;
  too_long.feed(length(WatchFrameReader::kMaxFrame + 1) + "abc");
  CHECK_FALSE(too_long.next());
  CHECK(too_long.broken());
  // A length no object has: the stream is broken, nothing more is returned.
  WatchFrameReader huge;
  huge.feed(std::string("\x7f\xff\xff\xff", 4) + "abc");
  CHECK_FALSE(huge.next());
  CHECK(huge.broken());
  huge.feed(stream);
  CHECK_FALSE(huge.next());
}

TEST_CASE("protobuf watch: every event reads as its JSON line", "[protobuf][watch]") {
  SECTION("ADDED and MODIFIED objects are decoded") {
    Both added = decode_both(line("ADDED", pod("trainer-0")));
    check_same(added);
    CHECK(added.protobuf.type == "ADDED");
    CHECK(added.protobuf.name == "trainer-0");
    CHECK(added.protobuf.namespace_ == "ml");
    CHECK(added.protobuf.resource_version == "120");
    REQUIRE(added.protobuf_object.pods.size() == 1);
    CHECK(std::as_const(added.protobuf_object.pods)[0].containers[0].requests.cpu_milli == 250);
    check_same(decode_both(line("MODIFIED", pod("trainer-0", "2"))));
    nlohmann::json node = {{"kind", "Node"},
                           {"apiVersion", "v1"},
                           {"metadata", {{"name", "n1"}, {"resourceVersion", "7"}}},
                           {"status", {{"allocatable", {{"cpu", "8"}, {"memory", "32Gi"}}}}}};
    Both node_event = decode_both(line("ADDED", node), "Node");
    check_same(node_event);
    CHECK(node_event.protobuf_object.nodes.size() == 1);
  }
  SECTION("DELETED: the identity, the object not decoded") {
    Both deleted = decode_both(line("DELETED", pod("trainer-0")));
    check_same(deleted);
    CHECK(deleted.protobuf.name == "trainer-0");
    CHECK(deleted.protobuf_object.pods.empty());
  }
  SECTION("BOOKMARK: progress, and the end of a watch-list's initial events") {
    nlohmann::json mark = {
        {"kind", "Pod"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", "12345"}}}};
    Both progress = decode_both(line("BOOKMARK", mark));
    check_same(progress);
    CHECK(progress.protobuf.resource_version == "12345");
    CHECK_FALSE(progress.protobuf.initial_events_end);
    mark["metadata"]["annotations"] = {{"other", "x"}, {"k8s.io/initial-events-end", "true"}};
    Both end = decode_both(line("BOOKMARK", mark));
    check_same(end);
    CHECK(end.protobuf.initial_events_end);
    // The annotation on an object is no bookmark.
    nlohmann::json odd = pod("odd");
    odd["metadata"]["annotations"]["k8s.io/initial-events-end"] = "true";
    Both added = decode_both(line("ADDED", odd));
    check_same(added);
    CHECK_FALSE(added.protobuf.initial_events_end);
  }
  SECTION("ERROR: the Status' code and text") {
    nlohmann::json status = {
        {"kind", "Status"},    {"apiVersion", "v1"},
        {"status", "Failure"}, {"message", "too old resource version: 1 (200)"},
        {"reason", "Expired"}, {"code", 410}};
    Both error = decode_both(line("ERROR", status));
    check_same(error);
    CHECK(error.protobuf.error_code == 410);
    CHECK(error.protobuf.error_text == "410 Expired: too old resource version: 1 (200)");
  }
  SECTION("a bad object is reported as in JSON, named, with its field") {
    Both bad = decode_both(line("ADDED", pod("web-9", "lots")));
    check_same(bad);
    REQUIRE(bad.protobuf.decoded.errors.size() == 1);
    CHECK(bad.protobuf.decoded.errors[0].path == "spec.containers[0].resources.requests.cpu");
    CHECK(bad.protobuf.name == "web-9");
    CHECK(bad.protobuf_object.pods.empty());
  }
}

TEST_CASE("protobuf watch: a frame that is no WatchEvent is refused", "[protobuf][watch]") {
  const std::string good = body_of(protobuf_watch_frame(line("ADDED", pod("a")), "v1", "Pod"));
  Snapshot one;
  WatchEventSummary event;
  REQUIRE(decode_protobuf_watch_event(good, &one, &event));
  CHECK(one.pods.size() == 1);
  std::vector<std::string> refused = {
      "",                               // nothing
      good.substr(0, good.size() / 2),  // cut
      std::string("\x0a\x05"
                  "ADDED",
                  7),                      // a type, no object
      std::string("\x12\x02\x0a\x00", 4),  // an object, no type
      "\x0a\x05"
      "ADDED"
      "\x12\x05\x0a\x03"
      "abc",           // an object without the k8s\0 envelope
      "\xff\xff\xff",  // not protobuf
  };
  // Envelopes that hold no single object: no raw bytes, no kind, a list.
  auto event_of = [](const std::string& envelope_fields) {
    std::string answer = std::string("k8s\0", 4) + envelope_fields;
    std::string raw_extension = std::string("\x0a", 1) + static_cast<char>(answer.size()) + answer;
    return std::string(
               "\x0a\x05"
               "ADDED\x12",
               8) +
           static_cast<char>(raw_extension.size()) + raw_extension;
  };
  const std::string pod_kind("\x0a\x09\x0a\x02v1\x12\x03Pod", 11);  // typeMeta {v1, Pod}
  const std::string list_kind("\x0a\x0d\x0a\x02v1\x12\x07PodList", 15);
  const std::string no_kind("\x0a\x04\x0a\x02v1", 6);
  const std::string pod_bytes("\x12\x06\x0a\x04\x0a\x02p1", 8);  // raw: Pod{metadata{name p1}}
  const std::string list_bytes("\x12\x04\x0a\x00\x12\x00", 6);   // raw: ListMeta, one item
  {
    // The shape itself is right: with a kind and bytes it is read.
    Snapshot read;
    WatchEventSummary named;
    REQUIRE(decode_protobuf_watch_event(event_of(pod_kind + pod_bytes), &read, &named));
    CHECK(named.name == "p1");
  }
  refused.push_back(event_of(pod_kind));                // no raw bytes
  refused.push_back(event_of(no_kind + pod_bytes));     // no kind
  refused.push_back(event_of(list_kind + list_bytes));  // a list is no event
  // A malformed annotation entry in the object's metadata.
  refused.push_back(event_of(pod_kind + std::string("\x12\x06\x0a\x04\x62\x02\x0a\xff", 8)));
  for (const std::string& frame : refused) {
    INFO("frame of " << frame.size() << " bytes");
    Snapshot none;
    WatchEventSummary out;
    CHECK_FALSE(decode_protobuf_watch_event(frame, &none, &out));
    CHECK(none.pods.empty());
  }
}

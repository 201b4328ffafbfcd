// WatchEventDecoder: one watch line at a time, the object decoded straight from the line.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "model/decode.h"

using namespace loadshift::model;

namespace {

std::string pod_event(const std::string& type, const std::string& name, const std::string& rv,
                      const std::string& cpu = "250m") {
  return R"({"type":")" + type +
         R"(","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + name +
         R"(","namespace":"ml","resourceVersion":")" + rv +
         R"("},"spec":{"nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":")" +
         cpu + R"("}}}]},"status":{"phase":"Running"}}})";
}

}  // namespace

TEST_CASE("a watch decoder decodes ADDED and MODIFIED objects from the line, event after event") {
  WatchEventDecoder decoder;
  for (int i = 0; i < 3; ++i) {  // the same decoder, reused
    Snapshot one;
    WatchEventSummary event;
    std::string name = "web-" + std::to_string(i);
    REQUIRE(decoder.decode(pod_event(i == 1 ? "MODIFIED" : "ADDED", name, std::to_string(100 + i)),
                           &one, &event));
    CHECK(event.type == (i == 1 ? "MODIFIED" : "ADDED"));
    CHECK(event.name == name);
    CHECK(event.namespace_ == "ml");
    CHECK(event.resource_version == std::to_string(100 + i));
    CHECK(event.decoded.ok());
    CHECK(event.decoded.objects == 1);
    REQUIRE(one.pods.size() == 1);
    CHECK(std::as_const(one.pods)[0].meta.name == name);
    CHECK(std::as_const(one.pods)[0].containers[0].requests.cpu_milli == 250);
  }
}

TEST_CASE("a watch decoder leaves DELETED, BOOKMARK and ERROR objects undecoded") {
  WatchEventDecoder decoder;
  Snapshot one;
  WatchEventSummary deleted;
  REQUIRE(decoder.decode(pod_event("DELETED", "web-0", "120"), &one, &deleted));
  CHECK(deleted.type == "DELETED");
  CHECK(deleted.name == "web-0");
  CHECK(deleted.resource_version == "120");
  CHECK(deleted.decoded.objects == 0);
  CHECK(one.pods.empty());

  WatchEventSummary bookmark;
  REQUIRE(decoder.decode(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12345","creationTimestamp":null},"spec":{"containers":null},"status":{}}})",
      &one, &bookmark));
  CHECK(bookmark.type == "BOOKMARK");
  CHECK(bookmark.resource_version == "12345");
  CHECK(bookmark.name.empty());
  CHECK_FALSE(bookmark.initial_events_end);  // progress only
  CHECK(one.pods.empty());

  // The bookmark that ends a watch-list's initial events.
  WatchEventSummary end;
  REQUIRE(decoder.decode(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12346","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}})",
      &one, &end));
  CHECK(end.initial_events_end);
  CHECK(end.resource_version == "12346");
  // The same annotation on an object is no bookmark.
  WatchEventSummary added;
  REQUIRE(decoder.decode(
      R"({"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"odd","namespace":"ml","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":[{"name":"c"}]}}})",
      &one, &added));
  CHECK_FALSE(added.initial_events_end);
  CHECK(one.pods.size() == 1);
  one = Snapshot();

  WatchEventSummary error;
  REQUIRE(decoder.decode(
      R"x({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (200)","reason":"Expired","code":410}})x",
      &one, &error));
  CHECK(error.type == "ERROR");
  CHECK(error.decoded.objects == 0);
  CHECK(error.error_code == 410);  // the Status read for its code: list again
  CHECK(error.error_text.find("too old resource version") != std::string::npos);
  WatchEventSummary other;
  REQUIRE(decoder.decode(
      R"({"type":"ERROR","object":{"kind":"Status","status":"Failure","message":"internal","code":500}})",
      &one, &other));
  CHECK(other.error_code == 500);
  WatchEventSummary no_status;
  REQUIRE(decoder.decode(R"({"type":"ERROR","object":{"message":"what"}})", &one, &no_status));
  CHECK(no_status.error_code == 0);
  CHECK(no_status.error_text.find("what") != std::string::npos);
}

TEST_CASE("a watch decoder reports a bad object and refuses a line that is no event") {
  WatchEventDecoder decoder;
  Snapshot one;
  WatchEventSummary event;
  REQUIRE(decoder.decode(pod_event("ADDED", "web-9", "130", "lots"), &one, &event));
  CHECK(event.name == "web-9");  // named although its spec is wrong
  REQUIRE(event.decoded.errors.size() == 1);
  CHECK(event.decoded.errors[0].to_string().find("Pod ml/web-9") != std::string::npos);
  CHECK(event.decoded.errors[0].path == "spec.containers[0].resources.requests.cpu");
  CHECK(one.pods.empty());

  for (const char* line : {R"({"type":"ADDED"})", R"({"object":{}})", R"(["ADDED", {}])",
                           R"({"type":7,"object":{}})", R"({"type":"ADDED","object":[]})",
                           R"({"type":"ADDED","object":{"metadata":)", "not json"}) {
    INFO(line);
    WatchEventSummary refused;
    CHECK_FALSE(decoder.decode(line, &one, &refused));
    CHECK(one.pods.empty());
  }
  // The decoder is fine after a refused line.
  REQUIRE(decoder.decode(pod_event("ADDED", "web-10", "131"), &one, &event));
  CHECK(one.pods.size() == 1);
}

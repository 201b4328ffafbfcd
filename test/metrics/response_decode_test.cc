// Decoding /api/v1/query answers: vector, scalar, rejected result types, Prometheus errors,
// warnings, special values, malformed bodies, HTTP statuses.
#include <catch2/catch.hpp>
#include <cmath>

#include "metrics/prometheus_response.h"

using namespace loadshift::metrics;

namespace {

// The failure a body produces; fails the test when it decodes.
QueryFailure failure_of(std::string_view body, long status = 200) {
  try {
    decode_http_answer(status, body);
  } catch (const QueryFailure& failure) {
    return failure;
  }
  FAIL("expected a QueryFailure for " << body);
  return QueryFailure("", "");
}

}  // namespace

TEST_CASE("an instant vector decodes into labelled samples", "[decode]") {
  InstantResult r = decode_instant_response(R"({"status":"success","data":{"resultType":"vector",
    "result":[{"metric":{"instance":"te1","job":"node"},"value":[1700000000.5,"42.25"]},
              {"metric":{"instance":"10.0.0.2:9100"},"value":[1700000000,"7"]}]}})");
  CHECK_FALSE(r.scalar);
  REQUIRE(r.samples.size() == 2);
  CHECK(r.samples[0].labels.at("instance") == "te1");
  CHECK(r.samples[0].labels.at("job") == "node");
  CHECK(r.samples[0].timestamp == 1700000000.5);
  CHECK(r.samples[0].value == 42.25);
  CHECK(r.samples[1].value == 7);
  CHECK(r.warnings.empty());
}

TEST_CASE("an empty vector is a valid answer", "[decode]") {
  InstantResult r =
      decode_instant_response(R"({"status":"success","data":{"resultType":"vector","result":[]}})");
  CHECK(r.samples.empty());
}

TEST_CASE("a scalar decodes into one sample without labels", "[decode]") {
  InstantResult r = decode_instant_response(
      R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"3.5"]}})");
  CHECK(r.scalar);
  REQUIRE(r.samples.size() == 1);
  CHECK(r.samples[0].labels.empty());
  CHECK(r.samples[0].value == 3.5);
}

TEST_CASE("matrix and string results are rejected with advice", "[decode]") {
  QueryFailure matrix = failure_of(R"({"status":"success","data":{"resultType":"matrix",
    "result":[{"metric":{"instance":"te1"},"values":[[1700000000,"1"],[1700000015,"2"]]}]}})");
  CHECK(matrix.reason() == "bad_response");
  CHECK_FALSE(matrix.retryable());
  CHECK(std::string(matrix.what()) ==
        "expected an instant vector or scalar, got matrix: use an instant query, e.g. wrap range "
        "selectors in avg_over_time");
  QueryFailure string = failure_of(
      R"({"status":"success","data":{"resultType":"string","result":[1700000000,"hello"]}})");
  CHECK_THAT(string.what(), Catch::StartsWith("expected an instant vector or scalar, got string"));
}

TEST_CASE("status error carries Prometheus' errorType and error", "[decode]") {
  QueryFailure f = failure_of(
      R"({"status":"error","errorType":"execution","error":"query processing would load too many samples"})");
  CHECK(f.reason() == "prometheus_error");
  CHECK(std::string(f.what()) == "execution: query processing would load too many samples");
}

TEST_CASE("warnings and infos are kept for people", "[decode]") {
  InstantResult r = decode_instant_response(R"({"status":"success","warnings":["partial response"],
    "infos":["PromQL info: metric might not be a counter"],
    "data":{"resultType":"vector","result":[]}})");
  REQUIRE(r.warnings.size() == 2);
  CHECK(r.warnings[0] == "partial response");
  CHECK(r.warnings[1] == "info: PromQL info: metric might not be a counter");
}

TEST_CASE("NaN and infinities decode as such, for the caller to judge", "[decode]") {
  InstantResult r = decode_instant_response(R"({"status":"success","data":{"resultType":"vector",
    "result":[{"metric":{"instance":"a"},"value":[1,"NaN"]},
              {"metric":{"instance":"b"},"value":[1,"+Inf"]},
              {"metric":{"instance":"c"},"value":[1,"-Inf"]},
              {"metric":{"instance":"d"},"value":[1,"1e2"]}]}})");
  REQUIRE(r.samples.size() == 4);
  CHECK(std::isnan(r.samples[0].value));
  CHECK(std::isinf(r.samples[1].value));
  CHECK(r.samples[1].value > 0);
  CHECK(std::isinf(r.samples[2].value));
  CHECK(r.samples[2].value < 0);
  CHECK(r.samples[3].value == 100);
  double v = 0;
  CHECK(parse_sample_value("+5", v));
  CHECK(v == 5);
  CHECK_FALSE(parse_sample_value("", v));
  CHECK_FALSE(parse_sample_value("12abc", v));
  CHECK_FALSE(parse_sample_value("high", v));
}

TEST_CASE("malformed bodies and missing fields are bad responses that say where", "[decode]") {
  struct Case {
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {"<html>Bad Gateway</html>", "response is not JSON"},
      {"", "response is not JSON"},
      {R"({"status":"success","data":{"resultType":"scalar","result":[1e400,"1"]}})",
       "response is not JSON"},  // a number a double cannot hold: out_of_range, not parse_error
      {R"([1,2])", "expected a JSON object with \"status\", got an array"},
      {R"({"data":{}})", "missing \"status\""},
      {R"({"status":"success"})", "missing \"data\" object"},
      {R"({"status":"weird","data":{}})",
       "status: expected \"success\" or \"error\", got \"weird\""},
      {R"({"status":"success","data":{"result":[]}})", "data.resultType: missing"},
      {R"({"status":"success","data":{"resultType":"vector"}})", "data.result: missing"},
      {R"({"status":"success","data":{"resultType":"vector","result":{}}})",
       "data.result: expected a list, got an object"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"value":[1,"2"]}]}})",
       "data.result[0].metric: missing object"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{}}]}})",
       "data.result[0].value: missing"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,2]}]}})",
       "data.result[0].value: expected [timestamp, \"value\"], got [1,2]"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}})",
       "data.result[0].value: value \"x\" is not a number"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":1},"value":[1,"1"]}]}})",
       "data.result[0].metric.a: expected a string"},
      {R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"histogram":[1,{}]}]}})",
       "native histogram"},
      {R"({"status":"success","warnings":"oops","data":{"resultType":"vector","result":[]}})",
       "warnings: expected a list of strings"},
  };
  for (const auto& c : cases) {
    INFO(c.body);
    QueryFailure f = failure_of(c.body);
    CHECK(f.reason() == "bad_response");
    CHECK_THAT(f.what(), Catch::Contains(c.message));
  }
}

TEST_CASE("HTTP errors quote Prometheus' error body and say whether to retry", "[decode]") {
  QueryFailure bad_data = failure_of(
      R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected <op:*>"})",
      400);
  CHECK(std::string(bad_data.what()) == "HTTP 400: bad_data: 1:5: parse error: unexpected <op:*>");
  CHECK(bad_data.reason() == "prometheus_error");
  CHECK_FALSE(bad_data.retryable());

  QueryFailure unavailable =
      failure_of(R"({"status":"error","errorType":"timeout","error":"query timed out"})", 503);
  CHECK(unavailable.reason() == "prometheus_error");
  CHECK(unavailable.retryable());

  QueryFailure gateway = failure_of("<html><body>502 Bad Gateway</body></html>\nmore", 502);
  CHECK(std::string(gateway.what()) == "HTTP 502: <html><body>502 Bad Gateway</body></html>");
  CHECK(gateway.reason() == "http_5xx");
  CHECK(gateway.retryable());

  QueryFailure throttled = failure_of("too many requests", 429);
  CHECK(throttled.reason() == "http_4xx");
  CHECK(throttled.retryable());

  QueryFailure forbidden = failure_of("", 403);
  CHECK(std::string(forbidden.what()) == "HTTP 403: (empty body)");
  CHECK_FALSE(forbidden.retryable());

  // bad_data is never worth repeating, even behind a proxy that turns it into a 5xx.
  QueryFailure proxied =
      failure_of(R"({"status":"error","errorType":"bad_data","error":"invalid parameter"})", 500);
  CHECK_FALSE(proxied.retryable());
}

TEST_CASE("labels are described for messages", "[decode]") {
  CHECK(describe_labels({{"instance", "te1"}, {"job", "node"}}) ==
        "{instance=\"te1\", job=\"node\"}");
  CHECK(describe_labels({}) == "{}");
}

TEST_CASE("labels stay sorted with each name once, however they arrive", "[decode]") {
  // A hand-written or proxied answer need not list labels in name order, and may repeat one.
  InstantResult r = decode_instant_response(R"({"status":"success","data":{"resultType":"vector",
    "result":[{"metric":{"pod":"web-1","job":"x","namespace":"default","job":"kubelet"},
               "value":[1700000000,"1"]}]}})");
  REQUIRE(r.samples.size() == 1);
  const SeriesLabels& labels = r.samples[0].labels;
  CHECK(describe_labels(labels) == "{job=\"kubelet\", namespace=\"default\", pod=\"web-1\"}");
  CHECK(labels.size() == 3);
  CHECK(labels.find("pod")->second == "web-1");
  CHECK(labels.find("instance") == labels.end());
  CHECK_THROWS_AS(labels.at("instance"), std::out_of_range);

  SeriesLabels built{{"b", "2"}, {"a", "1"}, {"b", "3"}};
  built["c"] = "4";
  built["a"] = "5";
  CHECK(describe_labels(built) == "{a=\"5\", b=\"3\", c=\"4\"}");
}

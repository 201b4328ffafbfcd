// Decoding the answers of Prometheus' /api/v1/query (internal to metrics/, tested directly).
//
// An answer is usable when it is HTTP 2xx with {"status": "success", "data": {"resultType":
// "vector" | "scalar", "result": ...}}. Everything else becomes a QueryFailure whose message says
// what came back, in Prometheus' own words when it sent an error body.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace loadshift::metrics {

using SeriesLabels = std::map<std::string, std::string, std::less<>>;

// One element of an instant vector (or the single value of a scalar, with no labels). The value
// is as Prometheus sent it: NaN and +-Inf included; the caller judges it.
struct Sample {
  SeriesLabels labels;
  double timestamp = 0;  // unix seconds
  double value = 0;
};

struct InstantResult {
  bool scalar = false;  // resultType "scalar": one sample, no labels
  std::vector<Sample> samples;
  // Prometheus' "warnings" (and "infos", prefixed "info: "), to show to a person.
  std::vector<std::string> warnings;
};

// Why a query gave nothing usable. `reason` is a short token for the error counter (connect,
// timeout, http_4xx, http_5xx, prometheus_error, bad_response); `retryable` says whether asking
// again may help (connection failures, timeouts, HTTP 5xx and 429).
class QueryFailure : public std::runtime_error {
 public:
  QueryFailure(std::string reason, const std::string& message, bool retryable = false)
      : std::runtime_error(message), reason_(std::move(reason)), retryable_(retryable) {}
  const std::string& reason() const { return reason_; }
  bool retryable() const { return retryable_; }

 private:
  std::string reason_;
  bool retryable_;
};

// Decodes a response body. Throws QueryFailure: prometheus_error for {"status": "error"} (with
// errorType and error), bad_response for malformed JSON, missing or mistyped fields, a matrix or
// string result ("expected an instant vector or scalar, got matrix: ...") and unparsable values.
InstantResult decode_instant_response(std::string_view body);

// The whole HTTP answer: a 2xx status is decoded as above; any other status throws QueryFailure
// "HTTP <status>: <errorType>: <error>" (Prometheus' error body) or "HTTP <status>: <first line
// of the body>", reason prometheus_error when Prometheus' error JSON came back and http_4xx /
// http_5xx otherwise, retryable for 5xx and 429. A Prometheus error of type bad_data is never
// retryable.
InstantResult decode_http_answer(long status, std::string_view body);

// nlohmann's exception text without its "[json.exception.parse_error.101] " prefix.
std::string strip_json_exception_prefix(const std::string& what);

// A sample value as the API writes it ("1.5", "NaN", "+Inf", "-Inf", "1e3"); false when it is
// not a number at all.
bool parse_sample_value(std::string_view text, double& out);

// {instance="10.0.0.1:9100", job="node"} for messages.
std::string describe_labels(const SeriesLabels& labels);

}  // namespace loadshift::metrics

// Decoding the answers of Prometheus' /api/v1/query (internal to metrics/, tested directly).
//
// An answer is usable when it is HTTP 2xx with {"status": "success", "data": {"resultType":
// "vector" | "scalar", "result": ...}}. Everything else becomes a QueryFailure whose message says
// what came back, in Prometheus' own words when it sent an error body.
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loadshift::metrics {

// A series' labels, sorted by name, each name once. A flat vector rather than a map: an answer
// holds one per series (150,000 in a pod query of a large cluster), and Prometheus writes each
// series' labels already sorted, so they are appended without a search.
class SeriesLabels {
 public:
  using value_type = std::pair<std::string, std::string>;
  using const_iterator = std::vector<value_type>::const_iterator;

  SeriesLabels() = default;
  // A name given twice keeps its last value.
  SeriesLabels(std::initializer_list<value_type> labels);

  // The label called `name`, or end(). O(log n).
  const_iterator find(std::string_view name) const;
  // Its value; throws std::out_of_range when there is no such label.
  const std::string& at(std::string_view name) const;
  // Its value, added empty when absent.
  std::string& operator[](std::string_view name);
  // Adds the label or replaces its value; O(1) when `name` sorts after every label present.
  void set(std::string name, std::string value);
  void reserve(size_t count) { items_.reserve(count); }

  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<value_type>::iterator lower_bound(std::string_view name);
  std::vector<value_type> items_;
};

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

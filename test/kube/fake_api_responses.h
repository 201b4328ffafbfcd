// The bodies of the fake API server's answers, byte for byte as the recorded kube-apiserver writes
// them: Status objects (field order kind, apiVersion, metadata, status, message, reason, details,
// code), continue tokens, the Date header.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace loadshift::testing {

// A Status of a failure, with "\n". details_json and metadata_json are JSON objects written as
// given ("" leaves details out; metadata defaults to {}).
std::string status_body(int code, const std::string& reason, const std::string& message,
                        const std::string& details_json = "",
                        const std::string& metadata_json = "{}");
// The canonical Status of an injected failure: 401 Unauthorized, 429 TooManyRequests, 500
// InternalError, 503 ServiceUnavailable, 504 Timeout, or a generic one.
std::string injected_status_body(int code, std::optional<int> retry_after_seconds);
// 403 Forbidden for user/verb on resource[/subresource] of group, named object optional:
// `leases.coordination.k8s.io "x" is forbidden: User "u" cannot update resource "leases" in API
// group "coordination.k8s.io" in the namespace "demo"`, details {name?, group?, kind}.
std::string forbidden_body(const std::string& user, const std::string& verb,
                           const std::string& resource, const std::string& subresource,
                           const std::string& group, const std::string& ns,
                           const std::string& name);
// "pods", "leases.coordination.k8s.io": the resource as the apiserver names it in messages.
std::string qualified_resource(const std::string& resource, const std::string& group);
// {"name":...,"group":...,"kind":RESOURCE} of a Status, empty name and group left out.
std::string details_json(const std::string& name, const std::string& group,
                         const std::string& resource);
// 404 NotFound of a named object: `leases.coordination.k8s.io "x" not found` (41 for pods).
std::string not_found_body(const std::string& resource, const std::string& group,
                           const std::string& name);
// The HTTP reason phrase httplib does not know for the codes we use ("Gone" for 410, ...).
const char* reason_phrase(int code);

// {"v":"meta.k8s.io/v1","rv":RV,"start":"START"} as unpadded base64url, like the apiserver.
std::string encode_continue(int64_t rv, const std::string& start);
struct ContinueToken {
  int64_t rv = 0;
  std::string start;  // the key to start at (the last key returned plus NUL)
};
// nullopt for a token that does not decode.
std::optional<ContinueToken> decode_continue(const std::string& token);

std::string http_date();
// "2026-11-24T17:57:28Z": a metav1.Time (whole seconds, UTC).
std::string rfc3339(std::chrono::system_clock::time_point when);
std::string new_uid();  // a random UUID (version 4), as the apiserver gives objects  // "Tue, 24
                        // Nov 2026 17:55:21 GMT", now
std::string json_string(const std::string& text);  // a JSON string literal, quotes included

}  // namespace loadshift::testing

// RFC 3339 timestamps: as the API server writes them (metadata.creationTimestamp,
// status.startTime: "2026-11-20T08:00:00Z") and as a person gives them (the report's --at:
// "2026-11-22T06:00:00.250+02:00").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace loadshift::model {

// Parses an RFC 3339 date-time (date, `T` or `t` or a space, time with optional fraction, then
// `Z`/`z` or a ±HH:MM offset). Returns nullopt for anything else, including impossible dates
// (2026-02-30), out-of-range fields and years outside 1678..2261 (system_clock cannot hold
// them). Leap seconds (:60) are not accepted.
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

// "2026-11-22T04:00:00Z" (UTC, whole seconds).
std::string format_rfc3339(std::chrono::system_clock::time_point time);
// "2026-11-22T04:00:00.123456Z": metav1.MicroTime, as Leases and Events carry it.
std::string format_micro_time(std::chrono::system_clock::time_point time);

}  // namespace loadshift::model

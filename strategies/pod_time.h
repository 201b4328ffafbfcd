// Times as the API server writes them in pods (metadata.creationTimestamp, status.startTime):
// RFC 3339, "2026-11-20T08:00:00Z", with an optional fraction and a "Z" or "+hh:mm" offset.
// Internal to strategies/.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace loadshift::strategies {

// The instant `text` names, or nullopt when it is not an RFC 3339 date-time (or names a day or
// time that does not exist, such as February 30 or 25:00, or a year outside 1678..2261, which
// system_clock cannot hold: Go's zero time 0001-01-01T00:00:00Z is refused, not wrapped).
std::optional<std::chrono::system_clock::time_point> parse_pod_time(std::string_view text);

}  // namespace loadshift::strategies

// PromQL text helpers shared by the Prometheus source and its tests (internal to metrics/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace loadshift::metrics {

// A duration as PromQL writes it: whole seconds compose hours, minutes and seconds
// (300000 -> "5m", 90000 -> "1m30s", 3600000 -> "1h"); anything with a millisecond part is
// written in milliseconds (1500 -> "1500ms"). Throws std::invalid_argument for ms <= 0 (PromQL
// has no zero-length range).
std::string prometheus_duration(int64_t ms);

// True for a Prometheus label name: [a-zA-Z_][a-zA-Z0-9_]*.
bool is_label_name(std::string_view name);

}  // namespace loadshift::metrics

// The controller's log: one line per decision, as text or JSON (spdlog underneath).
//
//   text: 2026-11-24T17:57:29.123Z info evicted pod=demo/web-1 node=te3 target=te5 reason="..."
//   json: {"ts":"2026-11-24T17:57:29.123Z","level":"info","msg":"evicted","pod":"demo/web-1",...}
//
// Lines go to stderr (or to a stream the tests give), timestamps in UTC. Thread-safe.
#pragma once

#include <spdlog/common.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loadshift::controller {

enum class LogFormat { kText, kJson };

// "text" or "json"; empty otherwise.
std::optional<LogFormat> parse_log_format(std::string_view text);

// Sends every later log_line() to `out` (stderr when null) in `format`. Call once at start; a
// test may call it again to capture lines.
void configure_logging(LogFormat format, std::ostream* out = nullptr);

using LogFields = std::vector<std::pair<std::string_view, std::string>>;

// One line: `message` (a few stable words, e.g. "evicted", "cycle skipped") and its fields.
void log_line(spdlog::level::level_enum level, std::string_view message,
              const LogFields& fields = {});

}  // namespace loadshift::controller

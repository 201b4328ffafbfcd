// Structured log lines over spdlog: the format is chosen once, each line is built here.
#include "controller/structured_log.h"

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>

namespace loadshift::controller {
namespace {

std::atomic<LogFormat> g_format{LogFormat::kText};

// A text value: bare when it is one word of plain characters, else quoted JSON-style.
std::string text_value(std::string_view value) {
  bool bare = !value.empty();
  for (char c : value) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) >= 0x7f) {
      bare = false;
      break;
    }
  }
  if (bare) return std::string(value);
  return nlohmann::json(std::string(value))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_string(std::string_view value) {
  return nlohmann::json(std::string(value))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::optional<LogFormat> parse_log_format(std::string_view text) {
  if (text == "text") return LogFormat::kText;
  if (text == "json") return LogFormat::kJson;
  return std::nullopt;
}

void configure_logging(LogFormat format, std::ostream* out) {
  spdlog::sink_ptr sink;
  if (out != nullptr) {
    sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(*out, /*force_flush=*/true);
  } else {
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  }
  auto logger = std::make_shared<spdlog::logger>("loadshift", sink);
  if (format == LogFormat::kJson) {
    logger->set_pattern(R"({"ts":"%Y-%m-%dT%H:%M:%S.%eZ","level":"%l",%v})",
                        spdlog::pattern_time_type::utc);
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  }
  logger->set_level(spdlog::level::debug);
  logger->flush_on(spdlog::level::debug);
  spdlog::set_default_logger(std::move(logger));
  g_format = format;
}

void log_line(spdlog::level::level_enum level, std::string_view message, const LogFields& fields) {
  std::string line;
  if (g_format.load() == LogFormat::kJson) {
    line = "\"msg\":" + json_string(message);
    for (const auto& [key, value] : fields) {
      line += "," + json_string(key) + ":" + json_string(value);
    }
  } else {
    line = std::string(message);
    for (const auto& [key, value] : fields) {
      line += " ";
      line += key;
      line += "=" + text_value(value);
    }
  }
  spdlog::log(level, "{}", line);
}

}  // namespace loadshift::controller

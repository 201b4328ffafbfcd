// What every benchmark prints besides its own figures: elapsed time and the process's peak RSS.
#pragma once

#include <chrono>
#include <fstream>
#include <string>

namespace loadshift::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Peak resident set size of this process in MiB (VmHWM), or -1 when /proc does not say.
inline double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return -1;
}

}  // namespace loadshift::bench

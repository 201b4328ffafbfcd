// Benchmark: decode_instant_response on a synthetic instant vector shaped like the controller's
// per-pod answers (issue 12): one sample per pod, labels namespace and pod (plus EXTRA_LABELS
// more, for answers that keep more labels), a fractional timestamp and a value string. Prints
// the body's size, then for each repeat the decode time, MB/s, and the memory the decode adds at
// its peak over what is held before it (VmHWM reset through /proc/self/clear_refs), with the
// process's peak RSS at the end. Asserts nothing timed (exit 1 only when the decoded samples are
// wrong).
//
// usage: bench_prometheus_decode [SAMPLES] [REPEATS] [EXTRA_LABELS]     (default 150000 5 0)
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include "metrics/prometheus_response.h"
#include "test/bench/bench_clock.h"

using namespace loadshift::metrics;
using loadshift::bench::Clock;
using loadshift::bench::peak_rss_mib;
using loadshift::bench::seconds_since;

namespace {

// A field of /proc/self/status ("VmRSS", "VmHWM") in MiB, or -1.
double status_mib(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 &&
        line[field.size()] == ':') {
      return std::stod(line.substr(field.size() + 1)) / 1024.0;
    }
  }
  return -1;
}

// Resets VmHWM to the current VmRSS; false when the kernel refuses.
bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

// The value of sample `i`: millicores with three decimals, some in exponent form and some NaN,
// as a real answer may have them.
std::string value_text(size_t i) {
  char text[32];
  if (i % 1000 == 999) return "NaN";
  if (i % 7 == 0) {
    std::snprintf(text, sizeof text, "%.6e", static_cast<double>(i % 4000) * 1.25);
  } else {
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(i % 4000) * 0.37);
  }
  return text;
}

// The body: {"status":"success","data":{"resultType":"vector","result":[...]}}, labels in name
// order as Prometheus writes them.
std::string make_body(size_t samples, size_t extra_labels) {
  std::string out = R"({"status":"success","data":{"resultType":"vector","result":[)";
  out.reserve(samples * (110 + 30 * extra_labels));
  char buffer[160];
  for (size_t i = 0; i < samples; ++i) {
    if (i) out += ',';
    out += R"({"metric":{)";
    for (size_t l = 0; l < extra_labels; ++l) {
      std::snprintf(buffer, sizeof buffer, R"("label_%02zu":"value-%zu-%zu",)", l, l, i % 97);
      out += buffer;
    }
    std::snprintf(buffer, sizeof buffer,
                  R"("namespace":"team-%03zu","pod":"web-%05zu-7f9c6d5b8d-x%06zu"},)", i % 200,
                  i / 30, i);
    out += buffer;
    std::snprintf(buffer, sizeof buffer, R"("value":[1735731900.%03zu,")", i % 1000);
    out += buffer;
    out += value_text(i);
    out += "\"]}";
  }
  out += "]}}";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t samples = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 150000;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  const size_t extra = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;

  const std::string body = make_body(samples, extra);
  const double mb = static_cast<double>(body.size()) / 1e6;
  std::printf("body: %zu samples, %zu labels each, %.1f MB; VmRSS %.0f MiB\n", samples, 2 + extra,
              mb, status_mib("VmRSS"));

  bool ok = true;
  for (int r = 0; r < repeats; ++r) {
    malloc_trim(0);
    const double before = status_mib("VmRSS");
    const bool reset = reset_peak_rss();
    const auto start = Clock::now();
    double held_mib = 0;
    {
      InstantResult result = decode_instant_response(body);
      const double seconds = seconds_since(start);
      held_mib = status_mib("VmRSS") - before;
      const double peak_mib = reset ? status_mib("VmHWM") - before : -1;
      std::printf("decode %d: %.1f ms, %.0f MB/s, +%.0f MiB at its peak, +%.0f MiB held\n", r + 1,
                  seconds * 1e3, mb / seconds, peak_mib, held_mib);
      // Spot checks: the count, a label, a value, a timestamp.
      const Sample& last = result.samples.back();
      double expected = 0;
      parse_sample_value(value_text(samples - 1), expected);
      char ns[16];
      std::snprintf(ns, sizeof ns, "team-%03zu", (samples - 1) % 200);
      ok = ok && result.samples.size() == samples && last.labels.size() == 2 + extra &&
           last.labels.at("namespace") == ns &&
           (last.value == expected || (std::isnan(last.value) && std::isnan(expected))) &&
           last.timestamp > 1735731900;
    }
  }
  std::printf("peak RSS of the process: %.0f MiB\n", peak_rss_mib());
  if (!ok) {
    std::fprintf(stderr, "decoded samples differ from the body\n");
    return 1;
  }
  return 0;
}

#include "test/prometheus/node_series.h"

#include <charconv>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace loadshift::testing {

double CpuIdle::fraction_until(int64_t t) const {
  double fraction = idle;
  for (const IdleChange& change : changes) {
    if (t <= change.after) break;
    fraction = change.idle;
  }
  return fraction;
}

double CpuIdle::idle_seconds(int64_t from, int64_t to) const {
  double sum = 0;
  for (int64_t t = from + kScrapeSeconds; t <= to; t += kScrapeSeconds) {
    sum += fraction_until(t) * kScrapeSeconds;
  }
  return sum;
}

double expected_cpu_percent(const NodeSeries& node, int64_t t, int64_t window_seconds) {
  double idle_rate_sum = 0;
  for (const CpuIdle& cpu : node.cpus) {
    idle_rate_sum += cpu.idle_seconds(t - window_seconds, t) / static_cast<double>(window_seconds);
  }
  return 100.0 * (1.0 - idle_rate_sum / static_cast<double>(node.cpus.size()));
}

double expected_memory_percent(const NodeSeries& node) {
  return 100.0 * (1.0 - node.memory_available_bytes / node.memory_total_bytes);
}

double expected_pod_cpu_milli(const PodSeries& pod) {
  double cores = 0;
  for (const ContainerUsage& c : pod.containers) cores += c.cores;
  return cores * 1000.0;
}

double expected_pod_memory_bytes(const PodSeries& pod) {
  double bytes = 0;
  for (const ContainerUsage& c : pod.containers) bytes += c.memory_bytes;
  return bytes;
}

namespace {

// Buffered OpenMetrics output; numbers in their shortest exact form.
class OpenMetricsWriter {
 public:
  explicit OpenMetricsWriter(const std::filesystem::path& file)
      : file_(file), out_(std::fopen(file.c_str(), "wb"), &std::fclose) {
    if (!out_) throw std::runtime_error(file_.string() + ": cannot create the OpenMetrics file");
    buffer_.reserve(kFlushAt + 4096);
  }

  void line(std::string_view text) {
    buffer_ += text;
    buffer_ += '\n';
    flush_if_full();
  }

  // `series` is the name with its labels, e.g. node_memory_MemTotal_bytes{instance="a"}.
  void sample(std::string_view series, double value, int64_t timestamp) {
    buffer_ += series;
    buffer_ += ' ';
    append_number(value);
    buffer_ += ' ';
    append_number(timestamp);
    buffer_ += '\n';
    ++samples_;
    flush_if_full();
  }

  size_t finish() {
    line("# EOF");
    flush();
    if (std::fclose(out_.release()) != 0) {
      throw std::runtime_error(file_.string() + ": cannot finish writing the OpenMetrics file");
    }
    return samples_;
  }

 private:
  static constexpr size_t kFlushAt = 1 << 20;

  template <typename Number>
  void append_number(Number value) {
    char text[64];
    auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    if (ec != std::errc()) throw std::runtime_error("cannot format a sample value");
    buffer_.append(text, end);
  }

  void flush_if_full() {
    if (buffer_.size() >= kFlushAt) flush();
  }

  void flush() {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), out_.get()) != buffer_.size()) {
      throw std::runtime_error(file_.string() + ": write failed (disk full?)");
    }
    buffer_.clear();
  }

  std::filesystem::path file_;
  std::unique_ptr<FILE, int (*)(FILE*)> out_;
  std::string buffer_;
  size_t samples_ = 0;
};

std::string labels(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) {
  std::string text = "{";
  for (const auto& [name, value] : pairs) {
    if (text.size() > 1) text += ',';
    text += name;
    text += "=\"";
    text += value;
    text += '"';
  }
  text += '}';
  return text;
}

void write_node_cpu(OpenMetricsWriter& out, const NodeSeries& node) {
  for (size_t index = 0; index < node.cpus.size(); ++index) {
    const CpuIdle& cpu = node.cpus[index];
    const std::string cpu_label = std::to_string(index);
    // Counters start where a node up for a while would be, not at zero.
    const double start = 100000.0 + 1000.0 * static_cast<double>(index);
    for (std::string_view mode : {"idle", "user"}) {
      const std::string series =
          "node_cpu_seconds_total" +
          labels({{"cpu", cpu_label}, {"instance", node.instance}, {"mode", mode}});
      double value = start;
      for (int64_t t = node.first; t <= node.last; t += kScrapeSeconds) {
        if (t > node.first) {
          double idle = cpu.fraction_until(t);
          value += (mode == "idle" ? idle : 1.0 - idle) * kScrapeSeconds;
        }
        out.sample(series, value, t);
      }
    }
  }
}

void write_gauge(OpenMetricsWriter& out, const std::string& series, double value, int64_t first,
                 int64_t last) {
  for (int64_t t = first; t <= last; t += kScrapeSeconds) out.sample(series, value, t);
}

}  // namespace

size_t write_openmetrics(const SeriesSet& set, const std::filesystem::path& file) {
  OpenMetricsWriter out(file);
  // OpenMetrics wants each family in one piece: all series of a family, then the next family.
  out.line("# HELP node_cpu_seconds Seconds the CPUs spent in each mode.");
  out.line("# TYPE node_cpu_seconds counter");
  for (const NodeSeries& node : set.nodes) write_node_cpu(out, node);

  out.line("# HELP node_memory_MemAvailable_bytes Memory information field MemAvailable_bytes.");
  out.line("# TYPE node_memory_MemAvailable_bytes gauge");
  for (const NodeSeries& node : set.nodes) {
    write_gauge(out, "node_memory_MemAvailable_bytes" + labels({{"instance", node.instance}}),
                node.memory_available_bytes, node.first, node.last);
  }
  out.line("# HELP node_memory_MemTotal_bytes Memory information field MemTotal_bytes.");
  out.line("# TYPE node_memory_MemTotal_bytes gauge");
  for (const NodeSeries& node : set.nodes) {
    write_gauge(out, "node_memory_MemTotal_bytes" + labels({{"instance", node.instance}}),
                node.memory_total_bytes, node.first, node.last);
  }

  // A pod's series: each container, then the pod cgroup (container="") with the sums.
  auto pod_series = [](const PodSeries& pod, std::string_view container) {
    return labels({{"container", container},
                   {"instance", pod.instance},
                   {"namespace", pod.namespace_name},
                   {"pod", pod.pod}});
  };
  if (!set.pods.empty()) {
    out.line("# HELP container_cpu_usage_seconds Cumulative cpu time consumed in seconds.");
    out.line("# TYPE container_cpu_usage_seconds counter");
    for (const PodSeries& pod : set.pods) {
      for (const ContainerUsage& c : pod.containers) {
        double value = 50.0;
        for (int64_t t = pod.first; t <= pod.last; t += kScrapeSeconds) {
          if (t > pod.first) value += c.cores * kScrapeSeconds;
          out.sample("container_cpu_usage_seconds_total" + pod_series(pod, c.name), value, t);
        }
      }
      double value = 50.0 * static_cast<double>(pod.containers.size());
      const double cores = expected_pod_cpu_milli(pod) / 1000.0;
      for (int64_t t = pod.first; t <= pod.last; t += kScrapeSeconds) {
        if (t > pod.first) value += cores * kScrapeSeconds;
        out.sample("container_cpu_usage_seconds_total" + pod_series(pod, ""), value, t);
      }
    }
    out.line("# HELP container_memory_working_set_bytes Current working set in bytes.");
    out.line("# TYPE container_memory_working_set_bytes gauge");
    for (const PodSeries& pod : set.pods) {
      for (const ContainerUsage& c : pod.containers) {
        write_gauge(out, "container_memory_working_set_bytes" + pod_series(pod, c.name),
                    c.memory_bytes, pod.first, pod.last);
      }
      write_gauge(out, "container_memory_working_set_bytes" + pod_series(pod, ""),
                  expected_pod_memory_bytes(pod), pod.first, pod.last);
    }
  }
  return out.finish();
}

}  // namespace loadshift::testing

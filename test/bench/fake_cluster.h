// What the benchmarks that read a generated cluster through the API share: the cluster file cut
// into serialized objects per collection (for the test's fake API server, which then runs in a
// child process so that the client's figures are the client's), the lines the child writes back
// (its URL, its CA file, ...), and the process's resident set size.
#pragma once

#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_item_splitter.h"
#include "test/kube/seed_cluster.h"

namespace loadshift::bench {

// Cuts the file's List into serialized items by collection, reading the kind of each item.
class ItemsByCollection : public model::JsonItemSplitter::Listener {
 public:
  std::map<std::string, std::vector<std::string>> items;  // collection path -> compact JSON
  size_t skipped = 0;
  void on_item(const model::PaddedBuffer& item, size_t, uint64_t) override {
    std::string_view text = item.view();
    size_t at = text.find("\"kind\"");
    if (at == std::string_view::npos) {
      ++skipped;
      return;
    }
    size_t open = text.find('"', text.find(':', at) + 1);
    size_t close = text.find('"', open + 1);
    const char* collection =
        testing::collection_of_kind(std::string(text.substr(open + 1, close - open - 1)));
    if (collection == nullptr) {
      ++skipped;
      return;
    }
    // The fake gives every object its resourceVersion; compact, as an API server sends it.
    nlohmann::json object = nlohmann::json::parse(text);
    if (object.contains("metadata")) object["metadata"].erase("resourceVersion");
    items[collection].push_back(object.dump());
  }
  void on_top_level_string(std::string_view, std::string_view) override {}
};

// Reads a List (as gen_cluster.py writes it) in 1 MiB chunks into `out`; false with `*error` set
// when the file does not split.
inline bool load_cluster_items(const std::string& path, ItemsByCollection* out,
                               std::string* error) {
  model::JsonItemSplitter splitter(out);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return false;
  }
  std::vector<char> buffer(1 << 20);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0) {
    splitter.feed(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  if (!splitter.finish()) {
    *error = path + ": " + splitter.error();
    return false;
  }
  return true;
}

// Reads `count` newline-ended lines from `fd` (the child's hello); fewer when the child ends first.
inline std::vector<std::string> read_lines(int fd, int count) {
  std::vector<std::string> lines;
  std::string line;
  char c;
  while (static_cast<int>(lines.size()) < count && ::read(fd, &c, 1) == 1) {
    if (c == '\n') {
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  return lines;
}

// A field of /proc/self/status in MiB ("VmRSS": resident now, "VmHWM": peak), or -1.
inline double status_mib(std::string_view field) {
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

// Resident set size now (VmRSS), in MiB.
inline double rss_mib() {
  return status_mib("VmRSS");
}

// Resets VmHWM to the current VmRSS (Linux: "5" to /proc/self/clear_refs); false when refused.
inline bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

}  // namespace loadshift::bench

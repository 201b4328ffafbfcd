// Saving what loadshift read: a v1 List of the raw objects, and the usage file.
#include "cli/snapshot_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace loadshift::cli {

// Cuts one page (a List document) into its items, gives each its kind and apiVersion, and
// writes each to `out` as it arrives (a page from the watch cache is a whole collection: it is
// never held), after the `before` items `out` already has.
class ListFileWriter::Items : public model::JsonItemSplitter::Listener {
 public:
  // Items of built-in typed lists carry no kind or apiVersion: they get them here. Custom
  // resources are listed with their own, which stay as they are.
  Items(const kube::Collection& collection, std::FILE* out, size_t before)
      : prefix_(collection.custom ? std::string()
                                  : "{\"kind\":\"" + collection.kind + "\",\"apiVersion\":\"" +
                                        collection.api_version + "\""),
        splitter_(this),
        out_(out),
        before_(before) {}

  void feed(std::string_view bytes) {
    if (!splitter_.feed(bytes)) throw std::runtime_error(error());
  }
  void finish() {
    if (!splitter_.finish()) throw std::runtime_error(error());
  }
  size_t count() const { return count_; }

  void on_item(const model::PaddedBuffer& item, size_t, uint64_t) override {
    std::string_view body = item.view();
    size_t open = body.find('{');
    if (open == std::string_view::npos) {
      throw std::runtime_error("a list item that is not an object");
    }
    if (before_ + count_ > 0) write(",\n");
    ++count_;
    if (prefix_.empty()) {
      write(body);
      return;
    }
    body.remove_prefix(open + 1);
    size_t first = body.find_first_not_of(" \t\r\n");
    write(prefix_);
    if (first != std::string_view::npos && body[first] != '}') write(",");
    write(body);
  }
  void on_top_level_string(std::string_view, std::string_view) override {}

 private:
  std::string error() const {
    return "a page of the list is not JSON: " + splitter_.error() + " at byte " +
           std::to_string(splitter_.error_offset());
  }
  void write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), out_) != text.size()) {
      throw std::runtime_error("cannot write a temporary file");
    }
  }
  std::string prefix_;
  model::JsonItemSplitter splitter_;
  std::FILE* out_;
  size_t before_;
  size_t count_ = 0;
};

ListFileWriter::ListFileWriter(std::ostream& out) : out_(out) {
  out_ << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{},\"items\":[\n";
}

ListFileWriter::~ListFileWriter() {
  if (pending_ != nullptr) std::fclose(pending_);
}

void ListFileWriter::begin_page(const kube::Collection& collection) {
  if (collection.path != collection_) {
    flush_collection();
    collection_ = collection.path;
  }
  if (pending_ == nullptr) {
    pending_ = std::tmpfile();
    if (pending_ == nullptr) throw std::runtime_error("cannot create a temporary file");
  }
  page_start_ = std::ftell(pending_);
  items_ = std::make_unique<Items>(collection, pending_, pending_count_);
}

void ListFileWriter::page_bytes(std::string_view bytes) {
  items_->feed(bytes);
}

void ListFileWriter::end_page(bool complete) {
  if (!items_) return;
  if (complete) {
    items_->finish();
    pending_count_ += items_->count();
  } else if (pending_ != nullptr) {
    // What the broken-off page wrote goes: the file ends where the page began.
    if (std::fflush(pending_) != 0 || ftruncate(fileno(pending_), page_start_) != 0 ||
        std::fseek(pending_, page_start_, SEEK_SET) != 0) {
      throw std::runtime_error("cannot cut a temporary file back");
    }
  }
  items_.reset();
}

void ListFileWriter::restart(const kube::Collection&) {
  if (pending_ != nullptr) std::fclose(pending_);
  pending_ = nullptr;
  pending_count_ = 0;
}

void ListFileWriter::flush_collection() {
  if (pending_ == nullptr) return;
  // A write the disk refused shows here at the latest (rewind would drop the error).
  if (std::fflush(pending_) != 0 || std::ferror(pending_)) {
    throw std::runtime_error("cannot write a temporary file");
  }
  std::rewind(pending_);
  if (!first_ && pending_count_ > 0) out_ << ",\n";
  char buffer[1 << 16];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pending_)) > 0) out_.write(buffer, n);
  std::fclose(pending_);
  pending_ = nullptr;
  if (pending_count_ > 0) first_ = false;
  written_ += pending_count_;
  pending_count_ = 0;
}

size_t ListFileWriter::finish() {
  flush_collection();
  out_ << "\n]}\n";
  return written_;
}

std::string usage_file_json(const metrics::UsageMap& usage) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::object();
  for (const auto& [name, node] : usage.nodes) {
    nlohmann::ordered_json entry = nlohmann::ordered_json::object();
    if (node.cpu_memory_measured) {
      entry["cpu"] = node.cpu.percent;
      entry["memory"] = node.memory.percent;
      if (node.cpu.sustained_min) entry["cpuMin"] = *node.cpu.sustained_min;
      if (node.cpu.sustained_max) entry["cpuMax"] = *node.cpu.sustained_max;
      if (node.memory.sustained_min) entry["memoryMin"] = *node.memory.sustained_min;
      if (node.memory.sustained_max) entry["memoryMax"] = *node.memory.sustained_max;
    }
    if (node.metric_resource) entry["metricResource"] = *node.metric_resource;
    nodes[name] = std::move(entry);
  }
  nlohmann::ordered_json pods = nlohmann::ordered_json::object();
  std::vector<const std::pair<const std::string, metrics::PodUsage>*> by_key;  // file order
  by_key.reserve(usage.pods.size());
  for (const auto& entry : usage.pods) by_key.push_back(&entry);
  std::sort(by_key.begin(), by_key.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : by_key) {
    pods[entry->first] = {{"cpu", entry->second.cpu_milli}, {"memory", entry->second.memory_bytes}};
  }
  nlohmann::ordered_json doc = {{"nodes", std::move(nodes)}, {"pods", std::move(pods)}};
  return doc.dump(2) + "\n";
}

}  // namespace loadshift::cli

#include "cli/snapshot_files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace loadshift::cli {
namespace {

using model::DecodeError;
using model::DecodeSummary;

constexpr size_t kChunkBytes = 1 << 20;

struct FileCloser {
  void operator()(FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<FILE, FileCloser>;

void merge(DecodeSummary& into, DecodeSummary from, const std::string& path) {
  into.objects += from.objects;
  for (const auto& [kind, count] : from.skipped) into.skipped[kind] += count;
  for (DecodeError& error : from.errors) {
    error.object = path + ": " + error.object;
    if (into.errors.size() < DecodeSummary::kMaxErrors) {
      into.errors.push_back(std::move(error));
    } else {
      ++into.errors_dropped;
    }
  }
  into.errors_dropped += from.errors_dropped;
}

DecodeSummary file_error(const std::string& path, const std::string& message) {
  DecodeSummary summary;
  summary.errors.push_back(DecodeError{path, "", message});
  return summary;
}

DecodeSummary read_one(const std::string& path, model::Snapshot* snapshot) {
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) return file_error(path, std::string("cannot open: ") + std::strerror(errno));
  std::string chunk(kChunkBytes, '\0');
  size_t got = std::fread(chunk.data(), 1, chunk.size(), file.get());
  size_t first = 0;
  while (first < got && std::strchr(" \t\r\n", chunk[first]) != nullptr) ++first;
  bool json = first < got && chunk[first] == '{';
  if (!json) {
    std::string text(chunk.data(), got);
    while ((got = std::fread(chunk.data(), 1, chunk.size(), file.get())) > 0) {
      text.append(chunk.data(), got);
    }
    if (std::ferror(file.get())) return file_error(path, "read error");
    return model::decode_yaml(text, snapshot);
  }
  model::JsonSnapshotDecoder decoder(snapshot);
  do {
    decoder.feed(std::string_view(chunk.data(), got));
  } while ((got = std::fread(chunk.data(), 1, chunk.size(), file.get())) > 0);
  if (std::ferror(file.get())) return file_error(path, "read error");
  return decoder.finish();
}

}  // namespace

DecodeSummary read_snapshot_files(const std::vector<std::string>& paths,
                                  model::Snapshot* snapshot) {
  DecodeSummary all;
  for (const std::string& path : paths) merge(all, read_one(path, snapshot), path);
  return all;
}

}  // namespace loadshift::cli

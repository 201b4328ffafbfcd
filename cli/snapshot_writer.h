// `loadshift snapshot`: the cluster as loadshift read it, saved as a `v1 List` that
// `--snapshot` reads back (every object exactly as the API server sent it, its kind and
// apiVersion added, as kubectl get -o json writes a List), and the usage fetched at the same
// moment in the usage-file format (`--usage`).
#pragma once

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "kube/cluster_reader.h"
#include "metrics/usage.h"
#include "model/json_item_splitter.h"

namespace loadshift::cli {

// Receives the pages of kube::read_cluster() and writes their items to `out` as one v1 List.
// Pages that broke off and lists that started over leave nothing behind: a collection's items
// are kept in a temporary file until its list is complete.
class ListFileWriter : public kube::PageObserver {
 public:
  explicit ListFileWriter(std::ostream& out);
  ~ListFileWriter() override;

  void begin_page(const kube::Collection& collection) override;
  void page_bytes(std::string_view bytes) override;
  void end_page(bool complete) override;
  void restart(const kube::Collection& collection) override;

  // Writes the last collection and closes the List. Returns the number of objects written.
  // Throws std::runtime_error when a page was not JSON or the temporary file failed.
  size_t finish();

 private:
  class Items;
  void flush_collection();
  std::ostream& out_;
  std::unique_ptr<Items> items_;
  std::string collection_;        // path of the collection being read
  std::FILE* pending_ = nullptr;  // its complete pages so far, and the page being read
  long page_start_ = 0;           // where in `pending_` the page being read began
  size_t written_ = 0, pending_count_ = 0;
  bool first_ = true;
};

// The usage-file JSON of `usage` (FileSource reads it back into an equal UsageMap for the nodes
// and pods it knows): nodes with cpu, memory, the sustained values and metricResource (a node
// known only by its MetricResource carries that alone), pods in millicores and bytes.
std::string usage_file_json(const metrics::UsageMap& usage);

}  // namespace loadshift::cli

// Snapshot files: Kubernetes objects saved with `kubectl get ... -o json` (or YAML manifests),
// read from disk into one Snapshot.
#pragma once

#include <string>
#include <vector>

#include "model/decode.h"
#include "model/model.h"

namespace loadshift::cli {

// Reads each file into `snapshot`. JSON files (first non-blank byte `{`) are streamed in chunks,
// so a list larger than memory allows for text still decodes; anything else is read as YAML.
// Errors name the file; a file that cannot be opened is an error, never skipped.
model::DecodeSummary read_snapshot_files(const std::vector<std::string>& paths,
                                         model::Snapshot* snapshot);

}  // namespace loadshift::cli

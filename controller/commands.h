// The loadshift subcommands, callable without the command line (tests use them directly).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace loadshift::controller {

// The release version, e.g. "0.1.0".
std::string_view version();

// `loadshift feasible --snapshot FILE...`: decodes the files and writes the feasibility report to
// `out`. Returns 0, or 2 after writing every decode error to `err`.
int run_feasible(const std::vector<std::string>& snapshot_files, std::ostream& out,
                 std::ostream& err);

}  // namespace loadshift::controller

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

// `loadshift validate FILE`: loads the policy at `file` and writes its warnings to `err`. When it
// is valid, writes a summary of the effective policy (or, with `print_effective`, the effective
// policy itself as YAML) to `out` and returns 0. Otherwise writes every error to `err`, one per
// line as `error: file:line:col: path: message`, and returns 2.
int run_validate(const std::string& file, std::ostream& out, std::ostream& err,
                 bool print_effective = false);

}  // namespace loadshift::controller

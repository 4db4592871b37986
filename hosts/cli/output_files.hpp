// SPDX-License-Identifier: Apache-2.0
// output_files.hpp: the files a verb writes besides stdout (search's
// --ranking-csv and -o, compare's -o). A file or folder that cannot be
// written is E-OUTPUT (exit 2) naming the path and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace ndsearch::cli {

// Creates `dir` and its parents where missing (-o DIR); throws E-OUTPUT
// when it cannot, or when `dir` is something other than a folder.
void create_output_dir(const std::filesystem::path& dir);

// Writes `path` through `write`; throws E-OUTPUT when it cannot be opened or written.
void write_output_file(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write);

}  // namespace ndsearch::cli

// SPDX-License-Identifier: Apache-2.0
// output_files.hpp: the files a verb writes because its settings name them
// (search's ranking CSV, output folder, report and emitted config, explain's
// timeline and report, compare's output folder, apply's output). A file or folder that cannot be
// written is E-OUTPUT (exit 2) naming the path and the system's reason.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace ndsearch {

// Creates `dir` and its parents where missing (`output_dir`); throws E-OUTPUT
// when it cannot, or when `dir` is something other than a folder.
void create_output_dir(const std::filesystem::path& dir);

// Writes `path` through `write`; throws E-OUTPUT when it cannot be opened or written.
void write_output_file(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write);

}  // namespace ndsearch

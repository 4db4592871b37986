// SPDX-License-Identifier: Apache-2.0
// scratch_file.hpp: the fuzz input as a file with a fixed name, for code that
// reads files the way the host hands them over (a path, never a buffer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace ndsearch::fuzz {

// A private folder of this process (under $TMPDIR, else /tmp), removed at
// exit; every fuzz process (libFuzzer's -fork and -jobs children too) has its own.
const std::filesystem::path& scratch_dir();

// Writes `data` to scratch_dir()/name, replacing what was there, and returns the path.
std::filesystem::path write_scratch_file(const std::string& name, const uint8_t* data, size_t size);

// Copies `source` to scratch_dir()/name (a file a config refers to, such as a
// model folder's config.json), creating the folders on the way.
void place_beside(const std::filesystem::path& source, const std::string& name);

}  // namespace ndsearch::fuzz

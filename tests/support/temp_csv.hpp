// SPDX-License-Identifier: Apache-2.0
// temp_csv.hpp: a CSV (or another small file) the test writes into a fresh temporary file (the
// measured-runs tests build their inputs in the test, not as fixtures).
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ndsearch::test {

// `text` in a new file named PREFIX-XXXXXXSUFFIX under the temporary directory.
inline std::filesystem::path temp_file(const std::string& prefix, const std::string& suffix,
                                       const std::string& text) {
  std::string name =
      (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX" + suffix)).string();
  const int fd = mkstemps(name.data(), static_cast<int>(suffix.size()));
  REQUIRE(fd >= 0);
  close(fd);
  std::ofstream(name, std::ios::binary) << text;
  return name;
}

// `text` in a new file named PREFIX-XXXXXX.csv under the temporary directory.
inline std::filesystem::path temp_csv(const std::string& prefix, const std::string& text) {
  return temp_file(prefix, ".csv", text);
}

}  // namespace ndsearch::test

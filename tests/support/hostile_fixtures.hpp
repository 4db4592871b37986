// SPDX-License-Identifier: Apache-2.0
// hostile_fixtures.hpp: where the hostile plugin fixtures of issue 11 are
// built (tests/fixtures/hostile/hostile.c, one folder per failure mode), and
// a scratch folder for each test's verdict cache or plugin folder.
#pragma once

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ndsearch::test {

// The folder holding only the fixture of `mode` (ctor_segv, init_hang, ...).
inline std::filesystem::path hostile_dir(const std::string& mode) {
  return std::filesystem::path(NDS_TEST_FIXTURES) / "hostile" / mode;
}
inline std::filesystem::path hostile(const std::string& mode) {
  return hostile_dir(mode) / ("hostile_" + mode + ".so");
}

// A fresh folder of this test's own, removed afterwards (made writable first,
// as a test may have taken its permissions away).
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "nds-isolation-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path, ec);
  }
};

}  // namespace ndsearch::test

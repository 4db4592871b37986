// SPDX-License-Identifier: Apache-2.0
// fixtures_paths.hpp: where the build put the programs and plugins the tests use.
#pragma once

#include <filesystem>
#include <string>

namespace ndsearch::test {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(NDS_TEST_FIXTURES) / (name + ".so");
}
inline std::string cli() {
  return NDS_TEST_CLI;
}

}  // namespace ndsearch::test

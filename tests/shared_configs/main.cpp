// SPDX-License-Identifier: Apache-2.0
// main.cpp: the tests on ../shared/configs; without that folder the program
// says why and exits 77, which CTest reports as skipped (DESIGN §8.9).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
  if (!std::filesystem::is_directory(NDS_TEST_SHARED_CONFIGS)) {
    std::cout << "skipped: " << NDS_TEST_SHARED_CONFIGS
              << " is absent (the frameworks' published configs live beside the project in "
                 "shared/configs; a user's clone has none)\n";
    return 77;
  }
  return Catch::Session().run(argc, argv);
}

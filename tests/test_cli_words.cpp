// SPDX-License-Identifier: Apache-2.0
// test_cli_words.cpp: the flags as the reference's users type them: -l with
// the dimensions as separate words (CONFIG first, or after --), the same
// search as one quoted string.
#include <catch2/catch.hpp>

#include "fixtures_paths.hpp"
#include "support/run_command.hpp"

namespace {

const std::string kTorchtitan =
    std::string(NDS_TEST_EXAMPLES) + "/llama3-8b-torchtitan/llama3_8b.toml";

std::string search(const std::string& args) {
  const auto r = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() +
                                             " search " + args);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out.substr(r.out.find("  tested "));
}

}  // namespace

TEST_CASE("The dimensions of -l as separate words, as the reference's users type them") {
  // The example fixes its devices (dp 32 x tp 2 = 64) and batch (64): DP TP PP
  // over 64 devices tests the (tp, pp) pairs with dp following, 16 of them.
  const std::string quoted = search(kTorchtitan + " -A nvidia-h100-sxm -l \"DP TP PP\" -t 1");
  CHECK_THAT(quoted, Catch::StartsWith("  tested 16,"));
  CHECK(search(kTorchtitan + " -A nvidia-h100-sxm -l DP TP PP -t 1").substr(0, 40) ==
        quoted.substr(0, 40));
  CHECK(search("-A nvidia-h100-sxm -t 1 -l dp tp pp -- " + kTorchtitan).substr(0, 40) ==
        quoted.substr(0, 40));
  CHECK(search(kTorchtitan + " -A nvidia-h100-sxm -l DP,TP,PP -t 1").substr(0, 40) ==
        quoted.substr(0, 40));
  // MP is the reference's TP.
  CHECK(search(kTorchtitan + " -A nvidia-h100-sxm -l DP MP PP -t 1").substr(0, 40) ==
        quoted.substr(0, 40));
}

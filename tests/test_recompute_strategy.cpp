// SPDX-License-Identifier: Apache-2.0
// test_recompute_strategy.cpp: a loaded recompute strategy whose compile
// fails (core/compile/recompute_strategy.hpp) is the user error
// E-RECOMPUTE-COMPILE, naming the strategy, the config and the plugin's
// reason, end to end through `ndsearch eval`.
#include <catch2/catch.hpp>

#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using namespace ndsearch;

TEST_CASE("A recompute strategy whose compile fails is E-RECOMPUTE-COMPILE naming it and why") {
  // tests/fixtures/recompute/compile_fails.cpp: the strategy
  // "fixture-compile-fails" throws sdk::Error with this message from compile.
  const std::string reason =
      "no layer cost table for this model (a fixture whose compile always fails)";
  const std::string config =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-8b.json";
  const std::string plugin = test::fixture("recompute/recompute_compile_fails").string();
  // test_recompute_flag.cpp's eval of dp=8: it passes the checks, so the
  // strategy is compiled to price it.
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " --plugin " + plugin +
                                   " eval " + config +
                                   " -A nvidia-h100-sxm -b 64 --seq-len 4096 -d 8 --strategy dp=8"
                                   " --recompute-strategy fixture-compile-fails --format json");
  INFO(r.err);
  CHECK(r.exit_code == 2);  // a user error (kExitUsage), not a crash
  CHECK(r.out.empty());
  // RecomputeStrategy's constructor (core/compile/recompute_strategy.cpp):
  // "recompute strategy NAME cannot price CONFIG: the plugin's message".
  CHECK_THAT(r.err, Catch::Contains("ndsearch: error [E-RECOMPUTE-COMPILE]: recompute strategy "
                                    "fixture-compile-fails cannot price " +
                                    config + ": " + reason + "\n"));
  CHECK_THAT(r.err, !Catch::Contains("E-INTERNAL"));
}

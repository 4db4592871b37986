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

TEST_CASE("A misspelt device, parser, strategy key or dimension gets the closest name") {
  const auto error_of = [](const std::string& args) {
    const auto r =
        ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " " + args);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  CHECK_THAT(error_of("eval " + kTorchtitan + " -A nvidia-h100-sx"),
             Catch::Contains("[E-DEVICE-UNKNOWN]") &&
                 Catch::Contains("(did you mean 'nvidia-h100-sxm'?)"));
  CHECK_THAT(
      error_of("model " + kTorchtitan + " -f torchtitn"),
      Catch::Contains("[E-PARSE-FRAMEWORK]") && Catch::Contains("(did you mean 'torchtitan'?)"));
  CHECK_THAT(error_of("eval " + kTorchtitan + " -A nvidia-h100-sxm --strategy tpp=2"),
             Catch::Contains("unknown key \"tpp\" (did you mean 'tp'?)"));
  CHECK_THAT(error_of("search " + kTorchtitan + " -A nvidia-h100-sxm -l DP TPP"),
             Catch::Contains("not a dimension (did you mean 'TP'?)"));
  CHECK_THAT(error_of("search " + kTorchtitan + " -A nvidia-h100-sxm --only recompte=full"),
             Catch::Contains("unknown key \"recompte\" (did you mean 'recompute'?)"));
  // Nothing close: no guess.
  CHECK_THAT(error_of("eval " + kTorchtitan + " -A quantum-9000"),
             !Catch::Contains("did you mean"));
}

TEST_CASE("CONFIG after -l is a usage error with its id, not a crash, in every verb with -l") {
  // Issue 33: `search -l DP MP PP CONFIG -A ...` threw the -l reader's
  // UserError out of CLI11's parse: terminate, exit 134. Each verb taking -l
  // now says it. (With CONFIG last, CLI11 leaves it to the positional.)
  for (const char* verb : {"search", "explain"}) {
    const auto r =
        ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " " + verb +
                                    " -l DP MP PP " + kTorchtitan + " -A nvidia-h100-sxm");
    INFO(verb << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("[E-USAGE]") &&
                          Catch::Contains("give CONFIG before -l or after --"));
    CHECK_THAT(r.err, !Catch::Contains("terminate"));
  }
}

// SPDX-License-Identifier: Apache-2.0
// test_single_dash_flags.cpp: the reference's single-dash spellings of the
// per-layer recompute flags, -ar and -ao (hosts/cli/single_dash_flags.hpp):
// which words are rewritten, and an eval with -ar answering as one with
// --auto-recompute.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "hosts/cli/single_dash_flags.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using namespace ndsearch;
using nlohmann::json;

namespace {

// The words with_double_dash_flags gives for `argv`, as text.
std::vector<std::string> rewritten(const std::vector<const char*>& argv) {
  const std::vector<const char*> words =
      cli::with_double_dash_flags(static_cast<int>(argv.size()), argv.data());
  return std::vector<std::string>(words.begin(), words.end());
}

}  // namespace

TEST_CASE("The reference's -ar and -ao are read as --ar and --ao, whole words only") {
  CHECK(rewritten({"ndsearch", "eval", "c.json", "-ar"}) ==
        std::vector<std::string>{"ndsearch", "eval", "c.json", "--ar"});
  CHECK(rewritten({"ndsearch", "search", "-ao", "c.json", "-ar"}) ==
        std::vector<std::string>{"ndsearch", "search", "--ao", "c.json", "--ar"});
  // Already ours, another short flag, a longer word, a flag's value: as they are.
  const std::vector<std::string> kept{"ndsearch", "eval", "--ar",  "--ao",       "-a",
                                      "-arx",     "-A",   "-ar=1", "--strategy", "tp=2"};
  std::vector<const char*> kept_argv;
  for (const std::string& word : kept) kept_argv.push_back(word.c_str());
  CHECK(rewritten(kept_argv) == kept);
  // After `--` every word is a positional, never a flag.
  CHECK(rewritten({"ndsearch", "eval", "-ar", "--", "-ar", "-ao"}) ==
        std::vector<std::string>{"ndsearch", "eval", "--ar", "--", "-ar", "-ao"});
  // The program's name is not a flag either.
  CHECK(rewritten({"-ar"}) == std::vector<std::string>{"-ar"});
}

TEST_CASE("eval with -ar prints what eval with --auto-recompute prints") {
  // The model, devices and budget of test_recompute_strategy_cli.cpp's
  // --auto-recompute search (Llama-3.1-70B on 64 H100 at seq 8192, 30 GB per
  // device), one strategy of it evaluated.
  const std::string eval = "env -u NDS_PLUGIN_PATH " + test::cli() + " eval " +
                           std::string(NDS_TEST_FIXTURES_SOURCE) +
                           "/configs/hf/llama-3.1-70b.json -A nvidia-h100-sxm -d 64 -b 512 "
                           "--seq-len 8192 -M 30GB --strategy dp=2,tp=8,pp=4 --format json ";
  const auto reference = test::run_command(eval + "-ar");
  INFO(reference.err);
  // CLI11 alone reads -ar as an unknown flag: E-USAGE, exit 2.
  REQUIRE(reference.exit_code == 0);
  const auto ours = test::run_command(eval + "--auto-recompute");
  INFO(ours.err);
  REQUIRE(ours.exit_code == 0);
  const json priced = json::parse(reference.out);
  CHECK(priced == json::parse(ours.out));
  // The per-layer strategy priced it (RecomputeChooser::assumption names it).
  bool stated = false;
  for (const json& a : priced["assumptions"])
    stated = stated || a.get<std::string>().find("per-layer strategy") != std::string::npos;
  CHECK(stated);
}

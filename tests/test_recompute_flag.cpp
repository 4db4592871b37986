// SPDX-License-Identifier: Apache-2.0
// test_recompute_flag.cpp: --recompute as the reference and the runtimes
// spell it (core/search/space_shortcuts.hpp, core/model/recompute_names.hpp):
// on search it restricts the recompute dimension, `auto` meaning the three
// uniform modes; on eval and explain it is the strategy's recompute=; `off`
// is none everywhere (reference §8.1).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "core/model/recompute_names.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using namespace ndsearch;
using nlohmann::json;

namespace {

const std::string kRun = "env -u NDS_PLUGIN_PATH " + test::cli();
const std::string kModel = " " + std::string(NDS_TEST_FIXTURES_SOURCE) +
                           "/configs/hf/llama-3.1-8b.json -A nvidia-h100-sxm -b 64 --seq-len 4096";

json run_json(const std::string& verb_and_flags) {
  const auto r = test::run_command(kRun + " " + verb_and_flags + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("Recompute modes read as users type them, off being none") {
  CHECK(recompute_mode_named("off") == NDS_RECOMPUTE_NONE);
  CHECK(recompute_mode_named("None") == NDS_RECOMPUTE_NONE);
  CHECK(recompute_mode_named("SELECTIVE") == NDS_RECOMPUTE_SELECTIVE);
  CHECK(recompute_mode_named("full") == NDS_RECOMPUTE_FULL);
  CHECK_FALSE(recompute_mode_named("auto"));  // a list of modes, not one: the CLI expands it
  CHECK_FALSE(recompute_mode_named("ful"));
}

TEST_CASE("search --recompute restricts the recompute dimension, auto being its three modes") {
  // -l "TP PP RECOMPUTE" on 16 devices: the same (tp, pp) pairs under each
  // mode, so the candidates tested scale with the modes listed: 3 : 2 : 1.
  const std::string search = "search" + kModel + " -d 16 -l \"TP PP RECOMPUTE\" -t 100";
  const auto all = run_json(search + " --recompute auto")["counts"]["tested"].get<uint64_t>();
  const auto two = run_json(search + " --recompute off full")["counts"]["tested"].get<uint64_t>();
  const json one = run_json(search + " --recompute full");
  REQUIRE(all % 3 == 0);
  CHECK(two == all / 3 * 2);
  CHECK(one["counts"]["tested"].get<uint64_t>() == all / 3);
  std::set<std::string> modes;
  for (const json& r : one["ranking"]) modes.insert(r["strategy"]["recompute"].get<std::string>());
  CHECK(modes == std::set<std::string>{"full"});
  // The same restriction as --only, which now reads off as well.
  CHECK(run_json(search + " --only recompute=off,full")["counts"]["tested"] == two);
}

TEST_CASE("eval --recompute is the strategy's recompute=") {
  const std::string eval = "eval" + kModel + " -d 8 --strategy dp=8";
  const json flag = run_json(eval + " --recompute full");
  CHECK(flag["strategy"]["recompute"] == "full");
  CHECK(flag["time"] == run_json(eval + ",recompute=full")["time"]);
  CHECK(run_json(eval + " --recompute off")["strategy"]["recompute"] == "none");
}

TEST_CASE(
    "The recompute flag refuses an unknown mode, auto for one strategy, and a second restriction") {
  struct Case {
    std::string flags, words;
  };
  const Case cases[] = {
      {"search" + kModel + " -d 16 --recompute bogus", "(--recompute bogus): not a recompute mode"},
      {"search" + kModel + " -d 16 --recompute full --only recompute=none",
       "(--recompute MODES) and the restrictions of the search (--only recompute=none) both "
       "restrict recompute"},
      {"eval" + kModel + " -d 8 --strategy dp=8 --recompute auto",
       "(--recompute auto) names all three modes"},
      {"eval" + kModel + " -d 8 --strategy dp=8,recompute=full --recompute off",
       "both give the recompute mode"},
      {"explain" + kModel + " -d 8 --strategy dp=8 --recompute ful", "not a recompute mode"},
  };
  for (const Case& c : cases) {
    const auto r = test::run_command(kRun + " " + c.flags);
    INFO(c.flags << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("[E-USAGE]") && Catch::Contains(c.words));
  }
}

TEST_CASE("eval shows each stage's recomputed layers and where they are") {
  // 32 layers at pp 2, vpp 2: four chunks of 8; rank 0 holds virtual stages 0
  // and 2 (layers 0-7 and 16-23), rank 1 stages 1 and 3 (8-15, 24-31);
  // full recompute recomputes every layer of each chunk.
  const std::string eval = "eval" + kModel + " -d 8 --strategy dp=2,tp=2,pp=2,vpp=2";
  const json full = run_json(eval + " --recompute full")["memory"]["stages"];
  REQUIRE(full.size() == 2);
  CHECK(full[0]["recomputed_layers"] == 16);
  CHECK(full[0]["recomputed_ranges"] == json::parse("[[0, 7], [16, 23]]"));
  CHECK(full[1]["recomputed_ranges"] == json::parse("[[8, 15], [24, 31]]"));
  const json none = run_json(eval + " --recompute off")["memory"]["stages"];
  CHECK(none[0]["recomputed_layers"] == 0);
  CHECK(none[0]["recomputed_ranges"].empty());
}

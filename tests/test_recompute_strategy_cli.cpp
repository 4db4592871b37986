// SPDX-License-Identifier: Apache-2.0
// test_recompute_strategy_cli.cpp: --auto-recompute and --offload end to end
// (hosts/cli/recompute_strategy_flags.hpp): the search never loses to the
// uniform modes, its rows say what was chosen, -o writes the potentials, and
// the flags' bad uses are errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using namespace ndsearch;
using nlohmann::json;

namespace {

const std::string kRun = "env -u NDS_PLUGIN_PATH " + test::cli();
// Llama-3.1-70B on 64 H100 at seq 8192 with 30 GB per device: the uniform
// modes' best recomputes every layer (checked below).
const std::string kSearch =
    " search " + std::string(NDS_TEST_FIXTURES_SOURCE) +
    "/configs/hf/llama-3.1-70b.json -A nvidia-h100-sxm -d 64 -b 512 --seq-len 8192 "
    "-M 30GB -t 3 -j 2 --format json";

json search(const std::string& flags) {
  const auto r = test::run_command(kRun + kSearch + " " + flags);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE(
    "Search with the per-layer strategy finds a strategy faster than the best uniform mode when "
    "that one recomputes fully") {
  const json uniform = search("");
  const json chosen = search("--auto-recompute");
  const json& best_uniform = uniform["ranking"][0];
  const json& best_chosen = chosen["ranking"][0];
  CHECK(best_uniform["strategy"]["recompute"] == "full");
  CHECK(best_uniform["recompute"] == "full");
  // Per layer, each stage recomputes only what it needs: strictly faster.
  CHECK(best_chosen["time"]["step_s"].get<double>() < best_uniform["time"]["step_s"].get<double>());
  const std::string text = best_chosen["recompute"].get<std::string>();
  CHECK(text.rfind("auto:", 0) == 0);
  CHECK(text.find('F') != std::string::npos);
  // Its stages are priced again with the same choice: per-stage runs of options.
  const json& stage = best_chosen["memory"]["stages"][0];
  REQUIRE(stage.contains("layer_options"));
  CHECK(stage["layer_options"][0]["first"] == 0);
  // The uniform modes are not a dimension then; what the bound skipped is counted.
  CHECK(chosen["counts"]["tested"].get<int64_t>() * 3 ==
        uniform["counts"]["tested"].get<int64_t>());
  CHECK(chosen["counts"]["outpaced"].get<int64_t>() > 0);
  bool stated = false;
  for (const json& a : chosen["assumptions"])
    stated = stated || a.get<std::string>().find("per-layer strategy") != std::string::npos;
  CHECK(stated);
}

TEST_CASE(
    "Search with offload and an output folder writes the recompute potentials of the top "
    "strategies") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nds_test_potentials";
  std::filesystem::remove_all(dir);
  const json r = search("--offload -o " + dir.string());
  std::ifstream csv(dir / "recompute_potentials.csv");
  std::string header, row;
  REQUIRE(std::getline(csv, header));
  CHECK(header == "rank,stage,option,layers,saved_bytes,extra_s");
  // The ten best (-o keeps every fitting one; the table lists -t 3), each
  // stage, three options (offload too): 3·pp rows each, in rank order.
  std::map<size_t, size_t> rows_of_rank;
  while (std::getline(csv, row)) ++rows_of_rank[std::stoul(row.substr(0, row.find(',')))];
  CHECK(rows_of_rank.size() == 10);
  for (size_t i = 0; i < 3; ++i)
    CHECK(rows_of_rank[i + 1] == 3 * r["ranking"][i]["strategy"]["pp"].get<size_t>());
  std::filesystem::remove_all(dir);
}

TEST_CASE("Search with swapped optimizer states prices their copies over the given host link") {
  const json r = search("--swap-optimizer --host-link-gibps 20");
  REQUIRE(!r["ranking"].empty());
  for (const json& row : r["ranking"]) {
    // The states leave every stage, and each step copies them in and out.
    for (const json& stage : row["memory"]["stages"]) CHECK(stage["optimizer_bytes"] == 0);
    CHECK(row["time"]["optimizer_swap_s"].get<double>() > 0);
  }
  // 20 GiB/s = 21.47 GB/s, said in the assumptions.
  bool stated = false;
  for (const json& a : r["assumptions"])
    stated = stated || a.get<std::string>().find(
                           "optimizer states and master weights live in "
                           "host memory, and each step copies the device's "
                           "shard in and out over a host link of 21.5 GB/s") != std::string::npos;
  CHECK(stated);
}

TEST_CASE("The per-layer flags refuse what they cannot mean") {
  auto err = [](const std::string& flags) {
    const auto r = test::run_command(kRun + kSearch + " " + flags);
    CHECK(r.exit_code == 2);
    return r.err;
  };
  CHECK_THAT(err("--host-link-gibps 50"), Catch::Contains("add activation offload (--offload)"));
  CHECK_THAT(err("--host-link-gibps 50"),
             Catch::Contains("or optimizer swapping (--swap-optimizer)"));
  CHECK_THAT(err("--swap-optimizer --host-link-overlap 0.5"),
             Catch::Contains("price the offload of activations"));
  CHECK_THAT(err("--offload --host-link-gibps 0"), Catch::Contains("give a bandwidth > 0"));
  CHECK_THAT(err("--offload --host-link-overlap 1.5"), Catch::Contains("from 0"));
  CHECK_THAT(err("--offload --host-memory lots"), Catch::Contains("not a size"));
  CHECK_THAT(err("--auto-recompute --recompute full"),
             Catch::Contains("chooses each layer's recompute"));
  CHECK_THAT(err("--recompute-strategy nonesuch"), Catch::Contains("E-RECOMPUTE-STRATEGY"));
}

TEST_CASE("The uniform strategy plugin ranks as the uniform modes the core prices without one") {
  const json builtin = search("");
  const json plugin = search("--recompute-strategy uniform");
  CHECK(plugin["counts"] == builtin["counts"]);
  REQUIRE(plugin["ranking"].size() == builtin["ranking"].size());
  for (size_t i = 0; i < builtin["ranking"].size(); ++i) {
    CHECK(plugin["ranking"][i]["strategy"] == builtin["ranking"][i]["strategy"]);
    CHECK(plugin["ranking"][i]["time"]["step_s"] == builtin["ranking"][i]["time"]["step_s"]);
    CHECK(plugin["ranking"][i]["memory"]["peak_bytes"] ==
          builtin["ranking"][i]["memory"]["peak_bytes"]);
  }
}

TEST_CASE(
    "The stated strategy plugin rescales the config's per-stage recompute as the core's rescaler "
    "does") {
  // tests/fixtures/configs/mindformers/pp8_stage_recompute.yaml states full
  // recompute of [2,2,2,1,1,1,0,0] layers per stage at pp 8: at pp 4 the
  // rescaler gives [4,3,2,0] (test_stage_rescale.cpp derives it by hand).
  const std::string eval = kRun + " eval " + std::string(NDS_TEST_FIXTURES_SOURCE) +
                           "/configs/mindformers/pp8_stage_recompute.yaml -A nvidia-h100-sxm -d 32 "
                           "--strategy pp=4 --format json";
  for (const std::string flags : {"", " --recompute-strategy stated"}) {
    const auto r = test::run_command(eval + flags);
    INFO(flags << r.err);
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    std::vector<int> per_stage;
    for (const json& s : j["memory"]["stages"])
      per_stage.push_back(s["recomputed_layers"].get<int>());
    CHECK(per_stage == std::vector<int>{4, 3, 2, 0});
  }
}

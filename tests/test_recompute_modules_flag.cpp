// SPDX-License-Identifier: Apache-2.0
// test_recompute_modules_flag.cpp: --recompute-modules (core/model/
// parse_config.cpp, apply_recompute_modules): the ops selective recompute
// rebuilds, by our name or Megatron-Core's, replacing the config's; priced in
// time and memory, said in the assumptions; a name that is not one is E-USAGE
// with the closest.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using namespace ndsearch;
using nlohmann::json;

namespace {

const std::string kEval =
    "env -u NDS_PLUGIN_PATH " + test::cli() + " eval " + std::string(NDS_TEST_FIXTURES_SOURCE) +
    "/configs/hf/llama-3.1-8b.json -A nvidia-h100-sxm -d 8 -b 64 --seq-len 4096 "
    "--strategy dp=8,mbs=1,recompute=selective";

json eval_json(const std::string& flags) {
  const auto r = test::run_command(kEval + " " + flags + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::string assumption_with(const json& j, const std::string& text) {
  for (const json& a : j["assumptions"])
    if (a.get<std::string>().find(text) != std::string::npos) return a.get<std::string>();
  return "";
}

}  // namespace

TEST_CASE(
    "The recompute module list adds the dense MLP's forward to selective recompute, by either "
    "name") {
  const json plain = eval_json("");  // an HF config states no ops: the attention core
  const json mlp = eval_json("--recompute-modules core_attn,mlp");
  const json ours = eval_json("--recompute-modules core_attention,mlp");
  // Megatron-Core's names and ours are the same ops.
  CHECK(mlp["time"]["step_s"] == ours["time"]["step_s"]);
  CHECK(mlp["memory"] == ours["memory"]);
  // Llama 3.1 8B (its config.json): 32 layers of a SwiGLU MLP, 3 · 4096 · 14336
  // = 176,160,768 parameters each; its forward again is 2 FLOPs per parameter
  // per token, over 64 sequences of 4096 tokens.
  const double tokens = 64.0 * 4096, mlp_params = 3.0 * 4096 * 14336;
  CHECK(mlp["hardware_flops_per_step"].get<double>() ==
        Approx(plain["hardware_flops_per_step"].get<double>() + tokens * 32 * 2 * mlp_params));
  CHECK(mlp["model_flops_per_step"] == plain["model_flops_per_step"]);
  CHECK(mlp["time"]["parts"]["recompute"].get<double>() >
        plain["time"]["parts"]["recompute"].get<double>());
  // Its intermediates are no longer kept.
  CHECK(mlp["memory"]["peak_bytes"].get<double>() < plain["memory"]["peak_bytes"].get<double>());
  CHECK(assumption_with(plain, "selective recompute") == "");  // nothing stated, the default
  CHECK(assumption_with(mlp, "selective recompute") ==
        "selective recompute, as the recompute module list (`recompute_modules`) states its ops, "
        "drops and "
        "runs again: the attention core, the dense MLP");
}

TEST_CASE("The model JSON names the ops selective recompute rebuilds") {
  const std::string model = "env -u NDS_PLUGIN_PATH " + test::cli() + " model " +
                            std::string(NDS_TEST_FIXTURES_SOURCE) +
                            "/configs/hf/llama-3.1-8b.json --format json";
  const auto plain = test::run_command(model);
  REQUIRE(plain.exit_code == 0);
  // An HF config states none: the attention core (Korthikanti et al. 2022 §5).
  CHECK(json::parse(plain.out)["recompute_ops"] == json::array({"core_attention"}));
  const auto given = test::run_command(model + " --recompute-modules core_attn,mlp");
  REQUIRE(given.exit_code == 0);
  CHECK(json::parse(given.out)["recompute_ops"] == json::array({"core_attention", "mlp"}));
}

TEST_CASE("The table's assumption names the --recompute-modules flag") {
  const auto r = test::run_command(kEval + " --recompute-modules alternate_matmuls");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("selective recompute, as the recompute module list "
                                    "(--recompute-modules LIST) states its ops"));
}

TEST_CASE("A name the recompute module list does not know is E-USAGE naming it and the closest") {
  const auto typo = test::run_command(kEval + " --recompute-modules core_atn,mlp");
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("E-USAGE"));
  CHECK_THAT(typo.err,
             Catch::Contains("\"core_atn\" is not a recompute module (did you mean 'core_attn'?)"));
  // Megatron has mla_up_proj; we do not price it, so it is refused, not ignored.
  const auto unpriced = test::run_command(kEval + " --recompute-modules mla_up_proj");
  CHECK(unpriced.exit_code == 2);
  CHECK_THAT(unpriced.err, Catch::Contains("\"mla_up_proj\" is not a recompute module"));
  const auto empty = test::run_command(kEval + " --recompute-modules ,");
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("\"\" is not a recompute module"));
}

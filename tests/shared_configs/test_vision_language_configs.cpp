// SPDX-License-Identifier: Apache-2.0
// test_vision_language_configs.cpp: the published Qwen2.5-VL-7B-Instruct and
// Qwen3-VL-30B-A3B-Instruct config.json files, read in place from
// ../shared/configs: their parameters against the published totals, a
// search that prices the vision tower with the language model, and the MoE
// model's experts sharded by EP as a text MoE's are.
#include <catch2/catch.hpp>

#include <ndsearch/core/planner.hpp>

#include "tests/support/shipped.hpp"

namespace {

ndsearch::Planner planner() {
  return ndsearch::Planner(ndsearch::test::shipped_plugin_settings());
}

ndsearch::ModelSettings hf(const std::string& name) {
  ndsearch::ModelSettings m;
  m.config = std::string(NDS_TEST_SHARED_CONFIGS) + "/hf/" + name;
  return m;
}

}  // namespace

TEST_CASE("The VL configs' parameters match their published totals within 0.5 %") {
  // The safetensors totals of the Hugging Face checkpoints (their model
  // cards: "8.29B params", "31.1B params"): 8,292,166,656 and 31,070,754,032.
  // The towers, by hand from transformers' Qwen2.5-VL and Qwen3-VL vision
  // models: 676,550,144 (tests/test_vision_towers.cpp) and, for Qwen3-VL,
  // patch embedding 1536·1152 + 1152 = 1,770,624, positions 2304·1152 =
  // 2,654,208, 27 layers of 15,239,504 = 411,466,608, the merger 30,679,808
  // and three DeepStack mergers of 30,686,720: 538,631,408.
  const nlohmann::json a = planner().model(hf("Qwen2.5-VL-7B-Instruct.json")).to_json();
  CHECK(a["params_total"].get<double>() == Approx(8292166656.0).epsilon(0.005));
  CHECK(a["submodels"][0]["params"] == 676550144.0);
  CHECK(a["params_text"] == 7615616512.0);
  const nlohmann::json b = planner().model(hf("Qwen3-VL-30B-A3B-Instruct.json")).to_json();
  CHECK(b["params_total"].get<double>() == Approx(31070754032.0).epsilon(0.005));
  CHECK(b["submodels"][0]["params"] == 538631408.0);
  CHECK(b["submodels"][0]["params_by_part"]["mergers"] == 30679808.0 + 3 * 30686720.0);
}

TEST_CASE("A search on Qwen2.5-VL-7B prices its tower and lists its share of memory and time") {
  // 32 H100, sequences of 8192 of which 1024 image tokens (4096 patches).
  ndsearch::SearchSettings s;
  s.model = hf("Qwen2.5-VL-7B-Instruct.json");
  s.model.seq_len = 8192;
  s.model.global_batch = 256;
  s.model.image_tokens = 1024;
  s.device = "nvidia-h100-sxm";
  s.devices = 32;
  s.top = 3;
  const nlohmann::json j = planner().search(s).to_json();
  REQUIRE(j["counts"]["fit"].get<size_t>() > 0);
  REQUIRE(j["ranking"].size() == 3);
  for (const nlohmann::json& row : j["ranking"]) {
    INFO(row.dump());
    const nlohmann::json& t = row["towers"];
    REQUIRE(t.is_object());
    CHECK(t["params"] == 676550144.0);
    // The stage holding the tower carries its parameters, gradients and
    // states, at least 2 bytes a parameter, and its activations.
    const size_t stage = t["stage"].get<size_t>();
    CHECK(t["stage_bytes"][stage].get<double>() >
          2 * 676550144.0 / (row["strategy"]["tp"].get<double>()));
    CHECK(t["memory_share"].get<double>() > 0);
    CHECK(t["memory_share"].get<double>() < 1);
    CHECK(t["time_share"].get<double>() > 0);
    CHECK(t["time_share"].get<double>() < 0.5);
    CHECK(t["flops_share"].get<double>() > 0);
  }
  bool says = false;
  for (const auto& a : j["assumptions"])
    says = says || a.get<std::string>().find("vision tower") != std::string::npos;
  CHECK(says);
}

TEST_CASE("Qwen3-VL-30B-A3B ranks strategies with ep > 1, its experts sharded as a text MoE's") {
  ndsearch::SearchSettings s;
  s.model = hf("Qwen3-VL-30B-A3B-Instruct.json");
  s.model.seq_len = 4096;
  s.model.global_batch = 128;
  s.model.image_tokens = 512;
  s.device = "nvidia-h100-sxm";
  s.devices = 32;
  s.space.dimensions = "TP PP EP MBS";
  s.space.only = {"ep=2,4,8"};
  s.top = 5;
  const nlohmann::json j = planner().search(s).to_json();
  REQUIRE(j["ranking"].size() == 5);
  for (const nlohmann::json& row : j["ranking"]) CHECK(row["strategy"]["ep"].get<int>() > 1);
  // 48 layers x 128 experts x 3·2048·768 = 28,991,029,248 routed parameters,
  // bf16: from ep 4 to ep 8 each device holds 2 x that x (1/4 - 1/8) bytes fewer.
  auto params_bytes = [&](const char* strategy) {
    ndsearch::EvaluateSettings e;
    e.model = s.model;
    e.device = s.device;
    e.devices = 32;
    e.strategy = strategy;
    return planner().evaluate(e).to_json()["memory"]["stages"][0]["params_bytes"].get<double>();
  };
  CHECK(params_bytes("tp=1,pp=1,ep=4,zero=0,mbs=1") - params_bytes("tp=1,pp=1,ep=8,zero=0,mbs=1") ==
        Approx(2 * 28991029248.0 * (1.0 / 4 - 1.0 / 8)));
}

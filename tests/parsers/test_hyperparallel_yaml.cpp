// SPDX-License-Identifier: Apache-2.0
// test_hyperparallel_yaml.cpp: `ndsearch model` on small HyperParallel YAMLs
// we wrote (tests/fixtures/configs/hyperparallel/), in the legacy schema and
// the AutoModels schema naming a Hugging Face model folder.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string hp(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hyperparallel/" + name + ".yaml";
}

ndsearch::test::CommandResult model(const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH " + cli() + " model " + args);
}

json model_json(const std::string& name) {
  auto r = model(hp(name) + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Both fixtures describe the same model: hidden 1024, 8 layers, 16 heads, 4 KV
// heads, SwiGLU 2816, vocabulary 32000 untied. A layer: attention 2,621,440 +
// MLP 3 x 1024 x 2816 = 8,650,752 + norms 2,048 = 11,274,240; x 8 =
// 90,193,920; embedding and head 65,536,000; final norm 1,024: 155,730,944.
constexpr double kTinyParams = 155730944.0;
}  // namespace

TEST_CASE("A legacy HyperParallel YAML reads config_overrides and train accelerator") {
  json j = model_json("tiny_legacy");
  CHECK(j["framework"] == "hyperparallel-yaml");
  CHECK(j["name"] == "tiny");
  CHECK(j["params_total"] == kTinyParams);
  const json& s = j["stated_strategy"];
  CHECK(s["dp"] == 4);  // dp_replicate 2 x dp_shard 2
  CHECK(s["tp"] == 2);
  CHECK(s["pp"] == 2);
  CHECK(s["zero"] == 3);  // FSDP over dp_shard
  CHECK(s["op"] == 2);
  CHECK(s["mbs"] == 2);
  // No micro_batch_num: global batch / (mbs x dp) = 64 / (2 x 4).
  CHECK(s["mbn"] == 8);
  CHECK(j["global_batch"] == 64);
  // No data.max_seq_len: the model's limit, max_position_embeddings.
  CHECK(j["seq_len"] == 2048);
  // 8 layers over 2 stages, offset [1, -1].
  CHECK(j["stage_layers"] == json::array({5, 3}));
  CHECK(j["recompute_layers"] == json::array({2, 1}));
  // No context.max_device_memory: HyperParallel's 64GB.
  CHECK(j["device_memory_bytes"] == 68719476736LL);
  CHECK(j["provenance"]["device_memory_bytes"] == "default:hyperparallel");
}

TEST_CASE("An AutoModels HyperParallel YAML reads the model folder's config json") {
  json j = model_json("automodels");
  CHECK(j["params_total"] == kTinyParams);
  CHECK(j["seq_len"] == 4096);
  const json& s = j["stated_strategy"];
  CHECK(s["dp"] == 4);  // device_num 16 / (tp 2 x pp 2)
  CHECK(s["zero"] == 3);
  CHECK(s["mbn"] == 8);  // 32 / (1 x 4)
  CHECK(s["recompute"] == "selective");
  CHECK(j["provenance"]["blocks[0].hidden_size"].get<std::string>().find("tiny_hf/config.json") !=
        std::string::npos);
}

TEST_CASE("An AutoModels YAML naming a missing folder says which path was tried") {
  auto r = model(hp("automodels_missing"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("no_such_model/config.json") != std::string::npos);
  CHECK(r.err.find("automodels_missing.yaml:3") != std::string::npos);
}

TEST_CASE("A malformed HyperParallel YAML is refused naming the file and line") {
  auto r = model(hp("malformed") + " -f hyper_v2");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("malformed.yaml:4:") != std::string::npos);
}

TEST_CASE("HyperParallel heads that do not divide the hidden size are refused naming the field") {
  auto r = model(hp("heads_not_dividing"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("[E-MODEL-SHAPE]") != std::string::npos);
  CHECK(r.err.find("model.config_overrides.num_attention_heads") != std::string::npos);
}

TEST_CASE("The YAML parsers tell MindFormers and HyperParallel files apart") {
  CHECK(model_json("tiny_legacy")["framework"] == "hyperparallel-yaml");
  auto r = model(std::string(NDS_TEST_FIXTURES_SOURCE) +
                 "/configs/mindformers/tiny_llama.yaml --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["framework"] == "mindformers-yaml");
}

TEST_CASE(
    "HyperParallel's parallel optimizer with gradient_accumulation_shard holds sharded gradients") {
  // As MindFormers' (mindformers_yaml.cpp): gathered weights kept to the
  // backward, each micro-batch's gradients reduce-scattered (ABI 1.12).
  const json sharded = model_json("tiny_legacy_sharded_grads");
  CHECK(sharded["stated_strategy"]["zero"] == 3);
  CHECK(sharded["fsdp_holding"] == "keep_sharded_grads");
  CHECK_THAT(
      sharded["provenance"]["fsdp_holding"].get<std::string>(),
      Catch::EndsWith(
          "tiny_legacy_sharded_grads.yaml:24: train.accelerator.gradient_accumulation_shard"));
}

TEST_CASE("Both HyperParallel schemas state its trainer's overlaps: none, not Megatron's") {
  // HyperParallel's PyTorch trainer waits for every exchange where it is
  // issued by default (plugins/parsers/hyperparallel_yaml, write_overlaps):
  // each switch false and said as its default, where a config stating none
  // would be priced as a well-tuned Megatron-Core run.
  for (const char* name : {"tiny_legacy", "automodels"}) {
    INFO(name);
    const json j = model_json(name);
    for (const char* key : {"tp_comm", "tp_async", "grad_reduce", "param_gather", "p2p", "moe_a2a",
                            "moe_shared", "cp"}) {
      INFO(key);
      CHECK(j["overlap"][key] == false);
      CHECK(j["provenance"][std::string("overlap.") + key] == "default:hyperparallel");
    }
  }
  const auto r =
      run_command("env -u NDS_PLUGIN_PATH " + cli() + " eval " + hp("tiny_legacy") + " -A A2");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("overlap on: none"));
  CHECK(r.out.find("well-tuned Megatron-Core") == std::string::npos);
}

// SPDX-License-Identifier: Apache-2.0
// test_model_config.cpp: a training config that names its model but not its
// shape (a MindSpeed FSDP2 YAML) takes the shape from a Hugging Face
// config.json (--model-config): the architecture from the config.json, the
// training settings from the training config; a training config that states
// the shape otherwise is an error naming both files and the field, except a
// RoPE model's position count, which is a warning.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <ndsearch/core/planner.hpp>

#include "core/input/parse_config.hpp"
#include "core/support/user_error.hpp"
#include "fixtures_paths.hpp"
#include "support/error_text.hpp"
#include "support/run_command.hpp"
#include "support/shipped.hpp"

namespace {

using namespace ndsearch;

const std::string kDir = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/model_config/";
const std::string kFsdp2 = kDir + "fsdp2_no_shape.yaml";
const std::string kShape = kDir + "small_llama.json";

Model read(const std::string& config, const std::string& model_config) {
  ParseOptions o;
  o.model_config = model_config;
  return parse_config(test::shipped_plugins(), config, o);
}

}  // namespace

TEST_CASE(
    "An FSDP2 YAML takes the model's shape from a config.json and keeps its training settings") {
  const Model m = read(kFsdp2, kShape);
  CHECK(m.framework == "megatron-args");
  CHECK(m.file == kFsdp2);
  // The shape: small_llama.json's.
  REQUIRE(m.main.blocks.size() == 1);
  const nds_layer_block& b = m.main.blocks.front().c;
  CHECK(b.layers == 4);
  CHECK(b.hidden_size == 512);
  CHECK(b.heads == 8);
  CHECK(b.kv_heads == 4);
  CHECK(b.ffn_hidden_size == 1536);
  CHECK(m.main.vocab_size == 32000);
  CHECK(m.main.name == "LlamaForCausalLM");
  CHECK_THAT(m.main.blocks.front().provenance.at("hidden_size"), Catch::StartsWith(kShape + ":"));
  // The training settings: the YAML's (cutoff_len, FSDP, recompute, AdamW).
  CHECK(m.training.seq_len == 2048);
  CHECK(m.stated.zero == 3);
  CHECK(m.stated.recompute == NDS_RECOMPUTE_FULL);
  CHECK(m.training.optimizer == NDS_OPTIMIZER_ADAMW);
  CHECK_THAT(m.training_provenance.at("seq_len"), Catch::StartsWith(kFsdp2 + ":"));
  // What the YAML leaves unknown: ndsearch's defaults, as for the config.json alone.
  CHECK(m.training.params_dtype == NDS_DTYPE_BF16);
  CHECK(m.training_provenance.at("params_dtype") == "default:ndsearch");

  // Priced like any config: 8 devices, a global batch of 16.
  EvaluateSettings e;
  e.model.config = kFsdp2;
  e.model.model_config = kShape;
  e.model.global_batch = 16;
  e.device = "nvidia-h100-sxm";
  e.devices = 8;
  const nlohmann::json j = Planner(test::shipped_plugin_settings()).evaluate(e).to_json();
  CHECK(j["valid"] == true);
  CHECK(j["strategy"]["zero"] == 3);
  CHECK(j["strategy"]["recompute"] == "full");
}

TEST_CASE("A training config without a shape names the model config that would give one") {
  ParseOptions none;
  const std::string message =
      test::error_text([&] { parse_config(test::shipped_plugins(), kFsdp2, none); });
  CHECK_THAT(message, Catch::StartsWith("[E-PARSE-NO-MODEL] " + kFsdp2 + ": describes no model"));
  CHECK_THAT(message,
             Catch::EndsWith("or the model's shape in a Hugging Face config.json with the model "
                             "config (`model_config`)"));
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " model " + kFsdp2);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("with the model config (--model-config FILE)"));
}

TEST_CASE("A training config that states another shape than the model config is an error") {
  const std::string script = kDir + "other_width.sh";
  // other_width.sh:7 states --hidden-size 640; small_llama.json line 2 hidden_size 512.
  CHECK(test::error_text([&] { read(script, kShape); }) ==
        "[E-MODEL-CONFIG] " + script + " and " + kShape +
            " disagree on the model's shape:\n  hidden_size = 640 (" + script +
            ":7: --hidden-size) but 512 (" + kShape +
            ":2: hidden_size)\nthe shape comes from the model config (`model_config`): remove the "
            "training config's shape fields, or give the config.json of the model it trains");
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " model " + script +
                                   " --model-config " + kShape);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("[E-MODEL-CONFIG]") &&
                 Catch::Contains("the shape comes from the model config (--model-config FILE)"));
}

TEST_CASE("A RoPE model's position count may differ from the model config's, with a warning") {
  const std::string script = kDir + "same_shape.sh";
  const Model m = read(script, kShape);
  CHECK(m.main.max_position_embeddings == 4096);  // the config.json's
  CHECK(m.stated.tp == 2);                        // the script's training settings
  CHECK(m.training.global_batch == 16);
  CHECK(m.main.tied_embeddings == 0);
  const std::string warning = script + " states max_position_embeddings = 8192 (" + script +
                              ":17: --max-position-embeddings), the model config " +
                              "max_position_embeddings = 4096 (" + kShape +
                              ":4: max_position_embeddings); 4096 is used: the positions are not "
                              "learned, so the length changes nothing priced";
  CHECK(std::find(m.warnings.begin(), m.warnings.end(), warning) != m.warnings.end());
}

TEST_CASE(
    "A launch script without the model's flags takes the shape and keeps its training settings") {
  // training_only.sh: seq 4096, global batch 32, tp 2, pp 2, the distributed
  // optimizer (zero 1), full recompute, bf16; no --num-layers.
  const std::string script = kDir + "training_only.sh";
  const Model m = read(script, kShape);
  CHECK(m.decoder_layers() == 4);
  CHECK(m.main.blocks.front().c.hidden_size == 512);
  CHECK(m.main.vocab_size == 32000);
  CHECK(m.training.seq_len == 4096);
  CHECK(m.training.global_batch == 32);
  CHECK(m.stated.tp == 2);
  CHECK(m.stated.pp == 2);
  CHECK(m.stated.zero == 1);
  CHECK(m.stated.recompute == NDS_RECOMPUTE_FULL);
  // The script's note that it cannot know the vocabulary is gone: the config.json states it.
  for (const std::string& w : m.warnings) CHECK_THAT(w, !Catch::Contains("vocab_size"));
  ParseOptions alone;
  CHECK_THAT(test::error_text([&] { parse_config(test::shipped_plugins(), script, alone); }),
             Catch::StartsWith("[E-PARSE-NO-MODEL] " + script + ": describes no model"));
}

// SPDX-License-Identifier: Apache-2.0
// test_hf_config_json.cpp: `ndsearch model` on Hugging Face config.json files
// we wrote from the model cards (tests/fixtures/configs/hf/): parameter counts
// against the published totals, the JSON keys, overrides and bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string hf(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/" + name + ".json";
}

ndsearch::test::CommandResult model(const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH " + cli() + " model " + args);
}

json model_json(const std::string& name, const std::string& extra = "") {
  auto r = model(hf(name) + " --format json " + extra);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}
}  // namespace

TEST_CASE("Llama-3.1-8B counts 8030261248 parameters as derived by hand") {
  // Embedding and untied head: 2 x 128256 x 4096 = 1,050,673,152.
  // A layer: Q and O 4096 x 4096 each, K and V 4096 x 1024 each (8 KV heads of
  // 128) = 41,943,040; SwiGLU 3 x 4096 x 14336 = 176,160,768; two RMSNorms
  // 8,192: 218,112,000, x 32 layers = 6,979,584,000. Final norm 4,096.
  // Total 8,030,261,248 (Meta: 8.03B).
  json j = model_json("llama-3.1-8b");
  CHECK(j["params_total"] == 8030261248.0);
  CHECK(j["params_active"] == 8030261248.0);
  CHECK(j["framework"] == "hf-config-json");
  CHECK(j["layers"] == 32);
  CHECK(j["kv_heads"] == 8);
  CHECK(j["head_dim"] == 128);  // derived: 4096 / 32
  CHECK(j["attention"] == "gqa");
}

TEST_CASE("Mixtral-8x7B counts 46.7B parameters and 12.9B active as derived by hand") {
  // A layer: attention 41,943,040 (as Llama-3.1-8B), router 4096 x 8 = 32,768,
  // 8 experts of 3 x 4096 x 14336 = 176,160,768 each, norms 8,192. All 32 layers
  // are MoE: 32 x 1,451,270,144 = 46,440,644,608; embedding and head
  // 2 x 32000 x 4096 = 262,144,000; final norm 4,096: 46,702,792,704.
  // Active: 2 experts per token: 32 x 394,305,536 + 262,148,096 = 12,879,925,248.
  json j = model_json("mixtral-8x7b");
  CHECK(j["params_total"] == 46702792704.0);
  CHECK(j["params_active"] == 12879925248.0);
  CHECK(j["experts"] == 8);
  CHECK(j["experts_per_token"] == 2);
  CHECK(j["moe_ffn_hidden_size"] == 14336);  // Mixtral's intermediate_size is the expert's
  CHECK(j["dense_layers"] == 0);
}

TEST_CASE("GPT-2 counts exactly its 124439808 parameters") {
  // Token and learned position embeddings 50257 x 768 + 1024 x 768 (tied head);
  // a layer: attention 4 x 768^2 + 3,072 biases, MLP 2 x 768 x 3072 + 3,840
  // biases, two LayerNorms 3,072 = 7,087,872, x 12; final LayerNorm 1,536.
  json j = model_json("gpt2");
  CHECK(j["params_total"] == 124439808.0);
  CHECK(j["ffn_hidden_size"] == 3072);  // n_inner null: 4 x n_embd
  CHECK(j["tied_embeddings"] == true);
  CHECK(j["position_embedding"] == "learned");
}

TEST_CASE("Published totals hold within one percent and active within three") {
  struct Published {
    const char* file;
    double total, active;  // billions, as the model cards state them
  };
  const Published models[] = {
      {"llama-3.1-8b", 8.03, 8.03}, {"llama-3.1-70b", 70.6, 70.6}, {"llama-3.1-405b", 405.9, 405.9},
      {"mixtral-8x7b", 46.7, 12.9}, {"deepseek-v3", 671, 37},      {"qwen2.5-72b", 72.7, 72.7},
      {"qwen3-235b-a22b", 235, 22},
  };
  for (const Published& p : models) {
    INFO(p.file);
    json j = model_json(p.file);
    CHECK(j["params_total"].get<double>() / 1e9 == Approx(p.total).epsilon(0.01));
    CHECK(j["params_active"].get<double>() / 1e9 == Approx(p.active).epsilon(0.03));
  }
}

TEST_CASE("DeepSeek-V3 has 3 dense layers then 58 MoE layers with MLA and one MTP layer") {
  json j = model_json("deepseek-v3");
  CHECK(j["dense_layers"] == 3);
  CHECK(j["layers"] == 61);
  CHECK(j["mtp_layers"] == 1);
  CHECK(j["attention"] == "mla");
  CHECK(j["q_lora_rank"] == 1536);
  CHECK(j["kv_lora_rank"] == 512);
  CHECK(j["head_dim"] == 192);  // qk_nope 128 + qk_rope 64
  CHECK(j["blocks"].size() == 3);
  CHECK(j["blocks"][1]["experts"] == 256);
  CHECK(j["blocks"][1]["shared_experts"] == 1);
  CHECK(j["blocks"][2]["kind"] == "mtp");
  // MTP (arXiv 2412.19437 §2.2): one MoE layer plus two norms and a 2h x h
  // projection. The MoE layer: MLA 187,107,328 (Q: 7168 x 1536 + 1536 +
  // 1536 x 128 x 192; KV: 7168 x 576 + 512 + 512 x 128 x 256; O: 128 x 128 x
  // 7168), norms 14,336, router 256 x 7168 = 1,835,008, 256 routed experts and
  // 1 shared of 3 x 7168 x 2048 = 44,040,192 each: 11,507,286,016. Plus
  // 2 x 7168 + 2 x 7168^2 = 102,774,784: 11,610,060,800.
  CHECK(j["params_mtp"] == 11610060800.0);
}

TEST_CASE("The JSON carries the documented keys with provenance and DESIGN 8.5 defaults") {
  json j = model_json("llama-3.1-8b");
  for (const char* key : {"framework",
                          "name",
                          "layers",
                          "hidden_size",
                          "heads",
                          "kv_heads",
                          "head_dim",
                          "ffn_hidden_size",
                          "vocab_size",
                          "seq_len",
                          "experts",
                          "experts_per_token",
                          "shared_experts",
                          "moe_ffn_hidden_size",
                          "dense_layers",
                          "mtp_layers",
                          "q_lora_rank",
                          "kv_lora_rank",
                          "params_total",
                          "params_active",
                          "params_mtp",
                          "global_batch",
                          "micro_batch_size",
                          "stated_strategy",
                          "recompute",
                          "dtypes",
                          "capabilities",
                          "submodels",
                          "provenance",
                          "warnings",
                          "schema_version"})
    CHECK(j.contains(key));
  CHECK(j["seq_len"].is_null());  // an HF config states no training settings
  CHECK(j["dtypes"]["params"] == "bf16");
  CHECK(j["dtypes"]["master_weights"] == "fp32");
  CHECK(j["stated_strategy"]["zero"] == 1);
  CHECK(j["provenance"]["params_dtype"] == "default:ndsearch");
  CHECK(j["provenance"]["blocks[0].hidden_size"] == hf("llama-3.1-8b") + ":2: hidden_size");
  CHECK(j["provenance"]["blocks[0].head_dim"] == "derived: hidden_size / heads");
  bool warns_seq = false;
  for (const json& w : j["warnings"])
    warns_seq = warns_seq || w.get<std::string>().find("seq_len") != std::string::npos;
  CHECK(warns_seq);
}

TEST_CASE("Training settings on the command line override the config and say so") {
  json j =
      model_json("llama-3.1-8b", "--seq-len 8192 -b 512 --mbs 2 --dtype fp16 --vocab-size 128000");
  CHECK(j["seq_len"] == 8192);
  CHECK(j["global_batch"] == 512);
  CHECK(j["micro_batch_size"] == 2);
  CHECK(j["dtypes"]["params"] == "fp16");
  CHECK(j["vocab_size"] == 128000);
  // JSON names a setting by its words and key, as the Python binding does (docs/cli.md).
  CHECK(j["provenance"]["seq_len"] == "the sequence length (`seq_len`)");
  CHECK(j["provenance"]["vocab_size"] ==
        "the vocabulary size (`vocab_size`) (overrides " + hf("llama-3.1-8b") + ":3: vocab_size)");
  CHECK(j["provenance"]["params_dtype"] == "the dtype (`dtype`) (overrides default:ndsearch)");
}

TEST_CASE("A config.json states no overlap and no fp8 recipe") {
  // No trainer is named: the core assumes a well-tuned run (time model).
  json j = model_json("llama-3.1-8b");
  for (const char* key : {"grad_reduce", "param_gather", "tp_comm", "moe_a2a", "p2p", "cp"})
    CHECK(j["overlap"][key].is_null());
  CHECK(j["fp8_recipe"] == "none");
  CHECK(j["dtypes"]["activations"] == "bf16");
}

TEST_CASE(
    "A quantization_config describes the released weights and is not read as the training recipe") {
  // DeepSeek-V3's release: fp8 e4m3 weights in 128 x 128 blocks.
  json j = model_json("fp8_release_weights");
  CHECK(j["dtypes"]["compute"] == "bf16");
  CHECK(j["fp8_recipe"] == "none");
  bool noted = false;
  for (const json& w : j["warnings"]) {
    const std::string text = w.get<std::string>();
    noted = noted ||
            (text.find("fp8_release_weights.json:6: quantization_config") != std::string::npos &&
             text.find("released weights") != std::string::npos);
  }
  CHECK(noted);
  // Understood, so not an unknown field under --strict.
  CHECK(model(hf("fp8_release_weights") + " --strict").exit_code == 0);
}

TEST_CASE(
    "The flag --dtype fp8 is fp8 GEMMs with the delayed recipe around bf16 parameters and "
    "activations") {
  json j = model_json("llama-3.1-8b", "--dtype fp8");
  CHECK(j["dtypes"]["compute"] == "fp8");
  CHECK(j["dtypes"]["params"] == "bf16");
  CHECK(j["dtypes"]["activations"] == "bf16");
  CHECK(j["fp8_recipe"] == "delayed");
  // JSON names a setting by its words and key, as the Python binding does (docs/cli.md).
  CHECK_THAT(j["provenance"]["fp8_recipe"].get<std::string>(),
             Catch::StartsWith("the dtype (`dtype=fp8`)"));
  // --fp8-recipe chooses the recipe (tensorwise is current) and turns fp8 on.
  json current = model_json("llama-3.1-8b", "--fp8-recipe tensorwise");
  CHECK(current["dtypes"]["compute"] == "fp8");
  CHECK(current["fp8_recipe"] == "current");
  CHECK(current["dtypes"]["params"] == "bf16");  // the config's (default:ndsearch)
  CHECK(current["provenance"]["fp8_recipe"] == "the fp8 recipe (`fp8_recipe`)");
  CHECK(model_json("llama-3.1-8b", "--dtype fp8 --fp8-recipe mxfp8")["fp8_recipe"] == "mxfp8");
}

TEST_CASE("The flag --overlap states each overlap switch on or off") {
  json some = model_json("llama-3.1-8b", "--overlap tp,cp");
  CHECK(some["overlap"]["tp_comm"] == true);
  CHECK(some["overlap"]["cp"] == true);
  CHECK(some["overlap"]["grad_reduce"] == false);
  CHECK(some["overlap"]["param_gather"] == false);
  CHECK(some["overlap"]["moe_a2a"] == false);
  CHECK(some["overlap"]["p2p"] == false);
  CHECK(some["provenance"]["overlap.cp"] == "the overlap switches (`overlap`)");
  json all = model_json("llama-3.1-8b", "--overlap all");
  json none = model_json("llama-3.1-8b", "--overlap none");
  for (const char* key : {"grad_reduce", "param_gather", "tp_comm", "moe_a2a", "p2p", "cp"}) {
    CHECK(all["overlap"][key] == true);
    CHECK(none["overlap"][key] == false);
  }
  // It replaces what a trainer's config states.
  const std::string megatron =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/megatron/small_gpt.sh";
  auto r = model(megatron + " --format json --overlap dp");
  REQUIRE(r.exit_code == 0);
  json m = json::parse(r.out);
  CHECK(m["overlap"]["grad_reduce"] == true);
  CHECK(m["overlap"]["p2p"] == false);
  CHECK(m["provenance"]["overlap.p2p"] ==
        "the overlap switches (`overlap`) (overrides default:megatron)");
}

TEST_CASE("A bad --overlap --fp8-recipe or --dtype names the flag the item and the valid ones") {
  auto overlap = model(hf("llama-3.1-8b") + " --overlap tp,zero");
  CHECK(overlap.exit_code == 2);
  CHECK_THAT(overlap.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(overlap.err,
             Catch::Contains(
                 "the overlap switches (--overlap tp,zero): \"zero\" is not an overlap switch"));
  CHECK_THAT(overlap.err, Catch::Contains("tp (the TP/SP collectives)"));
  CHECK_THAT(overlap.err, Catch::Contains("cp (the context-parallel KV exchange)"));
  auto recipe = model(hf("llama-3.1-8b") + " --fp8-recipe rowwise");
  CHECK(recipe.exit_code == 2);
  CHECK_THAT(recipe.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(recipe.err, Catch::Contains("--fp8-recipe rowwise"));
  CHECK_THAT(recipe.err, Catch::Contains("delayed, current, tensorwise, blockwise, mxfp8"));
  auto both = model(hf("llama-3.1-8b") + " --dtype bf16 --fp8-recipe delayed");
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains(
                           "the fp8 recipe (--fp8-recipe delayed) with the dtype (--dtype bf16)"));
  auto dtype = model(hf("llama-3.1-8b") + " --dtype int8");
  CHECK(dtype.exit_code == 2);
  CHECK_THAT(dtype.err,
             Catch::Contains("the dtype (--dtype int8): expected fp32, tf32, bf16, fp16 or fp8"));
}

TEST_CASE("The framework is found by probing or named with -f") {
  CHECK(model_json("gpt2", "-f hf-config-json")["framework"] == "hf-config-json");
  CHECK(model_json("gpt2", "-f huggingface")["framework"] == "hf-config-json");
  auto r = model(hf("gpt2") + " -f caffe");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-PARSE-FRAMEWORK]"));
  CHECK_THAT(r.err, Catch::Contains("hf-config-json"));
}

TEST_CASE("Bad input exits 2 with an error id naming the file and the field") {
  struct Case {
    const char* file;
    const char* id;
    std::vector<std::string> said;
  };
  const Case cases[] = {
      {"malformed", "E-PARSE-FIELD", {"malformed.json:5:", "not valid JSON"}},
      {"heads_not_dividing",
       "E-MODEL-SHAPE",
       {"heads = 48", "heads_not_dividing.json:2: num_attention_heads",
        "does not divide hidden_size = 4000"}},
      {"kv_not_dividing",
       "E-MODEL-SHAPE",
       {"kv_heads = 6", "kv_not_dividing.json:2: num_key_value_heads",
        "does not divide heads = 32"}},
      {"topk_over_experts",
       "E-MODEL-SHAPE",
       {"experts_per_token = 6", "num_experts_per_tok", "experts = 4"}},
      {"no_model", "E-PARSE-NO-MODEL", {"no_model.json", "describes no model"}},
      {"negative_layers",
       "E-PARSE-VALUE",
       {"negative_layers.json:2", "num_hidden_layers` = -2", "whole number"}},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    auto r = model(hf(c.file));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(std::string("[") + c.id + "]"));
    for (const std::string& text : c.said) CHECK_THAT(r.err, Catch::Contains(text));
  }
  auto missing = model("/nonexistent/config.json");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("[E-PARSE-FILE]"));
}

TEST_CASE("A field the parser does not understand is a warning or under strict an error") {
  json j = model_json("unknown_field");
  bool listed = false;
  for (const json& w : j["warnings"])
    listed = listed ||
             w.get<std::string>().find("unknown_field.json:3: my_custom_flag") != std::string::npos;
  CHECK(listed);
  auto r = model(hf("unknown_field") + " --strict");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-PARSE-UNKNOWN-FIELD]"));
  CHECK_THAT(r.err, Catch::Contains("unknown_field.json:3: my_custom_flag"));
}

// SPDX-License-Identifier: Apache-2.0
// test_torchtitan_toml.cpp: `ndsearch model` on TorchTitan job TOMLs we wrote
// (tests/fixtures/configs/torchtitan/): the flavor table's shapes and
// parameter counts derived by hand, the stated strategy and TorchTitan's
// defaults, probing, and the errors for bad input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "core/plugin_host/registry.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/hostile_fixtures.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string titan(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/torchtitan/" + name + ".toml";
}

ndsearch::test::CommandResult model(const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH " + cli() + " model " + args);
}

json model_json(const std::string& name, const std::string& extra = "") {
  auto r = model(titan(name) + " --format json " + extra);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// The JSON of a Llama 3 8B job whose file adds `tail` (TOML) to the model.
json job_json(const ndsearch::test::TempDir& dir, const std::string& tail) {
  const std::filesystem::path file = dir.path / "job.toml";
  std::ofstream(file) << "[model]\nname = \"llama3\"\nflavor = \"8B\"\n" << tail;
  auto r = model(file.string() + " --format json");
  INFO(tail << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

bool has_warning(const json& j, const std::string& text) {
  for (const auto& w : j["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

// The parser's own probe, called through the C ABI of the shipped plugin.
double probe(const std::string& path) {
  const auto plugin =
      ndsearch::load_plugin(std::filesystem::path(NDS_TEST_SHIPPED_PLUGINS) / "torchtitan_toml.so",
                            std::make_shared<const ndsearch::PluginOptions>());
  REQUIRE(plugin->interfaces.parser != nullptr);
  double confidence = -1;
  REQUIRE(plugin->interfaces.parser->probe(path.c_str(), &confidence) == nullptr);
  return confidence;
}
}  // namespace

TEST_CASE("TorchTitan llama3 8B has the FFN width and parameter count derived by hand") {
  // FFN: int(2 x 4 x 4096 / 3) = 10922; x ffn_dim_multiplier 1.3 = 14198 (truncated);
  // rounded up to multiple_of 1024: 14336.
  // Parameters: embedding and untied head 2 x 128256 x 4096 = 1,050,673,152; a layer
  // Q, O 2 x 4096^2 + K, V 2 x 4096 x 1024 = 41,943,040, SwiGLU 3 x 4096 x 14336 =
  // 176,160,768, norms 8,192: 218,112,000 x 32 = 6,979,584,000; final norm 4,096.
  // Total 8,030,261,248 (Meta: 8.03B).
  json j = model_json("pipeline_zbv");
  CHECK(j["framework"] == "torchtitan-toml");
  CHECK(j["name"] == "llama3 8B");
  CHECK(j["ffn_hidden_size"] == 14336);
  CHECK(j["params_total"] == 8030261248.0);
  CHECK(j["kv_heads"] == 8);
  CHECK(j["head_dim"] == 128);
  CHECK(j["vocab_size"] == 128256);
  CHECK(j["tied_embeddings"] == false);
  CHECK(j["position_embedding"] == "rope");
}

TEST_CASE("TorchTitan llama3 70B and 405B have the FFN widths and totals derived by hand") {
  // 70B: int(2 x 32768 / 3) = 21845; x 1.3 = 28398; up to a multiple of 4096: 28672.
  // A layer: attention 2 x 8192^2 + 2 x 8192 x 1024 = 150,994,944, SwiGLU
  // 3 x 8192 x 28672 = 704,643,072, norms 16,384: 855,654,400 x 80 = 68,452,352,000;
  // embedding and head 2 x 128256 x 8192 = 2,101,346,304; final norm 8,192.
  // Total 70,553,706,496 (Meta: 70.6B).
  json j70 = model_json("pipeline_interleaved");
  CHECK(j70["ffn_hidden_size"] == 28672);
  CHECK(j70["params_total"] == 70553706496.0);
  // 405B: int(2 x 65536 / 3) = 43690; x 1.2 = 52428; up to a multiple of 4096: 53248.
  // A layer: attention 2 x 16384^2 + 2 x 16384 x 1024 = 570,425,344, SwiGLU
  // 3 x 16384 x 53248 = 2,617,245,696, norms 32,768: 3,187,703,808 x 126 =
  // 401,650,679,808; embedding and head 2 x 128256 x 16384 = 4,202,692,608; final
  // norm 16,384. Total 405,853,388,800 (Meta: 405.9B).
  json j405 = model_json("llama3_405b_float8");
  CHECK(j405["ffn_hidden_size"] == 53248);
  CHECK(j405["params_total"] == 405853388800.0);
  CHECK(j405["layers"] == 126);
}

TEST_CASE("TorchTitan deepseek_v3 16B has MLA and MoE shapes and the totals derived by hand") {
  // MLA (q_lora_rank 0): Q 2048 x 16 x 192 = 6,291,456; KV down 2048 x (512 + 64)
  // + norm 512 = 1,180,160; KV up 512 x 16 x 256 = 2,097,152; O 16 x 128 x 2048 =
  // 4,194,304: 13,763,072, plus two norms 4,096.
  // Dense layer (1): + 3 x 2048 x 10944 = 67,239,936 -> 81,007,104.
  // MoE layers (26): router 2048 x 64 = 131,072, 64 experts of 3 x 2048 x 1408 =
  // 8,650,752 and 2 shared of the same width: 571,080,704 -> 584,847,872 each,
  // 15,206,044,672 in all. Embedding and head 2 x 102400 x 2048 = 419,430,400,
  // final norm 2,048. Total 15,706,484,224 (DeepSeek-V2-Lite-like: 15.7B).
  // Active: 6 routed + 2 shared experts: 26 x 83,104,256 + 81,007,104 +
  // 419,432,448 = 2,661,150,208.
  json j = model_json("context_parallel");
  CHECK(j["attention"] == "mla");
  CHECK(j["kv_lora_rank"] == 512);
  CHECK(j["q_lora_rank"] == 0);
  CHECK(j["head_dim"] == 192);  // derived: qk_nope 128 + qk_rope 64
  CHECK(j["dense_layers"] == 1);
  CHECK(j["experts"] == 64);
  CHECK(j["experts_per_token"] == 6);
  CHECK(j["shared_experts"] == 2);
  CHECK(j["moe_ffn_hidden_size"] == 1408);
  CHECK(j["ffn_hidden_size"] == 10944);
  CHECK(j["params_total"] == 15706484224.0);
  CHECK(j["params_active"] == 2661150208.0);
}

TEST_CASE("TorchTitan llama4 debug flavor alternates dense and MoE layers by the Llama 4 rule") {
  // interleave_moe_layer_step 2: layers 1, 3, 5 are MoE -> six one-layer blocks.
  // Dense FFN: int(2 x 1024 / 3) = 682 -> 768 (multiple_of 256). Expert width:
  // 682 / (top_k 1 + 1 shared) = 341 -> 512. Parameters: a dense layer 4 x 256^2 +
  // 512 + 3 x 256 x 768 = 852,480; a MoE layer 262,656 + router 2,048 + 8 experts
  // and 1 shared of 3 x 256 x 512 = 393,216: 3,803,648. 3 of each, embedding and
  // head 2 x 2048 x 256, final norm 256: 15,017,216. Active: one routed and the
  // shared expert: 3 x 1,051,136 + 3 x 852,480 + 1,048,832 = 6,759,680.
  json j = model_json("llama4_debug");
  REQUIRE(j["blocks"].size() == 6);
  CHECK(j["blocks"][0]["experts"] == 0);
  CHECK(j["blocks"][1]["experts"] == 8);
  CHECK(j["blocks"][1]["moe_ffn_hidden_size"] == 512);
  CHECK(j["blocks"][1]["shared_expert_ffn_hidden_size"] == 512);
  CHECK(j["blocks"][0]["ffn_hidden_size"] == 768);
  CHECK(j["dense_layers"] == 3);
  CHECK(j["params_total"] == 15017216.0);
  CHECK(j["params_active"] == 6759680.0);
}

TEST_CASE("HSDP with interleaved pipelining states dp op mbs mbn and vpp") {
  // replicate 2 x shard 4 = dp 8, sharding group 4 (HSDP); global 128 / (local 8 x
  // dp 8) = 2 accumulation steps of 8 / microbatch 2 = 4 micro-batches: mbn 8.
  // Interleaved1F1B without layers_per_stage: 2 virtual stages per rank.
  json j = model_json("pipeline_interleaved");
  const json& s = j["stated_strategy"];
  CHECK(s["dp"] == 8);
  CHECK(s["op"] == 4);
  CHECK(s["zero"] == 3);
  CHECK(s["tp"] == 2);
  CHECK(s["sp"] == 1);  // TorchTitan always runs TP with sequence parallelism
  CHECK(s["pp"] == 4);
  CHECK(s["vpp"] == 2);
  CHECK(s["schedule"] == "interleaved");
  CHECK(s["mbs"] == 2);
  CHECK(s["mbn"] == 8);
  CHECK(s["recompute"] == "full");
  CHECK(j["global_batch"] == 128);
  CHECK(j["seq_len"] == 8192);
  CHECK(j["dtypes"]["params"] == "fp32");  // FSDP2 keeps the sharded parameters in fp32
  CHECK(j["dtypes"]["compute"] == "bf16");
  CHECK(j["dtypes"]["grads"] == "fp32");
  CHECK(j["dtypes"]["master_weights"] == "none");
  CHECK(j["optimizer_states"] == 2);
  CHECK(j["provenance"]["overlap.tp_comm"].get<std::string>().find(
            "enable_async_tensor_parallel") != std::string::npos);
  CHECK(j["warnings"].empty());
}

TEST_CASE("ZBVZeroBubble with layers per stage gives the virtual stages TorchTitan splits") {
  // (32 layers + embedding 1 + output 1) / 9 per stage -> ceil(34 / 9) = 4 stages
  // over pp 2 = 2 per rank. Global batch: local 4 x dp 8 = 32; with a pipeline
  // the micro-batch is pipeline_parallel_microbatch_size (default 1): mbn 4.
  json j = model_json("pipeline_zbv");
  const json& s = j["stated_strategy"];
  CHECK(s["schedule"] == "zb-v");
  CHECK(s["vpp"] == 2);
  CHECK(s["mbs"] == 1);
  CHECK(s["mbn"] == 4);
  CHECK(s["recompute"] == "none");
  CHECK(j["global_batch"] == 32);
  CHECK(j["provenance"]["stated.vpp"].get<std::string>().find(
            "pipeline_parallel_layers_per_stage") != std::string::npos);
}

TEST_CASE("Context parallel rotate method maps to the CP algorithm") {
  // alltoall passes KV shards round the ring; float8 converter: fp8 compute;
  // fsdp_reshard_after_forward never keeps gathered parameters: ZeRO-2's peak.
  json j = model_json("context_parallel");
  CHECK(j["cp_algorithm"] == "ring");
  CHECK(j["stated_strategy"]["cp"] == 4);
  CHECK(j["stated_strategy"]["ep"] == 8);
  CHECK(j["stated_strategy"]["dp"] == 2);
  CHECK(j["stated_strategy"]["zero"] == 2);
  CHECK(j["stated_strategy"]["recompute"] == "selective");  // selective_ac_option "op"
  CHECK(j["dtypes"]["compute"] == "fp8");
  CHECK(j["global_batch"] == 4);  // local 2 x dp 2
  CHECK(j["seq_len"] == 32768);
  // The default rotate method is allgather.
  CHECK(model_json("pipeline_zbv")["cp_algorithm"] == "allgather-kv");
}

TEST_CASE("Data parallel shard degree -1 leaves dp and the global batch unknown with a reason") {
  json j = model_json("llama3_405b_float8");
  CHECK(j["stated_strategy"]["dp"].is_null());
  CHECK(j["stated_strategy"]["zero"] == 3);  // FSDP over the devices left over
  CHECK(j["stated_strategy"]["mbn"].is_null());
  CHECK(j["global_batch"] == 1024);  // stated, so known
  CHECK(j["dtypes"]["compute"] == "fp8");
  CHECK(has_warning(j, "data_parallel_shard_degree = -1"));
}

TEST_CASE("Layer selective checkpointing recomputes every n-th layer in full") {
  // selective_ac_option "4" on 6 layers without a pipeline: layer 4 only.
  // replicate 4 x shard 1 is plain DDP: zero 0. mixed_precision_param float32.
  json j = model_json("llama4_debug");
  CHECK(j["recompute"] == "full");
  CHECK(j["recompute_layers"] == json::array({1}));
  CHECK(j["stated_strategy"]["zero"] == 0);
  CHECK(j["stated_strategy"]["dp"] == 4);
  CHECK(j["dtypes"]["compute"] == "fp32");
}

TEST_CASE("An unknown schedule and an unknown field are warnings and errors under strict") {
  json j = model_json("unknown_schedule");
  CHECK(j["stated_strategy"]["schedule"].is_null());
  CHECK(has_warning(j, "unknown_schedule.toml:9: parallelism.pipeline_parallel_schedule"));
  CHECK(has_warning(j, "SuperFancyBubbleFree"));
  CHECK(has_warning(j, "unknown_schedule.toml:10: parallelism.made_up_knob"));
  auto r = model(titan("unknown_schedule") + " --strict");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("E-PARSE-UNKNOWN-FIELD") != std::string::npos);
}

TEST_CASE(
    "An unknown flavor describes no model, lists the known flavors and takes a model config") {
  // The shape is unknown, the training settings are not: the core says no
  // layers were found and names --model-config; the parser's warning (-v 2)
  // names the field and the flavors it knows.
  auto r = model(titan("unknown_flavor") + " -v 2");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("[E-PARSE-NO-MODEL]") != std::string::npos);
  CHECK(r.err.find("(--model-config FILE)") != std::string::npos);
  CHECK(r.err.find("unknown_flavor.toml:4: model.flavor = '9B': not a llama3 flavor ndsearch "
                   "knows; known llama3 flavors: debugmodel, 8B, 70B, 405B") != std::string::npos);
  auto m = model(titan("unknown_model") + " -v 2");
  CHECK(m.exit_code == 2);
  CHECK(m.err.find("[E-PARSE-NO-MODEL]") != std::string::npos);
  CHECK(m.err.find("unknown_model.toml:3") != std::string::npos);
  CHECK(m.err.find("llama3, deepseek_v3, qwen3, llama4") != std::string::npos);
  // With a config.json for the shape: its 512-wide, 4-layer Llama trained as
  // the TOML says (seq_len 4096).
  auto shaped =
      model(titan("unknown_flavor") + " --format json --model-config " +
            std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/model_config/small_llama.json");
  INFO(shaped.err);
  REQUIRE(shaped.exit_code == 0);
  const json j = json::parse(shaped.out);
  CHECK(j["framework"] == "torchtitan-toml");
  CHECK(j["hidden_size"] == 512);
  CHECK(j["layers"] == 4);
  CHECK(j["seq_len"] == 4096);
}

TEST_CASE("Malformed TOML is an error naming the file and line") {
  auto r = model(titan("malformed") + " -f torchtitan");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("malformed.toml:8") != std::string::npos);
  CHECK(r.err.find("not valid TOML") != std::string::npos);
}

TEST_CASE("Bad values are errors naming the field the value and the fix") {
  auto r = model(titan("bad_degree"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad_degree.toml:6: parallelism.tensor_parallel_degree = 0") !=
        std::string::npos);
  auto g = model(titan("bad_global_batch"));
  CHECK(g.exit_code == 2);
  CHECK(g.err.find("training.global_batch_size = 100") != std::string::npos);
  CHECK(g.err.find("32") != std::string::npos);  // local 8 x dp 4
}

TEST_CASE("A TOML without a model table describes no model") {
  auto r = model(titan("no_model") + " -f torchtitan");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("E-PARSE-NO-MODEL") != std::string::npos);
}

TEST_CASE("TorchTitan probe claims job TOMLs and not device TOMLs") {
  CHECK(probe(titan("pipeline_zbv")) >= 0.9);       // [model] name and flavor, [training]
  CHECK(probe(titan("malformed")) == Approx(0.2));  // a broken .toml: claimed weakly
  CHECK(probe(titan("no_model")) == 0);
  CHECK(probe(std::string(NDS_TEST_FIXTURES_SOURCE) + "/devices/good.toml") == 0);
  CHECK(probe(std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/torchtitan/absent.toml") == 0);
}

TEST_CASE("The torchtitan alias selects the parser") {
  auto r = model(titan("pipeline_zbv") + " -f torchtitan --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out)["framework"] == "torchtitan-toml");
}

TEST_CASE(
    "TorchTitan's float8 recipes: tensorwise by default and rowwise priced as blockwise and MX as "
    "mxfp8") {
  // Float8Linear without recipe_name: torchao's default, dynamic tensorwise
  // scaling from the current amax.
  json tensorwise = model_json("llama3_405b_float8");
  CHECK(tensorwise["fp8_recipe"] == "current");
  CHECK(tensorwise["provenance"]["fp8_recipe"] == "default:torchtitan");
  CHECK(tensorwise["dtypes"]["activations"] == "bf16");  // float8 converts the GEMMs only
  CHECK(tensorwise["dtypes"]["params"] == "fp32");       // FSDP2's sharded fp32 parameters
  json rowwise = model_json("float8_rowwise");
  CHECK(rowwise["fp8_recipe"] == "blockwise");
  CHECK_THAT(rowwise["provenance"]["fp8_recipe"].get<std::string>(),
             Catch::Contains("float8_rowwise.toml:11: quantize.linear.float8.recipe_name"));
  CHECK(model_json("mxfp8")["fp8_recipe"] == "mxfp8");
  // Float8 grouped GEMMs only (MoE experts): rowwise scaling, blockwise.
  json grouped = model_json("grouped_mm_float8");
  CHECK(grouped["dtypes"]["compute"] == "fp8");
  CHECK(grouped["fp8_recipe"] == "blockwise");
  // Without a converter: bf16 GEMMs, no recipe.
  CHECK(model_json("pipeline_zbv")["fp8_recipe"] == "none");
}

TEST_CASE("A float8 recipe_name torchao does not have is an error naming the field") {
  auto r = model(titan("bad_float8_recipe"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad_float8_recipe.toml:8: quantize.linear.float8.recipe_name") !=
        std::string::npos);
  CHECK(r.err.find("\"rowwise_with_gw_hp\"") != std::string::npos);
}

TEST_CASE(
    "TorchTitan overlaps FSDP's collectives and the CP exchange and states no pipeline or MoE "
    "overlap") {
  json j = model_json("context_parallel");
  CHECK(j["overlap"]["cp"] == true);
  CHECK(j["provenance"]["overlap.cp"] == "default:torchtitan");
  CHECK(j["overlap"]["grad_reduce"] == true);
  CHECK(j["overlap"]["param_gather"] == true);
  CHECK(j["overlap"]["tp_comm"] == false);  // enable_async_tensor_parallel defaults off
  CHECK(j["overlap"]["p2p"].is_null());
}

TEST_CASE(
    "A compiled loss keeps 4 bytes a logit, an eager one 12, as torchtitan's version compiles it") {
  // The loss's bytes per logit at its peak (activations.cpp): eager, the
  // fp32 log_softmax output with the fp32 gradient in and out, 3 x 4 = 12;
  // compiled (components/loss.py, torchtitan#1033 and #1608), the bf16
  // logits kept and the bf16 gradient returned, 2 + 2 = 4.
  ndsearch::test::TempDir dir;
  auto bytes_of = [&](const std::string& tail) {
    const json j = job_json(dir, tail);
    // Its traffic (ABI 1.15): eager, the cast (2 + 4) and log_softmax's three
    // reads and one write (3 x 4 + 4), 22; backward nll's gradient (4),
    // log_softmax's four passes (4 x 4) and the cast back (4 + 2), 26.
    // Compiled: the bf16 logits read twice forward (2 + 2), once with the
    // bf16 gradient written backward (2 + 2).
    const bool compiled = j["loss_bytes_per_logit"] == 4;
    CHECK(j["loss_forward_bytes_per_logit"] == (compiled ? 4 : 22));
    CHECK(j["loss_backward_bytes_per_logit"] == (compiled ? 4 : 26));
    return j["loss_bytes_per_logit"].get<double>();
  };
  CHECK(bytes_of("") == 12);
  CHECK(bytes_of("[compile]\nenable = false\n") == 12);
  CHECK(bytes_of("[compile]\nenable = true\n") == 4);  // components default to model and loss
  CHECK(bytes_of("[compile]\nenable = true\ncomponents = [\"model\", \"loss\"]\n") == 4);
  CHECK(bytes_of("[compile]\nenable = true\ncomponents = [\"model\"]\n") == 12);  // 9dec370's way
  CHECK(bytes_of("[training]\ncompile = true\n") == 4);  // the spelling of 2025-04 to 2025-08
  // A component torchtitan does not have is an error naming the field.
  std::ofstream(dir.path / "bad.toml")
      << "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
      << "[compile]\nenable = true\ncomponents = [\"optimizer\"]\n";
  auto r = model((dir.path / "bad.toml").string());
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("compile.components") != std::string::npos);
  CHECK(r.err.find("\"model\" and \"loss\"") != std::string::npos);
}

TEST_CASE("Float8 options that change the cost are reported, in either spelling") {
  ndsearch::test::TempDir dir;
  const std::filesystem::path file = dir.path / "job.toml";
  std::ofstream(file)
      << "[model]\nname = \"llama3\"\nflavor = \"8B\"\nconverters = [\"float8\"]\n"
      << "[float8]\nenable_fsdp_float8_all_gather = true\nrecipe_name = \"tensorwise\"\n"
      << "[quantize.linear.float8]\nforce_recompute_fp8_weight_in_bwd = true\n"
      << "precompute_float8_dynamic_scale_for_fsdp = false\n";
  auto r = model(file.string() + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(has_warning(j, "job.toml:6: float8.enable_fsdp_float8_all_gather: field not understood"));
  CHECK(has_warning(j, "job.toml:9: quantize.linear.float8.force_recompute_fp8_weight_in_bwd"));
  CHECK_FALSE(has_warning(j, "precompute_float8_dynamic_scale_for_fsdp"));  // off: nothing to price
  CHECK_FALSE(has_warning(j, "recipe_name"));                               // read: the fp8 recipe
}

TEST_CASE("TorchTitan's blocks run eager ops unless compiled and attention by FlashAttention-2") {
  // ABI 1.18: eager PyTorch ops unless compile names the model (apply_compile
  // compiles each TransformerBlock); SDPA's flash backend whatever compiles.
  ndsearch::test::TempDir dir;
  auto trainer = [&](const std::string& tail) {
    const json j = job_json(dir, tail);
    CHECK(j["attention_kernel"] == "flash_attention_2");
    return j["elementwise_kernels"].get<std::string>();
  };
  CHECK(trainer("") == "eager");
  CHECK(trainer("[compile]\nenable = false\n") == "eager");
  CHECK(trainer("[compile]\nenable = true\n") == "fused");  // components default to model and loss
  CHECK(trainer("[compile]\nenable = true\ncomponents = [\"model\"]\n") == "fused");
  CHECK(trainer("[compile]\nenable = true\ncomponents = [\"loss\"]\n") == "eager");
  CHECK(trainer("[training]\ncompile = true\n") == "fused");  // the spelling before [compile]
}

TEST_CASE(
    "Async TP without compile is what torchtitan refuses: a warning and an error under strict") {
  ndsearch::test::TempDir dir;
  const std::filesystem::path file = dir.path / "job.toml";
  std::ofstream(file) << "[model]\nname = \"llama3\"\nflavor = \"8B\"\n"
                      << "[parallelism]\ntensor_parallel_degree = 8\n"
                      << "enable_async_tensor_parallel = true\n";
  auto r = model(file.string() + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(has_warning(j, "job.toml:6: parallelism.enable_async_tensor_parallel"));
  CHECK(has_warning(j, "async TP without compile (torchtitan refuses it"));
  auto strict = model(file.string() + " --strict");
  CHECK(strict.exit_code == 2);
  CHECK(strict.err.find("E-PARSE-UNKNOWN-FIELD") != std::string::npos);
  // Compiled, nothing to say.
  std::ofstream(file, std::ios::app) << "[compile]\nenable = true\n";
  const json ok = json::parse(model(file.string() + " --format json").out);
  CHECK_FALSE(has_warning(ok, "enable_async_tensor_parallel"));
}

// SPDX-License-Identifier: Apache-2.0
// test_megatron_args.cpp: the megatron-args parser on small launch scripts
// and argument files written for these tests (tests/fixtures/configs/megatron/).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>  // getpid

#include "tests/support/run_command.hpp"
#include "tests/support/temp_csv.hpp"

namespace {

using nlohmann::json;

std::string fixture(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/megatron/" + name;
}

ndsearch::test::CommandResult model_at(const std::string& path, const std::string& extra = "") {
  return ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                     " model --format json " + extra + " " + path);
}

ndsearch::test::CommandResult model(const std::string& name, const std::string& extra = "") {
  return model_at(fixture(name), extra);
}

json parsed(const std::string& name) {
  const auto r = model(name);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Stage 0's activation bytes of `config` on 8 H100 at pp 2, dp 4, as eval prices them.
double stage0_activations(const std::string& config) {
  const auto e = ndsearch::test::run_command(
      "env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) + " eval " + config +
      " -A nvidia-h100-sxm --strategy pp=2,dp=4 --format json");
  INFO(e.err);
  REQUIRE(e.exit_code == 0);
  return json::parse(e.out)["memory"]["stages"][0]["activations_bytes"].get<double>();
}

bool warned(const json& m, const std::string& text) {
  for (const auto& w : m["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("A launch script is read through its variables arrays and continuations") {
  const json m = parsed("small_gpt.sh");
  CHECK(m["framework"] == "megatron-args");
  CHECK(m["layers"] == 4);  // NUM_LAYERS=4 through ${NUM_LAYERS} in an array
  CHECK(m["hidden_size"] == 256);
  CHECK(m["heads"] == 8);
  CHECK(m["head_dim"] == 32);  // 256 / 8, derived by the core
  // Megatron-LM's defaults: GeLU MLP of 4h, tied embeddings, learned positions,
  // biases on, LayerNorm.
  CHECK(m["ffn"] == "gelu");
  CHECK(m["ffn_hidden_size"] == 1024);
  CHECK(m["tied_embeddings"] == true);
  CHECK(m["position_embedding"] == "learned");
  CHECK(m["blocks"][0]["norm"] == "layernorm");
  CHECK(m["blocks"][0]["linear_bias"] == true);
  CHECK(m["vocab_size"] == 1000);
  // padded to a multiple of 128 (default) x tp 2 = 256: ceil(1000 / 256) = 4 -> 1024
  CHECK(m["padded_vocab_size"] == 1024);
  // Per layer: attention 256*(256+2*256) + 256*256 = 262144, biases 256+512+256 = 1024;
  // two LayerNorms 2*2*256 = 1024; MLP 2*256*1024 + 1024 + 256 = 525568; 789760 per layer.
  // Outside: embedding 1000*256 = 256000 (tied), final LayerNorm 512, learned
  // positions 1024*256 = 262144. Total 4*789760 + 518656 = 3677696.
  CHECK(m["params_total"].get<double>() == Approx(3677696.0));
  CHECK(m["seq_len"] == 1024);
  CHECK(m["global_batch"] == 64);  // in a quoted string with backslash continuations
  CHECK(m["micro_batch_size"] == 2);
  CHECK(m["dtypes"]["params"] == "bf16");
  CHECK(m["dtypes"]["grads"] == "fp32");  // Megatron's fp32 main gradients
  CHECK(m["dtypes"]["master_weights"] == "fp32");
  CHECK(m["optimizer_states"] == 2);  // Adam
  const json& s = m["stated_strategy"];
  CHECK(s["tp"] == 2);  // ${TP:-2}
  CHECK(s["pp"] == 2);
  CHECK(s["zero"] == 1);  // --use-distributed-optimizer, appended with +=
  // world = --nproc_per_node 8 x --nnodes ${NNODES:-2} = 16; dp = 16 / (tp 2 x pp 2 x cp 1) = 4
  CHECK(s["dp"] == 4);
  CHECK(m["capabilities"]["sp_with_cp"] == true);
  CHECK(m["capabilities"]["interleave"] == true);
  CHECK(m["capabilities"]["expert_tp"] == true);
  // Provenance: the line where each value is written.
  const std::string tp_source = m["provenance"]["stated.tp"];
  CHECK(tp_source.find("small_gpt.sh:8:") != std::string::npos);  // TP=${TP:-2}
  const std::string bias_source = m["provenance"]["blocks[0].linear_bias"];
  CHECK(bias_source.find("default:megatron") != std::string::npos);
  CHECK(m["warnings"].empty());
}

TEST_CASE("Values the script cannot know are reported unknown not guessed") {
  const json m = parsed("unknown_positional.sh");
  CHECK(m["vocab_size"].is_null());
  CHECK(m["stated_strategy"]["tp"].is_null());
  CHECK(m["stated_strategy"]["dp"].is_null());  // --nnodes $NODES comes from the environment
  CHECK(warned(m, "$1 is a positional argument"));
  CHECK(warned(m, "$2 is a positional argument"));
  CHECK(warned(m, "NODES is not set in the script"));
  CHECK(m["layers"] == 2);
}

TEST_CASE("A branch on the environment leaves what only one branch sets unknown") {
  const json m = parsed("env_branches.sh");
  CHECK(m["dtypes"]["params"].is_null());  // --fp16 or --bf16 on $USE_FP16
  CHECK(warned(m, "USE_FP16 is not set in the script"));
  CHECK(m["seq_len"] == 4096);  // both branches of the $CLUSTER test say 4096
  CHECK(m["ffn"] == "swiglu");  // MODE=${MODE:-dense}: the script decides this branch
  CHECK(m["ffn_hidden_size"] ==
        320);  // SwiGLU default: int(4*128*2/3 / 64)*64 = int(341.3/64)*64 = 320
}

TEST_CASE("A malformed value names the flag its line and the fix") {
  const auto r = model("malformed.sh");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("[E-PARSE-VALUE]") != std::string::npos);  // a number flag's bad number
  CHECK(r.err.find("malformed.sh:5: --num-layers 'four'") != std::string::npos);
  CHECK(r.err.find("NUM_LAYERS on line 2") != std::string::npos);
}

TEST_CASE("A moe-layer-freq list expression places dense and MoE blocks with MLA and MTP") {
  const json m = parsed("mla_moe.sh");
  REQUIRE(m["blocks"].size() == 3);  // [0]*2+[1]*4: two dense, four MoE, then one MTP layer
  CHECK(m["blocks"][0]["layers"] == 2);
  CHECK(m["blocks"][0]["experts"] == 0);
  CHECK(m["blocks"][0]["ffn_hidden_size"] == 1536);
  CHECK(m["blocks"][1]["layers"] == 4);
  CHECK(m["blocks"][1]["experts"] == 16);
  CHECK(m["blocks"][1]["experts_per_token"] == 4);
  CHECK(m["blocks"][1]["moe_ffn_hidden_size"] == 256);
  CHECK(m["blocks"][1]["shared_experts"] == 1);
  CHECK(m["blocks"][1]["shared_expert_ffn_hidden_size"] == 256);
  CHECK(m["blocks"][2]["kind"] == "mtp");
  CHECK(m["attention"] == "mla");
  CHECK(m["q_lora_rank"] == 256);
  CHECK(m["kv_lora_rank"] == 128);
  CHECK(m["blocks"][1]["qk_nope_head_dim"] == 64);
  CHECK(m["blocks"][1]["qk_rope_head_dim"] == 32);
  CHECK(m["blocks"][1]["v_head_dim"] == 64);
  CHECK(m["head_dim"] == 96);             // 64 + 32, derived by the core
  CHECK(m["padded_vocab_size"] == 1024);  // divisible by 1 x tp 1
  CHECK(m["recompute"] == "full");
  CHECK(m["recompute_layers"] == json::array({6}));  // uniform: every layer of the one stage
  CHECK(m["dtypes"]["params"] == "fp32");            // neither --bf16 nor --fp16
  CHECK(m["dtypes"]["master_weights"] == "none");
}

TEST_CASE("A moe-layer-freq list of the wrong length is refused with its line") {
  const auto r = model("bad_layer_freq.sh");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad_layer_freq.sh:3: --moe-layer-freq") != std::string::npos);
  CHECK(r.err.find("6 entries (it has 5)") != std::string::npos);
}

TEST_CASE("A MindSpeed JSON argument file reads argument names as flags") {
  const json m = parsed("mindspeed_args.json");
  CHECK(m["layers"] == 4);
  CHECK(m["kv_heads"] == 2);
  CHECK(m["ffn"] == "swiglu");
  CHECK(m["blocks"][0]["linear_bias"] == false);  // "add_bias_linear": false
  CHECK(m["blocks"][0]["norm"] == "rmsnorm");
  CHECK(m["tied_embeddings"] == false);
  CHECK(m["padded_vocab_size"] == 1024);
  CHECK(m["stated_strategy"]["tp"] == 2);
  CHECK(m["dtypes"]["params"] == "bf16");
  CHECK(warned(m, "made_up_option"));  // an unknown argument is a warning...
  const auto strict = model("mindspeed_args.json", "--strict");
  CHECK(strict.exit_code == 2);  // ...and an error under --strict
}

TEST_CASE("The megatron-args parser leaves a Hugging Face config to hf-config-json") {
  // model_type and architectures mark an HF config.json: megatron-args probes it at most 0.1.
  const json m = parsed("hf_config.json");
  CHECK(m["framework"] != "megatron-args");
}

TEST_CASE("The mindspeed and megatron aliases name this parser") {
  for (const char* alias : {"mindspeed", "megatron"}) {
    const auto r = model("small_gpt.sh", std::string("-f ") + alias);
    CHECK(r.exit_code == 0);
    CHECK(json::parse(r.out)["framework"] == "megatron-args");
  }
}

TEST_CASE("fp8 reads Megatron-LM's recipe and fp8 primary weights and keeps bf16 activations") {
  // --fp8-format hybrid turns fp8 GEMMs on; --fp8-recipe tensorwise is the
  // current-scaling recipe; --fp8-param-gather keeps fp8 primary weights.
  const json m = parsed("fp8_tensorwise.sh");
  const std::string file = fixture("fp8_tensorwise.sh");
  CHECK(m["dtypes"]["compute"] == "fp8");
  CHECK(m["fp8_recipe"] == "current");
  CHECK(m["provenance"]["fp8_recipe"] == file + ":10: --fp8-recipe");
  CHECK(m["dtypes"]["params"] == "fp8");
  CHECK(m["provenance"]["params_dtype"] == file + ":11: --fp8-param-gather");
  CHECK(m["dtypes"]["master_weights"] ==
        "fp32");  // the distributed optimizer's fp32 main parameters
  // Transformer Engine keeps activations and their collectives in bf16.
  CHECK(m["dtypes"]["activations"] == "bf16");
  CHECK_THAT(m["provenance"]["activation_dtype"].get<std::string>(),
             Catch::StartsWith("derived: bf16"));
  // Megatron-LM's CP runs through Transformer Engine's ring: always overlapped.
  CHECK(m["overlap"]["cp"] == true);
  CHECK(m["provenance"]["overlap.cp"] == "default:megatron");
}

TEST_CASE("fp8 without a recipe takes Megatron-LM's default delayed scaling over bf16 parameters") {
  const json m = parsed("fp8_default.sh");
  CHECK(m["dtypes"]["compute"] == "fp8");
  CHECK(m["fp8_recipe"] == "delayed");
  CHECK(m["provenance"]["fp8_recipe"] == "default:megatron");
  CHECK(m["dtypes"]["params"] == "bf16");  // no --fp8-param-gather: bf16 weights cast per GEMM
  // Without fp8 there is no recipe, and the activations are the compute dtype.
  const json bf16 = parsed("small_gpt.sh");
  CHECK(bf16["fp8_recipe"] == "none");
  CHECK(bf16["dtypes"]["activations"] == "bf16");
  CHECK(bf16["overlap"]["cp"] == true);
}

TEST_CASE("An fp8 recipe Megatron-LM does not have is refused with its line and the choices") {
  const auto r = model("bad_fp8_recipe.sh");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("bad_fp8_recipe.sh:6: --fp8-recipe 'rowwise'") != std::string::npos);
  CHECK(r.err.find("delayed, tensorwise, blockwise or mxfp8") != std::string::npos);
}

TEST_CASE("MindSpeed's swap and reuse flags are read, each from its line") {
  // --swap-attention, --reuse-fp32-param and --swap-optimizer (ABI 1.9) cost
  // memory: read, not ignored.
  const json j = parsed("mindspeed_memory.sh");
  CHECK(j["swapped_ops"] == json::array({"attention"}));
  CHECK(j["master_reuses_params"] == true);
  CHECK(j["swap_optimizer"] == true);
  CHECK(j["provenance"]["swapped_ops"] == fixture("mindspeed_memory.sh") + ":10: --swap-attention");
  CHECK(j["provenance"]["master_reuses_params"] ==
        fixture("mindspeed_memory.sh") + ":11: --reuse-fp32-param");
  CHECK(j["provenance"]["swap_optimizer"] ==
        fixture("mindspeed_memory.sh") + ":12: --swap-optimizer");
  CHECK(j["warnings"].empty());
  // eval says where the swap came from.
  const auto e = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                             " eval " + fixture("mindspeed_memory.sh") +
                                             " -A nvidia-h100-sxm --strategy pp=2,dp=4");
  REQUIRE(e.exit_code == 0);
  CHECK_THAT(e.out,
             Catch::Contains("optimizer swapping (" + fixture("mindspeed_memory.sh") +
                             ":12: --swap-optimizer): optimizer states and master weights live in "
                             "host memory"));
  CHECK_THAT(e.out, Catch::Contains(
                        "memory: master weights kept as the parameter plus a residual, 2 bytes"));
  const json plain = parsed("mindspeed_cp.sh");
  CHECK(plain["swapped_ops"].empty());
  CHECK(plain["master_reuses_params"] == false);
  CHECK(plain["swap_optimizer"] == false);
}

TEST_CASE(
    "MindSpeed's activation-function and norm recompute are selective ops on the first layers of a "
    "chunk") {
  // --recompute-activation-function drops each MLP's activation output (the
  // dense MLP's and shared experts': mlp_activation, ABI 1.12; the routed
  // experts': activation), --recompute-norm both norms' outputs; each on the
  // first M layers of every chunk (MindSpeed's should_recompute).
  const json j = parsed("mindspeed_act_norm.sh");
  CHECK(j["recompute_ops"] == json::array({"norm", "activation", "mlp_activation"}));
  CHECK(j["recompute_layers"] == json::array({3, 3}));  // M = 3 of each 4-layer stage (vpp 1)
  CHECK(j["provenance"]["stated.recompute"] ==
        fixture("mindspeed_act_norm.sh") + ":10: --recompute-activation-function");
  CHECK(j["warnings"].empty());
  // The memory they save, by hand: per token of a recomputed layer the
  // SwiGLU output (ffn 1024 x 2 bytes) and the two norms' outputs (2 x
  // hidden 256 x 2 bytes) = 3072 bytes; 4096 tokens a micro-batch, 3 layers,
  // 2 micro-batches in flight on stage 0 of 2 (1F1B: p - r).
  const double with_ops = stage0_activations(fixture("mindspeed_act_norm.sh"));
  const double without = stage0_activations(fixture("mindspeed_act_norm_off.sh"));
  CHECK(without - with_ops == Approx(3.0 * 2 * 4096 * 3072));
}

TEST_CASE(
    "MindSpeed's activation recompute after fully recomputed layers is a warning: kept there") {
  const json j = parsed("mindspeed_act_full.sh");
  CHECK(j["stated_strategy"]["recompute"] == "full");
  CHECK(j["recompute_layers"] == json::array({2, 2}));  // block 2 of each stage (vpp 1)
  REQUIRE(j["warnings"].size() == 1);
  CHECK_THAT(
      j["warnings"][0].get<std::string>(),
      Catch::Contains(
          "--recompute-activation-function after the fully recomputed layers (priced as kept "
          "there"));
}

TEST_CASE(
    "MindSpeed's swap-attention checkpointing replaces full recompute: the MLP of the first "
    "layers") {
  // --swap-attention with --recompute-num-layers N: every layer's attention
  // on the host, the whole MLP of the first N of each chunk checkpointed, no
  // layer in full (swap_attention/adaptor.py): selective mlp and moe.
  const json j = parsed("mindspeed_swap_ckpt.sh");
  CHECK(j["stated_strategy"]["recompute"] == "selective");
  CHECK(j["recompute_ops"] == json::array({"mlp", "moe"}));
  CHECK(j["recompute_layers"] == json::array({1, 1}));
  CHECK(j["swapped_ops"] == json::array({"attention"}));
  CHECK(j["warnings"].empty());
  // The checkpointed MLP's intermediates, by hand: SwiGLU's two up outputs
  // and the second GEMM's input, 3 x 1024 x 2 bytes a token; 1 layer of
  // stage 0, 2 micro-batches in flight (1F1B, p = 2), 4096 tokens each.
  std::ifstream in(fixture("mindspeed_swap_ckpt.sh"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.erase(text.find("    --recompute-num-layers 1 \\\n"), 31);
  const std::string swap_only = (std::filesystem::temp_directory_path() /
                                 ("ndsearch-swap-" + std::to_string(::getpid()) + ".sh"))
                                    .string();
  std::ofstream(swap_only) << text;
  const double ckpt = stage0_activations(fixture("mindspeed_swap_ckpt.sh")),
               swap = stage0_activations(swap_only);
  std::filesystem::remove(swap_only);
  CHECK(swap - ckpt == Approx(1.0 * 2 * 4096 * 3 * 1024 * 2));
  // Under --recompute-method block only those N layers swap: one list of
  // swapped ops cannot say so, so none is priced as swapped, and said.
  const json block = parsed("mindspeed_swap_block.sh");
  CHECK(block["stated_strategy"]["recompute"] == "selective");
  CHECK(block["recompute_layers"] == json::array({1, 1}));
  CHECK(block["swapped_ops"].empty());
  REQUIRE(block["warnings"].size() == 1);
  CHECK_THAT(block["warnings"][0].get<std::string>(),
             Catch::Contains(
                 "--swap-attention with --recompute-method block (the attention of the first "
                 "--recompute-num-layers layers of each chunk on the host: priced on the device, "
                 "an upper bound)"));
}

TEST_CASE(
    "The embedding and loss accounted in the pipeline split state each virtual stage's layers") {
  // 14 layers + the embedding + the loss = 16 slots over pp 4 x vpp 2: 2 a
  // virtual stage (chunk·pp + rank), the first and the last one less.
  const json j = parsed("account_split.sh");
  CHECK(j["stage_layers"] == json::array({1, 2, 2, 2, 2, 2, 2, 1}));
  CHECK(j["warnings"].empty());
  // Rank 0 holds 1 + 2, rank 3 2 + 1: eval prices that split.
  const auto e = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                             " eval " + fixture("account_split.sh") +
                                             " -A nvidia-h100-sxm -d 8 --format json");
  REQUIRE(e.exit_code == 0);
  const json stages = json::parse(e.out)["memory"]["stages"];
  CHECK(stages[0]["layers"] == 3);
  CHECK(stages[1]["layers"] == 4);
  CHECK(stages[3]["layers"] == 3);
  // 13 layers + 2 = 15 slots do not divide over 8: Megatron-Core refuses it.
  std::ifstream in(fixture("account_split.sh"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("--num-layers 14"), 15, "--num-layers 13");
  const std::string odd = (std::filesystem::temp_directory_path() /
                           ("ndsearch-account-" + std::to_string(::getpid()) + ".sh"))
                              .string();
  std::ofstream(odd) << text;
  const auto r = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                             " model --format json " + odd);
  std::filesystem::remove(odd);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains(
                        ":10: --account-for-embedding-in-pipeline-split: --num-layers 13 with the "
                        "embedding and loss accounted is 15 slots, which pp·vpp = 8 virtual stages "
                        "do not divide"));
}

TEST_CASE("MindSpeed's 2-D tensor parallelism is a warning saying how it is priced") {
  const json j = parsed("mindspeed_tp2d.sh");
  REQUIRE(j["warnings"].size() == 1);
  CHECK_THAT(j["warnings"][0].get<std::string>(),
             Catch::Contains(
                 "mindspeed_tp2d.sh:9: --tp-2d (priced as 1-D tensor parallelism over the same "
                 "devices)"));
}

TEST_CASE("MindSpeed's ring overlaps its send and receive only with --use-cp-send-recv-overlap") {
  // MindSpeed (known here by --context-parallel-algo and --use-fused-rmsnorm)
  // runs its own ring attention: off by default.
  const json off = parsed("mindspeed_cp.sh");
  CHECK(off["overlap"]["cp"] == false);
  CHECK(off["provenance"]["overlap.cp"] == "default:megatron");
  const json on = parsed("mindspeed_cp_overlap.json");
  CHECK(on["overlap"]["cp"] == true);
  CHECK(on["provenance"]["overlap.cp"] ==
        fixture("mindspeed_cp_overlap.json") + ":11: use_cp_send_recv_overlap");
}

namespace {

// An 8-layer GPT launch with `extra` arguments, as eval and model read it.
ndsearch::test::CommandResult launched(const std::string& extra) {
  const std::string script =
      ndsearch::test::temp_file(
          "ndsearch-launch", ".sh",
          "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 8 --hidden-size 256 "
          "--num-attention-heads 8 --seq-length 1024 --max-position-embeddings 1024 "
          "--vocab-size 1000 --micro-batch-size 1 --global-batch-size 8 --bf16 --use-flash-attn " +
              extra + "\n")
          .string();
  auto r = model_at(script);
  std::filesystem::remove(script);
  return r;
}

}  // namespace

TEST_CASE(
    "Sliding windows: MindSpeed-LLM's on every layer, Megatron's where its skip frequency says") {
  // --sliding-window W is FlashAttentionScore's pre_tokens: the query and the
  // W keys before it, W + 1 in all, on every layer.
  auto every = launched("--sliding-window 255");
  INFO(every.err);
  REQUIRE(every.exit_code == 0);
  const json all = json::parse(every.out);
  REQUIRE(all["blocks"].size() == 1);
  CHECK(all["blocks"][0]["attention_window"] == 256);
  // --window-size 255,0 keeps the same 256 keys; --window-attn-skip-freq 4
  // keeps layers 4 and 8 (1-based) whole: blocks of 3, 1, 3, 1 layers.
  auto skipped = launched("--window-size 255,0 --window-attn-skip-freq 4");
  INFO(skipped.err);
  REQUIRE(skipped.exit_code == 0);
  const json blocks = json::parse(skipped.out)["blocks"];
  REQUIRE(blocks.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(blocks[i]["layers"] == (i % 2 == 0 ? 3 : 1));
    CHECK(blocks[i].contains("attention_window") == (i % 2 == 0));
  }
  // A list: 1 for a windowed layer, 0 for a whole one.
  auto listed = launched("--window-size '(255, 0)' --window-attn-skip-freq '[0]*2+[1]*6'");
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  const json two = json::parse(listed.out)["blocks"];
  REQUIRE(two.size() == 2);
  CHECK(two[0]["layers"] == 2);
  CHECK_FALSE(two[0].contains("attention_window"));
  CHECK(two[1]["attention_window"] == 256);
  // Transformer Engine takes a window under CP over its a2a or all_gather
  // exchange only: the ring (p2p, the default) cannot run one.
  CHECK(all["capabilities"]["cp_with_window"] == false);
  auto a2a = launched("--window-size 255,0 --cp-comm-type a2a");
  REQUIRE(a2a.exit_code == 0);
  CHECK(json::parse(a2a.out)["capabilities"]["cp_with_window"] == true);
  // Left -1 is every key before the query: no window.
  auto unbounded = launched("--window-size -1,0");
  REQUIRE(unbounded.exit_code == 0);
  CHECK_FALSE(json::parse(unbounded.out)["blocks"][0].contains("attention_window"));
}

TEST_CASE("A window the trainer would not read is refused with its flag and line") {
  const auto one = launched("--window-size 256");
  CHECK(one.exit_code == 2);
  CHECK_THAT(one.err, Catch::Contains("--window-size '256': expected two whole numbers"));
  const auto both = launched("--window-size 255,0 --sliding-window 255");
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err,
             Catch::Contains("--window-size and --sliding-window both set the attention window"));
  const auto short_list = launched("--window-size 255,0 --window-attn-skip-freq '[1,0]*3'");
  CHECK(short_list.exit_code == 2);
  CHECK_THAT(short_list.err, Catch::Contains("8 entries (it has 6)"));
  const auto zero = launched("--sliding-window 0");
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--sliding-window '0'"));
}

TEST_CASE("The loss moves what Megatron-LM's cross entropy moves, fused or not") {
  // Unfused by default (cross_entropy.py): the cast, max, subtraction,
  // exponential, sum and division, 38 bytes a logit; the in-place scaling and
  // the cast back, 14. --cross-entropy-loss-fusion: three fused kernels and
  // one backward, 22 and 6.
  auto plain = launched("");
  REQUIRE(plain.exit_code == 0);
  const json unfused = json::parse(plain.out);
  CHECK(unfused["loss_forward_bytes_per_logit"] == 38);
  CHECK(unfused["loss_backward_bytes_per_logit"] == 14);
  auto with = launched("--cross-entropy-loss-fusion --cross-entropy-fusion-impl te");
  REQUIRE(with.exit_code == 0);
  const json fused = json::parse(with.out);
  CHECK(fused["loss_forward_bytes_per_logit"] == 22);
  CHECK(fused["loss_backward_bytes_per_logit"] == 6);
  CHECK_FALSE(warned(fused, "cross-entropy"));
  // Gemma 2's soft-capped logits (MindSpeed-LLM): divide, tanh, multiply on
  // the bf16 logits, 3 x (2 + 2) = 12 more; backward 4 + 6 + 4 = 14 more.
  auto capped = launched("--output-logit-softcapping 30.0");
  REQUIRE(capped.exit_code == 0);
  const json soft = json::parse(capped.out);
  CHECK(soft["loss_forward_bytes_per_logit"] == 38 + 12);
  CHECK(soft["loss_backward_bytes_per_logit"] == 14 + 14);
  // MindSpeed-LLM's tanh GELU: gated as priced, its eight ops said.
  auto tanh = launched("--gelu-tanh");
  REQUIRE(tanh.exit_code == 0);
  const json gelu = json::parse(tanh.out);
  CHECK(gelu["blocks"][0]["ffn"] == "swiglu");
  CHECK(warned(gelu, "--gelu-tanh (priced as one fused gated activation"));
  const auto bad = launched("--cross-entropy-loss-fusion --cross-entropy-fusion-impl fast");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--cross-entropy-fusion-impl 'fast': expected native or te"));
}

TEST_CASE("MindSpeed's Ulysses degree in hybrid CP and its repeated K and V are read") {
  // ChatGLM3 6B 64K (MindSpeed-LLM RC3): hybrid CP 16 with 8-way Ulysses over
  // 2 KV heads, which only K and V repeated to the query heads allow.
  auto stated = launched(
      "--context-parallel-size 16 --context-parallel-algo hybrid_cp_algo "
      "--ulysses-degree-in-cp 8 --kv-head-repeat-before-uly-alltoall "
      "--group-query-attention --num-query-groups 2");
  INFO(stated.err);
  REQUIRE(stated.exit_code == 0);
  const json m = json::parse(stated.out);
  CHECK(m["cp_algorithm"] == "hybrid");
  CHECK(m["cp_ulysses_degree"] == 8);
  CHECK(m["cp_kv_heads_repeated"] == true);
  CHECK_FALSE(warned(m, "ulysses"));
  // Neither stated: the plugin's choice, K and V as the KV heads have them.
  auto plain = launched("--context-parallel-size 2 --context-parallel-algo hybrid_cp_algo");
  REQUIRE(plain.exit_code == 0);
  const json none = json::parse(plain.out);
  CHECK(none["cp_ulysses_degree"].is_null());
  CHECK(none["cp_kv_heads_repeated"] == false);
  // A degree below 1 is refused naming the flag.
  const auto zero = launched("--ulysses-degree-in-cp 0");
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--ulysses-degree-in-cp"));
}

TEST_CASE("The backward's async TP exchange follows the script: off only without SP") {
  // Megatron-LM since 3f65246911 (2021-09): async unless
  // --no-async-tensor-model-parallel-allreduce; with --sequence-parallel
  // async whatever that flag says (core_r0.6.0 arguments.py). A script
  // whose SP depends on the environment leaves the bit unknown.
  const auto bit = [](const std::string& prefix, const std::string& extra) {
    const std::string script =
        ndsearch::test::temp_file(
            "ndsearch-async", ".sh",
            prefix +
                "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 256 "
                "--num-attention-heads 4 --seq-length 512 --max-position-embeddings 512 "
                "--vocab-size 1000 --micro-batch-size 1 --global-batch-size 8 "
                "--tensor-model-parallel-size 2 " +
                extra + "\n")
            .string();
    const auto r = model_at(script);
    std::filesystem::remove(script);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  };
  CHECK(bit("", "")["overlap"]["tp_async"] == true);
  CHECK(bit("", "--no-async-tensor-model-parallel-allreduce")["overlap"]["tp_async"] == false);
  CHECK(bit("", "--sequence-parallel --no-async-tensor-model-parallel-allreduce")["overlap"]
                                                                                 ["tp_async"] ==
        true);
  const json unknown = bit("if [ \"$USE_SP\" = 1 ]; then SP=\"--sequence-parallel\"; fi\n",
                           "$SP --no-async-tensor-model-parallel-allreduce");
  CHECK(unknown["overlap"]["tp_async"].is_null());
  CHECK(warned(unknown, "overlap.tp_async cannot be known from the file"));
}

TEST_CASE("A number flag reads a leading plus as argparse's int() does, as the shell does") {
  // Megatron's flags are argparse type=int, and int("+2") is 2. Before one
  // reader (whole_number.hpp), the flag reader refused the '+' that the
  // shell reader took: TP=+2 then --tensor-model-parallel-size $TP failed.
  auto r = launched("--tensor-model-parallel-size +2 --pipeline-model-parallel-size $((+2))");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json m = json::parse(r.out);
  CHECK(m["stated_strategy"]["tp"] == 2);
  CHECK(m["stated_strategy"]["pp"] == 2);
}

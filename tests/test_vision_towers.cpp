// SPDX-License-Identifier: Apache-2.0
// test_vision_towers.cpp: vision towers priced with the language model (ABI
// 1.6): their parameters counted by hand from the modelling code of
// Qwen2.5-VL and Qwen3-VL (transformers), the bytes they add to the first
// pipeline stage, the work and FLOPs they add to the step, the parser's
// windowed blocks and mergers, and the CLI's image tokens.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/input/parse_config.hpp"
#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/model/params.hpp"
#include "core/model/towers.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/overlap_fields.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using Value = ModelBuilder::Value;

namespace {

using test::Fields;

void set_all(ModelBuilder& b, const Fields& fields) {
  for (const auto& [key, value] : fields) REQUIRE(b.set(key, value, "t") == nullptr);
}

// Qwen2.5-VL-7B-Instruct's shapes (its config.json): the Qwen2-7B text model
// and a 32-layer tower, windowed but for layers 7, 15, 23 and 31; trained
// on sequences of 8192 with `image_tokens` of them an image's.
Model qwen2_5_vl_7b(bool with_tower, int64_t image_tokens) {
  Model m;
  m.file = "qwen2.5-vl-7b";
  ModelBuilder b(m, "test", false);
  REQUIRE(b.begin_block("decoder", 28, "t") == nullptr);
  set_all(b, {{"hidden_size", int64_t{3584}},
              {"heads", int64_t{28}},
              {"kv_heads", int64_t{4}},
              {"ffn", std::string("swiglu")},
              {"ffn_hidden_size", int64_t{18944}},
              {"norm", std::string("rmsnorm")},
              {"qkv_bias", int64_t{1}}});
  REQUIRE(b.end_block() == nullptr);
  set_all(b, {{"vocab_size", int64_t{152064}}, {"tied_embeddings", int64_t{0}}});
  if (with_tower) {
    REQUIRE(b.begin_submodel("vision", "t") == nullptr);
    for (int64_t run = 0; run < 4; ++run)
      for (const int64_t window : {int64_t{64}, int64_t{0}}) {  // (112 / 14)^2 patches, then full
        REQUIRE(b.begin_block("encoder", window > 0 ? 7 : 1, "t") == nullptr);
        set_all(b, {{"hidden_size", int64_t{1280}},
                    {"heads", int64_t{16}},
                    {"ffn", std::string("swiglu")},
                    {"ffn_hidden_size", int64_t{3420}},
                    {"norm", std::string("rmsnorm")},
                    {"linear_bias", int64_t{1}},
                    {"qkv_bias", int64_t{0}},
                    {"qk_norm", int64_t{0}},
                    {"attention_window", window}});
        REQUIRE(b.end_block() == nullptr);
      }
    set_all(b, {{"patch_inputs", int64_t{3 * 2 * 14 * 14}},
                {"patch_bias", int64_t{0}},
                {"merge_patches", int64_t{4}},
                {"out_hidden_size", int64_t{3584}},
                {"mergers", int64_t{1}}});
    REQUIRE(b.end_submodel() == nullptr);
  }
  set_all(b, {{"seq_len", int64_t{8192}},
              {"global_batch", int64_t{64}},
              {"image_tokens", image_tokens},
              {"params_dtype", std::string("bf16")},
              {"compute_dtype", std::string("bf16")},
              {"grads_dtype", std::string("fp32")}});
  finalize_model(m);
  return m;
}

// With fp32 gradients (the HF default is bf16), so that the gradients grow
// by 4 bytes a parameter and no fp32 copy at the optimizer step is involved.
Model tiny_vl(int64_t image_tokens) {
  ParseOptions options;
  options.overrides.seq_len = 64;
  options.overrides.global_batch = 2;
  options.overrides.image_tokens = image_tokens;
  Model m =
      parse_config(test::shipped_plugins(),
                   std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-vl.json", options);
  m.training.grads_dtype = NDS_DTYPE_FP32;
  return m;
}

}  // namespace

TEST_CASE("Qwen2.5-VL-7B's vision tower, counted by hand, makes the published total") {
  // Qwen2_5_VisionTransformerPretrainedModel (transformers):
  //   patch embedding Conv3d(3, 1280, (2, 14, 14), bias=False): 1176 x 1280 = 1,505,280;
  //   a block: RMSNorm 1280; qkv Linear(1280, 3840) + bias = 4,919,040; proj
  //   Linear(1280, 1280) + bias = 1,639,680; RMSNorm 1280; gate and up
  //   Linear(1280, 3420) + bias = 4,381,020 each; down Linear(3420, 1280) + bias
  //   = 4,378,880: 19,702,200, x 32 = 630,470,400;
  //   merger: RMSNorm 1280; Linear(5120, 5120) + bias = 26,219,520;
  //   Linear(5120, 3584) + bias = 18,353,664: 44,574,464.
  // Tower: 676,550,144. With Qwen2-7B's 7,615,616,512 text parameters:
  // 8,292,166,656, the safetensors total of Qwen/Qwen2.5-VL-7B-Instruct
  // ("8.29B params" on its model card).
  const Model m = qwen2_5_vl_7b(true, 1024);
  const auto counts = count_parameters(m);
  REQUIRE(counts);
  REQUIRE(counts->submodels.size() == 1);
  const sdk::TowerParameters& t = counts->submodels[0];
  CHECK(t.patch_embedding == 1505280.0);
  CHECK(t.layers() == 630470400.0);
  CHECK(t.mergers_total() == 44574464.0);
  CHECK(t.positions == 0.0);
  CHECK(t.total() == 676550144.0);
  CHECK(counts->total == 7615616512.0);
  CHECK(counts->with_towers(counts->total) == 8292166656.0);
}

TEST_CASE("The parser reads a tower's windows, patch embedding, positions and mergers") {
  // tiny-vl-windowed.json: 4 layers, full attention in layers 1 and 3, the
  // others in windows of 8 pixels of 2-pixel patches: (8 / 2)^2 = 16 patches.
  ParseOptions options;
  const Model w = parse_config(
      test::shipped_plugins(),
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-vl-windowed.json", options);
  REQUIRE(w.submodels.size() == 1);
  const ModelPart& tower = w.submodels[0];
  REQUIRE(tower.blocks.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(tower.blocks[i].c.layers == 1);
    CHECK(tower.blocks[i].c.attention_window == (i % 2 == 0 ? 16 : 0));
  }
  CHECK(tower.patch_inputs == 3 * 2 * 2 * 2);
  CHECK(tower.patch_bias == 0);  // Qwen2.5-VL's Conv3d has none
  CHECK(tower.merge_patches == 4);
  CHECK(tower.mergers == 3);  // the merger and two DeepStack mergers
  // A layer: attention 32·96 + 32·32 + 96 + 32 = 4224, RMSNorms 2·32, SwiGLU
  // 3·32·48 + 2·48 + 32 = 4736: 9024, x 4 = 36096. Patch embedding 24·32 =
  // 768. Mergers of 4·32 = 128: 128·128 + 128 + 128·64 + 64 = 24768 each;
  // RMSNorms 32 (the first, per patch) + 2 x 128 (after the shuffle).
  const sdk::TowerParameters p = tower_parameters(tower);
  CHECK(p.layers() == 36096.0);
  CHECK(p.patch_embedding == 768.0);
  CHECK(p.mergers_total() == 3 * 24768.0 + 32 + 2 * 128);
  // tiny-vl.json (Qwen3-VL): a bias on the patch embedding and 16 learned positions.
  const Model q = tiny_vl(8);
  CHECK(q.submodels[0].patch_bias == 1);
  CHECK(tower_parameters(q.submodels[0]).patch_embedding == 24 * 32 + 32);
  CHECK(tower_parameters(q.submodels[0]).positions == 16 * 32);
}

TEST_CASE("The first stage's memory grows by exactly the tower's bytes") {
  // tiny-vl.json's tower: layers 2 x (attention 4224 + LayerNorms 128 + GeLU
  // MLP 2·32·64 + 64 + 32 = 4192) = 17088; patch embedding 24·32 + 32 = 800;
  // positions 16·32 = 512; merger 24768 + LayerNorm 64: 43232 parameters.
  Model m = tiny_vl(8);
  // Its work is a third of a text layer's: the split stays 1 + 1.
  REQUIRE(m.tower_layer_ratio < 0.5);
  Model text = m;
  text.submodels.clear();
  const nds_strategy s = resolve_strategy(parse_strategy("dp=1,tp=1,pp=2,mbs=1,zero=0"), m, 2, 2);
  const Placement placement = place_layers(s, m, false);
  const Device& device = test::shipped_device("nvidia-h100-sxm");
  const MemoryPasses with_passes(test::shipped_plugins(), m, device),
      without_passes(test::shipped_plugins(), text, device);
  MemoryEvaluator with(with_passes, 2), without(without_passes, 2);
  std::vector<RankMemory> a, b;
  REQUIRE(with.evaluate(placement.candidate(), a).empty());
  REQUIRE(without.evaluate(placement.candidate(), b).empty());
  auto grown = [&](size_t rank, nds_memory_term term) {
    return a[rank].bytes[term] - b[rank].bytes[term];
  };
  // bf16 parameters, fp32 gradients, fp32 master weights and two fp32 Adam states: 2, 4, 12 bytes
  // each.
  CHECK(grown(0, NDS_MEMORY_PARAMS) == Approx(2 * 43232.0));
  CHECK(grown(0, NDS_MEMORY_GRADS) == Approx(4 * 43232.0));
  CHECK(grown(0, NDS_MEMORY_OPTIMIZER) == Approx(12 * 43232.0));
  // Activations: 8 image tokens of 4 patches, one image: 32 patches, each
  // query meeting all 32 (full attention). Per patch and layer (bf16, flash
  // attention, no dropout, Korthikanti et al.'s terms): norms' inputs 2·2·32,
  // QKV and MLP inputs 2·32 each (256 whole on every TP rank); Q, K, V 2·96,
  // the output projection's input 2·32, the log-sum-exp 4·2, the GeLU MLP's
  // 2·64 + 2·64 (520 split): 776, x 2 layers x 32 patches = 49664. The
  // patch embedding's input 2·24 per patch: 1536. The merger per merged
  // token (128 wide): norm and first linear inputs 4·128, activation and
  // second linear inputs 4·128, x 8 tokens: 8192. 59392 per micro-batch,
  // and 1F1B holds 2 micro-batches in flight on the first of 2 stages.
  REQUIRE(m.main.flash_attention == 1);
  CHECK(grown(0, NDS_MEMORY_ACTIVATIONS) == Approx(2 * (49664.0 + 1536 + 8192)));
  CHECK(grown(0, NDS_MEMORY_COMM_BUFFERS) == 0);
  for (size_t term = 0; term < NDS_MEMORY_TERM_COUNT_V1; ++term)
    CHECK(grown(1, static_cast<nds_memory_term>(term)) == 0);  // the last stage holds none of it
}

TEST_CASE("The towers count in the default split as the layers their work is worth, times cp") {
  // Forward FLOPs of one sequence (8192 tokens, 1024 of them an image's):
  // the tower 5,648,938,401,792 (the next test's sum); a Qwen2-7B layer
  // 2 x 8192 x 233,057,792 + 2 x 8192^2 x 3584 (causal attention) =
  // 4,299,455,201,280: a ratio of 1.3139.
  const Model m = qwen2_5_vl_7b(true, 1024);
  CHECK(m.tower_layer_ratio == Approx(5648938401792.0 / 4299455201280.0));
  auto split = [&](const char* strategy, uint64_t devices) {
    const nds_strategy s = resolve_strategy(parse_strategy(strategy), m, devices, 64);
    return place_layers(s, m, false).chunk_layers;
  };
  // cp 1: 1 layer; 29 over 4 stages is 8, 7, 7, 7, and rank 0 gives one up.
  CHECK(split("dp=1,tp=1,pp=4,cp=1", 4) == std::vector<uint32_t>{7, 7, 7, 7});
  // cp 2: each CP rank runs the images whole: 2.63, 3 layers; 31 is 8, 8, 8, 7.
  CHECK(split("dp=1,tp=1,pp=4,cp=2", 8) == std::vector<uint32_t>{5, 8, 8, 7});
  // Every token an image's (8192 image tokens): the tower is worth more
  // than a stage; rank 0 keeps one layer and the towers, the fullest other
  // stages give up the rest.
  const Model heavy = qwen2_5_vl_7b(true, 8192);
  REQUIRE(heavy.tower_layer_ratio > 4);
  const nds_strategy s = resolve_strategy(parse_strategy("dp=1,tp=1,pp=8"), heavy, 8, 64);
  const Placement p = place_layers(s, heavy, false);
  CHECK(p.chunk_layers[0] == 1);
  CHECK(p.chunk_first_layer[0] == 0);
  uint32_t sum = 0;
  for (uint32_t n : p.chunk_layers) sum += n;
  CHECK(sum == 28);
  CHECK(*std::max_element(p.chunk_layers.begin() + 1, p.chunk_layers.end()) -
            *std::min_element(p.chunk_layers.begin() + 1, p.chunk_layers.end()) <=
        1);
}

TEST_CASE("At pp = 1 the step grows by the tower's work, and MFU counts its FLOPs") {
  const Model plain = qwen2_5_vl_7b(false, 1024), vl = qwen2_5_vl_7b(true, 1024);
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  auto estimate = [&](const Model& m) {
    const nds_strategy s = resolve_strategy(parse_strategy("dp=8,tp=1,pp=1,mbs=1"), m, 8, 64);
    const Placement p = place_layers(s, m, false);
    const CompiledModel compiled(m, h100);
    return TimeModel(compiled).estimate(p.candidate(), 8);
  };
  const TimeEstimate a = estimate(plain), b = estimate(vl);
  // Forward FLOPs of one sequence's tower: 1024 tokens of 4 patches, 4096 patches
  // of one image. GEMMs 2 x patches x (the layers' linears 32 x (6,558,720 +
  // 13,140,920) + the patch embedding 1,505,280); the merger 2 x 1024 x
  // 44,573,184 (its linears); attention 4 x 4096 x keys x 1280: 28 layers of 64 keys, 4 of 4096.
  const double linears = 32 * (6558720.0 + 13140920.0);
  const double forward = 2 * 4096 * (linears + 1505280.0) + 2 * 1024 * 44573184.0 +
                         4 * 4096 * 1280.0 * (28 * 64 + 4 * 4096);
  // 64 sequences a step, forward and backward: 3x.
  CHECK(b.tower_flops_per_step == Approx(64 * 3 * forward));
  CHECK(b.model_flops_per_step - a.model_flops_per_step == Approx(64 * 3 * forward));
  // The step grows by the towers' exposed work of the mbn = 8 micro-batches
  // (their compute and the fitted overhead of their 32 layers), and by the
  // data-parallel reduction and update of their parameters.
  const double layer_s = CompiledModel(vl, h100).settings.overheads.layer_s;
  const double compute = (b.parts.forward + b.parts.backward + b.parts.recompute + b.parts.tp) -
                         (a.parts.forward + a.parts.backward + a.parts.recompute + a.parts.tp);
  CHECK(compute + 8 * 32 * layer_s == Approx(b.towers_s));
  CHECK(b.parts.bubble == 0);
  // The optimizer streams the towers' 676,550,144 parameters' states too.
  CHECK(b.parts.optimizer > a.parts.optimizer * 1.05);
  CHECK(b.step_s - a.step_s >= b.towers_s);
  // At the device's rates: each micro-batch's forward takes at least its
  // FLOPs at H100's dense bf16 peak (989.4 TFLOP/s), and these GEMMs (4096 x
  // 1280 and up) run at no less than a quarter of it.
  const double forward_s = (b.parts.forward - a.parts.forward) / 8;
  CHECK(forward_s > forward / 989.4e12);
  CHECK(forward_s < 4 * forward / 989.4e12);
  // Without image tokens the tower does no work.
  CHECK(estimate(qwen2_5_vl_7b(true, 0)).towers_s == 0);
}

TEST_CASE(
    "A vision-language model without image tokens is refused naming the flag, and eval prices its "
    "towers") {
  const std::string config = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-vl.json";
  const std::string eval =
      test::cli() + " eval " + config + " -A nvidia-h100-sxm -d 2 -b 2 --seq-len 64";
  const test::CommandResult missing = test::run_command(eval + " --strategy \"pp=2\"");
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err,
             Catch::Contains("E-MISSING-VALUES") && Catch::Contains("--image-tokens N"));
  const test::CommandResult over =
      test::run_command(eval + " --image-tokens 65 --strategy \"pp=2\"");
  CHECK_THAT(over.err, Catch::Contains("E-MODEL-LIMIT") && Catch::Contains("image_tokens = 65"));
  const test::CommandResult priced =
      test::run_command(eval + " --image-tokens 8 --strategy \"pp=2,mbs=1\" --format json");
  REQUIRE(priced.exit_code == 0);
  const auto j = nlohmann::json::parse(priced.out);
  CHECK(j["warnings"].dump().find("not priced") == std::string::npos);
  REQUIRE(j["towers"].is_object());
  CHECK(j["towers"]["params"] == 43232.0);
  CHECK(j["towers"]["stage"] == 0);
  CHECK(j["towers"]["stage_bytes"][1] == 0.0);
  CHECK(j["towers"]["memory_share"].get<double>() > 0);
  CHECK(j["towers"]["time_share"].get<double>() > 0);
  CHECK(j["towers"]["time_share"].get<double>() < 1);
}

TEST_CASE("A tower's sizes that overflow or cannot be read are errors naming the field") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("nds_test_vl_" + std::to_string(getpid()) + ".json"))
                               .string();
  auto parse_vision = [&](const std::string& vision) -> std::string {
    std::ofstream(path)
        << R"({"model_type": "qwen2_5_vl", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 256, "hidden_act": "silu",
      "vision_config": )"
        << vision << "}";
    try {
      parse_config(test::shipped_plugins(), path, ParseOptions{});
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  // 2^32 squared wraps to 0 in 64 bits: refused, not read as no merge.
  CHECK_THAT(
      parse_vision(R"({"depth": 2, "hidden_size": 32, "num_heads": 2, "intermediate_size": 64,
                              "spatial_merge_size": 4294967296})"),
      Catch::Contains("vision_config.spatial_merge_size") && Catch::Contains("2^40"));
  // A window in pixels needs the patch size to be read in patches.
  CHECK_THAT(
      parse_vision(R"({"depth": 2, "hidden_size": 32, "num_heads": 2, "intermediate_size": 64,
                              "window_size": 112, "fullatt_block_indexes": [1]})"),
      Catch::Contains("vision_config.window_size") && Catch::Contains("patch_size"));
  // Qwen2-VL: the MLP as a multiple of embed_dim (1280 x 4 = 5120).
  CHECK(parse_vision(
            R"({"depth": 2, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 4,
                         "hidden_act": "quick_gelu", "spatial_merge_size": 2})")
            .empty());
  std::filesystem::remove(path);
}

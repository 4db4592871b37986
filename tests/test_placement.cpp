// SPDX-License-Identifier: Apache-2.0
// test_placement.cpp: a config's stated pipeline split as the placement reads
// it (core/strategy/placement.hpp): counts or offsets, per stage or per
// chunk, with or without the MTP layers counted (reference §5.1, §8.3).
#include <catch2/catch.hpp>

#include <ndsearch/sdk/stage_split.hpp>

#include "core/model/trainer_limits.hpp"
#include "core/strategy/placement.hpp"
#include "core/support/user_error.hpp"
#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

// A 10-layer GPT (the test shape of gpt_memory.hpp), with `mtp` MTP layers after it.
Model ten_layers(int64_t mtp) {
  Model m = test::gpt({10, 1024, 16, 4096, 32000, 2048, "bf16", "fp32", "fp32", 2});
  if (mtp > 0) {
    ModelBlock extra = m.main.blocks.front();
    extra.c.kind = NDS_BLOCK_MTP;
    extra.c.layers = mtp;
    m.main.blocks.push_back(extra);
  }
  return m;
}

std::vector<uint32_t> chunk_layers(const Model& m, const char* strategy) {
  return place_layers(test::strategy(strategy), m, true).chunk_layers;
}

}  // namespace

TEST_CASE("Stated offsets place the remainder where they say, per stage or per chunk") {
  Model m = ten_layers(0);
  // 1-D offsets, pp 4: 10 // 4 = 2 each, offsets [1, 1, 0, 0] → 3 3 2 2.
  m.stage_layer_offsets = {1, 1, 0, 0};
  CHECK(chunk_layers(m, "pp=4") == std::vector<uint32_t>{3, 3, 2, 2});
  // The same offsets under vpp 2 (reference §5.1's 1-D rule): 10 // 8 = 1 a
  // chunk, a stage's offset o adds o // 2 to each chunk and o % 2 to its last:
  // stages 0 and 1 hold 1 + 2, stages 2 and 3 hold 1 + 1. Listed [rank·vpp + chunk].
  CHECK(chunk_layers(m, "pp=4,vpp=2") == std::vector<uint32_t>{1, 2, 1, 2, 1, 1, 1, 1});
  // 2-D offsets, one per chunk in virtual-stage order (chunk·pp + stage):
  // 1 each, 2 left on virtual stages 1 and 7.
  m.stage_layer_offsets = {0, 1, 0, 0, 0, 0, 0, 1};
  CHECK(chunk_layers(m, "pp=4,vpp=2") == std::vector<uint32_t>{1, 1, 2, 1, 1, 1, 1, 2});
  // Offsets that do not place every layer are refused, naming the count.
  m.stage_layer_offsets = {1, 0, 0, 0};
  CHECK_THROWS_WITH(chunk_layers(m, "pp=4"),
                    Catch::Contains("places 9 layers, but the model has 10"));
  // An offset list of neither pp nor pp·vpp entries names both.
  m.stage_layer_offsets = {1, 1, 0};
  CHECK_THROWS_WITH(chunk_layers(m, "pp=4"),
                    Catch::Contains("states 3 stage offsets") && Catch::Contains("pp = 4 stages"));
}

TEST_CASE("Stated counts or offsets that include the MTP layers leave them to the last stage") {
  // 10 decoder layers + 1 MTP = 11 over pp 4 (the reference's is_mtp_in_offset):
  // 11 // 4 = 2 each, offsets [1, 1, 1, 0] → 3 3 3 2, the last stage's 2 being
  // one decoder layer and the MTP layer: 3 3 3 1 decoder layers.
  Model m = ten_layers(1);
  m.stage_layer_offsets = {1, 1, 1, 0};
  CHECK(chunk_layers(m, "pp=4") == std::vector<uint32_t>{3, 3, 3, 1});
  // Offsets of the decoder layers alone are read as such: 10 // 4 = 2, [1, 1, 0, 0].
  m.stage_layer_offsets = {1, 1, 0, 0};
  CHECK(chunk_layers(m, "pp=4") == std::vector<uint32_t>{3, 3, 2, 2});
  // Counts: 3 3 3 2 place 11 = 10 + 1 MTP; 3 3 2 2 place the 10 decoder layers.
  m.stage_layer_offsets.clear();
  m.stage_layers = {3, 3, 3, 2};
  CHECK(chunk_layers(m, "pp=4") == std::vector<uint32_t>{3, 3, 3, 1});
  m.stage_layers = {3, 3, 2, 2};
  CHECK(chunk_layers(m, "pp=4") == std::vector<uint32_t>{3, 3, 2, 2});
  // Neither total: the error says both counts.
  m.stage_layers = {3, 3, 3, 3};
  CHECK_THROWS_WITH(chunk_layers(m, "pp=4"),
                    Catch::Contains("places 12 layers, but the model has 10 (and 1 MTP)"));
}

TEST_CASE("A stated schedule its stated chunks cannot run is a warning, not silently replaced") {
  auto warnings_of = [](const char* schedule, int64_t vpp) {
    Model m;
    m.file = "t.yaml";
    ModelBuilder b(m, "test", false);
    REQUIRE(b.begin_block("decoder", 8, "t") == nullptr);
    for (auto [key, value] : std::vector<std::pair<const char*, ModelBuilder::Value>>{
             {"hidden_size", int64_t{1024}},
             {"heads", int64_t{16}},
             {"ffn_hidden_size", int64_t{4096}}})
      REQUIRE(b.set(key, value, "t") == nullptr);
    REQUIRE(b.end_block() == nullptr);
    for (auto [key, value] : std::vector<std::pair<const char*, ModelBuilder::Value>>{
             {"vocab_size", int64_t{32000}},
             {"seq_len", int64_t{2048}},
             {"global_batch", int64_t{8}},
             {"stated.schedule", std::string(schedule)},
             {"stated.vpp", vpp}})
      REQUIRE(b.set(key, value, "t") == nullptr);
    finalize_model(m);
    std::string all;
    for (const std::string& w : m.warnings) all += w + "\n";
    return all;
  };
  CHECK_THAT(warnings_of("zb-v", 1), Catch::Contains("states the zb-v schedule with vpp = 1") &&
                                         Catch::Contains("priced with 1F1B"));
  CHECK_THAT(warnings_of("interleaved", 1),
             Catch::Contains("states the interleaved schedule with vpp = 1"));
  CHECK_THAT(warnings_of("zb-v", 2), !Catch::Contains("schedule"));
}

TEST_CASE("Megatron-Core's split: equal middle stages, the first and last the rest") {
  std::vector<int64_t> split;
  // 94 layers (Qwen3-235B-A22B) on pp 16: middle ceil(94/16) = 6, 14 of them
  // 84, the rest 10 halved: 5 and 5.
  REQUIRE(sdk::first_last_split(94, 16, 1, split));
  CHECK(split == std::vector<int64_t>{5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 5});
  // 61 (DeepSeek-V3) on pp 16: middle 4, 14 of them 56, the rest 5: the
  // first the larger half (3), the last (with the head and loss) 2.
  REQUIRE(sdk::first_last_split(61, 16, 1, split));
  CHECK(split.front() == 3);
  CHECK(split.back() == 2);
  // 17 on pp 8: ceil 3 x 6 = 18 > 17 leaves the first and last none, so
  // floor 2: 17 - 12 = 5, halved 3 and 2.
  REQUIRE(sdk::first_last_split(17, 8, 1, split));
  CHECK(split == std::vector<int64_t>{3, 2, 2, 2, 2, 2, 2, 2});
  // Even: every stage alike. Under vpp 2, each chunk row splits 80 / 2 = 40
  // over pp 4: 10 each, by virtual stage (chunk·pp + rank).
  REQUIRE(sdk::first_last_split(80, 4, 2, split));
  CHECK(split == std::vector<int64_t>(8, 10));
  // 61 layers with vpp 2 is not whole per chunk row: Megatron has no split.
  CHECK_FALSE(sdk::first_last_split_exists(61, 4, 2));
}

TEST_CASE("TorchTitan's split weighs the embedding and the head as a layer each") {
  std::vector<int64_t> split;
  // 32 layers + 2 = 34 over 4 stages: 8 each, the first 2 one more (9, 9, 8,
  // 8), less one on the first and last: 8, 9, 8, 7 (the split the issue saw).
  REQUIRE(sdk::edges_weighted_split(32, 4, 1, split));
  CHECK(split == std::vector<int64_t>{8, 9, 8, 7});
  // Weighing nothing: the plain even split.
  REQUIRE(sdk::edges_weighted_split(32, 4, 0, split));
  CHECK(split == std::vector<int64_t>{8, 8, 8, 8});
  // 80 layers on pp 8 with 4 stages per rank: E = 82 needs L with
  // ceil(82 / L) = 32: L = 3 gives 28, L = 2 gives 41; none.
  CHECK_FALSE(sdk::edges_weighted_stages_reachable(80, 8, 4, 1));
  CHECK(sdk::edges_weighted_stages_reachable(80, 8, 2, 1));  // the multi-stage default
}

TEST_CASE("A trainer's split is what the placement prices where the config states none") {
  Model m = ten_layers(0);
  m.training.stage_split = NDS_SPLIT_EDGES_WEIGHTED;
  m.training.stage_split_edge_layers = 1;
  // 10 + 2 = 12 over pp 4: 3 each, less one on the first and last: 2, 3, 3, 2.
  CHECK(place_layers(test::strategy("pp=4"), m, false).chunk_layers ==
        std::vector<uint32_t>{2, 3, 3, 2});
  m.training.stage_split = NDS_SPLIT_FIRST_LAST;
  // 10 on pp 4: middle ceil 3 x 2 = 6, the rest 4: 2 and 2.
  CHECK(place_layers(test::strategy("pp=4"), m, false).chunk_layers ==
        std::vector<uint32_t>{2, 3, 3, 2});
  m.training.stage_split = NDS_SPLIT_REFERENCE;
  // The reference's: 2 each, the first 2 one more.
  CHECK(place_layers(test::strategy("pp=4"), m, false).chunk_layers ==
        std::vector<uint32_t>{3, 3, 2, 2});
}

TEST_CASE("MindSpeed's split pads the layers with no-op layers at the end") {
  std::vector<int64_t> split;
  // Qwen3-235B-A22B's script: --num-layers 96 --noop-layers 94,95 on pp 4 x
  // vpp 3: 12 stages of ceil(94 / 12) = 8 slots, the 2 no-op slots off the
  // last virtual stage: 8 x 11, 6.
  REQUIRE(sdk::padded_split(94, 12, split));
  CHECK(split == std::vector<int64_t>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 6});
  // More padding than a stage holds less one moves on to the stage before:
  // 9 layers over 4 stages of 3 slots: 3 no-op, 2 off the last, 1 off the third.
  REQUIRE(sdk::padded_split(9, 4, split));
  CHECK(split == std::vector<int64_t>{3, 3, 2, 1});
  CHECK_FALSE(sdk::padded_split(3, 4, split));
}

TEST_CASE("The search header names stated per-stage counts only where they leave layers out") {
  // 10 layers, full recompute stated for 2 stages: [5, 5] takes in every
  // layer (Megatron's uniform method), so every layer at any pp, as the
  // placement prices it; [3, 2] leaves 5 out and is rescaled.
  Model m = ten_layers(0);
  m.stated.recompute = NDS_RECOMPUTE_FULL;
  m.recompute_layers = {5, 5};
  CHECK_FALSE(stated_counts_apply(test::strategy("pp=4,recompute=full"), m));
  CHECK(recompute_default_text(m, false) == "recompute: full on every layer (the config's)");
  m.recompute_layers = {3, 2};
  CHECK(stated_counts_apply(test::strategy("pp=4,recompute=full"), m));
  CHECK_THAT(recompute_default_text(m, false),
             Catch::StartsWith("recompute: the config's per-stage counts [3,2] of full recompute, "
                               "rescaled to each candidate's pp"));
  // -ar: the per-layer strategy's choice is in force, not the counts.
  CHECK(recompute_default_text(m, false, "per-layer") ==
        "recompute: chosen per layer by the per-layer recompute strategy (kept, selective or "
        "full); the config's recompute setting is not used");
}

// SPDX-License-Identifier: Apache-2.0
// test_stage_rescale.cpp: per-stage values stated for one pipeline carried to
// another (core/strategy/stage_rescale.hpp, reference §8.3), each expected
// list derived by hand beside it; then a MindFormers config's per-stage
// recompute, stated at pp = 8, placed and priced at pp = 4 and pp = 16.
#include <catch2/catch.hpp>

#include <numeric>

#include "core/input/parse_config.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/stage_rescale.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using List = std::vector<int64_t>;

TEST_CASE("Halving pp sums the recompute counts of neighbouring stages (8 -> 4)") {
  // 8 % 4 = 0: no zeros; groups of 8 / 4 = 2: 7+5, 4+3, 3+2, 1+0.
  CHECK(rescale_stages(List{7, 5, 4, 3, 3, 2, 1, 0}, 4) == List{12, 7, 5, 1});
}

TEST_CASE("Doubling pp splits each count in two, the first part taking the remainder (8 -> 16)") {
  // 16 % 8 = 0: no zeros; 16 / 8 = 2 parts each: 7 -> 4,3; 5 -> 3,2; 4 -> 2,2;
  // 3 -> 2,1; 3 -> 2,1; 2 -> 1,1; 1 -> 1,0; 0 -> 0,0. Sum 25 as before.
  CHECK(rescale_stages(List{7, 5, 4, 3, 3, 2, 1, 0}, 16) ==
        List{4, 3, 3, 2, 2, 2, 2, 1, 2, 1, 1, 1, 1, 0, 0, 0});
}

TEST_CASE("Growing pp to a non-multiple first inserts zeros in the middle (3 -> 4, 3 -> 8)") {
  // 4 % 3 != 0: one zero before index 3 / 2 = 1 gives [5, 0, 6, 7]; 4 % 4 = 0,
  // 4 / 4 = 1 part each.
  CHECK(rescale_stages(List{5, 6, 7}, 4) == List{5, 0, 6, 7});
  // 8: padded to 4 as above (8 % 4 = 0), then 2 parts each: 5 -> 3,2; 0 -> 0,0;
  // 6 -> 3,3; 7 -> 4,3.
  CHECK(rescale_stages(List{5, 6, 7}, 8) == List{3, 2, 0, 0, 3, 3, 4, 3});
}

TEST_CASE(
    "Shrinking pp to a non-divisor pads with zeros in the middle and keeps the sum (4 -> 3)") {
  // The next multiple of 3 is 6: two zeros, one before index 4 / 2 = 2
  // ([4, 3, 0, 2, 1]), one before 5 / 2 = 2 ([4, 3, 0, 0, 2, 1]); groups of 2:
  // 4+3, 0+0, 2+1. Sum 10 as before (the reference's groups of 4 // 3 = 1
  // would drop the last two stages' 3 layers).
  CHECK(rescale_stages(List{4, 3, 2, 1}, 3) == List{7, 0, 3});
}

TEST_CASE("A negative offset splits by floor division, as the reference's Python does") {
  // -1 in 2 parts: -1 // 2 = -1, remainder -1 - (-2) = 1 to the first: 0, -1.
  CHECK(rescale_stages(List{-1, 1}, 4) == List{0, -1, 1, 0});
}

TEST_CASE("The same pp leaves a list unchanged, and an empty list or pp 0 is a caller's error") {
  CHECK(rescale_stages(List{3, 1, 2}, 3) == List{3, 1, 2});
  CHECK_THROWS_AS(rescale_stages(List{}, 4), std::invalid_argument);
  CHECK_THROWS_AS(rescale_stages(List{1, 2}, 0), std::invalid_argument);
}

TEST_CASE("One chunk to two moves the last stage's value into the new second row (vpp 1 -> 2)") {
  // pp 4: row 0 [1, 2, 3, 4]; a zero row added, the last stage's 4 moved into it.
  CHECK(rescale_chunk_table(List{1, 2, 3, 4}, 4, 1, 4, 2) == List{1, 2, 3, 0, 0, 0, 0, 4});
  // vpp 3: the third row of zeros goes before row 2 / 2 = 1 of the two.
  CHECK(rescale_chunk_table(List{1, 2, 3, 4}, 4, 1, 4, 3) ==
        List{1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 4});
}

TEST_CASE("Two chunks to one add the last row into the one before it (vpp 2 -> 1, 3 -> 1)") {
  // [1, 2, 3, 0] + [5, 6, 7, 8] per stage.
  CHECK(rescale_chunk_table(List{1, 2, 3, 0, 5, 6, 7, 8}, 4, 2, 4, 1) == List{6, 8, 10, 8});
  // Three rows: row 2 into row 1, then row 1 into row 0: 1+0+4, 1+2+0, 0+3+5.
  CHECK(rescale_chunk_table(List{1, 1, 0, 0, 2, 3, 4, 0, 5}, 3, 3, 3, 1) == List{5, 3, 8});
}

TEST_CASE("A chunk table changes its rows, then rescales every row to the new pp") {
  // (pp 4, vpp 1) -> (pp 2, vpp 2): rows [1, 2, 3, 0] and [0, 0, 0, 4], each
  // to 2 stages by groups of 2: [3, 3] and [0, 4].
  const List out = rescale_chunk_table(List{1, 2, 3, 4}, 4, 1, 2, 2);
  CHECK(out == List{3, 3, 0, 4});
  CHECK(std::accumulate(out.begin(), out.end(), int64_t{0}) == 10);  // the sum kept
}

TEST_CASE("Rescaling into vectors with room allocates nothing") {
  std::vector<int64_t> out, scratch;
  rescale_chunk_table_into(List{1, 2, 3, 4}, 4, 1, 8, 2, out, scratch);
  const int64_t* out_data = out.data();
  const int64_t* scratch_data = scratch.data();
  rescale_chunk_table_into(List{4, 3, 2, 1}, 4, 1, 8, 2, out, scratch);
  CHECK(out.data() == out_data);
  CHECK(scratch.data() == scratch_data);
  // Row 0 [4, 3, 2, 0] and row 1 [0, 0, 0, 1], each in 2 parts.
  CHECK(out == List{2, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0});
}

namespace {

// tests/fixtures/configs/mindformers/pp8_stage_recompute.yaml: 16 layers,
// full recompute [2, 2, 2, 1, 1, 1, 0, 0] stated for pp = 8 (9 layers).
Model pp8_model() {
  return parse_config(
      test::shipped_plugins(),
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/mindformers/pp8_stage_recompute.yaml",
      ParseOptions{});
}

std::vector<uint32_t> recomputed_at(const Model& model, const std::string& strategy,
                                    uint64_t devices) {
  const nds_strategy s = resolve_strategy(parse_strategy(strategy), model, devices, NDS_UNKNOWN);
  return place_layers(s, model, false).chunk_recomputed_layers;
}

// What the recomputed forward passes add to a step (DESIGN §8.7): in
// proportion to the share of layers recomputed.
double recomputed_flops(Model& model, const std::string& strategy, uint64_t devices) {
  EvaluationRequest request;
  request.strategy = strategy;
  request.devices = devices;
  const Machine machine = make_machine(test::shipped_devices(), "nvidia-h100-sxm", devices);
  const StrategyEvaluation e = evaluate_strategy(test::shipped_plugins(), model, machine, request);
  REQUIRE(e.valid());
  REQUIRE(e.time.has_value());
  return e.time->hardware_flops_per_step - e.time->model_flops_per_step;
}

}  // namespace

TEST_CASE("A MindFormers per-stage recompute stated at pp 8 is rescaled to pp 4 and pp 16") {
  const Model model = pp8_model();
  REQUIRE(model.recompute_layers == List{2, 2, 2, 1, 1, 1, 0, 0});
  REQUIRE(model.stated.recompute == NDS_RECOMPUTE_FULL);
  // pp 8, as stated: 2 layers a stage.
  CHECK(recomputed_at(model, "pp=8", 8) == std::vector<uint32_t>{2, 2, 2, 1, 1, 1, 0, 0});
  // pp 4: 2+2, 2+1, 1+1, 0+0 of 4 layers a stage.
  CHECK(recomputed_at(model, "pp=4", 4) == std::vector<uint32_t>{4, 3, 2, 0});
  // pp 16: each count in 2 parts, the first taking the remainder; 1 layer a stage.
  CHECK(recomputed_at(model, "pp=16", 16) ==
        std::vector<uint32_t>{1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0});
  // pp 4 with 2 chunks of 2 layers: [4, 3, 2, 0] spread f / 2 each, the
  // first chunk f % 2 more, [rank·vpp + chunk].
  CHECK(recomputed_at(model, "pp=4,vpp=2", 4) == std::vector<uint32_t>{2, 2, 2, 1, 1, 1, 0, 0});
  // pp 2: groups of 4: 7 and 2 of 8 layers a stage.
  CHECK(recomputed_at(model, "pp=2", 2) == std::vector<uint32_t>{7, 2});
}

TEST_CASE("The rescaled recompute prices 9 of 16 layers recomputed at pp 4 and pp 16") {
  // Every layer recomputed (the config's list dropped) against the stated 9:
  // the recomputed forward flops are 9/16 of every layer's.
  Model stated = pp8_model();
  Model every_layer = pp8_model();
  every_layer.recompute_layers.clear();
  for (const auto& [strategy, devices] :
       {std::pair<std::string, uint64_t>{"pp=4", 4}, {"pp=16", 16}}) {
    INFO(strategy);
    const double all = recomputed_flops(every_layer, strategy, devices);
    REQUIRE(all > 0);
    CHECK(recomputed_flops(stated, strategy, devices) == Approx(all * 9 / 16));
  }
}

TEST_CASE("Placing candidates of other pps again reuses the rescaled recompute's room") {
  // The search's path (place_layers_into on one Placement): once pp 16 has
  // given the scratch room for 16 counts, pp 4 and pp 16 again fit in it.
  const Model model = pp8_model();
  Placement placement;
  auto place = [&](const char* strategy, uint64_t devices) {
    place_layers_into(resolve_strategy(parse_strategy(strategy), model, devices, NDS_UNKNOWN),
                      model, false, placement);
  };
  place("pp=16", 16);
  const int64_t* room = placement.scratch_recompute.data();
  place("pp=4", 4);
  CHECK(placement.chunk_recomputed_layers == std::vector<uint32_t>{4, 3, 2, 0});
  place("pp=16", 16);
  CHECK(placement.scratch_recompute.data() == room);
  CHECK(placement.chunk_recomputed_layers[7] == 0);  // stage 3's 1 split as 1, 0
}

TEST_CASE("Stated counts that take in every layer recompute every layer at any pp") {
  // [2] x 8 is all 16 layers at pp 8. Rescaled to pp 3 it would be
  // [2, 2, 2, 2, 0, 2, 2, 2, 2] by 3: [6, 4, 6], against the split 6, 5, 5
  // (16 // 3 = 5, the remainder 1 to the first stage): stage 1 would keep one.
  Model model = pp8_model();
  model.recompute_layers = List(8, 2);
  CHECK(recomputed_at(model, "pp=3", 3) == std::vector<uint32_t>{6, 5, 5});
}

// SPDX-License-Identifier: Apache-2.0
// test_stated_recompute.cpp: a published MindFormers config's per-stage
// recompute, read in place from ../shared/configs, rescaled from its pp to
// others as the reference does (§8.3, core/strategy/stage_rescale.hpp).
#include <catch2/catch.hpp>

#include "core/input/parse_config.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

TEST_CASE("Llama 3 70B's selective recompute stated for pp 8 is rescaled to pp 4 and pp 16") {
  // pretrain_llama3_70b.yaml: 80 layers, pipeline_stage 8, select_recompute
  // [10, 8, 6, 4, 2, 0, 0, 0] (30 layers).
  const Model model =
      parse_config(test::shipped_plugins(),
                   std::string(NDS_TEST_SHARED_CONFIGS) + "/mindformers/pretrain_llama3_70b.yaml",
                   ParseOptions{});
  REQUIRE(model.stated.recompute == NDS_RECOMPUTE_SELECTIVE);
  REQUIRE(model.recompute_layers == std::vector<int64_t>{10, 8, 6, 4, 2, 0, 0, 0});
  auto recomputed_at = [&](const char* strategy, uint64_t devices) {
    const nds_strategy s = resolve_strategy(parse_strategy(strategy), model, devices, NDS_UNKNOWN);
    return place_layers(s, model, false).chunk_recomputed_layers;
  };
  // pp 4, 20 layers a stage: 10+8, 6+4, 2+0, 0+0.
  CHECK(recomputed_at("pp=4,tp=1,dp=1", 4) == std::vector<uint32_t>{18, 10, 2, 0});
  // pp 16, 5 layers a stage: each count in 2 equal parts.
  CHECK(recomputed_at("pp=16,tp=1,dp=1", 16) ==
        std::vector<uint32_t>{5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0});
}

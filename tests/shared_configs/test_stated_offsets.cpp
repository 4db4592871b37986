// SPDX-License-Identifier: Apache-2.0
// test_stated_offsets.cpp: the reference's DeepSeek-V3 configs state offsets
// that count the MTP layer (is_mtp_in_offset); --layers-from-config places
// them as stated: 61 decoder layers and the MTP layer on the last stage.
#include <catch2/catch.hpp>

#include <numeric>

#include "core/input/parse_config.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {

std::vector<uint32_t> stated_layers(const char* config) {
  const Model model = parse_config(
      test::shipped_plugins(), std::string(NDS_TEST_SHARED_CONFIGS) + "/hyperparallel/" + config,
      ParseOptions{});
  REQUIRE(model.decoder_layers() == 61);
  REQUIRE(model.mtp_layers() == 1);
  const nds_strategy s =
      resolve_strategy(parse_strategy("dp=32,tp=4,pp=16,vpp=1,ep=8"), model, 2048, NDS_UNKNOWN);
  return place_layers(s, model, true).chunk_layers;
}

}  // namespace

TEST_CASE(
    "The reference's DeepSeek-V3 offsets place 61 decoder layers and the MTP layer as stated") {
  // offset [1 × 15, -1] over 61 + 1 = 62 layers on 16 stages: 62 // 16 = 3, so
  // 4 × 15 and 2 on the last stage, one decoder layer and the MTP layer.
  std::vector<uint32_t> expected(16, 4);
  expected[15] = 1;
  CHECK(stated_layers("deepseek.yaml") == expected);
  CHECK(stated_layers("hyper_deepseek_v3.yaml") == expected);
  // offset [0, 0, 1 × 12, 2, 0]: 3 3 4 × 12 5 3, the last 3 with the MTP layer.
  std::vector<uint32_t> memest(16, 4);
  memest[0] = memest[1] = 3, memest[14] = 5, memest[15] = 2;
  const std::vector<uint32_t> placed = stated_layers("memest_deepseek3_default.yaml");
  CHECK(placed == memest);
  CHECK(std::accumulate(placed.begin(), placed.end(), 0u) == 61);
}

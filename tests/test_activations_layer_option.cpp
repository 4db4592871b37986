// SPDX-License-Identifier: Apache-2.0
// test_activations_layer_option.cpp: the activations pass prices each layer by
// its own option when the candidate carries nds_candidate.layer_option (ABI
// 1.3): KEEP, SELECTIVE and FULL as Korthikanti et al. 2022's Table 2 has them,
// OFFLOAD as one micro-batch's kept bytes on the device, through the core's
// evaluator and the shipped plugins.
//
// The numbers: GPT-3 175B's layer (s = 2048, h = 12288, a = 96, fp16, GeLU 4h,
// dropout, no flash attention), micro-batch 1, TP t = 8 with SP. Per layer and
// micro-batch (Table 2; the pass divides the kept input by t under SP):
//   kept          sbh/t · (34 + 5as/h) = sbh/8 · (34 + 80) = 114 · sbh/8
//   selective     sbh/t · 34                                =  34 · sbh/8
//   full          2sbh/t (the layer's input)                =   2 · sbh/8
// The rank holding layer 0 also keeps the embedding's dropout mask, 1 byte of
// h per token, /t under SP: sh/8 per micro-batch. A rank with a FULL layer
// adds once the layer rebuilt in its backward: one layer's kept bytes.
#include <catch2/catch.hpp>

#include <cstddef>
#include <vector>

#include "tests/support/gpt_memory.hpp"

using namespace ndsearch;

namespace {

constexpr double s = 2048, h = 12288;
constexpr double unit = s * h / 8;  // sbh/t
constexpr double kept = 114 * unit, selective = 34 * unit, full = 2 * unit;
constexpr double embedding = s * h / 8;  // the embedding's dropout mask, per micro-batch

// GPT-3 175B's layers, `layers` of them.
Model gpt3(int64_t layers) {
  return test::gpt({layers, 12288, 96, 4 * 12288, 51200, 2048, "fp16", "fp16", "fp32", 2});
}

// The activations of each rank.
std::vector<double> activations(Model& m, const nds_candidate& c) {
  std::vector<double> out;
  for (const RankMemory& r : test::memory(m, c)) out.push_back(r.bytes[NDS_MEMORY_ACTIVATIONS]);
  return out;
}

// `p` with every layer of the model at `option`.
Placement with_options(Placement p, std::vector<int32_t> options) {
  p.layer_option = std::move(options);
  return p;
}

}  // namespace

TEST_CASE("layer_option all KEEP or all FULL prices as the NULL path with recompute none or full") {
  // pp 2, 4 layers each, 1F1B with mbn 4: rank r holds min(2 - r, 4) = 2, 1.
  Model m = gpt3(8);
  // The activations of each rank for `text`, every layer at `option`; the
  // same as the NULL path's (every layer recomputed under the text's mode).
  auto every_layer = [&](const char* text, int32_t option) {
    const Placement null_path = test::placement(test::strategy(text), {4, 4});
    const Placement by_layer = with_options(null_path, std::vector<int32_t>(8, option));
    const std::vector<double> a = activations(m, by_layer.candidate());
    CHECK(a == activations(m, null_path.candidate()));
    return a;
  };
  // Rank 0: 2 micro-batches of 4 kept layers and the embedding's mask.
  const std::vector<double> keep = every_layer("dp=1,tp=8,pp=2,sp=1,mbs=1,mbn=4", NDS_LAYER_KEEP);
  CHECK(keep[0] == Approx(2 * (4 * kept + embedding)));
  // Full recompute: 2 × (4 inputs + the mask) + one layer rebuilt
  // = sbh/8 · (16 + 114) + 2sh/8.
  const std::vector<double> full_recompute =
      every_layer("dp=1,tp=8,pp=2,sp=1,mbs=1,mbn=4,recompute=full", NDS_LAYER_FULL);
  CHECK(full_recompute[0] == Approx(2 * (4 * full + embedding) + kept));
  CHECK(full_recompute[0] == Approx(130 * unit + 2 * embedding));
}

TEST_CASE(
    "layer_option FULL SELECTIVE KEEP OFFLOAD on one rank of pp 2 is the sum of the per-layer "
    "terms") {
  // Rank 0 (in flight 2): FULL, SELECTIVE, KEEP, OFFLOAD; rank 1 (in flight 1)
  // all SELECTIVE. The core's strategy would say recompute=full (the strongest)
  // with 1 layer recomputed; the per-layer path must not read those.
  Model m = gpt3(8);
  const nds_strategy st = test::strategy("dp=1,tp=8,pp=2,sp=1,mbs=1,mbn=4,recompute=full");
  Placement p = test::placement(st, {4, 4});
  p.chunk_recomputed_layers = {1, 4};
  p.layer_option = {NDS_LAYER_FULL,      NDS_LAYER_SELECTIVE, NDS_LAYER_KEEP,
                    NDS_LAYER_OFFLOAD,   NDS_LAYER_SELECTIVE, NDS_LAYER_SELECTIVE,
                    NDS_LAYER_SELECTIVE, NDS_LAYER_SELECTIVE};
  REQUIRE(p.in_flight == std::vector<uint32_t>{2, 1});
  const std::vector<double> a = activations(m, p.candidate());
  // Rank 0: 2 × (full + selective + kept + mask) + 1 × kept (offloaded) + kept
  // (the FULL layer rebuilt) = sbh/8 · (2 · 150 + 114 + 114) + 2sh/8 = 66 sbh + sh/4.
  CHECK(a[0] == Approx(2 * (full + selective + kept + embedding) + kept + kept));
  CHECK(a[0] == Approx(66 * s * h + s * h / 4));
  // Rank 1: 4 selective layers and the head (the final norm's and the head's
  // fp16 inputs 2·2h, the fp32 softmax 4V, /t), no FULL layer: nothing rebuilt.
  const double head = s * (4 * h + 4 * 51200.0) / 8;
  CHECK(a[1] == Approx(4 * selective + head));
  CHECK(a[1] == Approx(17 * s * h + s * (h + 51200.0) / 2));
}

TEST_CASE(
    "layer_option OFFLOAD keeps one micro-batch of the layer on the device, none when none is in "
    "flight") {
  // pp 4, one layer each, 1F1B with mbn 4: rank 1 holds min(4 - 1, 4) = 3
  // micro-batches and neither the embedding nor the head.
  Model m = gpt3(4);
  const nds_strategy st = test::strategy("dp=1,tp=8,pp=4,sp=1,mbs=1,mbn=4");
  const Placement null_path = test::placement(st, {1, 1, 1, 1});
  REQUIRE(null_path.in_flight[1] == 3);
  Placement offload =
      with_options(null_path, {NDS_LAYER_KEEP, NDS_LAYER_OFFLOAD, NDS_LAYER_KEEP, NDS_LAYER_KEEP});
  const double kept_three = activations(m, null_path.candidate())[1];
  const double offloaded = activations(m, offload.candidate())[1];
  CHECK(kept_three == Approx(3 * kept));
  CHECK(offloaded == Approx(kept));
  CHECK(offloaded / kept_three == Approx(1.0 / 3));
  // A chunk with no micro-batch in flight holds no copy either.
  offload.in_flight[1] = 0;
  CHECK(activations(m, offload.candidate())[1] == 0);
}

TEST_CASE("A candidate whose struct_size ends before layer_option prices by strategy->recompute") {
  // An older host's candidate (ABI 1.2) ends before the array: whatever lies
  // there is not read. All OFFLOAD would price rank 1 (3 in flight) at one
  // kept layer; the 1.2 reading keeps 3.
  Model m = gpt3(4);
  const nds_strategy st = test::strategy("dp=1,tp=8,pp=4,sp=1,mbs=1,mbn=4");
  const Placement p =
      with_options(test::placement(st, {1, 1, 1, 1}), std::vector<int32_t>(4, NDS_LAYER_OFFLOAD));
  nds_candidate c = p.candidate();
  CHECK(activations(m, c)[1] == Approx(kept));
  c.struct_size = offsetof(nds_candidate, layer_option);
  CHECK(activations(m, c)[1] == Approx(3 * kept));
}

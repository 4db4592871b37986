// SPDX-License-Identifier: Apache-2.0
#include "core/export/priced_layers.hpp"

#include <algorithm>

#include "core/strategy/placement.hpp"

namespace ndsearch {
namespace {

// The option a layer recomputed under the strategy's mode runs.
int32_t mode_option(int32_t recompute) {
  switch (recompute) {
    case NDS_RECOMPUTE_FULL: return NDS_LAYER_FULL;
    case NDS_RECOMPUTE_SELECTIVE: return NDS_LAYER_SELECTIVE;
    default: return NDS_LAYER_KEEP;
  }
}

}  // namespace

std::vector<int32_t> priced_layer_options(const StrategyEvaluation& e, uint32_t layers) {
  std::vector<int32_t> out(layers, NDS_LAYER_KEEP);
  const int32_t mode = mode_option(e.strategy.recompute);
  for (const StageMemory& stage : e.stages) {
    for (const auto& [first, last] : stage.recomputed_ranges)
      for (uint32_t l = first; l <= last && l < layers; ++l) out[l] = mode;
    for (const StageMemory::LayerRun& run : stage.layer_options)
      for (uint32_t l = run.first; l <= run.last && l < layers; ++l) out[l] = run.option;
  }
  const bool uniform = std::all_of(out.begin(), out.end(), [&](int32_t o) { return o == mode; });
  if (uniform) out.clear();
  return out;
}

std::vector<int32_t> placed_layer_options(const nds_strategy& s, const Model& model) {
  const Placement p = place_layers(s, model, false);
  std::vector<int32_t> out(static_cast<size_t>(model.decoder_layers()), NDS_LAYER_KEEP);
  const int32_t mode = mode_option(s.recompute);
  // The first recomputed layers of each chunk, as the evaluation places them.
  for (size_t i = 0; i < p.chunk_layers.size(); ++i) {
    const uint32_t first = p.chunk_first_layer[i];
    const uint32_t n = std::min(p.chunk_recomputed_layers[i], p.chunk_layers[i]);
    for (uint32_t l = first; l < first + n && l < out.size(); ++l) out[l] = mode;
  }
  if (std::all_of(out.begin(), out.end(), [&](int32_t o) { return o == mode; })) out.clear();
  return out;
}

namespace {

// Decoder layers per virtual stage of a placement; empty when every one
// holds as many.
std::vector<int64_t> by_virtual_stage(const nds_strategy& s, const Placement& p) {
  std::vector<int64_t> split(p.chunk_layers.size(), 0);
  const auto v = static_cast<uint32_t>(s.vpp);
  for (uint32_t r = 0; r < static_cast<uint32_t>(s.pp); ++r)
    for (uint32_t c = 0; c < v; ++c)
      split[Placement::virtual_stage(s, r, c)] = p.chunk_layers[static_cast<size_t>(r) * v + c];
  return split;
}

void clear_if_even(std::vector<int64_t>& split) {
  if (std::all_of(split.begin(), split.end(), [&](int64_t n) { return n == split[0]; }))
    split.clear();
}

}  // namespace

std::vector<int64_t> priced_stage_layers(const nds_strategy& s, const Model& model,
                                         const std::vector<uint32_t>& balanced) {
  std::vector<int64_t> split;
  if (!balanced.empty())
    split.assign(balanced.begin(), balanced.end());
  else
    split = by_virtual_stage(s, place_layers(s, model, false));
  clear_if_even(split);
  return split;
}

}  // namespace ndsearch

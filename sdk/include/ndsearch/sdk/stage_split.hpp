// SPDX-License-Identifier: Apache-2.0
// stage_split.hpp: how the trainers split the decoder layers over pipeline
// stages when a config states no split (nds_stage_split, ABI 1.7), for the
// core's placement and the writers alike, so that the split priced is the
// one the trainer builds and the one written.
#ifndef NDSEARCH_SDK_STAGE_SPLIT_HPP_INCLUDED
#define NDSEARCH_SDK_STAGE_SPLIT_HPP_INCLUDED

#include <cstdint>
#include <vector>

namespace ndsearch::sdk {

// Megatron-Core's uneven split (NDS_SPLIT_FIRST_LAST): pp - 2 equal middle
// stages of m layers, the first and last stage the rest, halved (the first
// the larger half: the last also holds the output head and the loss); m is
// ceil(layers / pp) where that leaves the first and
// last at least one layer each, else floor. Megatron-LM checks that the
// middle stages divide the rest evenly (megatron/core/transformer/
// transformer_block.py, get_num_layers_to_build; arguments.py validate_args).
// Under vpp virtual stages, each chunk row splits layers / vpp so, which
// keeps every per-rank count divisible by vpp, as Megatron requires. Writes
// pp·vpp counts by virtual stage (chunk·pp + rank) into `split`; false when
// no split exists (layers / vpp not whole, or fewer than pp).
inline bool first_last_split_exists(int64_t layers, int64_t pp, int64_t vpp) {
  return pp >= 1 && vpp >= 1 && layers % vpp == 0 && layers / vpp >= pp;
}

inline bool first_last_split(int64_t layers, int64_t pp, int64_t vpp, std::vector<int64_t>& split) {
  if (!first_last_split_exists(layers, pp, vpp)) return false;
  const int64_t per_chunk_row = layers / vpp;
  split.assign(static_cast<size_t>(pp * vpp), 0);
  std::vector<int64_t> row(static_cast<size_t>(pp), per_chunk_row / pp);
  if (per_chunk_row % pp != 0 && pp == 2) {
    row[0] = per_chunk_row / 2;
    row[1] = per_chunk_row - row[0];
  } else if (per_chunk_row % pp != 0) {
    int64_t middle = (per_chunk_row + pp - 1) / pp;
    if (per_chunk_row - (pp - 2) * middle < 2) middle = per_chunk_row / pp;
    const int64_t rest = per_chunk_row - (pp - 2) * middle;
    for (int64_t r = 1; r + 1 < pp; ++r) row[static_cast<size_t>(r)] = middle;
    row[static_cast<size_t>(pp - 1)] = rest / 2;
    row[0] = rest - rest / 2;
  }
  for (int64_t c = 0; c < vpp; ++c)
    for (int64_t r = 0; r < pp; ++r)
      split[static_cast<size_t>(c * pp + r)] = row[static_cast<size_t>(r)];
  return true;
}

// TorchTitan's split (NDS_SPLIT_EDGES_WEIGHTED; torchtitan/distributed/
// pipeline_parallel.py, generate_llm_fqn_per_model_part): the layers plus
// `edge` for the embedding and `edge` for the head, E in all, over `stages`:
// floor(E / stages) each, the first E % stages one more, less `edge` on the
// first and the last stage. Writes the counts by stage into `split`; false
// where TorchTitan refuses (an edge over a stage's share, more stages than
// E).
inline bool edges_weighted_split_exists(int64_t layers, int64_t stages, int64_t edge) {
  // Weights past the layers (and sums that would overflow) split nothing.
  if (layers < 0 || edge < 0 || edge > layers) return false;
  const int64_t weighted = layers + 2 * edge;
  if (stages < 1 || edge < 0 || stages > weighted) return false;
  return stages == 1 || (edge <= weighted / stages && weighted / stages - edge >= 1);
}

inline bool edges_weighted_split(int64_t layers, int64_t stages, int64_t edge,
                                 std::vector<int64_t>& split) {
  if (!edges_weighted_split_exists(layers, stages, edge)) return false;
  const int64_t weighted = layers + 2 * edge;
  if (stages == 1) {
    split.assign(1, layers);
    return true;
  }
  split.assign(static_cast<size_t>(stages), weighted / stages);
  for (int64_t s = 0; s < weighted % stages; ++s) ++split[static_cast<size_t>(s)];
  split.front() -= edge;
  split.back() -= edge;
  return true;
}

// MindSpeed's split (NDS_SPLIT_PADDED): --noop-layers pad the layers to a
// multiple of the stages, ceil(layers / stages) slots each, the no-op slots
// at the end of the model (MindSpeed's examples pad 94 layers to 96 with
// --noop-layers 94,95), so the last stages hold fewer layers, each at least
// one. Writes the counts by virtual stage; false with fewer layers than
// stages.
inline bool padded_split(int64_t layers, int64_t stages, std::vector<int64_t>& split) {
  if (stages < 1 || layers < stages) return false;
  const int64_t per = (layers + stages - 1) / stages;
  split.assign(static_cast<size_t>(stages), per);
  int64_t padding = per * stages - layers;
  for (int64_t s = stages - 1; s >= 0 && padding > 0; --s) {
    const int64_t taken = padding < per - 1 ? padding : per - 1;
    split[static_cast<size_t>(s)] -= taken;
    padding -= taken;
  }
  return true;
}

// Whether TorchTitan runs `stages_per_rank` stages per rank over `pp` ranks:
// its defaults (1 for single-stage schedules, 2 for multi-stage ones), or
// some pipeline_parallel_layers_per_stage L with ceil(E / L) = pp·that
// (torchtitan/distributed/pipeline_parallel.py, pipeline_llm).
inline bool edges_weighted_stages_reachable(int64_t layers, int64_t pp, int64_t stages_per_rank,
                                            int64_t edge) {
  if (stages_per_rank <= 2) return true;
  if (layers < 0 || edge < 0 || edge > layers) return false;
  const int64_t weighted = layers + 2 * edge, stages = pp * stages_per_rank;
  for (int64_t per = 1; per <= weighted; ++per)
    if ((weighted + per - 1) / per == stages) return true;
  return false;
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_STAGE_SPLIT_HPP_INCLUDED

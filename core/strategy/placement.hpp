// SPDX-License-Identifier: Apache-2.0
// placement.hpp: what the core computes for a candidate and hands to every
// plugin with it (nds_candidate): the layers of each chunk, how many of them
// are recomputed, and the micro-batches each chunk holds in flight.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <array>
#include <cstdint>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct Placement {
  nds_strategy strategy{};
  std::vector<uint32_t> chunk_layers;       // [rank·vpp + chunk]
  std::vector<uint32_t> chunk_first_layer;  // model-order index of the chunk's first layer
  std::vector<uint32_t> chunk_recomputed_layers;
  std::vector<uint32_t> in_flight;
  // Empty, or each decoder layer's nds_layer_option as a recompute strategy
  // chose it (the candidate's layer_option); place_layers_into clears it.
  std::vector<int32_t> layer_option;
  // Working space of place_layers_into, kept so that reuse allocates nothing.
  std::vector<uint32_t> scratch_split, scratch_first;
  std::vector<int64_t> scratch_offset;
  std::vector<int64_t> scratch_recompute;  // the config's per-stage recompute at this pp
  std::vector<uint32_t> default_split;     // the last default split computed,
  std::array<uint32_t, 5> split_key{};     // for (layers, pp, vpp, tower layers, trainer's rule)
  // Decoder layers per virtual stage to place instead of the default or the
  // config's split (the search's --balance-layers); empty: none. Kept until cleared.
  std::vector<uint32_t> forced_split;

  // The ABI view; valid while this Placement lives unchanged.
  nds_candidate candidate() const;
  // Virtual stage of (rank, chunk): c·pp + r, or 2·pp-1-r for zb-v's second
  // chunk. In the header: it runs per chunk of every candidate, in several
  // files of the hot path.
  static uint32_t virtual_stage(const nds_strategy& s, uint32_t rank, uint32_t chunk) {
    const auto pp = static_cast<uint32_t>(s.pp);
    if ((s.schedule == NDS_SCHEDULE_ZB_V || s.schedule == NDS_SCHEDULE_DUALPIPE_V) && chunk == 1)
      return 2 * pp - 1 - rank;
    if (s.schedule == NDS_SCHEDULE_DUALPIPE) return chunk == 0 ? rank : pp - 1 - rank;
    return chunk * pp + rank;
  }
};

// Layers per virtual stage by the reference's default split and remainder
// rule (reference/nd_behaviour.md §8.3): L // (p·v) each, and the L % (p·v)
// extra layers placed from chunk v-2, rank p-2 backwards (vpp = 1: the first
// L % p stages get one more). Indexed [virtual stage].
std::vector<uint32_t> default_split(uint32_t layers, uint32_t pp, uint32_t vpp);
void default_split_into(uint32_t layers, uint32_t pp, uint32_t vpp, std::vector<uint32_t>& split,
                        std::vector<int64_t>& offset);

// Whether the trainer's own split (nds_training.stage_split, sdk/
// stage_split.hpp) places `layers` over pp ranks of `per_rank` chunks: the
// reference's always (layers >= pp·per_rank is checked apart), Megatron's
// when layers / per_rank is whole and at least pp, TorchTitan's when its
// edges leave every stage a layer and its layers per stage reach that many
// stages. No allocation (the checks call it per candidate).
bool trainer_split_exists(const nds_training& t, int64_t layers, int64_t pp, int64_t per_rank);

// The trainer's own split of `layers` by virtual stage into `split`
// (`scratch` is working space); throws UserError E-PLACEMENT where
// trainer_split_exists is false.
void trainer_split_into(const nds_training& t, uint32_t layers, uint32_t pp, uint32_t per_rank,
                        std::vector<uint32_t>& split, std::vector<int64_t>& scratch);

// The micro-batches whose activations of each chunk its rank holds at its
// peak (DESIGN §8.6), [rank·vpp + chunk].
std::vector<uint32_t> micro_batches_in_flight(const nds_strategy& s);
void micro_batches_in_flight_into(const nds_strategy& s, std::vector<uint32_t>& held);

// Whether the config's per-stage recompute counts apply to `s`: it recomputes
// in the mode they are stated for, and they do not take in every layer
// (counts that do, Megatron's uniform method, stay every layer at any pp:
// rescaled parts need not line up with another split).
bool stated_counts_apply(const nds_strategy& s, const Model& model);

// The config's stated split for `s`, in decoder layers per virtual stage
// (chunk·pp + rank): stage_layers, else stage_layer_offsets from the even
// split; pp entries, or pp·vpp per virtual stage; pp entries under vpp are
// spread over each stage's chunks (the last chunk takes the remainder). The
// counts may include the MTP layers (the reference's is_mtp_in_offset): they
// then leave the last chunks. Throws UserError E-PLACEMENT when the stated
// shape does not fit the strategy; `split` may then not sum to the layers.
void stated_split_into(const nds_strategy& s, const Model& model, std::vector<uint32_t>& split);
// The same with `scratch` as working space: no allocation once it has room.
void stated_split_into(const nds_strategy& s, const Model& model, std::vector<uint32_t>& split,
                       std::vector<int64_t>& scratch);

// The one rule every verb places layers by (eval, explain, compare, search,
// apply): the config's stated split (per-stage counts, or offsets not all 0)
// where the strategy runs the config's own pp and vpp, the shape the parser
// checked it against; elsewhere the trainer's own split. A stated offset of
// 0 everywhere is the trainer's own split already.
bool stated_split_applies(const nds_strategy& s, const Model& model);
// Whether the config states a split of its own: per-stage counts, or offsets
// not all 0 (which are the trainer's own split).
bool states_own_split(const Model& model);

// Needs a strategy that passed the checks. The config's stated split where
// stated_split_applies; `layers_from_config`: wherever the config states one,
// spread over a stage's chunks where it is stated per stage. Throws UserError
// E-PLACEMENT when a stated split does not fit the strategy.
Placement place_layers(const nds_strategy& s, const Model& model, bool layers_from_config);
// The same into `out`, reusing its vectors: no allocation once they have room
// (the search's per-candidate path).
void place_layers_into(const nds_strategy& s, const Model& model, bool layers_from_config,
                       Placement& out);

}  // namespace ndsearch

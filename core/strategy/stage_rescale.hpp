// SPDX-License-Identifier: Apache-2.0
// stage_rescale.hpp: a config's per-stage values (recompute counts, layer
// offsets) stated for one pipeline (pp, vpp) carried over to a candidate's,
// by the reference's manual rescaling (reference/nd_behaviour.md §8.3, the
// balancing adapter). Pure functions on plain integers: the recompute of a
// placement uses them, and so can the pipeline's offsets, which the reference
// rescales the same way.
//
// Both keep the sum of the values: the layers a config recomputes (or the
// layers its offsets shift) are as many after the rescaling as before.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ndsearch {

// A list of one value per stage (length p >= 1) to `new_pp` >= 1 values.
//  - new_pp > p: zeros are inserted in the middle until the length L divides
//    new_pp, then each value v becomes new_pp / L near-equal parts, the
//    first `v mod f` of them one larger (floor division, so a negative
//    offset splits as Python's // and % do: -1 in 2 parts is [0, -1]).
//  - new_pp < p: zeros are inserted in the middle until the length is a
//    multiple of new_pp, then consecutive groups are summed.
//  - new_pp == p: the list unchanged.
// Into `out` (cleared first): no allocation once it has room for
// max(new_pp, p + new_pp) values. Throws std::invalid_argument for an empty
// list or new_pp 0 (a caller's error, not a user's).
void rescale_stages_into(std::span<const int64_t> stages, uint32_t new_pp,
                         std::vector<int64_t>& out);
std::vector<int64_t> rescale_stages(std::span<const int64_t> stages, uint32_t new_pp);

// A table of vpp rows (chunks) of pp values (stages), row-major
// [chunk·pp + stage], to new_vpp rows of new_pp values:
//  - more chunks: from one chunk, a second row of zeros is added and the last
//    stage's value moves into it; further rows of zeros are inserted in the
//    middle (before row vpp / 2 of the two-or-more rows).
//  - fewer chunks: the last row is added into the one before it, until
//    new_vpp rows remain.
//  then every row is rescaled to new_pp by rescale_stages.
// The reference also adds layers to chunks of an *offset* table when the
// stage's layer count fell (its "compensate layer counts per stage") and
// then makes the offsets valid for the layer count; that depends on the
// model's layers and belongs to the offsets' caller, not here.
// `scratch` holds the resized rows; both reused without allocation once
// they have room.
void rescale_chunk_table_into(std::span<const int64_t> table, uint32_t pp, uint32_t vpp,
                              uint32_t new_pp, uint32_t new_vpp, std::vector<int64_t>& out,
                              std::vector<int64_t>& scratch);
std::vector<int64_t> rescale_chunk_table(std::span<const int64_t> table, uint32_t pp, uint32_t vpp,
                                         uint32_t new_pp, uint32_t new_vpp);

}  // namespace ndsearch

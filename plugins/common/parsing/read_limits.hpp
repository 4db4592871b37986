// SPDX-License-Identifier: Apache-2.0
// read_limits.hpp: the largest counts the parsers read. A parser sizes
// per-layer and per-stage tables by a config's layer count and pipeline
// degree before the core's own model limits see them, so 2^32 layers would
// cost 32 GiB (or hours of loop) first; these caps come before any such table.
#pragma once

#include <ndsearch/sdk/parser.hpp>  // sdk::Error, sdk::Where

#include <cstdint>
#include <string>

namespace ndsearch::plugins {

// Layers of one model, stages or ranks of one parallel degree, entries of a
// per-layer list. The largest published models have ~100 layers and
// pipelines of ~100 stages, so 2^20 refuses no real config.
inline constexpr int64_t kMaxCountRead = int64_t{1} << 20;

// Refuses a pipeline degree (`where` states it) above kMaxCountRead, before a
// parser sizes its per-stage tables by it.
inline void check_stage_count(int64_t stages, const sdk::Where& where) {
  if (stages > kMaxCountRead)
    throw sdk::Error(NDS_OUT_OF_RANGE, where.file + ":" + std::to_string(where.line) + ": `" +
                                           where.field + "` = " + std::to_string(stages) +
                                           ": expected at most " + std::to_string(kMaxCountRead) +
                                           " pipeline stages (ndsearch reads no more)");
}

}  // namespace ndsearch::plugins

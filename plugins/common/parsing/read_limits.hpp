// SPDX-License-Identifier: Apache-2.0
// read_limits.hpp: the largest counts the parsers read. A parser sizes
// per-layer and per-stage tables by a config's layer count and pipeline
// degree before the core's own model limits see them, so 2^32 layers would
// cost 32 GiB (or hours of loop) first; these caps come before any such table.
#pragma once

#include <cstdint>

namespace ndsearch::plugins {

// Layers of one model, stages or ranks of one parallel degree, entries of a
// per-layer list. The largest published models have ~100 layers and
// pipelines of ~100 stages, so 2^20 refuses no real config.
inline constexpr int64_t kMaxCountRead = int64_t{1} << 20;

}  // namespace ndsearch::plugins

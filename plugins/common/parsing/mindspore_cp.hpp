// SPDX-License-Identifier: Apache-2.0
// mindspore_cp.hpp: the CP attention model that prices a MindSpore trainer's
// context_parallel_algo (MindFormers, HyperParallel).
#pragma once

#include <string>

namespace ndsearch::plugins {

// colossalai_cp, the default of both (MindFormers OpParallelConfig;
// HyperParallel docs/guide/context_parallel.md, "Pure Colossal AI"), keeps Q
// sharded by sequence and all-gathers K/V over the cp group: each device
// receives the (cp-1)/cp of K/V that ring attention passes it, so the
// "ring" model prices it. ulysses_cp is "ulysses". Any other name is kept,
// and a name no CP model has is refused (E-CP-ALGO) where it is priced.
inline std::string mindspore_cp_model(const std::string& algo) {
  if (algo == "colossalai_cp") return "ring";
  if (algo == "ulysses_cp") return "ulysses";
  return algo;
}

// MindFormers (1.3) also has hybird_cp, its spelling (ContextParallelAlgo):
// ulysses_degree_in_cp-way Ulysses inside colossalai_cp, which the "hybrid"
// model prices (Ulysses inside rings, the same bytes), the degree 1 unless
// stated (TransformerOpParallelConfig).
inline std::string mindformers_cp_model(const std::string& algo) {
  return algo == "hybird_cp" ? "hybrid" : mindspore_cp_model(algo);
}

// Where hybird_cp's Ulysses degree came from when the config states none.
inline constexpr const char* kHybridUlyssesDefault =
    "ulysses_degree_in_cp (1, the trainer's default: hybird_cp without Ulysses)";

// Where the default colossalai_cp came from, in words the output shows.
inline constexpr const char* kColossalaiDefault =
    "context_parallel_algo (colossalai_cp, the trainer's default: K/V all-gathered over cp, "
    "priced by the ring model)";

}  // namespace ndsearch::plugins

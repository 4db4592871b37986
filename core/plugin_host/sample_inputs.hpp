// SPDX-License-Identifier: Apache-2.0
// sample_inputs.hpp: a small, fully stated model, device and candidate as the
// ABI's plain structs, to exercise compile-once plugins without a parser or a
// hardware plugin (conformance checks, tests, benchmarks).
#pragma once

#include <ndsearch/nds_candidate.h>
#include <ndsearch/nds_recompute.h>

#include <array>

namespace ndsearch {

// GPT-2 small's shapes (Radford et al. 2019: 12 layers, h 768, 12 heads,
// vocab 50257, context 1024) trained with bf16 + Adam, on a made-up device of
// 80 GiB; candidate dp 2 · tp 2 · pp 2, six layers per stage, 1F1B.
class SampleInputs {
 public:
  SampleInputs();
  SampleInputs(const SampleInputs&) = delete;  // the structs point into this object
  SampleInputs& operator=(const SampleInputs&) = delete;

  const nds_compile_input& compile_input() const noexcept { return compile_input_; }
  const nds_candidate& candidate() const noexcept { return candidate_; }

  // A recompute strategy's menu for candidate(): one rank per pipeline stage,
  // each with one group (its six layers, chunk 0) and the costs of
  // sample_inputs.cpp; the outputs zeroed. `counts` (kRecomputeCounts of them,
  // zeroed by the caller) receives the choice, rank r's at r · 4.
  static constexpr std::size_t kRecomputeRanks = 2;
  static constexpr std::size_t kRecomputeCounts = kRecomputeRanks * NDS_LAYER_OPTION_COUNT_V1;
  std::array<nds_recompute_rank, kRecomputeRanks> recompute_ranks(uint32_t* counts) const noexcept;

 private:
  nds_strategy stated_{};
  nds_strategy strategy_{};
  nds_layer_block block_{};
  nds_training training_{};
  nds_model model_{};
  nds_dtype_peak peak_{};
  nds_topology_level levels_[2]{};
  nds_device device_{};
  nds_compile_input compile_input_{};
  std::array<uint32_t, 2> chunk_layers_{6, 6};
  std::array<uint32_t, 2> chunk_first_layer_{0, 6};
  std::array<uint32_t, 2> chunk_recomputed_layers_{0, 0};
  std::array<uint32_t, 2> in_flight_{2, 1};  // 1F1B, p = 2, m = 4: min(p - r, m) per rank (vpp 1)
  nds_candidate candidate_{};
  std::array<nds_recompute_group, kRecomputeRanks> recompute_groups_{};
};

}  // namespace ndsearch

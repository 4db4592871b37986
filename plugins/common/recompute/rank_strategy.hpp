// SPDX-License-Identifier: Apache-2.0
// rank_strategy.hpp: a recompute strategy that solves each pipeline rank on
// its own (rank_solver.hpp), with or without offload: the per-layer and the
// offload plugins are this class under two names.
#pragma once

#include <ndsearch/sdk.hpp>

#include <memory>

#include "plugins/common/recompute/rank_solver.hpp"

namespace ndsearch {

template <bool kOffload>
class RankByRankStrategy {
 public:
  static std::unique_ptr<RankByRankStrategy> compile(const nds_compile_input&) {
    return std::make_unique<RankByRankStrategy>();
  }
  void evaluate(sdk::RecomputeOut& out) const noexcept {
    bool fits = true;
    for (uint32_t r = 0; r < out.rank_count(); ++r)
      fits = solve_rank(out.rank(r), kOffload).fits && fits;
    if (!fits) out.refuse(NDS_INFEASIBLE, "no recompute choice fits a rank's budget");
  }
};

}  // namespace ndsearch

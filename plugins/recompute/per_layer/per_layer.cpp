// SPDX-License-Identifier: Apache-2.0
// per_layer.cpp: the "per-layer" recompute strategy (--auto-recompute): for
// each pipeline rank, the fastest mix of kept, selectively and fully
// recomputed layers that fits the rank's budget (the reference's automatic
// recompute, solved exactly: plugins/common/recompute/recompute_choice.hpp).
#include <ndsearch/sdk.hpp>

#include <memory>

#include "plugins/common/recompute/rank_solver.hpp"

namespace {

class PerLayer {
 public:
  static std::unique_ptr<PerLayer> compile(const nds_compile_input&) {
    return std::make_unique<PerLayer>();
  }
  void evaluate(ndsearch::sdk::RecomputeOut& out) const noexcept {
    bool fits = true;
    for (uint32_t r = 0; r < out.rank_count(); ++r)
      fits = ndsearch::solve_rank(out.rank(r), false).fits && fits;
    if (!fits) out.refuse(NDS_INFEASIBLE, "no recompute choice fits a rank's budget");
  }
};

class Plugin final : public ndsearch::sdk::RecomputeStrategyPlugin<PerLayer> {
 public:
  Plugin() : RecomputeStrategyPlugin("per-layer") {}
};

}  // namespace

NDS_SDK_MODULE(
    Plugin, "recompute-per-layer", "1.0.0",
    "Recompute: per rank, the fastest mix of kept, selective and full layers that fits (exact)")

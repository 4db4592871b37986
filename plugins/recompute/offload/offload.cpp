// SPDX-License-Identifier: Apache-2.0
// offload.cpp: the "offload" recompute strategy (--offload): for
// each pipeline rank, its first layers' activations offloaded to host memory as
// far as the host memory and the link allow, the other layers chosen per layer
// (the reference's -ao with -ar; plugins/common/recompute/rank_solver.hpp).
#include <ndsearch/sdk.hpp>

#include <memory>

#include "plugins/common/recompute/rank_solver.hpp"

namespace {

class Offload {
 public:
  static std::unique_ptr<Offload> compile(const nds_compile_input&) {
    return std::make_unique<Offload>();
  }
  void evaluate(ndsearch::sdk::RecomputeOut& out) const noexcept {
    bool fits = true;
    for (uint32_t r = 0; r < out.rank_count(); ++r)
      fits = ndsearch::solve_rank(out.rank(r), true).fits && fits;
    if (!fits) out.refuse(NDS_INFEASIBLE, "no recompute choice fits a rank's budget");
  }
};

class Plugin final : public ndsearch::sdk::RecomputeStrategyPlugin<Offload> {
 public:
  Plugin() : RecomputeStrategyPlugin("offload") {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "recompute-offload", "1.0.0",
               "Recompute: per rank, the first layers offloaded to host, the rest chosen per layer")

// SPDX-License-Identifier: Apache-2.0
// offload.cpp: the "offload" recompute strategy (--offload): for each
// pipeline rank, its first layers' activations offloaded to host memory as
// far as the host memory and the link allow, the other layers chosen per layer
// (the reference's -ao with -ar; plugins/common/recompute/rank_solver.hpp).
#include "plugins/common/recompute/rank_strategy.hpp"

namespace {

class Plugin final
    : public ndsearch::sdk::RecomputeStrategyPlugin<ndsearch::RankByRankStrategy<true>> {
 public:
  Plugin() : RecomputeStrategyPlugin("offload") {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "recompute-offload", "1.0.0",
               "Recompute: per rank, the first layers offloaded to host, the rest chosen per layer")

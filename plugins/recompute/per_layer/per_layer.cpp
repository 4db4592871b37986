// SPDX-License-Identifier: Apache-2.0
// per_layer.cpp: the "per-layer" recompute strategy (--auto-recompute): for
// each pipeline rank, the fastest mix of kept, selectively and fully
// recomputed layers that fits the rank's budget (the reference's automatic
// recompute, solved exactly: plugins/common/recompute/recompute_choice.hpp).
#include "plugins/common/recompute/rank_strategy.hpp"

namespace {

class Plugin final
    : public ndsearch::sdk::RecomputeStrategyPlugin<ndsearch::RankByRankStrategy<false>> {
 public:
  Plugin() : RecomputeStrategyPlugin("per-layer") {}
};

}  // namespace

NDS_SDK_MODULE(
    Plugin, "recompute-per-layer", "1.0.0",
    "Recompute: per rank, the fastest mix of kept, selective and full layers that fits (exact)")

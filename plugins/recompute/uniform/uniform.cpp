// SPDX-License-Identifier: Apache-2.0
// uniform.cpp: the "uniform" recompute strategy: every layer runs the
// candidate's recompute mode (the search dimension none, selective, full), as
// the core prices it without a strategy. It follows the candidate
// (NDS_RECOMPUTE_FOLLOWS_CANDIDATE): the host asks it for every candidate.
#include <ndsearch/sdk.hpp>

#include <memory>

namespace {

class Uniform {
 public:
  static std::unique_ptr<Uniform> compile(const nds_compile_input&) {
    return std::make_unique<Uniform>();
  }
  void evaluate(ndsearch::sdk::RecomputeOut& out) const noexcept {
    // nds_layer_option's recompute values are nds_recompute_mode's.
    const auto option = static_cast<nds_layer_option>(out.strategy().recompute);
    for (uint32_t r = 0; r < out.rank_count(); ++r) {
      ndsearch::sdk::RecomputeRankView rank = out.rank(r);
      for (uint32_t g = 0; g < rank.group_count(); ++g) rank.set(g, option, rank.group(g).layers);
      rank.result(0, 0, true);
    }
  }
};

class Plugin final : public ndsearch::sdk::RecomputeStrategyPlugin<Uniform> {
 public:
  Plugin() : RecomputeStrategyPlugin("uniform", NDS_RECOMPUTE_FOLLOWS_CANDIDATE) {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "recompute-uniform", "1.0.0",
               "Recompute: every layer runs the candidate's recompute mode")

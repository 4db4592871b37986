// SPDX-License-Identifier: Apache-2.0
// stated.cpp: the "stated" recompute strategy: the config's own recompute
// per stage (MindFormers' per-stage lists, Megatron's --recompute-num-layers),
// rescaled by the host to the candidate's pp (reference §8.3, the core's one
// rescaler: nds_recompute_item.stated_layers). A stage's count f is spread
// over its vpp chunks f / vpp each, the first f % vpp chunks one more, and in
// a chunk its first layers (reference §5.1); without stated counts every layer
// runs the candidate's mode. It follows the candidate
// (NDS_RECOMPUTE_FOLLOWS_CANDIDATE): the host asks it for every candidate.
#include <ndsearch/sdk.hpp>

#include <algorithm>
#include <memory>

namespace {

class Stated {
 public:
  static std::unique_ptr<Stated> compile(const nds_compile_input&) {
    return std::make_unique<Stated>();
  }
  void evaluate(ndsearch::sdk::RecomputeOut& out) const noexcept {
    const auto option = static_cast<nds_layer_option>(out.strategy().recompute);
    const auto vpp = static_cast<uint32_t>(std::max(1, out.strategy().vpp));
    const int64_t* stated = out.stated_layers();
    for (uint32_t r = 0; r < out.rank_count(); ++r) {
      ndsearch::sdk::RecomputeRankView rank = out.rank(r);
      const auto f =
          stated != nullptr ? static_cast<uint32_t>(std::max<int64_t>(0, stated[r])) : UINT32_MAX;
      uint32_t left[64] = {};  // per chunk: recomputed layers still to place
      for (uint32_t c = 0; c < vpp && c < 64; ++c)
        left[c] = stated != nullptr ? f / vpp + (c < f % vpp ? 1u : 0u) : UINT32_MAX;
      for (uint32_t g = 0; g < rank.group_count(); ++g) {
        const nds_recompute_group group = rank.group(g);
        uint32_t& chunk_left = left[std::min<uint32_t>(group.chunk, 63)];
        const uint32_t recomputed =
            option == NDS_LAYER_KEEP ? 0 : std::min(chunk_left, group.layers);
        chunk_left -= recomputed;
        rank.set(g, option, recomputed);
        if (option != NDS_LAYER_KEEP)
          rank.set(g, NDS_LAYER_KEEP, group.layers - recomputed);
        else
          rank.set(g, NDS_LAYER_KEEP, group.layers);
      }
      rank.result(0, 0, true);
    }
  }
};

class Plugin final : public ndsearch::sdk::RecomputeStrategyPlugin<Stated> {
 public:
  Plugin() : RecomputeStrategyPlugin("stated", NDS_RECOMPUTE_FOLLOWS_CANDIDATE) {}
};

}  // namespace

NDS_SDK_MODULE(Plugin, "recompute-stated", "1.0.0",
               "Recompute: the config's own per-stage recompute, rescaled to the candidate's pp")

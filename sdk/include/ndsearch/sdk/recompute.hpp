// SPDX-License-Identifier: Apache-2.0
// recompute.hpp: write a "nds.recompute/1" strategy as a C++ class compiled
// once per (model, device), evaluated per candidate on the hot path.
#ifndef NDSEARCH_SDK_RECOMPUTE_HPP_INCLUDED
#define NDSEARCH_SDK_RECOMPUTE_HPP_INCLUDED

#include <ndsearch/nds_recompute.h>
#include <ndsearch/sdk/compiled.hpp>

#include <algorithm>  // std::min
#include <cstring>    // std::memcpy

namespace ndsearch::sdk {

// One rank's menu and the counts a strategy writes for it.
class RecomputeRankView {
 public:
  explicit RecomputeRankView(nds_recompute_rank& rank) noexcept : rank_(rank) {}
  const nds_recompute_rank& in() const noexcept { return rank_; }
  uint32_t group_count() const noexcept { return rank_.group_count; }
  // Group `g`, read through the host's element size (an older host's groups
  // end sooner: the fields it lacks read as zero).
  nds_recompute_group group(uint32_t g) const noexcept {
    nds_recompute_group out{};
    const auto* bytes =
        reinterpret_cast<const unsigned char*>(rank_.groups) + g * rank_.group_elem_size;
    std::memcpy(&out, bytes, std::min(rank_.group_elem_size, sizeof(out)));
    return out;
  }
  // Sets the layers of group `g` that run `option`.
  void set(uint32_t g, nds_layer_option option, uint32_t layers) noexcept {
    rank_.layers_per_option[static_cast<size_t>(g) * NDS_LAYER_OPTION_COUNT_V1 +
                            static_cast<size_t>(option)] = layers;
  }
  void result(double peak_bytes, double extra_s, bool fits) noexcept {
    rank_.peak_bytes = peak_bytes;
    rank_.extra_s = extra_s;
    rank_.code = fits ? NDS_OK : NDS_INFEASIBLE;
  }

 private:
  nds_recompute_rank& rank_;
};

// What one recompute strategy writes for one candidate.
class RecomputeOut {
 public:
  explicit RecomputeOut(nds_recompute_item& item) noexcept : item_(item) {}
  const nds_candidate& candidate() const noexcept { return *item_.candidate; }
  const nds_strategy& strategy() const noexcept { return *item_.candidate->strategy; }
  uint32_t rank_count() const noexcept { return item_.rank_count; }
  RecomputeRankView rank(uint32_t r) const noexcept {
    return RecomputeRankView(detail::item_at(item_.ranks, r, item_.rank_elem_size));
  }
  // The config's per-stage recomputed layers at this pp, or nullptr.
  const int64_t* stated_layers() const noexcept { return item_.stated_layers; }
  // After the ranks: NDS_INFEASIBLE when one of them does not fit.
  void refuse(nds_status_code code, const char* static_reason) noexcept {
    item_.code = code;
    item_.reason = static_reason;
  }

 private:
  nds_recompute_item& item_;
};

// `Compiled` needs:
//   static std::unique_ptr<Compiled> compile(const nds_compile_input&);  (may throw)
//   void evaluate(RecomputeOut&) const noexcept;                        (hot)
template <class Compiled>
class RecomputeStrategyPlugin : public virtual Plugin {
 protected:
  explicit RecomputeStrategyPlugin(const char* strategy, uint64_t flags = 0) {
    table_.strategy = strategy;
    table_.flags = flags;
    offer(NDS_RECOMPUTE_INTERFACE_ID, &table_);
  }

 private:
  using Glue = detail::CompiledGlue<Compiled, nds_recompute_compiled>;
  nds_recompute_v1 table_ = {
      sizeof(nds_recompute_v1), nullptr,
      &Glue::compile,           &Glue::template evaluate<RecomputeOut, nds_recompute_item>,
      &Glue::release,           0};
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_RECOMPUTE_HPP_INCLUDED

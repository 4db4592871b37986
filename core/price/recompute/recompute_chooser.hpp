// SPDX-License-Identifier: Apache-2.0
// recompute_chooser.hpp: a recompute strategy's per-layer choice for one
// candidate, host side: the menu measured with the loaded memory passes and
// the time model, the strategy asked, the counts laid out layer by layer in
// the candidate (nds_candidate.layer_option), and the candidate priced again.
//
// The menu, per pipeline rank and group of alike layers (one block in one
// chunk), is measured by probes: the memory passes priced with every layer
// kept, then with one group of each rank under one option (all ranks at
// once: a rank's bytes depend on its own layers). What a group frees is the
// difference. Full recompute also holds, once per rank, the working set of
// the layer it rebuilds: a probe of a single full layer (or of two groups
// together) tells that constant from the per-layer saving. The seconds come
// from the time model: a layer's work under the option less its work kept,
// times the micro-batches of the step.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/compile/compiled_model.hpp"
#include "core/compile/recompute_strategy.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/recompute/recompute_settings.hpp"
#include "core/price/recompute/recompute_summary.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"

namespace ndsearch {

struct RecomputeOutcome {
  bool fits = false;  // every rank fits its budget under the choice, as re-priced
  const char* refusal =
      nullptr;  // a memory pass's refusal of a probe ("memory-pass"), or the strategy's
  RecomputeSummary summary;
};

class RecomputeChooser {
 public:
  // `strategy`: the settings' strategy compiled for `compiled` (null: the
  // menu only, build_menu); both must outlive the chooser. `max_pp`: the
  // largest pp it will see (sizes its buffers once).
  RecomputeChooser(const CompiledModel& compiled, const RecomputeSettings& settings,
                   const RecomputeStrategy* strategy, uint32_t max_pp);

  // `placement`: a candidate whose strategy recomputes nothing, priced by
  // `memory` into `ranks` (over `budget_bytes` somewhere). `cp_bytes`: the CP
  // working set every rank holds. On return `placement` holds the choice
  // (layer_option, chunk_recomputed_layers, strategy.recompute the strongest
  // option), `ranks` its memory, and `copies` its offload copies per rank.
  // No allocation once warm.
  RecomputeOutcome choose(Placement& placement, MemoryEvaluator& memory, const TimeModel& time,
                          double budget_bytes, double cp_bytes, std::vector<RankMemory>& ranks);

  // The offload copies of the last choice (for TimeModel::estimate), or null
  // when it offloads nothing.
  const OffloadCopies* copies() const { return offloads_ ? &copies_ : nullptr; }
  const RecomputeSettings& settings() const { return settings_; }
  // The assumptions the choices rest on, in words (the outputs' "assumes").
  std::string assumption() const;
  const std::string& strategy_name() const { return strategy_->name(); }
  // Whether the strategy follows each candidate's recompute key
  // (NDS_RECOMPUTE_FOLLOWS_CANDIDATE): then `follow` replaces `choose`.
  bool follows_candidate() const { return strategy_ != nullptr && strategy_->follows_candidate(); }
  // For such a strategy: `placement` as place_layers_into left it (its
  // strategy's recompute mode kept) laid out per layer as the strategy says,
  // before its memory is priced. No allocation once warm.
  void follow(Placement& placement);

  // The menu alone (no strategy asked; one may be unnamed): for `placement`
  // as choose takes it, per rank, its groups with each option's bytes freed
  // and seconds added per layer (recompute_potentials). Returns a refusal
  // ("memory-pass") or nullptr; the menu stays valid until the next call.
  const char* build_menu(Placement& placement, MemoryEvaluator& memory, const TimeModel& time,
                         double budget_bytes, double cp_bytes,
                         const std::vector<RankMemory>& ranks);
  const nds_recompute_rank& menu_rank(uint32_t rank) const { return ranks_[rank]; }

 private:
  struct Group {
    uint32_t chunk, block, first_layer, layers;
  };
  bool probe(Placement& placement, MemoryEvaluator& memory, std::vector<RankMemory>& out);
  void build_groups(const Placement& placement);
  void lay_out(Placement& placement);
  // Rank r's groups as build_groups found them, with zero costs, and its
  // header (micro-batches, groups, zeroed counts); the rest is the caller's.
  nds_recompute_rank& reset_rank(uint32_t r, const nds_strategy& s);
  // The ABI item for `candidate` over the ranks, with the config's stated
  // counts when they apply to its mode.
  nds_recompute_item item_for(const nds_candidate& candidate);
  // build_menu's steps: the probes (a group's layout, one probe's peaks, all
  // of them), a probed peak, a rank's full working set, and its groups'
  // prices, with the seconds per block priced once a menu (BlockSeconds).
  class BlockSeconds;
  void set_group(Placement& p, uint32_t r, uint32_t g, int32_t option, uint32_t layers);
  bool measure(Placement& p, MemoryEvaluator& memory, double cp_bytes, double* peaks);
  const char* run_probes(Placement& p, MemoryEvaluator& memory, double cp_bytes, bool offload);
  double peak_of(int32_t option, uint32_t g, uint32_t r, size_t stride) const;
  double full_working_set(uint32_t r, size_t stride) const;
  void price_groups(const Placement& p, uint32_t r, double w, bool offload, BlockSeconds& seconds);

  const CompiledModel& compiled_;
  RecomputeSettings settings_;
  const RecomputeStrategy* strategy_;  // null: the menu only (build_menu)
  nds_candidate plain_{};              // the candidate the menu was built for, every layer kept
  double link_bytes_per_s_ = 0;
  uint32_t layers_ = 0;
  // Per rank: its groups (at most kMaxGroups), [rank · kMaxGroups + g].
  static constexpr uint32_t kMaxGroups = 32;
  std::vector<Group> groups_;
  std::vector<uint32_t> group_count_;
  uint32_t most_groups_ = 0;
  // Probes: bytes per rank with every layer kept, and under each option of one group.
  std::vector<RankMemory> probed_;
  std::vector<double> keep_peak_;                // [rank]
  std::vector<double> option_peak_;              // [(option · kMaxGroups + g) · pp + rank]
  std::vector<double> single_full_, pair_full_;  // [rank]
  // The ABI item's storage.
  std::vector<nds_recompute_group> menu_;  // [rank · kMaxGroups + g]
  std::vector<nds_recompute_rank> ranks_;
  std::vector<uint32_t> counts_;  // [(rank · kMaxGroups + g) · 4 + option]
  std::vector<int64_t> stated_;
  std::vector<double> copy_bytes_;  // [rank]
  OffloadCopies copies_;
  bool offloads_ = false;
};

}  // namespace ndsearch

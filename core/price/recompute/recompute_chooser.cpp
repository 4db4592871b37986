// SPDX-License-Identifier: Apache-2.0
// recompute_chooser.cpp: the host side of a recompute strategy (method in
// recompute_chooser.hpp).
#include "core/price/recompute/recompute_chooser.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/strategy/placement.hpp"
#include "core/strategy/stage_rescale.hpp"

namespace ndsearch {
namespace {

constexpr uint32_t kOptions = NDS_LAYER_OPTION_COUNT_V1;

}  // namespace

RecomputeChooser::RecomputeChooser(const CompiledModel& compiled, const RecomputeSettings& settings,
                                   const RecomputeStrategy* strategy, uint32_t max_pp)
    : compiled_(compiled),
      settings_(settings),
      strategy_(strategy),
      link_bytes_per_s_(host_link_bytes_per_s(settings, compiled.device)),
      layers_(static_cast<uint32_t>(compiled.layers.block_index.size())) {
  const size_t pp = std::max<uint32_t>(max_pp, 1);
  groups_.resize(pp * kMaxGroups);
  group_count_.resize(pp);
  keep_peak_.resize(pp);
  option_peak_.resize(kOptions * kMaxGroups * pp);
  single_full_.resize(pp);
  pair_full_.resize(pp);
  menu_.resize(pp * kMaxGroups);
  ranks_.resize(pp);
  counts_.resize(pp * kMaxGroups * kOptions);
  copy_bytes_.resize(pp);
  probed_.reserve(pp);
}

std::string RecomputeChooser::assumption() const {
  std::string text = follows_candidate() ? fmt::format(
                                               "recompute laid out per layer by the {} strategy, "
                                               "following each candidate's recompute",
                                               settings_.strategy)
                                         : fmt::format(
                                               "recompute chosen per layer by the {} strategy "
                                               "where a candidate does not fit with every "
                                               "layer kept",
                                               settings_.strategy.empty() ? std::string("(none)")
                                                                          : settings_.strategy);
  if (settings_.offload)
    text += fmt::format(
        "; offload over a host link of {:.1f} GB/s per device and direction ({}), its copies "
        "hidden behind "
        "up to {:.0f} % of each micro-batch's forward and backward, at most {:.1f} GiB of host "
        "memory per device",
        link_bytes_per_s_ / 1e9,
        settings_.host_link_bytes_per_s ? "given"
                                        : "80 % of the device's figure, as pinned copies measure",
        100 * settings_.host_link_overlap, settings_.host_memory_bytes / (1024.0 * 1024 * 1024));
  return text;
}

void RecomputeChooser::build_groups(const Placement& p) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp), vpp = static_cast<uint32_t>(p.strategy.vpp);
  most_groups_ = 0;
  for (uint32_t r = 0; r < pp; ++r) {
    uint32_t n = 0;
    for (uint32_t c = 0; c < vpp; ++c) {
      const size_t i = static_cast<size_t>(r) * vpp + c;
      const uint32_t first = p.chunk_first_layer[i], end = first + p.chunk_layers[i];
      for (uint32_t layer = first; layer < end && n < kMaxGroups;) {
        uint32_t run = layer + 1;
        while (run < end &&
               compiled_.layers.block_index[run] == compiled_.layers.block_index[layer])
          ++run;
        groups_[r * kMaxGroups + n++] = {c, compiled_.layers.block_index[layer], layer,
                                         run - layer};
        layer = run;
      }
    }
    group_count_[r] = n;
    most_groups_ = std::max(most_groups_, n);
  }
}

bool RecomputeChooser::probe(Placement& placement, MemoryEvaluator& memory,
                             std::vector<RankMemory>& out) {
  return memory.evaluate(placement.candidate(), out).empty();
}

nds_recompute_rank& RecomputeChooser::reset_rank(uint32_t r, const nds_strategy& s) {
  for (uint32_t g = 0; g < group_count_[r]; ++g) {
    const Group& group = groups_[r * kMaxGroups + g];
    nds_recompute_group& m = menu_[r * kMaxGroups + g];
    m = {};
    m.struct_size = sizeof(m);
    m.chunk = group.chunk;
    m.block = group.block;
    m.first_layer = group.first_layer;
    m.layers = group.layers;
  }
  nds_recompute_rank& rank = ranks_[r];
  rank = {};
  rank.struct_size = sizeof(rank);
  rank.micro_batches = static_cast<uint32_t>(s.mbn);
  rank.group_count = group_count_[r];
  rank.groups = &menu_[r * kMaxGroups];
  rank.group_elem_size = sizeof(nds_recompute_group);
  uint32_t* counts = &counts_[static_cast<size_t>(r) * kMaxGroups * kOptions];
  std::fill_n(counts, kMaxGroups * kOptions, 0u);
  rank.layers_per_option = counts;
  return rank;
}

nds_recompute_item RecomputeChooser::item_for(const nds_candidate& candidate) {
  nds_recompute_item item{};
  item.struct_size = sizeof(item);
  item.candidate = &candidate;
  item.ranks = ranks_.data();
  item.rank_elem_size = sizeof(nds_recompute_rank);
  item.rank_count = static_cast<uint32_t>(candidate.strategy->pp);
  // The config's counts at this pp, when they are for the candidate's mode
  // (the placement's rule and its one rescaler, stage_rescale.hpp).
  if (stated_counts_apply(*candidate.strategy, compiled_.model)) {
    rescale_stages_into(compiled_.model.recompute_layers, item.rank_count, stated_);
    item.stated_layers = stated_.data();
  }
  return item;
}

void RecomputeChooser::lay_out(Placement& p) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp), vpp = static_cast<uint32_t>(p.strategy.vpp);
  std::fill(p.layer_option.begin(), p.layer_option.end(), NDS_LAYER_KEEP);
  std::fill(p.chunk_recomputed_layers.begin(), p.chunk_recomputed_layers.end(), 0u);
  bool any_full = false, any_selective = false;
  offloads_ = false;
  for (uint32_t r = 0; r < pp; ++r) {
    copy_bytes_[r] = 0;
    for (uint32_t g = 0; g < group_count_[r]; ++g) {
      const Group& group = groups_[r * kMaxGroups + g];
      const uint32_t* n = &counts_[(static_cast<size_t>(r) * kMaxGroups + g) * kOptions];
      // In layer order: offloaded, full, selective, kept (nds_recompute.h).
      const uint32_t offload = std::min(n[NDS_LAYER_OFFLOAD], group.layers);
      const uint32_t full = std::min(n[NDS_LAYER_FULL], group.layers - offload);
      const uint32_t selective = std::min(n[NDS_LAYER_SELECTIVE], group.layers - offload - full);
      int32_t* option = &p.layer_option[group.first_layer];
      std::fill(option, option + offload, NDS_LAYER_OFFLOAD);
      std::fill(option + offload, option + offload + full, NDS_LAYER_FULL);
      std::fill(option + offload + full, option + offload + full + selective, NDS_LAYER_SELECTIVE);
      p.chunk_recomputed_layers[static_cast<size_t>(r) * vpp + group.chunk] += full + selective;
      copy_bytes_[r] += offload * menu_[r * kMaxGroups + g].offload_copy_bytes;
      any_full = any_full || full > 0;
      any_selective = any_selective || selective > 0;
      offloads_ = offloads_ || offload > 0;
    }
  }
  p.strategy.recompute = any_full        ? NDS_RECOMPUTE_FULL
                         : any_selective ? NDS_RECOMPUTE_SELECTIVE
                                         : NDS_RECOMPUTE_NONE;
  copies_ = {copy_bytes_.data(), link_bytes_per_s_, settings_.host_link_overlap};
}

// Seconds per layer and option, per block (a few per model), priced once per
// menu for the blocks that fit the table and every time for the rest.
class RecomputeChooser::BlockSeconds {
 public:
  BlockSeconds(const TimeModel& time, const nds_candidate& plain, double micro_batches)
      : time_(time), candidate_(plain), micro_batches_(micro_batches) {}

  double operator()(uint32_t block, int32_t option) {
    if (option != NDS_LAYER_SELECTIVE && option != NDS_LAYER_FULL) return 0.0;
    if (block >= block_known_.size())
      return micro_batches_ * time_.layer_extra_s(candidate_, block, option);
    if (!block_known_[block]) {
      block_seconds_[block][NDS_LAYER_SELECTIVE] =
          micro_batches_ * time_.layer_extra_s(candidate_, block, NDS_LAYER_SELECTIVE);
      block_seconds_[block][NDS_LAYER_FULL] =
          micro_batches_ * time_.layer_extra_s(candidate_, block, NDS_LAYER_FULL);
      block_known_[block] = true;
    }
    return block_seconds_[block][static_cast<size_t>(option)];
  }

 private:
  const TimeModel& time_;
  const nds_candidate& candidate_;  // the menu's, every layer kept
  const double micro_batches_;
  std::array<std::array<double, kOptions>, 8> block_seconds_{};
  std::array<bool, 8> block_known_{};
};

// Group g of rank r under `option` for its first `layers` layers (a probe's layout).
void RecomputeChooser::set_group(Placement& p, uint32_t r, uint32_t g, int32_t option,
                                 uint32_t layers) {
  const Group& group = groups_[r * kMaxGroups + g];
  std::fill_n(&p.layer_option[group.first_layer], std::min(layers, group.layers), option);
}

// One probe: the ranks' peaks into `peaks`, every layer kept again; false if refused.
bool RecomputeChooser::measure(Placement& p, MemoryEvaluator& memory, double cp_bytes,
                               double* peaks) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp);
  if (!probe(p, memory, probed_)) return false;
  for (uint32_t r = 0; r < pp; ++r) peaks[r] = probed_[r].peak() + cp_bytes;
  std::fill(p.layer_option.begin(), p.layer_option.end(), NDS_LAYER_KEEP);
  return true;
}

// The probes: each group index under each option (all ranks at once), then one
// full layer, then two full groups. Returns "memory-pass" if one is refused.
const char* RecomputeChooser::run_probes(Placement& p, MemoryEvaluator& memory, double cp_bytes,
                                         bool offload) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp);
  const auto stride = static_cast<size_t>(pp);
  for (int32_t option : {NDS_LAYER_SELECTIVE, NDS_LAYER_FULL, NDS_LAYER_OFFLOAD}) {
    if (option == NDS_LAYER_OFFLOAD && !offload) continue;
    for (uint32_t g = 0; g < most_groups_; ++g) {
      for (uint32_t r = 0; r < pp; ++r)
        if (g < group_count_[r]) set_group(p, r, g, option, UINT32_MAX);
      if (!measure(p, memory, cp_bytes,
                   &option_peak_[(static_cast<size_t>(option) * kMaxGroups + g) * stride]))
        return "memory-pass";
    }
  }
  for (uint32_t r = 0; r < pp; ++r)
    if (group_count_[r] > 0) set_group(p, r, 0, NDS_LAYER_FULL, 1);  // a stage may hold no layer
  const bool single = measure(p, memory, cp_bytes, single_full_.data());
  for (uint32_t r = 0; r < pp; ++r)
    for (uint32_t g = 0; g < std::min<uint32_t>(2, group_count_[r]); ++g)
      set_group(p, r, g, NDS_LAYER_FULL, UINT32_MAX);
  if (!single || !measure(p, memory, cp_bytes, pair_full_.data())) return "memory-pass";
  return nullptr;
}

// Rank r's probed peak with group g under `option` (`stride`: the placement's pp).
double RecomputeChooser::peak_of(int32_t option, uint32_t g, uint32_t r, size_t stride) const {
  return option_peak_[(static_cast<size_t>(option) * kMaxGroups + g) * stride + r];
}

// The full working set W of rank r and group 0's per-layer saving f0 (see the header).
double RecomputeChooser::full_working_set(uint32_t r, size_t stride) const {
  const double keep = keep_peak_[r];
  const uint32_t n = group_count_[r];
  double w = 0;
  if (n > 0) {
    const double n0 = groups_[static_cast<size_t>(r) * kMaxGroups].layers;
    const double all0 = peak_of(NDS_LAYER_FULL, 0, r, stride);
    double f0 = 0;
    if (n0 >= 2) {
      f0 = (single_full_[r] - all0) / (n0 - 1);
      w = single_full_[r] - keep + f0;
    } else if (n >= 2) {
      w = all0 + peak_of(NDS_LAYER_FULL, 1, r, stride) - pair_full_[r] - keep;
    } else {
      w = 0;  // one layer alone: its net saving is all there is to know
    }
    w = std::max(0.0, w);
  }
  return w;
}

// Rank r's groups on the menu: bytes freed and seconds added per layer and option.
void RecomputeChooser::price_groups(const Placement& p, uint32_t r, double w, bool offload,
                                    BlockSeconds& seconds) {
  const auto stride = static_cast<size_t>(static_cast<uint32_t>(p.strategy.pp));
  const double keep = keep_peak_[r];
  const uint32_t n = group_count_[r];
  for (uint32_t g = 0; g < n; ++g) {
    const Group& group = groups_[r * kMaxGroups + g];
    nds_recompute_group& m = menu_[r * kMaxGroups + g];
    const double layers = group.layers;
    auto saving = [&](int32_t option, double extra_bytes) {
      return std::max(0.0, (keep + extra_bytes - peak_of(option, g, r, stride)) / layers);
    };
    m.option[NDS_LAYER_SELECTIVE] = {saving(NDS_LAYER_SELECTIVE, 0),
                                     seconds(group.block, NDS_LAYER_SELECTIVE)};
    m.option[NDS_LAYER_FULL] = {saving(NDS_LAYER_FULL, w), seconds(group.block, NDS_LAYER_FULL)};
    if (offload) {
      const double saved = saving(NDS_LAYER_OFFLOAD, 0);
      const uint32_t in_flight = p.in_flight[static_cast<size_t>(r) * p.strategy.vpp + group.chunk];
      m.option[NDS_LAYER_OFFLOAD] = {saved, 0};
      m.offload_copy_bytes = in_flight > 1 ? saved / (in_flight - 1) : 0;
      m.offload_host_bytes = saved;
    }
  }
}

const char* RecomputeChooser::build_menu(Placement& p, MemoryEvaluator& memory,
                                         const TimeModel& time, double budget_bytes,
                                         double cp_bytes, const std::vector<RankMemory>& ranks) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp);
  const auto stride = static_cast<size_t>(pp);
  build_groups(p);
  for (uint32_t r = 0; r < pp; ++r) keep_peak_[r] = ranks[r].peak() + cp_bytes;
  p.layer_option.assign(layers_, NDS_LAYER_KEEP);
  const bool offload =
      settings_.offload && link_bytes_per_s_ > 0 && settings_.host_memory_bytes > 0;

  // Probes: one group of each rank under one option; then one full layer, two full groups.
  if (const char* refusal = run_probes(p, memory, cp_bytes, offload)) return refusal;

  // The menu. Seconds per layer and option, per block (a few per model).
  const nds_candidate kept = p.candidate();  // layer_option all kept: the strategy's work
  const nds_candidate plain{sizeof(nds_candidate),
                            kept.strategy,
                            kept.chunk_layers,
                            kept.chunk_first_layer,
                            kept.chunk_recomputed_layers,
                            kept.in_flight,
                            nullptr};
  const double micro_batches = p.strategy.mbn;
  BlockSeconds seconds(time, plain, micro_batches);
  for (uint32_t r = 0; r < pp; ++r) {
    const double keep = keep_peak_[r];
    const double w = full_working_set(r, stride);
    nds_recompute_rank& rank = reset_rank(r, p.strategy);
    price_groups(p, r, w, offload, seconds);
    rank.budget_bytes = budget_bytes;
    rank.bytes_without_recompute = keep;
    rank.full_working_set_bytes = w;
    if (offload) {
      const TimeModel::RankCompute compute = time.rank_compute(plain, static_cast<int32_t>(r));
      rank.host_bytes_free = settings_.host_memory_bytes;
      rank.host_link_bytes_per_s = link_bytes_per_s_;
      rank.forward_s = settings_.host_link_overlap * compute.forward_s;
      rank.backward_s = settings_.host_link_overlap * compute.backward_s;
    }
  }
  plain_ = plain;
  return nullptr;
}

void RecomputeChooser::follow(Placement& p) {
  const auto pp = static_cast<uint32_t>(p.strategy.pp);
  build_groups(p);
  for (uint32_t r = 0; r < pp; ++r) reset_rank(r, p.strategy);  // no menu: zero costs
  const nds_candidate candidate = p.candidate();
  nds_recompute_item item = item_for(candidate);
  strategy_->evaluate(item);
  p.layer_option.assign(layers_, NDS_LAYER_KEEP);
  const nds_recompute_mode mode = p.strategy.recompute;
  lay_out(p);
  p.strategy.recompute = mode;  // the candidate's key stays what the search enumerated
}

RecomputeOutcome RecomputeChooser::choose(Placement& p, MemoryEvaluator& memory,
                                          const TimeModel& time, double budget_bytes,
                                          double cp_bytes, std::vector<RankMemory>& ranks) {
  RecomputeOutcome outcome;
  const auto pp = static_cast<uint32_t>(p.strategy.pp);
  outcome.refusal = build_menu(p, memory, time, budget_bytes, cp_bytes, ranks);
  if (outcome.refusal != nullptr) return outcome;
  nds_recompute_item item = item_for(plain_);
  strategy_->evaluate(item);
  if (item.code == NDS_INVALID_ARGUMENT) {
    outcome.refusal = "recompute-strategy";
    return outcome;
  }

  // Laid out and priced again: the memory passes have the last word.
  lay_out(p);
  if (!probe(p, memory, ranks)) {
    outcome.refusal = "memory-pass";
    return outcome;
  }
  outcome.fits = true;
  for (uint32_t r = 0; r < pp; ++r)
    outcome.fits = outcome.fits && ranks[r].peak() + cp_bytes <= budget_bytes;
  RecomputeSummary& s = outcome.summary;
  s.chosen = true;
  for (int32_t option : p.layer_option) {
    s.full_layers += option == NDS_LAYER_FULL;
    s.selective_layers += option == NDS_LAYER_SELECTIVE;
    s.offloaded_layers += option == NDS_LAYER_OFFLOAD;
  }
  return outcome;
}

}  // namespace ndsearch

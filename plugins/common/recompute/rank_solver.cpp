// SPDX-License-Identifier: Apache-2.0
// rank_solver.cpp: one rank's recompute and offload choice (rank_solver.hpp).
#include "plugins/common/recompute/rank_solver.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "plugins/common/recompute/recompute_choice.hpp"

namespace ndsearch {
namespace {

constexpr std::size_t kMaxScratchPoints = std::size_t{1} << 20;  // 32 MiB of frontier points
constexpr double kNever = 1e30;                                  // a time no choice reaches

// Bytes as whole bytes for the exact choice (recompute_choice.hpp takes int64).
int64_t whole_bytes(double bytes) {
  if (!(bytes > 0)) return 0;
  return static_cast<int64_t>(std::min(bytes, static_cast<double>(kMaxRecomputeLayerBytes)));
}

double finite_seconds(double s) {
  return std::isfinite(s) && s > 0 ? s : 0;
}

struct Menu {
  std::array<RecomputeGroup, kMaxRecomputeGroups> groups{};
  std::array<RecomputeGroupChoice, kMaxRecomputeGroups> chosen{};
  std::size_t count = 0;
};

// Greedy by bytes saved per second, for a rank too large for the exact
// choice's scratch: each layer in turn gets the option of the best ratio
// until the need is met.
RecomputeChoice greedy(const RecomputeRank& rank, RecomputeGroupChoice* out) {
  RecomputeChoice c;
  int64_t need = rank.bytes_without_recompute - rank.budget_bytes, saved = 0;
  double extra = 0;
  for (std::size_t g = 0; g < rank.group_count; ++g) out[g] = {};
  while (need > saved) {
    int best = -1;
    bool best_full = false;
    double best_ratio = -1;
    for (std::size_t g = 0; g < rank.group_count; ++g) {
      const RecomputeGroup& group = rank.groups[g];
      if (out[g].full_layers + out[g].selective_layers >= group.layers) continue;
      for (bool full : {false, true}) {
        const RecomputeOptionCost& o = full ? group.full : group.selective;
        if (o.saved_bytes <= 0) continue;
        const double ratio = static_cast<double>(o.saved_bytes) / std::max(o.extra_seconds, 1e-30);
        if (ratio > best_ratio) best = static_cast<int>(g), best_full = full, best_ratio = ratio;
      }
    }
    if (best < 0) break;
    const RecomputeGroup& group = rank.groups[static_cast<std::size_t>(best)];
    const RecomputeOptionCost& o = best_full ? group.full : group.selective;
    (best_full ? out[best].full_layers : out[best].selective_layers) += 1;
    saved += o.saved_bytes;
    extra += o.extra_seconds;
  }
  c.status = need > saved ? RecomputeStatus::does_not_fit : RecomputeStatus::fits;
  c.saved_bytes = saved;
  c.extra_seconds = extra;
  c.peak_bytes = rank.bytes_without_recompute - saved;
  return c;
}

RecomputeChoice choose(const RecomputeRank& rank, RecomputeGroupChoice* out) {
  thread_local std::vector<RecomputeFrontierPoint> scratch;
  const std::size_t need = recompute_scratch_points(rank.groups, rank.group_count);
  if (need > kMaxScratchPoints) return greedy(rank, out);
  if (scratch.size() < need) {
    try {
      scratch.resize(need);
    } catch (...) {
      return greedy(rank, out);
    }
  }
  return choose_recompute(rank, {scratch.data(), scratch.size()}, out);
}

struct Solved {
  RecomputeChoice choice;
  bool with_full = false;
};

// The recompute choice of `menu` against `budget`, full allowed or not, the
// full working set charged when any layer runs full.
Solved solve_recompute(Menu& menu, int64_t base_bytes, int64_t budget, int64_t full_working_set) {
  RecomputeRank rank;
  rank.bytes_without_recompute = base_bytes;
  rank.group_count = menu.count;
  std::array<RecomputeGroup, kMaxRecomputeGroups> without_full = menu.groups;
  for (std::size_t g = 0; g < menu.count; ++g) without_full[g].full = {0, kNever};
  rank.groups = without_full.data();
  rank.budget_bytes = budget;
  std::array<RecomputeGroupChoice, kMaxRecomputeGroups> a{};
  Solved best{choose(rank, a.data()), false};
  std::copy(a.begin(), a.end(), menu.chosen.begin());
  if (best.choice.status == RecomputeStatus::bad_input) return best;
  rank.groups = menu.groups.data();
  rank.budget_bytes = budget - full_working_set;
  const RecomputeChoice with_full = choose(rank, a.data());
  bool any_full = false;
  for (std::size_t g = 0; g < menu.count; ++g) any_full = any_full || a[g].full_layers > 0;
  if (with_full.status == RecomputeStatus::bad_input) return best;
  const double peak_with_full =
      static_cast<double>(with_full.peak_bytes) + (any_full ? full_working_set : 0);
  const bool full_fits = with_full.status == RecomputeStatus::fits;
  const bool take =
      best.choice.status == RecomputeStatus::fits
          ? full_fits && any_full && with_full.extra_seconds < best.choice.extra_seconds
          : full_fits || peak_with_full < static_cast<double>(best.choice.peak_bytes);
  if (take) {
    best = {with_full, any_full};
    best.choice.peak_bytes = static_cast<int64_t>(peak_with_full);
    std::copy(a.begin(), a.end(), menu.chosen.begin());
  }
  return best;
}

}  // namespace

RankSolution solve_rank(sdk::RecomputeRankView view, bool allow_offload) noexcept {
  const nds_recompute_rank& in = view.in();
  const uint32_t group_count = std::min<uint32_t>(view.group_count(), kMaxRecomputeGroups);
  std::array<nds_recompute_group, kMaxRecomputeGroups> groups{};
  for (uint32_t g = 0; g < group_count; ++g) groups[g] = view.group(g);
  const int64_t base = whole_bytes(in.bytes_without_recompute),
                budget = whole_bytes(in.budget_bytes);
  const int64_t full_working_set = whole_bytes(in.full_working_set_bytes);
  const bool can_offload = allow_offload && in.host_link_bytes_per_s > 0;

  // The layers offloaded in all, taken from the first groups on: k = 0 .. K.
  uint32_t offloadable = 0;
  for (uint32_t g = 0; can_offload && g < group_count && groups[g].offload_copy_bytes > 0; ++g)
    offloadable += groups[g].layers;
  RankSolution best;
  best.peak_bytes = std::numeric_limits<double>::infinity();
  best.extra_s = kNever;
  std::array<uint32_t, kMaxRecomputeGroups> best_offloaded{};
  std::array<RecomputeGroupChoice, kMaxRecomputeGroups> best_chosen{};
  for (uint32_t k = 0; k <= offloadable; ++k) {
    // The first k layers offloaded: what they free, hold on the host and copy.
    std::array<uint32_t, kMaxRecomputeGroups> offloaded{};
    double freed = 0, host = 0, copy = 0;
    uint32_t left = k;
    for (uint32_t g = 0; g < group_count && left > 0; ++g) {
      offloaded[g] = std::min(left, groups[g].layers);
      left -= offloaded[g];
      freed += offloaded[g] * groups[g].option[NDS_LAYER_OFFLOAD].saved_bytes;
      host += offloaded[g] * groups[g].offload_host_bytes;
      copy += offloaded[g] * groups[g].offload_copy_bytes;
    }
    if (host > in.host_bytes_free) break;
    const double copy_s = k == 0 ? 0 : copy / in.host_link_bytes_per_s;
    const double exposed =
        in.micro_batches * (std::max(0.0, copy_s - finite_seconds(in.forward_s)) +
                            std::max(0.0, copy_s - finite_seconds(in.backward_s)));
    if (best.fits && exposed > best.extra_s) break;  // more layers only copy more
    Menu menu;
    menu.count = group_count;
    for (uint32_t g = 0; g < group_count; ++g) {
      RecomputeGroup& r = menu.groups[g];
      r.layers = static_cast<int32_t>(groups[g].layers - offloaded[g]);
      r.selective = {whole_bytes(groups[g].option[NDS_LAYER_SELECTIVE].saved_bytes),
                     finite_seconds(groups[g].option[NDS_LAYER_SELECTIVE].extra_s)};
      r.full = {whole_bytes(groups[g].option[NDS_LAYER_FULL].saved_bytes),
                finite_seconds(groups[g].option[NDS_LAYER_FULL].extra_s)};
    }
    const Solved solved =
        solve_recompute(menu, base - whole_bytes(freed), budget, full_working_set);
    if (solved.choice.status == RecomputeStatus::bad_input) break;
    const bool fits = solved.choice.status == RecomputeStatus::fits;
    const double extra = exposed + solved.choice.extra_seconds;
    const double peak = static_cast<double>(solved.choice.peak_bytes);
    const bool better =
        fits ? !best.fits || extra < best.extra_s : !best.fits && peak < best.peak_bytes;
    if (!better) continue;
    best = {fits, peak, extra};
    best_offloaded = offloaded;
    best_chosen = menu.chosen;
  }
  if (!std::isfinite(best.peak_bytes)) {  // no k was priced: keep everything
    best = {in.bytes_without_recompute <= in.budget_bytes, in.bytes_without_recompute, 0};
    best_chosen = {};
    best_offloaded = {};
  }
  for (uint32_t g = 0; g < view.group_count(); ++g) {
    if (g >= group_count) {
      view.set(g, NDS_LAYER_KEEP, view.group(g).layers);  // beyond what the choice takes: kept
      continue;
    }
    const auto full = static_cast<uint32_t>(best_chosen[g].full_layers);
    const auto selective = static_cast<uint32_t>(best_chosen[g].selective_layers);
    view.set(g, NDS_LAYER_OFFLOAD, best_offloaded[g]);
    view.set(g, NDS_LAYER_FULL, full);
    view.set(g, NDS_LAYER_SELECTIVE, selective);
    view.set(g, NDS_LAYER_KEEP, groups[g].layers - best_offloaded[g] - full - selective);
  }
  view.result(best.peak_bytes, best.extra_s, best.fits);
  return best;
}

}  // namespace ndsearch

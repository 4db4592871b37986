// SPDX-License-Identifier: Apache-2.0
// recompute_choice.cpp: the exact per-layer recompute choice of one rank
// (method in recompute_choice.hpp).
#include "plugins/common/recompute/recompute_choice.hpp"

#include <algorithm>  // std::sort, std::min
#include <array>
#include <cmath>   // std::isfinite
#include <limits>  // SIZE_MAX, int32 max

namespace ndsearch {
namespace {

constexpr double kNoTime = std::numeric_limits<double>::infinity();
// A rank's bytes and budget: far above any device (1 EiB), far below int64's
// limit, so the gap and its sums cannot overflow.
constexpr int64_t kMaxRankBytes = int64_t{1} << 60;
constexpr RecomputeFrontierPoint kEmptyChoice{0, 0, -1, 0, 0};  // nothing recomputed

std::size_t pairs(int32_t layers) {
  const auto n = static_cast<std::size_t>(std::max(layers, 0));
  return (n + 1) * (n + 2) / 2;
}

// The group solved by the scan: the one with the most layers (the first).
std::size_t scanned_group(const RecomputeGroup* groups, std::size_t count) {
  std::size_t last = 0;
  for (std::size_t g = 1; g < count; ++g)
    if (groups[g].layers > groups[last].layers) last = g;
  return last;
}

const char* bad_cost(const RecomputeOptionCost& cost, bool full) {
  if (cost.saved_bytes < 0 || cost.saved_bytes > kMaxRecomputeLayerBytes)
    return full ? "group.full.saved_bytes" : "group.selective.saved_bytes";
  if (!std::isfinite(cost.extra_seconds) || cost.extra_seconds < 0)
    return full ? "group.full.extra_seconds" : "group.selective.extra_seconds";
  return nullptr;
}

RecomputeChoice bad(const char* field, int32_t group = -1) {
  RecomputeChoice out;
  out.bad_field = field;
  out.bad_group = group;
  return out;
}

RecomputeChoice validate(const RecomputeRank& rank, const RecomputeScratch& scratch) {
  if (rank.group_count > kMaxRecomputeGroups) return bad("group_count");
  if (rank.group_count > 0 && rank.groups == nullptr) return bad("groups");
  if (rank.bytes_without_recompute < 0 || rank.bytes_without_recompute > kMaxRankBytes)
    return bad("bytes_without_recompute");
  if (rank.budget_bytes < -kMaxRankBytes || rank.budget_bytes > kMaxRankBytes)
    return bad("budget_bytes");
  for (std::size_t g = 0; g < rank.group_count; ++g) {
    const RecomputeGroup& group = rank.groups[g];
    const auto index = static_cast<int32_t>(g);
    if (group.layers < 0 || group.layers > kMaxLayersPerRecomputeGroup)
      return bad("group.layers", index);
    if (const char* field = bad_cost(group.selective, false)) return bad(field, index);
    if (const char* field = bad_cost(group.full, true)) return bad(field, index);
  }
  if (rank.warmup_group >= 0) {
    if (static_cast<std::size_t>(rank.warmup_group) >= rank.group_count ||
        rank.groups[rank.warmup_group].layers == 0)
      return bad("warmup_group", rank.warmup_group);
    for (int64_t bytes : rank.warmup_working_set_bytes)
      if (bytes < 0 || bytes > kMaxRecomputeLayerBytes) return bad("warmup_working_set_bytes");
  } else if (rank.warmup_group != -1) {
    return bad("warmup_group");
  }
  const std::size_t needed = recompute_scratch_points(rank.groups, rank.group_count);
  if (needed > static_cast<std::size_t>(std::numeric_limits<int32_t>::max()))
    return bad("group_count");  // too many choices for the frontier's indices
  if (needed > scratch.capacity || (needed > 0 && scratch.points == nullptr)) return bad("scratch");
  RecomputeChoice ok;
  ok.status = RecomputeStatus::fits;
  return ok;
}

const RecomputeOptionCost& cost_of(const RecomputeGroup& group, RecomputeOption option) {
  static constexpr RecomputeOptionCost kNone{};
  switch (option) {
    case RecomputeOption::selective: return group.selective;
    case RecomputeOption::full: return group.full;
    case RecomputeOption::none: break;
  }
  return kNone;
}

// The most of each option a group may take: an option that saves nothing is
// never worth a layer.
int32_t usable(const RecomputeOptionCost& cost, int32_t layers) {
  return cost.saved_bytes > 0 ? layers : 0;
}

int64_t saved_by(const RecomputeGroup& group, int64_t full, int64_t selective) {
  return full * group.full.saved_bytes + selective * group.selective.saved_bytes;
}

double seconds_of(const RecomputeGroup& group, int64_t full, int64_t selective) {
  return full * group.full.extra_seconds + selective * group.selective.extra_seconds;
}

// The warm-up layer, which solve_case takes out of its group, back in.
void count_warmup_layer(RecomputeGroupChoice& group, RecomputeOption option) {
  if (option == RecomputeOption::full) ++group.full_layers;
  if (option == RecomputeOption::selective) ++group.selective_layers;
}

struct GroupPick {
  double seconds = kNoTime;  // kNoTime: no pick closes the gap
  int32_t full_layers = 0;
  int32_t selective_layers = 0;
};

// One group of `layers` alike layers against a gap of `need` bytes: for each
// count of full layers the fewest selective ones (fewer selective layers never
// cost more), the fastest of these n + 1; exact.
GroupPick scan_group(const RecomputeGroup& group, int32_t layers, int64_t need) {
  GroupPick best;
  if (need <= 0) {
    best.seconds = 0;
    return best;
  }
  const int32_t max_full = usable(group.full, layers);
  const int64_t per_selective = group.selective.saved_bytes;
  for (int32_t f = 0; f <= max_full; ++f) {
    const int64_t rest = need - f * group.full.saved_bytes;
    int64_t s = 0;
    if (rest > 0) {
      if (per_selective <= 0) continue;
      s = (rest + per_selective - 1) / per_selective;
      if (s > layers - f) continue;
    }
    const double seconds = seconds_of(group, f, s);
    if (seconds < best.seconds) best = {seconds, f, static_cast<int32_t>(s)};
    if (rest <= 0) break;  // more full layers only add time
  }
  return best;
}

// Drops every point another saves as much as at no more time; returns the end.
RecomputeFrontierPoint* prune(RecomputeFrontierPoint* begin, RecomputeFrontierPoint* end) {
  std::sort(begin, end, [](const RecomputeFrontierPoint& a, const RecomputeFrontierPoint& b) {
    return a.saved_bytes != b.saved_bytes ? a.saved_bytes > b.saved_bytes : a.seconds < b.seconds;
  });
  RecomputeFrontierPoint* kept = begin;
  double least_seconds = kNoTime;
  for (RecomputeFrontierPoint* p = begin; p != end; ++p) {
    if (p->seconds >= least_seconds) continue;
    least_seconds = p->seconds;
    *kept++ = *p;
  }
  return kept;
}

// The frontier of one more group: every point of `previous` (or the empty
// choice) with every pair of counts, savings cut at `need`, pruned.
RecomputeFrontierPoint* extend(const RecomputeFrontierPoint* previous, std::size_t previous_size,
                               const RecomputeGroup& group, int32_t layers, int64_t need,
                               RecomputeFrontierPoint* out) {
  const bool first = previous == nullptr;
  const std::size_t parents = first ? 1 : previous_size;
  RecomputeFrontierPoint* end = out;
  for (std::size_t i = 0; i < parents; ++i) {
    const RecomputeFrontierPoint& parent = first ? kEmptyChoice : previous[i];
    for (int32_t f = 0; f <= usable(group.full, layers); ++f) {
      for (int32_t s = 0; s <= usable(group.selective, layers - f); ++s) {
        const int64_t saved = parent.saved_bytes + saved_by(group, f, s);
        const double seconds = parent.seconds + seconds_of(group, f, s);
        *end++ = {std::min(saved, need), seconds, first ? -1 : static_cast<int32_t>(i), f, s};
      }
    }
  }
  return prune(out, end);
}

struct CaseResult {
  double seconds = kNoTime;
  RecomputeOption warmup_option = RecomputeOption::none;
};

// One case: the warm-up layer (if any) runs `warmup_option`, so it leaves its
// group, its saving and time are fixed and its working set joins the gap.
struct Case {
  std::array<int32_t, kMaxRecomputeGroups> layers{};
  int64_t need = 0;    // bytes the other layers must save
  double seconds = 0;  // the warm-up layer's
};

Case warmup_case(const RecomputeRank& rank, RecomputeOption warmup_option) {
  Case c;
  for (std::size_t g = 0; g < rank.group_count; ++g) c.layers[g] = rank.groups[g].layers;
  c.need = rank.bytes_without_recompute - rank.budget_bytes;
  if (rank.warmup_group < 0) return c;
  const RecomputeOptionCost& cost = cost_of(rank.groups[rank.warmup_group], warmup_option);
  --c.layers[rank.warmup_group];
  c.need += rank.warmup_working_set_bytes[static_cast<int32_t>(warmup_option)] - cost.saved_bytes;
  c.seconds = cost.extra_seconds;
  return c;
}

// The frontier of every group but the scanned one, one level per group, each
// kept in the scratch for the way back.
struct Frontier {
  std::array<const RecomputeFrontierPoint*, kMaxRecomputeGroups> level{};
  std::array<std::size_t, kMaxRecomputeGroups> level_size{};
  std::array<std::size_t, kMaxRecomputeGroups> level_group{};
  std::size_t levels = 0;

  [[nodiscard]] const RecomputeFrontierPoint* top() const {
    return levels == 0 ? &kEmptyChoice : level[levels - 1];
  }
  [[nodiscard]] std::size_t top_size() const { return levels == 0 ? 1 : level_size[levels - 1]; }
};

Frontier build_frontier(const RecomputeRank& rank, const Case& c, std::size_t scanned,
                        RecomputeFrontierPoint* free_points) {
  Frontier frontier;
  for (std::size_t g = 0; g < rank.group_count && c.need > 0; ++g) {
    if (g == scanned) continue;
    const std::size_t k = frontier.levels;
    RecomputeFrontierPoint* end =
        extend(k == 0 ? nullptr : frontier.level[k - 1], k == 0 ? 0 : frontier.level_size[k - 1],
               rank.groups[g], c.layers[g], c.need, free_points);
    frontier.level[k] = free_points;
    frontier.level_size[k] = static_cast<std::size_t>(end - free_points);
    frontier.level_group[k] = g;
    frontier.levels = k + 1;
    free_points = end;
  }
  return frontier;
}

// Back through the levels from `point` of the top one: each point names its
// parent in the level before.
void trace_back(const Frontier& frontier, const RecomputeFrontierPoint* point,
                RecomputeGroupChoice* out) {
  for (std::size_t k = frontier.levels; k-- > 0;) {
    out[frontier.level_group[k]] = {point->full_layers, point->selective_layers};
    if (k > 0) point = &frontier.level[k - 1][point->parent];
  }
}

// The cheapest choice of one case: the scanned group against each point of
// the frontier. Writes `out` only when it beats `best_seconds`.
CaseResult solve_case(const RecomputeRank& rank, const RecomputeScratch& scratch,
                      RecomputeOption warmup_option, double best_seconds,
                      RecomputeGroupChoice* out) {
  const Case c = warmup_case(rank, warmup_option);
  const std::size_t scanned = scanned_group(rank.groups, rank.group_count);
  const Frontier frontier = build_frontier(rank, c, scanned, scratch.points);
  const RecomputeFrontierPoint* tops = frontier.top();
  GroupPick best_scan;
  const RecomputeFrontierPoint* best_top = nullptr;
  double least_seconds = kNoTime;
  for (std::size_t i = 0; i < frontier.top_size(); ++i) {
    const int64_t rest = c.need - tops[i].saved_bytes;
    const GroupPick pick = rank.group_count == 0
                               ? GroupPick{rest <= 0 ? 0.0 : kNoTime, 0, 0}
                               : scan_group(rank.groups[scanned], c.layers[scanned], rest);
    if (tops[i].seconds + pick.seconds < least_seconds) {
      least_seconds = tops[i].seconds + pick.seconds;
      best_scan = pick;
      best_top = &tops[i];
    }
  }
  CaseResult result{c.seconds + least_seconds, warmup_option};
  if (best_top == nullptr || !(result.seconds < best_seconds)) return result;
  for (std::size_t g = 0; g < rank.group_count; ++g) out[g] = {};
  if (rank.group_count > 0) out[scanned] = {best_scan.full_layers, best_scan.selective_layers};
  trace_back(frontier, best_top, out);
  if (rank.warmup_group >= 0) count_warmup_layer(out[rank.warmup_group], warmup_option);
  return result;
}

// When nothing fits: every layer the option that saves the most, the warm-up
// layer the one that leaves the least of the working set and its keep.
RecomputeOption least_peak(const RecomputeRank& rank, RecomputeGroupChoice* out) {
  for (std::size_t g = 0; g < rank.group_count; ++g) {
    const RecomputeGroup& group = rank.groups[g];
    const bool full = group.full.saved_bytes >= group.selective.saved_bytes;
    const int32_t n = group.layers - (static_cast<int32_t>(g) == rank.warmup_group ? 1 : 0);
    out[g] = full ? RecomputeGroupChoice{usable(group.full, n), 0}
                  : RecomputeGroupChoice{0, usable(group.selective, n)};
  }
  if (rank.warmup_group < 0) return RecomputeOption::none;
  const RecomputeGroup& group = rank.groups[rank.warmup_group];
  RecomputeOption best = RecomputeOption::none;
  int64_t best_left = rank.warmup_working_set_bytes[0];
  for (RecomputeOption option : {RecomputeOption::selective, RecomputeOption::full}) {
    const int64_t left = rank.warmup_working_set_bytes[static_cast<int32_t>(option)] -
                         cost_of(group, option).saved_bytes;
    if (left < best_left) best = option, best_left = left;
  }
  RecomputeGroupChoice& warm = out[rank.warmup_group];
  count_warmup_layer(warm, best);
  return best;
}

}  // namespace

std::size_t recompute_scratch_points(const RecomputeGroup* groups, std::size_t group_count) {
  if (groups == nullptr || group_count == 0) return 0;
  const std::size_t last = scanned_group(groups, group_count);
  std::size_t total = 0;
  std::size_t product = 1;
  for (std::size_t g = 0; g < group_count; ++g) {
    if (g == last) continue;
    const std::size_t choices = pairs(groups[g].layers);
    if (product > SIZE_MAX / choices) return SIZE_MAX;
    product *= choices;
    if (total > SIZE_MAX - product) return SIZE_MAX;
    total += product;
  }
  return total;
}

RecomputeChoice choose_recompute(const RecomputeRank& rank, RecomputeScratch scratch,
                                 RecomputeGroupChoice* out) {
  RecomputeChoice choice = validate(rank, scratch);
  if (choice.status == RecomputeStatus::bad_input) return choice;
  if (rank.group_count > 0 && out == nullptr) return bad("out");
  CaseResult best;
  if (rank.warmup_group < 0) {
    best = solve_case(rank, scratch, RecomputeOption::none, kNoTime, out);
  } else {
    const RecomputeGroup& warm = rank.groups[rank.warmup_group];
    for (RecomputeOption option :
         {RecomputeOption::none, RecomputeOption::selective, RecomputeOption::full}) {
      if (option != RecomputeOption::none && cost_of(warm, option).saved_bytes == 0) continue;
      const CaseResult result = solve_case(rank, scratch, option, best.seconds, out);
      if (result.seconds < best.seconds) best = result;
    }
  }
  const bool fits = best.seconds < kNoTime;
  choice.status = fits ? RecomputeStatus::fits : RecomputeStatus::does_not_fit;
  choice.warmup_option = fits ? best.warmup_option : least_peak(rank, out);
  choice.extra_seconds = 0;
  choice.saved_bytes = 0;
  for (std::size_t g = 0; g < rank.group_count; ++g) {
    const RecomputeGroup& group = rank.groups[g];
    choice.saved_bytes += saved_by(group, out[g].full_layers, out[g].selective_layers);
    choice.extra_seconds += seconds_of(group, out[g].full_layers, out[g].selective_layers);
  }
  choice.warmup_bytes =
      rank.warmup_group < 0
          ? 0
          : rank.warmup_working_set_bytes[static_cast<int32_t>(choice.warmup_option)];
  choice.peak_bytes = rank.bytes_without_recompute - choice.saved_bytes + choice.warmup_bytes;
  return choice;
}

}  // namespace ndsearch

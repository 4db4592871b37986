// SPDX-License-Identifier: Apache-2.0
// recompute_choice.hpp: the per-layer recompute choice of one pipeline rank
// (the reference's auto recompute, nd_behaviour.md §8.2): for each group of
// alike layers, how many run fully recomputed and how many selectively, so
// that the rank fits its budget at the least extra time per step.
//
// Plain data in and out, arrays owned by the caller, no allocation: it runs
// once per rank of every candidate of the search, and a recompute plugin
// (nds.recompute/1) will receive the same fields.
//
// Method (exact, not the reference's 1 MB bucketed knapsack): layers of a
// group are interchangeable, so a group's choice is a pair (full, selective)
// of counts. For one group, for each count of full layers the fewest
// selective layers that close the gap is the fastest, so one scan of n + 1
// counts is exact. For several groups, a dynamic programme over the groups
// keeps the Pareto frontier of (bytes saved, seconds) of the groups so far
// (a point that saves no more and costs no less than another is dropped;
// savings beyond the need are cut at the need), and the largest group is
// solved last by the one-group scan against each frontier point. The warm-up
// layer's working set is handled by trying its three options (below). Cost:
// 3 × (Σ frontier sizes × pairs + frontier × n_last). Measured CPU time per
// rank (bench/bench_recompute.cpp): a DeepSeek-V3 rank (3 dense + 1 MoE
// layer) ~0.3 µs, one group of 126 layers ~0.7 µs, 8 single-layer groups
// (vpp 4, two kinds) ~4 µs. Why not buckets: a 1 MB bucketed knapsack over an
// 80 GB rank is 80 000 cells per group, slower than the frontier, and rounds
// every saving by up to 1 MB per layer.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ndsearch {

enum class RecomputeOption : int32_t { none = 0, selective = 1, full = 2 };
inline constexpr std::size_t kRecomputeOptions = 3;

// What choosing an option instead of none changes for one layer.
struct RecomputeOptionCost {
  // Bytes one layer keeps under none minus under this option, per micro-batch,
  // times the micro-batches in flight for the layer's chunk (DESIGN §8.6).
  int64_t saved_bytes = 0;
  // Seconds per step one layer adds: its forward run again, per micro-batch,
  // times the micro-batches of the step.
  double extra_seconds = 0;
};

// Layers alike: the same block kind in the same chunk.
struct RecomputeGroup {
  int32_t layers = 0;
  RecomputeOptionCost selective;  // saved_bytes 0: the kind has no selective recompute
  RecomputeOptionCost full;
};

// Limits that keep every sum of bytes inside int64 (32 × 4096 × 1 TiB < 2^63).
inline constexpr std::size_t kMaxRecomputeGroups = 32;
inline constexpr int32_t kMaxLayersPerRecomputeGroup = 4096;
inline constexpr int64_t kMaxRecomputeLayerBytes = int64_t{1} << 40;  // 1 TiB

struct RecomputeRank {
  int64_t budget_bytes = 0;
  // The rank's peak with no layer recomputed, without the warm-up layer's
  // working set (which is `warmup_working_set_bytes[none]` then).
  int64_t bytes_without_recompute = 0;
  const RecomputeGroup* groups = nullptr;  // caller-owned, `group_count` entries
  std::size_t group_count = 0;
  // The layer that ends the warm-up (the first backward starts with it) holds,
  // at the rank's peak, a working set beyond what a layer keeps: under full
  // recompute the whole forward it runs again for one micro-batch, under
  // selective the recomputed part, under none its backward's scratch. It is
  // one layer of group `warmup_group` (-1: none is charged), and it is charged
  // `warmup_working_set_bytes[option]` once, for the option it runs.
  int32_t warmup_group = -1;
  int64_t warmup_working_set_bytes[kRecomputeOptions] = {0, 0, 0};
};

// Counts include the warm-up layer.
struct RecomputeGroupChoice {
  int32_t full_layers = 0;
  int32_t selective_layers = 0;
};

enum class RecomputeStatus : int32_t {
  fits = 0,          // the cheapest choice that fits
  does_not_fit = 1,  // nothing fits: the choice that leaves the least peak
  bad_input = 2,     // `bad_field` names the field; nothing else is set
};

struct RecomputeChoice {
  RecomputeStatus status = RecomputeStatus::bad_input;
  const char* bad_field = nullptr;  // static text, e.g. "group.full.extra_seconds"
  int32_t bad_group = -1;           // the group `bad_field` is about, or -1
  int64_t saved_bytes = 0;          // Σ over recomputed layers of saved_bytes
  int64_t warmup_bytes = 0;         // the warm-up layer's charge, for its option
  int64_t peak_bytes = 0;           // bytes_without_recompute − saved_bytes + warmup_bytes
  double extra_seconds = 0;
  RecomputeOption warmup_option = RecomputeOption::none;
};

// One point of the frontier the programme keeps (scratch only).
struct RecomputeFrontierPoint {
  int64_t saved_bytes;
  double seconds;
  int32_t parent;  // index in the previous group's frontier
  int32_t full_layers;
  int32_t selective_layers;
};

struct RecomputeScratch {
  RecomputeFrontierPoint* points = nullptr;  // caller-owned
  std::size_t capacity = 0;
};

// The points `choose_recompute` may need for these groups: with pairs(n) =
// (n + 1)(n + 2) / 2 choices per group of n layers and the largest group
// solved by the scan, Σ over the other groups g_1..g_k (in order) of
// Π_{j ≤ i} pairs(g_j). One group needs none; DeepSeek-V3's first rank (3
// dense layers and 1 MoE layer) needs pairs(1) = 3. A caller sizes its
// scratch once with the largest groups it will price. Saturates at SIZE_MAX.
std::size_t recompute_scratch_points(const RecomputeGroup* groups, std::size_t group_count);

// `out` has `rank.group_count` entries. Bad input: more groups than
// kMaxRecomputeGroups, a negative or too large count or byte value, a
// negative or non-finite time, a warm-up group out of range or empty, or
// scratch smaller than recompute_scratch_points ("scratch").
RecomputeChoice choose_recompute(const RecomputeRank& rank, RecomputeScratch scratch,
                                 RecomputeGroupChoice* out);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// test_recompute_choice.cpp: the per-layer recompute choice of one rank
// (plugins/common/recompute/recompute_choice.hpp) against optima enumerated by hand in the
// comments: need = bytes without recompute − budget; a choice fits when the
// bytes its layers save, less the warm-up layer's working set, reach it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "plugins/common/recompute/recompute_choice.hpp"

using namespace ndsearch;

namespace {

constexpr int64_t GiB = int64_t{1} << 30;
constexpr int64_t GB = 1'000'000'000;  // decimal, where tenths must be exact

struct Solved {
  RecomputeChoice choice;
  std::vector<RecomputeGroupChoice> groups;
};

Solved solve(RecomputeRank rank, const std::vector<RecomputeGroup>& groups) {
  rank.groups = groups.data();
  rank.group_count = groups.size();
  std::vector<RecomputeFrontierPoint> points(
      recompute_scratch_points(groups.data(), groups.size()));
  Solved out;
  out.groups.resize(groups.size());
  out.choice = choose_recompute(rank, {points.data(), points.size()}, out.groups.data());
  return out;
}

RecomputeRank rank_with_need(int64_t bytes_without, int64_t budget) {
  RecomputeRank rank;
  rank.bytes_without_recompute = bytes_without;
  rank.budget_bytes = budget;
  return rank;
}

// Full recompute only: each layer saves 1 GiB for 0.3 s.
const RecomputeGroup kEightFullOnly{8, {0, 0}, {GiB, 0.3}};

}  // namespace

TEST_CASE("A budget that admits exactly three recomputed layers gets three full layers") {
  // 20 GiB without recompute, budget 17.5 GiB: need 2.5 GiB; two layers save
  // 2 GiB (short), three save 3 GiB: 3 full, 0.9 s, peak 17 GiB.
  Solved s = solve(rank_with_need(20 * GiB, 35 * GiB / 2), {kEightFullOnly});
  REQUIRE(s.choice.status == RecomputeStatus::fits);
  CHECK(s.groups[0].full_layers == 3);
  CHECK(s.groups[0].selective_layers == 0);
  CHECK(s.choice.saved_bytes == 3 * GiB);
  CHECK(s.choice.peak_bytes == 17 * GiB);
  CHECK(s.choice.extra_seconds == Approx(0.9));
  // A budget of exactly 17 GiB still admits three (peak ≤ budget), 16.9 GiB four.
  CHECK(solve(rank_with_need(20 * GiB, 17 * GiB), {kEightFullOnly}).groups[0].full_layers == 3);
  CHECK(solve(rank_with_need(20 * GiB, 17 * GiB - 1), {kEightFullOnly}).groups[0].full_layers == 4);
}

TEST_CASE("Selective recompute cheaper per byte is chosen when it suffices") {
  // Selective saves 0.5 GiB for 0.05 s (10 GiB/s), full 1 GiB for 0.3 s.
  const RecomputeGroup group{8, {GiB / 2, 0.05}, {GiB, 0.3}};
  // Need 2 GiB: 4 selective 0.2 s; 1 full + 2 selective 0.4 s; 2 full 0.6 s.
  Solved s = solve(rank_with_need(10 * GiB, 8 * GiB), {group});
  REQUIRE(s.choice.status == RecomputeStatus::fits);
  CHECK(s.groups[0].full_layers == 0);
  CHECK(s.groups[0].selective_layers == 4);
  CHECK(s.choice.extra_seconds == Approx(0.2));
  // Need 6 GiB: 8 selective save 4 GiB (short); f full + s selective with
  // f + s ≤ 8 and f + s/2 ≥ 6: f = 3 needs s = 6 (9 layers, no), f = 4, s = 4
  // 1.4 s, f = 5, s = 2 1.6 s, f = 6 1.8 s: 4 full and 4 selective.
  s = solve(rank_with_need(10 * GiB, 4 * GiB), {group});
  REQUIRE(s.choice.status == RecomputeStatus::fits);
  CHECK(s.groups[0].full_layers == 4);
  CHECK(s.groups[0].selective_layers == 4);
  CHECK(s.choice.extra_seconds == Approx(1.4));
}

TEST_CASE("A mix of full and selective layers is the optimum the enumeration finds") {
  // 5 layers; selective 0.4 GB for 0.1 s, full 1 GB for 0.3 s; need 2.2 GB.
  // f = 0: s ≥ 5.5, 6 > 5 layers: no. f = 1: s ≥ 3, 0.6 s. f = 2: s ≥ 1,
  // 0.7 s. f = 3: s = 0, 0.9 s. Optimum 1 full + 3 selective, 0.6 s, saving
  // exactly 2.2 GB (peak = budget).
  const RecomputeGroup group{5, {4 * GB / 10, 0.1}, {GB, 0.3}};
  Solved s = solve(rank_with_need(10 * GB, 10 * GB - 22 * GB / 10), {group});
  REQUIRE(s.choice.status == RecomputeStatus::fits);
  CHECK(s.groups[0].full_layers == 1);
  CHECK(s.groups[0].selective_layers == 3);
  CHECK(s.choice.extra_seconds == Approx(0.6));
  CHECK(s.choice.peak_bytes == 10 * GB - 22 * GB / 10);
}

TEST_CASE("Two groups with different ratios beat the greedy order by bytes per second") {
  // Dense: 3 layers, full 2 GB for 0.1 s (20 GB/s); MoE: 2 layers, full 6 GB
  // for 0.6 s (10 GB/s). Need 7 GB. Greedy (dense first) takes 3 dense
  // (6 GB, short) and a MoE layer: 0.9 s. Enumerating (dense, moe):
  // (0,1) 6 GB short, (3,0) 6 GB short, (1,1) 8 GB 0.7 s, (2,1) 0.8 s,
  // (0,2) 1.2 s: 1 dense + 1 MoE, 0.7 s.
  const RecomputeGroup dense{3, {0, 0}, {2 * GB, 0.1}};
  const RecomputeGroup moe{2, {0, 0}, {6 * GB, 0.6}};
  for (bool moe_first : {false, true}) {
    INFO("MoE group first: " << moe_first);
    const std::vector<RecomputeGroup> groups =
        moe_first ? std::vector{moe, dense} : std::vector{dense, moe};
    Solved s = solve(rank_with_need(20 * GB, 13 * GB), groups);
    REQUIRE(s.choice.status == RecomputeStatus::fits);
    CHECK(s.groups[0].full_layers == 1);
    CHECK(s.groups[1].full_layers == 1);
    CHECK(s.choice.saved_bytes == 8 * GB);
    CHECK(s.choice.extra_seconds == Approx(0.7));
  }
}

TEST_CASE("Three groups are traced back through two frontier levels") {
  // Groups (b, a, c): b 1 layer full 3 GB 0.5 s, a 1 layer full 3 GB 0.2 s,
  // c 2 layers full 2 GB 0.2 s (the largest, scanned last). Need 5 GB:
  // (a, b, c) = (1,0,1) 5 GB 0.4 s; (0,1,1) 0.7 s; (1,1,0) 0.7 s; (1,0,2)
  // 0.6 s; (0,0,2) 4 GB short: a and one c.
  const std::vector<RecomputeGroup> groups{
      {1, {0, 0}, {3 * GB, 0.5}}, {1, {0, 0}, {3 * GB, 0.2}}, {2, {0, 0}, {2 * GB, 0.2}}};
  // Scratch: pairs(1) + pairs(1)·pairs(1) = 3 + 9.
  CHECK(recompute_scratch_points(groups.data(), groups.size()) == 12);
  Solved s = solve(rank_with_need(10 * GB, 5 * GB), groups);
  REQUIRE(s.choice.status == RecomputeStatus::fits);
  CHECK(s.groups[0].full_layers == 0);
  CHECK(s.groups[1].full_layers == 1);
  CHECK(s.groups[2].full_layers == 1);
  CHECK(s.choice.extra_seconds == Approx(0.4));
}

TEST_CASE("A rank that does not fit even fully recomputed is reported with its least peak") {
  // 8 layers save at most 8 GiB; need 9 GiB: no fit, all 8 full, peak 12 GiB.
  Solved s = solve(rank_with_need(20 * GiB, 11 * GiB), {kEightFullOnly});
  CHECK(s.choice.status == RecomputeStatus::does_not_fit);
  CHECK(s.groups[0].full_layers == 8);
  CHECK(s.choice.peak_bytes == 12 * GiB);
  CHECK(s.choice.extra_seconds == Approx(2.4));
}

TEST_CASE("A rank within its budget recomputes nothing") {
  for (int64_t budget : {20 * GiB, 30 * GiB}) {  // need 0 and need −10 GiB
    Solved s = solve(rank_with_need(20 * GiB, budget), {kEightFullOnly});
    REQUIRE(s.choice.status == RecomputeStatus::fits);
    CHECK(s.groups[0].full_layers == 0);
    CHECK(s.groups[0].selective_layers == 0);
    CHECK(s.choice.saved_bytes == 0);
    CHECK(s.choice.extra_seconds == 0);
  }
}

TEST_CASE("The warm-up layer's working set changes the choice") {
  // 4 layers: selective 1 GB for 0.1 s, full 2 GB for 0.3 s; need 4 GB.
  // Uncharged: 4 selective 0.4 s (1 full + 2 selective 0.5 s, 2 full 0.6 s).
  const std::vector<RecomputeGroup> groups{{4, {GB, 0.1}, {2 * GB, 0.3}}};
  RecomputeRank rank = rank_with_need(10 * GB, 6 * GB);
  Solved plain = solve(rank, groups);
  REQUIRE(plain.choice.status == RecomputeStatus::fits);
  CHECK(plain.groups[0].selective_layers == 4);
  CHECK(plain.choice.extra_seconds == Approx(0.4));
  // The layer ending the warm-up holds 0 under none, 0.5 GB under selective,
  // 2 GB under full. It runs none: the 3 others need 4 GB; 3 selective save
  // 3 (short), 1 full + 2 selective 0.5 s. Selective: 3.5 GB from the
  // others, 1 full + 2 selective, 0.1 + 0.5 = 0.6 s. Full: 4 GB from the
  // others, 0.3 + 0.5 = 0.8 s. So 1 full, 2 selective, the warm-up layer
  // plain: 0.5 s, peak 10 − 4 + 0 = 6 GB. (4 selective would peak at 6.5.)
  rank.warmup_group = 0;
  rank.warmup_working_set_bytes[0] = 0;
  rank.warmup_working_set_bytes[1] = GB / 2;
  rank.warmup_working_set_bytes[2] = 2 * GB;
  Solved charged = solve(rank, groups);
  REQUIRE(charged.choice.status == RecomputeStatus::fits);
  CHECK(charged.groups[0].full_layers == 1);
  CHECK(charged.groups[0].selective_layers == 2);
  CHECK(charged.choice.warmup_option == RecomputeOption::none);
  CHECK(charged.choice.warmup_bytes == 0);
  CHECK(charged.choice.peak_bytes == 6 * GB);
  CHECK(charged.choice.extra_seconds == Approx(0.5));
}

TEST_CASE("Bad recompute inputs name their field and group") {
  std::vector<RecomputeGroup> groups{kEightFullOnly, {2, {GiB, -0.1}, {GiB, 0.3}}};
  Solved s = solve(rank_with_need(20 * GiB, 10 * GiB), groups);
  CHECK(s.choice.status == RecomputeStatus::bad_input);
  CHECK(std::string(s.choice.bad_field) == "group.selective.extra_seconds");
  CHECK(s.choice.bad_group == 1);
  // Two groups need pairs(2) = 6 points of scratch: 5 is refused.
  groups[1].selective.extra_seconds = 0.1;
  RecomputeRank rank = rank_with_need(20 * GiB, 10 * GiB);
  rank.groups = groups.data();
  rank.group_count = groups.size();
  std::vector<RecomputeFrontierPoint> points(5);
  std::vector<RecomputeGroupChoice> out(2);
  RecomputeChoice choice = choose_recompute(rank, {points.data(), points.size()}, out.data());
  CHECK(choice.status == RecomputeStatus::bad_input);
  CHECK(std::string(choice.bad_field) == "scratch");
  points.resize(6);
  choice = choose_recompute(rank, {points.data(), points.size()}, out.data());
  CHECK(choice.status == RecomputeStatus::fits);
  // A warm-up group out of range.
  rank.warmup_group = 2;
  choice = choose_recompute(rank, {points.data(), points.size()}, out.data());
  CHECK(std::string(choice.bad_field) == "warmup_group");
}

namespace {

// Every choice of small groups, counted: per group every (full, selective)
// pair and, for the warm-up group, which option its warm-up layer runs.
struct Enumeration {
  const std::vector<RecomputeGroup>& groups;
  int64_t need;
  std::size_t warmup_group;  // groups.size(): none
  std::array<int64_t, kRecomputeOptions> working_set;

  double least_seconds(std::size_t g, int64_t saved, double seconds) const {
    if (g == groups.size()) return saved >= need ? seconds : 1e300;
    const RecomputeGroup& group = groups.at(g);
    const bool warm = g == warmup_group;
    const std::array<RecomputeOptionCost, kRecomputeOptions> costs{RecomputeOptionCost{},
                                                                   group.selective, group.full};
    double best = 1e300;
    for (std::size_t option = 0; option < (warm ? kRecomputeOptions : 1); ++option) {
      if (option == 1 && group.selective.saved_bytes == 0) continue;  // the kind has none
      const int32_t n = group.layers - (warm ? 1 : 0);
      const int64_t warm_saved = warm ? costs.at(option).saved_bytes - working_set.at(option) : 0;
      const double warm_seconds = warm ? costs.at(option).extra_seconds : 0;
      for (int32_t f = 0; f <= n; ++f)
        for (int32_t s = 0; f + s <= n; ++s)
          best =
              std::min(best, least_seconds(g + 1,
                                           saved + warm_saved + f * group.full.saved_bytes +
                                               s * group.selective.saved_bytes,
                                           seconds + warm_seconds + f * group.full.extra_seconds +
                                               s * group.selective.extra_seconds));
    }
    return best;
  }
};

}  // namespace

TEST_CASE("The choice is the optimum of every choice enumerated on random small ranks") {
  // A fixed linear congruential sequence: the same 400 ranks every run.
  uint64_t state = 14;
  auto next = [&](int64_t below) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((state >> 33) % static_cast<uint64_t>(below));
  };
  int fitted = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<RecomputeGroup> groups(1 + next(3));
    for (RecomputeGroup& group : groups) {
      group.layers = 1 + static_cast<int32_t>(next(4));
      group.selective = {next(3) * GB / 2, next(4) * 0.1};  // saved 0: no selective
      group.full = {(1 + next(4)) * GB / 2, (1 + next(6)) * 0.1};
    }
    RecomputeRank rank = rank_with_need(20 * GB, 20 * GB - next(16) * GB / 2);
    if (next(2) == 1) {
      rank.warmup_group = static_cast<int32_t>(next(static_cast<int64_t>(groups.size())));
      for (int64_t& bytes : rank.warmup_working_set_bytes) bytes = next(4) * GB / 2;
    }
    rank.groups = groups.data();
    rank.group_count = groups.size();
    const Enumeration enumeration{
        groups,
        rank.bytes_without_recompute - rank.budget_bytes,
        rank.warmup_group < 0 ? groups.size() : static_cast<std::size_t>(rank.warmup_group),
        {rank.warmup_working_set_bytes[0], rank.warmup_working_set_bytes[1],
         rank.warmup_working_set_bytes[2]}};
    const double expected = enumeration.least_seconds(0, 0, 0);
    Solved s = solve(rank, groups);
    INFO("trial " << trial);

    if (expected > 1e299) {
      CHECK(s.choice.status == RecomputeStatus::does_not_fit);
      ++refused;
      continue;
    }
    ++fitted;
    REQUIRE(s.choice.status == RecomputeStatus::fits);
    CHECK(s.choice.extra_seconds == Approx(expected).margin(1e-9));
    CHECK(s.choice.peak_bytes <= rank.budget_bytes);
  }
  CHECK(fitted > 100);  // both outcomes were exercised
  CHECK(refused > 20);
}

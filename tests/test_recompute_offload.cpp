// SPDX-License-Identifier: Apache-2.0
// test_recompute_offload.cpp: one rank's choice of the offload strategy
// (plugins/common/recompute/rank_solver.hpp) on menus derived by hand: the
// first layers go to host while the link moves their copies within the
// forward (and backward) of a micro-batch, the rest of the need is recomputed.
#include <catch2/catch.hpp>

#include <array>

#include "plugins/common/recompute/rank_solver.hpp"

namespace {

// One group of 8 alike layers. Each frees 1e9 bytes recomputed fully (at
// 0.01 s a step) or offloaded, an offloaded layer copies 0.5e9 bytes each way
// per micro-batch and holds 1e9 bytes of host memory. The link moves 10e9 B/s:
// k layers copy in 0.05·k s, against a forward of 0.2 s and a backward of
// 0.4 s per micro-batch, 4 micro-batches a step. The rank needs 6e9 bytes.
struct Rank {
  nds_recompute_group group{};
  nds_recompute_rank rank{};
  std::array<uint32_t, 4> counts{};
  explicit Rank(double host_bytes_free) {
    group.struct_size = sizeof(group);
    group.layers = 8;
    group.option[NDS_LAYER_FULL] = {1e9, 0.01};
    group.option[NDS_LAYER_OFFLOAD] = {1e9, 0};
    group.offload_copy_bytes = 0.5e9;
    group.offload_host_bytes = 1e9;
    rank.struct_size = sizeof(rank);
    rank.budget_bytes = 50e9;
    rank.bytes_without_recompute = 56e9;
    rank.host_bytes_free = host_bytes_free;
    rank.host_link_bytes_per_s = 10e9;
    rank.forward_s = 0.2;
    rank.backward_s = 0.4;
    rank.micro_batches = 4;
    rank.group_count = 1;
    rank.groups = &group;
    rank.group_elem_size = sizeof(group);
    rank.layers_per_option = counts.data();
  }
};

}  // namespace

TEST_CASE(
    "offload moves exactly the bytes the link hides behind the forward, and recomputes the rest") {
  Rank r(1e12);
  const ndsearch::RankSolution s =
      ndsearch::solve_rank(ndsearch::sdk::RecomputeRankView(r.rank), true);
  // 4 layers copy 4 · 0.5e9 = 2e9 bytes = 10e9 B/s · 0.2 s: hidden. A fifth
  // would expose 0.05 s per micro-batch (0.2 s a step), more than the 0.01 s
  // a full layer costs, so the other 2e9 bytes of the need are recomputed.
  CHECK(r.counts[NDS_LAYER_OFFLOAD] == 4);
  CHECK(r.counts[NDS_LAYER_FULL] == 2);
  CHECK(r.counts[NDS_LAYER_KEEP] == 2);
  CHECK(s.fits);
  CHECK(s.extra_s == Approx(0.02));
  CHECK(s.peak_bytes == Approx(50e9));
  CHECK(r.rank.code == NDS_OK);
}

TEST_CASE("offload stops at the host memory a device may fill") {
  Rank r(2.5e9);  // room for 2 offloaded layers' 1e9 bytes each, not 3
  ndsearch::solve_rank(ndsearch::sdk::RecomputeRankView(r.rank), true);
  CHECK(r.counts[NDS_LAYER_OFFLOAD] == 2);
  CHECK(r.counts[NDS_LAYER_FULL] == 4);
}

TEST_CASE("without offload (the per-layer strategy) the need is all recomputed") {
  Rank r(1e12);
  const ndsearch::RankSolution s =
      ndsearch::solve_rank(ndsearch::sdk::RecomputeRankView(r.rank), false);
  CHECK(r.counts[NDS_LAYER_OFFLOAD] == 0);
  CHECK(r.counts[NDS_LAYER_FULL] == 6);
  CHECK(s.extra_s == Approx(0.06));
}

TEST_CASE("offload beyond what the forward hides is taken when recomputing costs more") {
  Rank r(1e12);
  r.group.option[NDS_LAYER_FULL] = {1e9, 1.0};  // a full layer now costs 1 s a step
  const ndsearch::RankSolution s =
      ndsearch::solve_rank(ndsearch::sdk::RecomputeRankView(r.rank), true);
  // 6 offloaded layers copy in 0.3 s: 0.1 s exposed behind the forward, none
  // behind the backward, 4 micro-batches: 0.4 s, less than one full layer.
  CHECK(r.counts[NDS_LAYER_OFFLOAD] == 6);
  CHECK(r.counts[NDS_LAYER_FULL] == 0);
  CHECK(s.extra_s == Approx(0.4));
}

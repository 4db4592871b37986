// SPDX-License-Identifier: Apache-2.0
// rank_solver.hpp: one rank's menu of a "nds.recompute/1" item solved, for the
// per-layer strategy (recompute only) and the offload strategy (the first
// layers of the rank offloaded, the rest chosen per layer).
#pragma once

#include <ndsearch/sdk/recompute.hpp>

namespace ndsearch {

struct RankSolution {
  bool fits = false;
  double peak_bytes = 0;
  double extra_s = 0;
};

// Chooses each group's counts per option and writes them into `rank`
// (RecomputeRankView::set) with its peak and extra time.
//
// Recompute (recompute_choice.hpp, exact): the rank's full-recompute working
// set is charged once when a layer runs full, so the choice is solved twice,
// once without full and once with full and the budget less the working set,
// and the faster one that fits is kept (a choice without full layers is
// priced right by the first solve, so the minimum is exact).
//
// Offload (`allow_offload`): the first k layers of the rank in the host's
// group order (chunk 0 first: "a stage's first layers"), for each k that the
// host memory holds; each micro-batch copies k layers' activations to host
// during the rank's forward and back during its backward, and what the link
// cannot move in the forward (or backward) time of a micro-batch is exposed,
// every micro-batch. The fastest k that fits wins, the fewest layers at equal
// time; copies only grow with k, so the scan stops once they alone cost more
// than the best so far.
//
// Scratch: thread-local, grown to the most the rank's groups may need and
// then reused, so evaluate does not allocate once warm. A rank whose groups
// would need more than kMaxScratchPoints is solved with the groups of one
// block and chunk cost merged by chunk order instead (noted in its code).
RankSolution solve_rank(sdk::RecomputeRankView rank, bool allow_offload) noexcept;

}  // namespace ndsearch

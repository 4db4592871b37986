// SPDX-License-Identifier: Apache-2.0
#include "core/search/balance_layers.hpp"

namespace ndsearch {

bool balances(const nds_strategy& s) {
  // DualPipe's stages sit on two ranks each: a move there is two moves.
  return s.pp > 1 && s.schedule != NDS_SCHEDULE_DUALPIPE;
}

void balance_layers(const Model& model, uint64_t devices, double budget_bytes, double time_to_beat,
                    BalanceTools& tools, Placement& placement, PricedCandidate& priced) {
  const nds_strategy s = placement.strategy;
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp);
  auto stage = [&](uint32_t rank, uint32_t chunk) {
    return Placement::virtual_stage(s, rank, chunk);
  };
  // The split being improved, per virtual stage.
  std::vector<uint32_t>& best = tools.best_split;
  best.assign(static_cast<size_t>(p) * v, 0);
  for (uint32_t r = 0; r < p; ++r)
    for (uint32_t c = 0; c < v; ++c)
      best[stage(r, c)] = placement.chunk_layers[static_cast<size_t>(r) * v + c];
  // tools.chunk_times: the chunk seconds of the split priced last (the default's, first).
  auto seconds = [&](uint32_t r) {
    double total = 0;
    for (uint32_t c = 0; c < v; ++c) {
      const ChunkTimes& t = tools.chunk_times[static_cast<size_t>(r) * v + c];
      total += t.forward + t.backward;
    }
    return total;
  };
  // No split does better than every rank at the average pace: the layers
  // only move, so the ranks' seconds keep their sum, and a step takes at
  // least mbn of the slowest rank's. A candidate that cannot beat the time to
  // beat even so is left as it is.
  double sum = 0;
  for (uint32_t r = 0; r < p; ++r) sum += seconds(r);
  const double floor_s = priced.time.step_s - priced.time.pipeline_s + s.mbn * sum / p;
  if (floor_s >= time_to_beat) {
    best.clear();
    return;
  }
  bool moved = false;
  for (size_t move = 0; move < static_cast<size_t>(p) * p * v; ++move) {
    // The rank with the most seconds per micro-batch that can give a layer
    // (from its fullest chunk), and the one with the fewest (to its emptiest
    // chunk); ties to the first.
    uint32_t slow = p, fast = 0;
    auto fullest = [&](uint32_t r) {
      uint32_t chunk = 0;
      for (uint32_t c = 1; c < v; ++c)
        if (best[stage(r, c)] > best[stage(r, chunk)]) chunk = c;
      return chunk;
    };
    for (uint32_t r = 0; r < p; ++r) {
      if (best[stage(r, fullest(r))] > 1 && (slow == p || seconds(r) > seconds(slow))) slow = r;
      if (seconds(r) < seconds(fast)) fast = r;
    }
    if (slow == p || slow == fast) break;
    uint32_t emptiest = 0;
    for (uint32_t c = 1; c < v; ++c)
      if (best[stage(fast, c)] < best[stage(fast, emptiest)]) emptiest = c;
    std::vector<uint32_t>& trial = placement.forced_split;
    trial = best;
    --trial[stage(slow, fullest(slow))];
    ++trial[stage(fast, emptiest)];
    place_layers_into(s, model, false, placement);
    price_memory(tools.memory, tools.cp, model, placement.candidate(), tools.ranks, tools.pricing);
    if (!tools.pricing.pass_refusal.empty() || !tools.pricing.cp.refusal.empty() ||
        !tools.pricing.cp_bytes_are_a_count())
      break;
    const HighestRank highest = highest_rank(tools.ranks, tools.pricing.cp.bytes);
    if (highest.bytes > budget_bytes) break;
    const TimeEstimate t = tools.time.estimate(placement.candidate(), devices, nullptr,
                                               &tools.layers, &tools.chunk_times);
    if (!(t.step_s < priced.time.step_s)) break;
    best = trial;
    priced.time = t;
    priced.peak_bytes = highest.bytes;
    priced.peak_terms = highest.terms;
    moved = true;
  }
  if (moved) priced.stage_layers = best;
  placement.forced_split.clear();
}

}  // namespace ndsearch

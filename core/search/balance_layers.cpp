// SPDX-License-Identifier: Apache-2.0
#include "core/search/balance_layers.hpp"

namespace ndsearch {

bool balances(const nds_strategy& s) {
  return s.pp > 1 && s.vpp == 1 &&
         (s.schedule == NDS_SCHEDULE_1F1B || s.schedule == NDS_SCHEDULE_GPIPE);
}

void balance_layers(const Model& model, uint64_t devices, double budget_bytes, BalanceTools& tools,
                    Placement& placement, PricedCandidate& priced) {
  const nds_strategy s = placement.strategy;
  const auto p = static_cast<size_t>(s.pp);
  std::vector<uint32_t>& best = tools.best_split;
  best.assign(placement.chunk_layers.begin(), placement.chunk_layers.end());
  // The chunk seconds of the split priced last (the default's, first).
  tools.time.estimate(placement.candidate(), devices, nullptr, &tools.layers, &tools.chunk_times);
  bool moved = false;
  for (size_t move = 0; move < p * p; ++move) {
    // The rank with the most seconds per micro-batch that can give a layer,
    // and the one with the fewest; ties to the first.
    size_t slow = p, fast = 0;
    auto seconds = [&](size_t r) {
      return tools.chunk_times[r].forward + tools.chunk_times[r].backward;
    };
    for (size_t r = 0; r < p; ++r) {
      if (best[r] > 1 && (slow == p || seconds(r) > seconds(slow))) slow = r;
      if (seconds(r) < seconds(fast)) fast = r;
    }
    if (slow == p || slow == fast) break;
    std::vector<uint32_t>& trial = placement.forced_split;
    trial = best;
    --trial[slow];
    ++trial[fast];
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

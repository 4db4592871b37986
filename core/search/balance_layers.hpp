// SPDX-License-Identifier: Apache-2.0
// balance_layers.hpp: the search's --balance-layers. A fitting candidate's
// decoder layers are moved, one at a time, from the fullest chunk of its
// slowest pipeline rank to the emptiest chunk of its fastest (the embedding,
// the output head, the loss and the MTP modules stay where they are and weigh
// on their ranks' times), each split priced again in full (memory passes and
// time model), for as long as the step gets shorter and every rank fits the
// budget. A local search: it stops at the first move that does not pay, at
// most pp·pp·vpp moves. DualPipe keeps its default split (its stages sit on
// two ranks each).
#pragma once

#include <cstdint>
#include <vector>

#include "core/compile/cp_model.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/price_memory.hpp"
#include "core/price/time/pipeline_schedule.hpp"
#include "core/price/time/time_model.hpp"
#include "core/search/search.hpp"
#include "core/strategy/placement.hpp"

namespace ndsearch {

// What the balancing prices with: one thread's evaluators and scratch.
struct BalanceTools {
  MemoryEvaluator& memory;
  const CpModel* cp;
  const TimeModel& time;
  TimeModel::LayerReuse& layers;
  std::vector<RankMemory>& ranks;
  MemoryPricing& pricing;
  std::vector<ChunkTimes>& chunk_times;
  std::vector<uint32_t>& best_split;
};

// Whether `s` is one balance_layers moves layers for: a pipeline (pp > 1)
// under any schedule but DualPipe.
bool balances(const nds_strategy& s);

// `placement` holds `priced`'s candidate (its default split), `priced` its
// price and `tools.chunk_times` its chunks' seconds (the estimate's); a candidate that could not
// get under `time_to_beat` with its ranks perfectly even is left as it is. On a shorter step within
// `budget_bytes`, `priced` takes the new time, peak and stage_layers (per virtual stage: chunk·pp +
// rank, zb-v's and DualPipe-V's V order); `placement` is left with its forced split cleared. Throws
// as the pricing does.
void balance_layers(const Model& model, uint64_t devices, double budget_bytes, double time_to_beat,
                    BalanceTools& tools, Placement& placement, PricedCandidate& priced);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// balance_layers.hpp: the search's --balance-layers. A fitting 1F1B or GPipe
// candidate's decoder layers are moved, one at a time, from its slowest
// pipeline rank to its fastest (the embedding, the output head, the loss and
// the MTP modules stay on their stages and weigh on their ranks' times),
// each split priced again in full (memory passes and time model), for as
// long as the step gets shorter and every rank fits the budget. A local
// search: it stops at the first move that does not pay, at most pp·pp moves.
#pragma once

#include <cstdint>
#include <vector>

#include "core/evaluate/price_memory.hpp"
#include "core/memory/memory_evaluator.hpp"
#include "core/search/search.hpp"
#include "core/strategy/placement.hpp"
#include "core/time/cp_model.hpp"
#include "core/time/pipeline_schedule.hpp"
#include "core/time/time_model.hpp"

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

// Whether `s` is one balance_layers moves layers for: a pipeline (pp > 1) of
// one chunk per rank under 1F1B or GPipe.
bool balances(const nds_strategy& s);

// `placement` holds `priced`'s candidate (its default split), `priced` its
// price. On a shorter step within `budget_bytes`, `priced` takes the new
// time, peak and stage_layers; `placement` is left with its forced split
// cleared. Throws as the pricing does.
void balance_layers(const Model& model, uint64_t devices, double budget_bytes, BalanceTools& tools,
                    Placement& placement, PricedCandidate& priced);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// price_memory.hpp: the memory of one placed candidate, one implementation
// for the search's hot loop and for evaluate_strategy: each pipeline rank's
// bytes by term from the memory passes, then the CP algorithm's working set.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <array>
#include <string>
#include <vector>

#include "core/compile/cp_model.hpp"
#include "core/model/model.hpp"
#include "core/price/memory/memory_evaluator.hpp"

namespace ndsearch {

struct MemoryPricing {
  std::string pass_refusal;  // "<pass>: <reason>"; empty when every pass accepted the candidate
  CpBuffers cp;              // with cp > 1 and no pass refusal; else no bytes and no refusal
  // Whether the CP algorithm's working set is a byte count (finite, >= 0):
  // one that is not must neither fit nor be printed.
  bool cp_bytes_are_a_count() const;
};

// Fills `ranks` (one per pipeline rank, the passes' bytes; the CP working
// set is in `out.cp.bytes`, to be added to each rank's comm buffers: one
// layer's at a time, on every rank) and `out`. `cp`: the candidate's CP
// algorithm when its cp > 1; null leaves the working set out (for a caller
// that loads the algorithm only once the passes accepted the candidate).
// No allocation once `ranks` has room and nothing refuses.
void price_memory(MemoryEvaluator& memory, const CpModel* cp, const Model& model,
                  const nds_candidate& candidate, std::vector<RankMemory>& ranks,
                  MemoryPricing& out);

// The rank with the largest peak once each holds the CP working set
// `cp_bytes`: its bytes (0 for no rank) and its terms, the working set in its
// comm buffers.
struct HighestRank {
  double bytes = 0;
  std::array<double, NDS_MEMORY_TERM_COUNT_V1> terms{};
};
HighestRank highest_rank(const std::vector<RankMemory>& ranks, double cp_bytes);

// The CP algorithm's working set for the candidate: every block of the model asked in turn.
CpBuffers cp_working_set(const CpModel& cp, const Model& model, const nds_candidate& candidate);

}  // namespace ndsearch

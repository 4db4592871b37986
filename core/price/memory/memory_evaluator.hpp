// SPDX-License-Identifier: Apache-2.0
// memory_evaluator.hpp: the compiled memory passes (compile/memory_passes)
// evaluated on candidates: per pipeline rank, bytes per named term, summed
// over the passes (DESIGN §4 step 5).
#pragma once

#include <ndsearch/nds_memory.h>

#include <array>
#include <string>
#include <vector>

#include "core/compile/memory_passes.hpp"

namespace ndsearch {

struct RankMemory {
  std::array<double, NDS_MEMORY_TERM_COUNT_V1> bytes{};  // by nds_memory_term
  double peak() const;
};

class MemoryEvaluator {
 public:
  // `passes` must outlive the evaluator. `max_pp`: the largest pp it will
  // see (sizes its buffers once).
  MemoryEvaluator(const MemoryPasses& passes, uint32_t max_pp);

  // Fills `ranks` (resized to pp) for one candidate. No allocation once
  // `ranks` has room. Returns an empty string, or the refusal "<pass>: <reason>".
  std::string evaluate(const nds_candidate& candidate, std::vector<RankMemory>& ranks);

  // The passes, in the order they run ("weights-and-optimizer", ...).
  std::vector<std::string> pass_ids() const { return passes_.ids(); }

 private:
  const MemoryPasses& passes_;
  std::vector<double> prior_, bytes_;  // pp × terms, reused
};

}  // namespace ndsearch

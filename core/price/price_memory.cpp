// SPDX-License-Identifier: Apache-2.0
#include "core/price/price_memory.hpp"

#include <cmath>

namespace ndsearch {

bool MemoryPricing::cp_bytes_are_a_count() const {
  return cp.bytes >= 0 && std::isfinite(cp.bytes);
}

void price_memory(MemoryEvaluator& memory, const CpModel* cp, const Model& model,
                  const nds_candidate& candidate, std::vector<RankMemory>& ranks,
                  MemoryPricing& out) {
  out.cp.refusal.clear();
  out.cp.bytes = 0;
  out.pass_refusal = memory.evaluate(candidate, ranks);
  if (!out.pass_refusal.empty() || cp == nullptr || candidate.strategy->cp <= 1) return;
  out.cp = cp_working_set(*cp, model, candidate);
}

HighestRank highest_rank(const std::vector<RankMemory>& ranks, double cp_bytes) {
  HighestRank highest;
  for (const RankMemory& r : ranks) {
    const double bytes = r.peak() + cp_bytes;
    if (bytes <= highest.bytes) continue;
    highest.bytes = bytes;
    highest.terms = r.bytes;
    highest.terms[NDS_MEMORY_COMM_BUFFERS] += cp_bytes;
  }
  return highest;
}

CpBuffers cp_working_set(const CpModel& cp, const Model& model, const nds_candidate& candidate) {
  return cp.buffers(candidate, static_cast<uint32_t>(model.main.blocks.size()));
}

}  // namespace ndsearch

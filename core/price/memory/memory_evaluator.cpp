// SPDX-License-Identifier: Apache-2.0
#include "core/price/memory/memory_evaluator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ndsearch {

double RankMemory::peak() const {
  double total = 0;
  for (double b : bytes) total += b;
  return total;
}

MemoryEvaluator::MemoryEvaluator(const MemoryPasses& passes, uint32_t max_pp)
    : passes_(passes),
      prior_(static_cast<size_t>(max_pp) * NDS_MEMORY_TERM_COUNT_V1, 0.0),
      bytes_(prior_.size(), 0.0) {}

std::string MemoryEvaluator::evaluate(const nds_candidate& candidate,
                                      std::vector<RankMemory>& ranks) {
  const auto pp = static_cast<size_t>(candidate.strategy->pp);
  constexpr size_t terms = NDS_MEMORY_TERM_COUNT_V1;
  if (prior_.size() < pp * terms) {
    prior_.resize(pp * terms);
    bytes_.resize(pp * terms);
  }
  ranks.resize(pp);
  std::fill(prior_.begin(), prior_.begin() + static_cast<ptrdiff_t>(pp * terms), 0.0);
  const std::vector<MemoryPasses::Pass>& passes = passes_.passes();
  int32_t phase = passes.front().table->phase;
  for (const MemoryPasses::Pass& pass : passes) {
    if (pass.table->phase != phase) {  // a new phase sees the sums so far
      phase = pass.table->phase;
      for (size_t r = 0; r < pp; ++r)
        for (size_t t = 0; t < terms; ++t) prior_[r * terms + t] = ranks[r].bytes[t];
    }
    if (pass.table == passes.front().table)
      for (RankMemory& r : ranks) r.bytes.fill(0.0);
    std::fill(bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(pp * terms), 0.0);
    nds_memory_item item{sizeof(nds_memory_item),
                         &candidate,
                         static_cast<uint32_t>(terms),
                         prior_.data(),
                         bytes_.data(),
                         NDS_OK,
                         nullptr};
    pass.table->evaluate(pass.compiled, &item, 1, sizeof(item));
    if (item.code != NDS_OK)
      return fmt::format("{}: {}", pass.plugin->id,
                         item.reason != nullptr ? item.reason : "refused the candidate");
    for (size_t r = 0; r < pp; ++r)
      for (size_t t = 0; t < terms; ++t) ranks[r].bytes[t] += bytes_[r * terms + t];
  }
  // A byte count that is not a finite number >= 0 (a pass's overflow, a NaN)
  // must refuse the candidate: compared with the budget it would "fit".
  for (size_t r = 0; r < pp; ++r)
    for (size_t t = 0; t < terms; ++t)
      if (!(ranks[r].bytes[t] >= 0) || !std::isfinite(ranks[r].bytes[t]))
        return fmt::format(
            "the memory passes gave {} bytes for term {} of rank {}; a byte count must be a finite "
            "number >= 0 (is a model size beyond what the passes can price?)",
            ranks[r].bytes[t], t, r);
  return {};
}

}  // namespace ndsearch

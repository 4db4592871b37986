// SPDX-License-Identifier: Apache-2.0
// memory_evaluator.hpp: every loaded memory pass, compiled once for a (model,
// device) and evaluated on candidates: per pipeline rank, bytes per named
// term, summed over the passes (DESIGN §4 step 5).
#pragma once

#include <ndsearch/nds_memory.h>

#include <array>
#include <string>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

struct RankMemory {
  std::array<double, NDS_MEMORY_TERM_COUNT_V1> bytes{};  // by nds_memory_term
  double peak() const;
};

class MemoryEvaluator {
 public:
  // Compiles every memory pass of `registry` (by phase, then id). Throws
  // UserError E-MEMORY-NO-PASS (none loaded) or E-MEMORY-COMPILE (a pass
  // refused the model, with its message).
  MemoryEvaluator(const PluginRegistry& registry, Model& model, const Device& device,
                  uint32_t max_pp);
  MemoryEvaluator(const MemoryEvaluator&) = delete;
  MemoryEvaluator& operator=(const MemoryEvaluator&) = delete;
  ~MemoryEvaluator();

  // Fills `ranks` (resized to pp) for one candidate. No allocation once
  // `ranks` has room. Returns an empty string, or the refusal "<pass>: <reason>".
  std::string evaluate(const nds_candidate& candidate, std::vector<RankMemory>& ranks);

  // The passes, in the order they run ("weights-and-optimizer", ...).
  std::vector<std::string> pass_ids() const;

 private:
  struct Pass {
    const LoadedPlugin* plugin;
    const nds_memory_v1* table;
    nds_memory_compiled* compiled;
  };
  std::vector<Pass> passes_;
  std::vector<double> prior_, bytes_;  // pp × terms, reused
};

}  // namespace ndsearch

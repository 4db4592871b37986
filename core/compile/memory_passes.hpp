// SPDX-License-Identifier: Apache-2.0
// memory_passes.hpp: every loaded memory pass compiled for a (model, device)
// (DESIGN §4 step 5), in the order they run: by phase, then id. A
// MemoryEvaluator (price/memory) runs them on candidates.
#pragma once

#include <ndsearch/nds_memory.h>

#include <string>
#include <vector>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

class MemoryPasses {
 public:
  struct Pass {
    const LoadedPlugin* plugin;
    const nds_memory_v1* table;
    nds_memory_compiled* compiled;
  };

  // Throws UserError E-MEMORY-NO-PASS (none loaded) or E-MEMORY-COMPILE (a
  // pass refused the model, with its message).
  MemoryPasses(const PluginRegistry& registry, Model& model, const Device& device);
  MemoryPasses(const MemoryPasses&) = delete;
  MemoryPasses& operator=(const MemoryPasses&) = delete;
  ~MemoryPasses();

  // At least one.
  const std::vector<Pass>& passes() const { return passes_; }
  // The passes' ids, in the order they run ("weights-and-optimizer", ...).
  std::vector<std::string> ids() const;

 private:
  void release();  // what the passes compiled
  std::vector<Pass> passes_;
};

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// cp_model.hpp: the chosen context-parallel attention cost model (a
// "nds.cp_attention/1" plugin), compiled once for a (model, device) and asked
// per (candidate, block) for its collectives, extra memory and refusals.
#pragma once

#include <ndsearch/nds_cp_attention.h>

#include <array>
#include <string>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

struct CpCost {
  std::string refusal;  // empty when the algorithm accepts the candidate
  std::array<nds_cp_comm, 4> comms{};
  uint32_t comm_count = 0;
  double extra_activation_bytes = 0;
};

// What a candidate's CP attention holds beside the activations: the largest
// block's buffers (one layer's at a time, docs/cp.md), or the first refusal.
struct CpBuffers {
  std::string refusal;  // empty when every block is accepted
  double bytes = 0;
};

class CpModel {
 public:
  // --cp-algo (`requested`), else the config's stated algorithm, else "ring".
  static std::string choose_algorithm(const std::string& requested, const Model& model);

  // `algorithm`: as choose_algorithm picks it. Throws UserError E-CP-ALGO (no
  // loaded plugin offers it, listing those that are) or E-CP-COMPILE.
  CpModel(const PluginRegistry& registry, Model& model, const Device& device,
          std::string algorithm);
  CpModel(const CpModel&) = delete;
  CpModel& operator=(const CpModel&) = delete;
  ~CpModel();

  const std::string& algorithm() const { return algorithm_; }
  // The output's assumption line: the algorithm and who chose it, and what
  // the config states of Ulysses (its degree, K and V repeated: ABI 1.16).
  std::string assumption(const Model& model) const;
  CpCost evaluate(const nds_candidate& candidate, uint32_t block_index) const;
  // Every block of the model's `block_count` asked in turn; stops at a refusal.
  CpBuffers buffers(const nds_candidate& candidate, uint32_t block_count) const;

 private:
  std::string algorithm_;
  const nds_cp_attention_v1* table_ = nullptr;
  const LoadedPlugin* plugin_ = nullptr;  // table_'s, for its module's call locks
  nds_cp_compiled* compiled_ = nullptr;
};

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// params.hpp: parameter counts of a model, by layer kind, from its shapes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// One layer's parameters, by part (counts, not bytes).
struct LayerParameters {
  double attention = 0;       // projections (+ MLA's compression norms, QK norms, biases)
  double norms = 0;           // the layer's two norms
  double dense_mlp = 0;       // a dense FFN
  double router = 0;          // MoE gate
  double routed_experts = 0;  // all routed experts
  double routed_active = 0;   // experts_per_token of them
  double shared_experts = 0;

  double total() const { return attention + norms + dense_mlp + router + routed_experts + shared_experts; }
  double active() const { return attention + norms + dense_mlp + router + routed_active + shared_experts; }
};

// Needs the block finalized (finalize.hpp).
LayerParameters layer_parameters(const nds_layer_block& block);

struct ParameterCounts {
  double total = 0;   // embedding, output head (once if tied), final norm, every decoder layer
  double active = 0;  // the same with experts_per_token routed experts per MoE layer
  double mtp = 0;     // the MTP layers, each a decoder layer plus its two norms and its
                      // 2h x h projection (the embedding and head they share are not counted again)
  std::vector<double> submodels;  // each tower's layers and norms (patch embedding and
                                  // merger are not in the vocabulary and are left out)
};

// nullopt, with `why` set, when a value the count needs is unknown.
std::optional<ParameterCounts> count_parameters(const Model& model, std::string* why = nullptr);

}  // namespace ndsearch

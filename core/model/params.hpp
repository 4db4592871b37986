// SPDX-License-Identifier: Apache-2.0
// params.hpp: parameter counts of a model, by layer kind, from its shapes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ndsearch/sdk/model_math.hpp>

#include "core/model/model.hpp"

namespace ndsearch {

using sdk::LayerParameters;
using sdk::layer_parameters;

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

// SPDX-License-Identifier: Apache-2.0
// params.hpp: parameter counts of a model, by layer kind, from its shapes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ndsearch/sdk/model_math.hpp>
#include <ndsearch/sdk/tower_math.hpp>

#include "core/model/model.hpp"

namespace ndsearch {

using sdk::layer_parameters;
using sdk::LayerParameters;

struct ParameterCounts {
  double total = 0;   // of the language model: embedding, output head (once if tied), final norm,
                      // every decoder layer
  double active = 0;  // the same with experts_per_token routed experts per MoE layer
  double mtp = 0;     // the MTP layers, each a decoder layer plus its two norms and its
                      // 2h x h projection (the embedding and head they share are not counted again)
  std::vector<sdk::TowerParameters> submodels;  // each tower's, by part

  // The language model's and every tower's: a vision-language model's whole count.
  double with_towers(double text) const {
    for (const sdk::TowerParameters& t : submodels) text += t.total();
    return text;
  }
};

// nullopt, with `why` set, when a value the count needs is unknown.
std::optional<ParameterCounts> count_parameters(const Model& model, std::string* why = nullptr);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// pricing_values.hpp: the values pricing a strategy needs and a config may
// leave unknown (a Hugging Face config.json states no training settings),
// checked together before any pricing starts, so that one error lists them all.
#pragma once

#include <string>

#include "core/model/model.hpp"

namespace ndsearch {

// What the run lacks beside the model's own sequence length and vocabulary.
struct PricingNeeds {
  bool devices_missing = false;       // no device count given or stated
  bool global_batch_missing = false;  // a search, or a strategy whose micro-batch count
                                      // follows the global batch, without one
  std::string why;                    // why the run needs them, for the message; may be empty
};

// Throws UserError E-MISSING-VALUES naming, in one message, every value the
// run lacks with the setting that gives each: the device count and the
// global batch where `needs` says they are missing, the sequence length and the vocabulary size
// whenever the model leaves them unknown.
void require_pricing_values(const Model& model, const PricingNeeds& needs);

}  // namespace ndsearch

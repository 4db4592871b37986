// SPDX-License-Identifier: Apache-2.0
// trainer_limits.hpp: what the config's trainer can run (its parser's stated
// capabilities, DESIGN §6b), said in words for the output, and lifted by
// --any-trainer; and which recompute a search prices by default.
#pragma once

#include <string>

#include "core/model/model.hpp"

namespace ndsearch {

// Every capability a strategy can need: the checks then refuse nothing for
// the trainer's sake.
void lift_trainer_limits(Model& model);

// "trainer limits: mindformers-yaml's (no ZeRO-1, no SP with CP, tp a power
// of two); --any-trainer lifts them", or what applies when the parser states
// no limit (a config that names no trainer) or the limits were lifted.
std::string trainer_limits_text(const Model& model);

// Which recompute the candidates are priced with where RECOMPUTE is not
// searched, and where it came from: "the config's per-stage counts [8,6,...]
// of full recompute, rescaled to each pp", "none (the config states none)".
// `chooser`: the recompute strategy that chooses each layer's recompute
// ("per-layer", "offload"; empty: none), which then is what is in force.
std::string recompute_default_text(const Model& model, bool recompute_searched,
                                   const std::string& chooser = {});

}  // namespace ndsearch

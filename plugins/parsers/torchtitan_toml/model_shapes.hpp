// SPDX-License-Identifier: Apache-2.0
// model_shapes.hpp: a TorchTitan flavor (flavors.hpp) to builder calls: the
// model's name, vocabulary and embeddings, and its layer blocks in model
// order (DeepSeek's first dense layers then MoE layers; Llama 4's dense/MoE
// alternation as one block per run of layers).
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include "plugins/parsers/torchtitan_toml/flavors.hpp"
#include "plugins/parsers/torchtitan_toml/job_file.hpp"

namespace ndsearch::plugins::torchtitan {

// Each value's provenance is the file's model.flavor line, naming the table
// entry and the TorchTitan file it comes from.
void build_model(const JobFile& job, const Flavor& flavor, sdk::Builder& b);

}  // namespace ndsearch::plugins::torchtitan

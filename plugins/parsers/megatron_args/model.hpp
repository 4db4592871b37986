// SPDX-License-Identifier: Apache-2.0
// model.hpp: Megatron-LM / MindSpeed-LLM arguments to builder calls: the
// layer blocks (dense, MoE, MLA, MTP), vocabulary and embeddings, precision,
// optimizer and the stated strategy, with Megatron-LM's documented defaults
// (provenance default:megatron) for what the arguments leave out.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include "plugins/parsers/megatron_args/arguments.hpp"

namespace ndsearch::plugins::megatron {

// `launcher`: the launch command's own flags (--nproc_per_node, --nnodes),
// which give the world size; empty when the script launches nothing.
void build_model(const Arguments& args, const Arguments& launcher, sdk::Builder& builder);

// "[0]*3+[1]*58" or "[1,0,1,0]": Megatron's --moe-layer-freq list expression
// (a Python list sum); nullopt when it is not one.
std::optional<std::vector<int64_t>> layer_pattern(const std::string& expression);

}  // namespace ndsearch::plugins::megatron

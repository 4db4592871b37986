// SPDX-License-Identifier: Apache-2.0
// job_settings.hpp: the training side of a TorchTitan job TOML ([training],
// [parallelism], [activation_checkpoint], [optimizer], model.converters) to
// builder calls: sequence length, batch sizes, dtypes, optimizer, the stated
// strategy and TorchTitan's documented defaults (default:torchtitan).
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <cstdint>

#include "plugins/parsers/torchtitan_toml/job_file.hpp"

namespace ndsearch::plugins::torchtitan {

// `layers`: the model's decoder layers (0 when no flavor is known), for what
// depends on them (virtual stages from pipeline_parallel_layers_per_stage,
// layers recomputed by selective_ac_option = "<n>").
void build_training(const JobFile& job, int64_t layers, sdk::Builder& b);

}  // namespace ndsearch::plugins::torchtitan

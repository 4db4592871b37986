// SPDX-License-Identifier: Apache-2.0
// parse_config.hpp: from a config file to a checked Model: choose the parser
// (-f, else the best probe), run it through the builder, apply the training
// settings given on the command line, finalize.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

// Training settings from the command line; they override the config's and
// the provenance says so (DESIGN §8.5).
struct TrainingOverrides {
  std::optional<int64_t> seq_len;           // --seq-len
  std::optional<int64_t> global_batch;      // -b / --global-batch
  std::optional<int64_t> micro_batch_size;  // --mbs
  std::optional<int64_t> vocab_size;        // --vocab-size
  std::optional<int64_t> image_tokens;      // --image-tokens: per sequence, after the tower's merge
  std::optional<int64_t> images_per_sample;  // --images-per-sample
  // --dtype: params, compute and activation dtype; fp8 is fp8 GEMMs with the
  // delayed recipe around bf16 parameters and activations.
  std::optional<std::string> dtype;
  std::optional<std::string> fp8_recipe;  // --fp8-recipe: fp8 GEMMs with this recipe
  // --overlap: "none", "all" or a comma list of tp,dp,param,ep,pp,cp (each
  // on, the rest off), replacing the config's overlap switches.
  std::optional<std::string> overlap;
  // --recompute-modules: a comma list of recompute_op_names() (by our name or
  // Megatron-Core's), replacing the ops the config's selective recompute rebuilds.
  std::optional<std::string> recompute_modules;
  // --routing: balanced, zipf:S or a file of tokens per routed expert (routing.hpp).
  std::optional<std::string> routing;
};

struct ParseOptions {
  std::string framework;     // -f: a parser id or alias; empty: the best probe
  bool strict = false;       // --strict: unknown fields are errors
  bool any_trainer = false;  // --any-trainer: rank what the config's trainer cannot run too
  TrainingOverrides overrides;
  // A config whose parser states the model's shape (a Hugging Face
  // config.json), for a training config that states none or the same
  // (model_shape.hpp); empty: the config's own shape.
  std::filesystem::path model_config;
};

// A fast-tuner setup JSON (fast_tuner_setup.hpp) is followed to the training
// config it names, and what it states (devices, global batch, EP bound,
// dimensions) is kept in Model::setup; its global batch applies unless
// `options` gives one.
// Throws UserError: E-USAGE (a bad --dtype, --fp8-recipe, --overlap or --recompute-modules),
// E-PARSE-FILE (no such file), E-PARSE-FRAMEWORK (unknown -f), E-PARSE-FORMAT (no parser recognises
// the file), the builder's or the parser's error (E-PARSE-FIELD, E-PARSE-VALUE,
// E-PARSE-UNKNOWN-FIELD, ...), E-PARSE-NO-MODEL, E-MODEL-SHAPE; read_fast_tuner_setup's
// (E-SETUP-*); take_shape's (E-MODEL-CONFIG).
Model parse_config(const PluginRegistry& registry, const std::filesystem::path& config,
                   const ParseOptions& options);

}  // namespace ndsearch

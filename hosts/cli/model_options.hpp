// SPDX-License-Identifier: Apache-2.0
// model_options.hpp: the flags every verb that reads a config shares: the
// config, -f, --strict and the training settings that override it.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "core/model/parse_config.hpp"

namespace ndsearch::cli {

struct ModelFlags {
  std::string config;
  ParseOptions parse;
};

// Adds CONFIG, -f, --strict, --seq-len, -b/--global-batch, --mbs, --dtype,
// --fp8-recipe, --overlap and --vocab-size to `verb`. The core checks the
// values of --dtype, --fp8-recipe and --overlap (E-USAGE names the valid ones).
void add_model_flags(CLI::App& verb, ModelFlags& flags);

}  // namespace ndsearch::cli

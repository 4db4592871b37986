// SPDX-License-Identifier: Apache-2.0
// write_config.hpp: a strategy written back into the user's config by the
// parser that read it (nds_parser_v1.apply), checked by reading the result
// again: the written config must state exactly the strategy. A format with no
// trainer (a Hugging Face config.json) gets the strategy as the flags and
// tables of the trainers whose parsers write them, instead.
#pragma once

#include <ndsearch/nds_model.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/input/parse_config.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/evaluate_strategy.hpp"

namespace ndsearch {

// One line of a line diff: ' ' kept, '-' removed, '+' added.
struct DiffLine {
  char kind = ' ';
  int64_t line = 0;  // in the input ('-', ' ') or the output ('+')
  std::string text;
};

// The strategy as another trainer writes it (flags, a table).
struct ConfigFragment {
  std::string parser;  // the id of the parser that wrote it
  std::string format;  // its format in words
  std::string text;
  std::string refused;  // non-empty: why that trainer cannot run the strategy (no text then)
};

struct ConfigWrite {
  std::string parser;             // the id of the config's parser
  std::string text;               // the config with the strategy in it; empty with fragments
  std::vector<DiffLine> changes;  // the lines removed and added ('-', '+'), in order
  std::vector<ConfigFragment> fragments;  // for a format with no trainer
  nds_strategy strategy{};                // as written (resolved and normalised)
};

// What the strategy sets: a resolved candidate with, optionally, its layers
// per virtual stage (empty: the even split) and each decoder layer's
// recompute option as priced (priced_layers.hpp; empty: every layer runs the
// strategy's mode).
struct StrategyToWrite {
  nds_strategy strategy{};
  std::vector<int64_t> stage_layers;
  std::vector<int32_t> layer_options;
  std::string plan;  // the per-layer plan in words ("auto:12F/3S"), for messages
};

// The job the written config must price as: the ranked candidate's
// evaluation, and how to price the written config the same way (its device
// count, budget, calibration and pricing settings; the strategy and the
// recompute are the written config's own).
struct PriceCheck {
  const Machine* machine = nullptr;
  EvaluationRequest request;
  const StrategyEvaluation* ranked = nullptr;
};

// The strategy `apply` writes: `text`'s keys ("tp=4,pp=2"), the config's
// for the rest, on `devices` (0: the config's own dp·tp·pp·cp), normalised
// (etp = tp on a dense model, sp = 0 at tp = 1). Throws as parse_strategy,
// and E-APPLY-SETUP for a model read through a fast-tuner setup (the
// strategy goes into the config it names).
nds_strategy strategy_to_apply(const Model& model, const std::string& text, uint64_t devices);

// The keys where `written` differs from the config's own strategy on the
// same devices: "tp 8 -> 4".
std::vector<std::string> changes_from_config(const Model& model, const nds_strategy& written);

// Writes `s` into `config` (read as `model`, with `parse`'s options) and
// checks the result by parsing it again: the written config must state the
// strategy and, with `price`, price as the ranked candidate did (the same
// step time and peak memory, within rounding). Throws UserError: E-APPLY
// (the trainer cannot express the strategy or its per-layer plan, the parser
// cannot write its format, or the written config runs another device count),
// E-APPLY-ROUNDTRIP (the written config states another strategy: a parser
// bug), E-APPLY-PRICE (it prices differently: the format could not express
// part of the job, named), E-STRATEGY-REFUSED (the strategy breaks a check),
// E-APPLY-SETUP (as strategy_to_apply).
ConfigWrite write_config(const PluginRegistry& registry, const Model& model,
                         const std::filesystem::path& config, const ParseOptions& parse,
                         const StrategyToWrite& s, const PriceCheck* price = nullptr);

// The lines removed and added between two texts (a longest-common-subsequence
// diff; texts of over 20 000 lines each are compared as one change).
std::vector<DiffLine> line_diff(const std::string& before, const std::string& after);

}  // namespace ndsearch

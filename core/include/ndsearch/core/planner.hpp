// SPDX-License-Identifier: Apache-2.0
// planner.hpp: the public API of the ndsearch core. A Planner holds one run's
// plugins and devices; each call reads a config and answers with the JSON
// document the CLI prints for the same verb (docs/cli.md lists the keys), so
// every host (the CLI, the Python binding, a C++ program) gets the same
// answers. Bad input throws ndsearch::UserError with a stable id.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <ndsearch/core/user_error.hpp>

namespace ndsearch {

// Where plugins come from and the options they are given (docs/cli.md,
// "Finding plugins" and "Plugin isolation").
struct PluginSettings {
  std::vector<std::filesystem::path> plugin_files;  // loaded first; a failure is an error
  std::vector<std::filesystem::path> plugin_dirs;   // searched next; each must exist
  bool use_environment = true;  // NDS_PLUGIN_PATH and NDS_DEVICE_PATH
  // The shipped plugins: nullopt finds them beside the program or library.
  std::optional<std::filesystem::path> shipped_dir;
  std::optional<std::filesystem::path> device_file;  // a device in TOML (docs/device-toml.md)
  std::vector<std::string> allow_override;           // ids a plugin may take from a shipped one
  double plugin_timeout_s = 10;                       // vetting and each blocking call
  std::map<std::string, std::string> options;         // further plugin options by key
  // The plugin-vetting helper: nullopt finds it (NDS_PLUGIN_VET, beside the
  // program, the install folder).
  std::optional<std::filesystem::path> vet_helper;
};

// The config and the training settings that override it. The config may be
// a fast-tuner setup JSON naming the training config (docs/cli.md, "Fast-tuner
// setup files"): its device count, global batch, EP bound and dimensions
// apply where these settings leave them unset.
struct ModelSettings {
  std::filesystem::path config;
  std::string framework;  // a parser id or alias; empty: the parser that recognises the file
  bool strict = false;    // fields the parser does not understand are errors
  bool any_trainer = false;  // rank what the config's trainer cannot run too
  std::optional<int64_t> seq_len, global_batch, micro_batch_size, vocab_size;
  std::optional<std::string> dtype, fp8_recipe, overlap;
  // What selective recompute drops and runs again, a comma list of op names
  // (docs/cli.md, "Selective recompute's modules"), replacing the config's.
  std::optional<std::string> recompute_modules;
  // The routing the estimates assume (docs/cli.md, "MoE routing"):
  // "balanced" (the default), "zipf:S", or a file of tokens per routed expert.
  std::optional<std::string> routing;
  // A vision-language model's image tokens per sequence (after the tower
  // merges its patches; part of seq_len) and the images they come from.
  std::optional<int64_t> image_tokens, images_per_sample;
  // The model's shape from this config (a Hugging Face config.json) for a
  // training config that states none (docs/cli.md, "The model's shape from a
  // config.json"); empty: the config's own.
  std::filesystem::path model_config;
};

// Who chooses each layer's recompute (`search`, `eval`, `explain`; docs/cli.md,
// "Per-layer recompute and offload"): none of them set, the uniform modes.
struct RecomputeChoiceSettings {
  bool auto_recompute = false;     // the "per-layer" strategy
  bool offload = false;            // the "offload" strategy (implies auto_recompute)
  std::string recompute_strategy;  // a strategy plugin by name, instead
  std::optional<double> host_link_gibps, host_link_overlap;  // offload only
  std::optional<std::string> host_memory;                    // a size, "256GB"; offload only
};

// One strategy on one machine (`eval`).
struct EvaluateSettings {
  ModelSettings model;
  std::string device;     // an id of hardware()
  uint64_t devices = 0;   // 0: the strategy's dp·tp·pp·cp
  std::string strategy;   // "tp=4,pp=2,mbs=1"; unset keys from the config, then defaults
  std::optional<std::string> max_memory, reserve_mem;  // sizes, "58GB" = 58 GiB
  bool layers_from_config = false;
  std::string cp_algo;  // empty: the config's, else ring
  // A calibration file (docs/cli.md, "Calibration"); empty: none. One fitted
  // on another device is an error unless force_calibration.
  std::filesystem::path calibration;
  bool force_calibration = false;
  RecomputeChoiceSettings recompute;
  // --swap-optimizer and --cp-ulysses are plugin options: PluginSettings.options
  // {"swap-optimizer": "1"}, {"cp-ulysses": "4"}.
};

// Measured runs priced and compared (`compare`). `evaluate.strategy` is not
// used: each run states its own; a run's devices, global batch and sequence
// length replace `evaluate`'s for that run.
struct CompareSettings {
  EvaluateSettings evaluate;
  std::filesystem::path measured;  // the runs' CSV (docs/cli.md, "Measured runs")
  // Where to write a calibration fitted on the runs (docs/cli.md, "Fitting a
  // calibration"); empty: no fit. The document then has "fit".
  std::filesystem::path fit;
};
// A file none of whose runs could be priced answers with priced 0 (the CLI
// then exits 2, E-COMPARE-NONE-PRICED).

// The search space (`search`, and `explain` when it ranks a strategy).
struct SpaceSettings {
  std::string dimensions;         // "DP TP PP" or "dp,tp,pp"; empty: the default set
  std::vector<std::string> only;  // "tp=1,2,4" restrictions
  unsigned threads = 0;           // 0: every core
};

struct SearchSettings {
  ModelSettings model;
  std::string device;
  uint64_t devices = 0;  // 0: the count the config's strategy states
  SpaceSettings space;
  size_t top = 10;
  std::optional<std::string> max_memory, reserve_mem;
  std::string cp_algo;
  bool all_misses = false;  // every closest miss, not the five closest
  // Each fitting candidate's layers per stage and chunk chosen for a shorter
  // step within the budget (docs/pipelines.md); false: the default split.
  bool balance_layers = false;
  // As EvaluateSettings' calibration and force_calibration.
  std::filesystem::path calibration;
  bool force_calibration = false;
  RecomputeChoiceSettings recompute;
};
// A search where nothing fits answers with counts.fit 0 (the CLI then exits 3).

struct ExplainSettings {
  EvaluateSettings evaluate;
  // Ranks the strategy in this search when dimensions or only is set, or
  // when evaluate.strategy is empty: the config's own strategy, on its
  // devices (or evaluate.devices), in the default search.
  SpaceSettings space;
  size_t beaten_by = 3;
};

// `ndsearch apply`: a strategy written into the config by its parser.
struct ApplySettings {
  ModelSettings model;
  std::string strategy;  // "tp=4,pp=2"; unset keys keep the config's
  uint64_t devices = 0;  // 0: the config's own dp·tp·pp·cp
};

class Planner {
 public:
  // Loads the plugins and devices `settings` describe (the vetting of
  // search-path plugins included); throws UserError as the CLI's flags do.
  explicit Planner(const PluginSettings& settings = {});
  Planner(Planner&&) noexcept;
  Planner& operator=(Planner&&) noexcept;
  ~Planner();

  nlohmann::json plugins() const;                          // `plugins list --format json`
  nlohmann::json hardware() const;                         // `hardware --format json`
  nlohmann::json device(const std::string& id) const;      // `hardware ID --format json`
  nlohmann::json model(const ModelSettings& settings) const;  // `model --format json`
  nlohmann::json evaluate(const EvaluateSettings& settings) const;  // `eval --format json`
  nlohmann::json explain(const ExplainSettings& settings) const;    // `explain --format json`
  nlohmann::json compare(const CompareSettings& settings) const;    // `compare --format json`
  nlohmann::json search(const SearchSettings& settings) const;      // `search --format json`
  // `apply`: {config, parser, strategy, strategy_text, key_changes, text (the
  // config with the strategy in it, read back and checked), changes (the lines
  // removed and added), fragments (a format with no trainer: each trainer's
  // flags or table, or why it cannot run the strategy)}.
  nlohmann::json apply(const ApplySettings& settings) const;
  // The search document written as it is formatted (memory independent of
  // the rows); an error part-way ends it with an "error" member and throws.
  void write_search(const SearchSettings& settings, std::ostream& out) const;

 private:
  struct Loaded;
  std::unique_ptr<Loaded> loaded_;
};

}  // namespace ndsearch

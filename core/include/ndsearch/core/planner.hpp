// SPDX-License-Identifier: Apache-2.0
// planner.hpp: the public API of the ndsearch core. A Planner holds one run's
// plugins and devices; each call reads a config, writes the files its
// settings name and answers with a typed result (results.hpp): the JSON
// document and the text the CLI prints for the same verb (docs/cli.md lists
// the keys), so every host (the CLI, the Python binding, a C++ program) gets
// the same answers. The CLI is one such host: it reads flags into these
// settings and prints the results. Bad input throws ndsearch::UserError with
// a stable id.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <ndsearch/core/results.hpp>
#include <ndsearch/core/search_progress.hpp>
#include <ndsearch/core/user_error.hpp>

namespace ndsearch {

// Where plugins come from and the options they are given (docs/cli.md,
// "Finding plugins" and "Plugin isolation").
struct PluginSettings {
  std::vector<std::filesystem::path> plugin_files;  // loaded first; a failure is an error
  std::vector<std::filesystem::path> plugin_dirs;   // searched next; each must exist
  bool use_environment = true;                      // NDS_PLUGIN_PATH and NDS_DEVICE_PATH
  // The shipped plugins: nullopt finds them beside the program or library.
  std::optional<std::filesystem::path> shipped_dir;
  std::optional<std::filesystem::path> device_file;  // a device in TOML (docs/device-toml.md)
  std::vector<std::string> allow_override;           // ids a plugin may take from a shipped one
  double plugin_timeout_s = 10;                      // vetting and each blocking call
  std::map<std::string, std::string> options;        // further plugin options by key
  // The plugin-vetting helper: nullopt finds it (NDS_PLUGIN_VET, beside the
  // program, the install folder).
  std::optional<std::filesystem::path> vet_helper;
};

// `ndsearch-validate`: the time and memory models against the published runs
// of a validation folder (docs/validation.md).
struct ValidationSettings {
  std::filesystem::path folder;  // the validation CSVs (and memory/)
  bool fit = false;  // refit the trainer overheads and allocator shares, with leave-one-out errors
  bool search = false;  // run the search of each row
};

// "a:b::c" -> {a, b, c}: the directories of a colon-separated list, as
// NDS_PLUGIN_PATH and the CLI's --plugin-path give them.
std::vector<std::filesystem::path> split_path_list(std::string_view list);

// The config and the training settings that override it. The config may be
// a fast-tuner setup JSON naming the training config (docs/cli.md, "Fast-tuner
// setup files"): its device count, global batch, EP bound and dimensions
// apply where these settings leave them unset.
struct ModelSettings {
  std::filesystem::path config;
  std::string framework;     // a parser id or alias; empty: the parser that recognises the file
  bool strict = false;       // fields the parser does not understand are errors
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
  std::string device;    // an id of hardware()
  uint64_t devices = 0;  // 0: the strategy's dp·tp·pp·cp
  std::string strategy;  // "tp=4,pp=2,mbs=1"; unset keys from the config, then defaults
  // The strategy's recompute mode, as recompute= in `strategy` (one of the
  // two): off, selective or full.
  std::string recompute_mode;
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
  // A folder to write compare_runs.csv to (created); empty: none.
  std::filesystem::path output_dir;
};
// A file none of whose runs could be priced answers with priced 0 (the CLI
// then exits 2, E-COMPARE-NONE-PRICED).

// The search space (`search`, and `explain` when it ranks a strategy).
struct SpaceSettings {
  std::string dimensions;         // "DP TP PP" or "dp,tp,pp"; empty: the default set
  std::vector<std::string> only;  // "tp=1,2,4" restrictions
  // Shortcuts for an `only` restriction: recompute modes ("off", "selective",
  // "full", "auto" = all three) and pipeline schedules ("1f1b", ..., "all").
  std::vector<std::string> recompute_modes, schedules;
  unsigned threads = 0;  // 0: every core
};

// How the search's text lists the ranking (SearchReport::write_text).
struct SearchTableSettings {
  bool wide = false;                 // every strategy key and every part of the step
  std::vector<std::string> columns;  // these columns in this order; empty: chosen to fit
  bool pareto = false;               // the Pareto set too
  // The closest misses listed after a search where some strategy fits (they
  // are listed anyway when none does): 0 none, unless every_miss.
  size_t misses = 0;
  bool every_miss = false;
};

// The closest misses a search lists when nothing fits, each with the
// changes that would make it fit; a search keeps this many in its document
// unless more are asked for (table.misses, all_misses).
inline constexpr size_t kListedMisses = 5;

struct SearchSettings {
  ModelSettings model;
  std::string device;
  uint64_t devices = 0;  // 0: the count the config's strategy states
  SpaceSettings space;
  size_t top = 10;
  std::optional<std::string> max_memory, reserve_mem;
  std::string cp_algo;
  // Every closest miss in the document, not the kListedMisses closest (or
  // table.misses, when more); table.every_miss implies it.
  bool all_misses = false;
  // Each fitting candidate's layers per stage and chunk chosen for a shorter
  // step within the budget (docs/pipelines.md); false: the default split.
  bool balance_layers = false;
  // As EvaluateSettings' calibration and force_calibration.
  std::filesystem::path calibration;
  bool force_calibration = false;
  RecomputeChoiceSettings recompute;
  SearchTableSettings table;

  // Files, written before the call returns (each named in SearchReport::files):
  std::filesystem::path ranking_csv;  // every fitting strategy, in rank order
  // ranking.csv, dropped.csv and recompute_potentials.csv (and priced.csv
  // with priced_csv), created where missing.
  std::filesystem::path output_dir;
  bool priced_csv = false;  // every priced candidate, into output_dir
  bool report = false;      // output_dir/report.html: the page of the search
  // The ppb_rank-th strategy's layer description for the pipeline balancer
  // (<config stem>_nd_to_ppb_<K>.json in output_dir, else the current folder).
  size_t ppb_rank = 0;
  // The config with the emit_rank-th strategy written into it (apply's
  // writer), checked to price as the ranked job.
  std::filesystem::path emit_config;
  size_t emit_rank = 1;

  SearchProgress* progress = nullptr;  // updated while the search runs; may be null
};
// A search where nothing fits answers with fits() false (the CLI then exits 3).

struct ExplainSettings {
  EvaluateSettings evaluate;
  // Ranks the strategy in this search when dimensions or only is set, or
  // when evaluate.strategy is empty: the config's own strategy, on its
  // devices (or evaluate.devices), in the default search.
  SpaceSettings space;
  size_t beaten_by = 3;
  // Files to write: the step's pipeline schedule as Chrome Trace Event JSON,
  // and the strategy's HTML report. Empty: none.
  std::filesystem::path timeline, report;
};

// `ndsearch apply`: a strategy written into the config by its parser.
struct ApplySettings {
  ModelSettings model;
  std::string strategy;          // "tp=4,pp=2"; unset keys keep the config's
  uint64_t devices = 0;          // 0: the config's own dp·tp·pp·cp
  std::filesystem::path output;  // where to write it; empty: none (the result holds the text)
};

// Throws UserError E-DEVICE-COUNT for 0 devices or more than the core
// handles; `given` names the count as it was given ("the device count
// (`devices=0`)", "-d 0"). A host that reads a count of its own checks it so.
void check_device_count(uint64_t devices, const std::string& given);

// `plugins check`: the plugin at `path` loaded in a child process (the
// vetting helper of `plugins`) and every conformance check of each interface
// it offers run there, `timeout_s` at most; a parser's parse check reads
// `sample_config` when given.
struct PluginCheckSettings {
  PluginSettings plugins;  // the options the plugin is given, and the helper
  std::filesystem::path path;
  double timeout_s = 60;
  std::filesystem::path sample_config;
};
PluginCheck check_plugin(const PluginCheckSettings& settings);

class Planner {
 public:
  // Loads the plugins `settings` describe (the vetting of search-path
  // plugins included); throws UserError as the CLI's flags do. The devices
  // (and `device_file`) are read by the first call that needs them, which
  // throws for an error there: plugins(), model() and apply() need none.
  explicit Planner(const PluginSettings& settings = {});
  Planner(Planner&&) noexcept;
  Planner& operator=(Planner&&) noexcept;
  ~Planner();

  Listing plugins() const;                                      // `plugins list`
  Listing hardware() const;                                     // `hardware`
  Listing device(const std::string& id) const;                  // `hardware ID`
  Listing model(const ModelSettings& settings) const;           // `model`
  Evaluation evaluate(const EvaluateSettings& settings) const;  // `eval`
  Explanation explain(const ExplainSettings& settings) const;   // `explain`
  Comparison compare(const CompareSettings& settings) const;    // `compare`
  SearchReport search(const SearchSettings& settings) const;    // `search`
  // `apply`: the document is {config, parser, strategy, strategy_text,
  // key_changes, text (the config with the strategy in it, read back and
  // checked), changes (the lines removed and added), fragments (a format with
  // no trainer: each trainer's flags or table, or why it cannot run the
  // strategy)}.
  WrittenConfig apply(const ApplySettings& settings) const;
  Validation validate(const ValidationSettings& settings) const;  // `ndsearch-validate`

  struct Loaded;  // the plugins and devices, shared with the results that use them

 private:
  std::shared_ptr<const Loaded> loaded_;
};

}  // namespace ndsearch

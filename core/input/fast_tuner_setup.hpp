// SPDX-License-Identifier: Apache-2.0
// fast_tuner_setup.hpp: the reference's "fast-tuner" setup JSON, which names
// the training config (yaml_path, shell_path or toml_path) and states the
// run's device count (rank_num, or npus_per_node × nnodes), global batch
// (gbs), an upper bound on ep (max_expert_parallel) and, for TorchTitan, the
// dimensions to search (a "strategy" object of DP, TP, EP, FSDP, PP, CP
// booleans). Recognised by what it holds, not by its name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct FastTunerSetup {
  SetupStated stated;
  std::filesystem::path config;       // the training config it names, found on disk
  std::vector<std::string> warnings;  // the keys ignored, one line each
};

// Whether `text` is a fast-tuner setup: a JSON object with one of yaml_path,
// shell_path or toml_path (a Hugging Face config.json or a MindSpeed argument
// file has none).
bool is_fast_tuner_setup(const std::string& text);

// The setup `file` holds (its `text`), its config found: a relative path is
// tried against the JSON's folder, then each folder above it, then the
// current folder (the reference's paths are relative to the fast-tuner's own
// root). `strict`: a key ndsearch does not know is an error, else a warning.
// Throws UserError E-SETUP-VALUE (a value of the wrong type or range, no or
// two configs named, a device count stated twice over), E-SETUP-PATH (the
// config is nowhere: the message names the key, the path and every place
// tried), E-PARSE-UNKNOWN-FIELD (strict), E-PARSE-DUPLICATE.
FastTunerSetup read_fast_tuner_setup(const std::filesystem::path& file, const std::string& text,
                                     bool strict);

// The dimensions a "strategy" object searches, as -l spells them (DP, TP SP,
// EP ETP, ZERO (and OP with DP: replicas of shards), PP VPP, CP; MBS MBN
// RECOMPUTE always): `on` lists the flags that are true.
std::string setup_dimensions(const std::vector<std::string>& on);

// The devices of this run: `requested` (a setting) when given, else the
// setup's; 0 when neither. A setting that replaces the setup's count says so
// in the model's warnings.
uint64_t run_devices(Model& model, uint64_t requested);

// The dimensions to search: `requested` (a setting) when given, else the
// setup's; empty: the default set. A setting that replaces the setup's says
// so in the model's warnings.
std::string run_dimensions(Model& model, const std::string& requested);

// Adds `warning` to the model's warnings unless it is there already.
void note_once(Model& model, const std::string& warning);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// model.hpp: the model IR: what a parser understood of a config, owned by the
// core, with the provenance of every value, and the plain-data view
// (nds_model) that compile-once plugins read.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ndsearch {

struct ModelBlock {
  nds_layer_block c{};                            // the values; unknown = NDS_UNKNOWN
  std::map<std::string, std::string> provenance;  // key -> where it came from
};

// One model: the language model, or a tower beside it (submodels).
struct ModelPart {
  std::string name;
  std::vector<ModelBlock> blocks;
  int64_t vocab_size = NDS_UNKNOWN;
  int64_t padded_vocab_size = NDS_UNKNOWN;
  int32_t tied_embeddings = NDS_UNKNOWN;
  nds_position_kind position_embedding = NDS_UNKNOWN;
  int64_t max_position_embeddings = NDS_UNKNOWN;
  int32_t flash_attention = NDS_UNKNOWN;
  // A vision tower's patch embedding, positions and mergers (nds_model, ABI
  // 1.6); 0 in the language model.
  int64_t patch_inputs = 0;
  int32_t patch_bias = 0;
  int64_t position_table = 0;
  int64_t merge_patches = 0;
  int64_t out_hidden_size = 0;
  int32_t mergers = 0;
  std::map<std::string, std::string> provenance;  // model keys -> source
};

// What a fast-tuner setup JSON states beside the training config it names
// (fast_tuner_setup.hpp): the run's devices, global batch, EP bound and
// searched dimensions. `file` empty: CONFIG was the training config itself.
struct SetupStated {
  std::string file;           // the setup JSON
  std::string config_key;     // the key naming the config: yaml_path, shell_path or toml_path
  uint64_t devices = 0;       // rank_num, or npus_per_node × nnodes; 0: not stated
  std::string devices_field;  // where: "`rank_num` = 64", "`npus_per_node` × `nnodes` = 8 × 2"
  int64_t global_batch = NDS_UNKNOWN;  // gbs
  int64_t max_ep = 0;                  // max_expert_parallel: ep at most this; 0: no bound
  std::string dimensions;  // from its "strategy" object, as -l spells them; empty: not stated
};

class Model {
 public:
  Model();

  std::string framework;               // the parser's id
  bool trainer_limits_lifted = false;  // --any-trainer: the trainer's capabilities ignored
  std::string file;                    // the config it read (the one a setup JSON names)
  SetupStated setup;                   // what a fast-tuner setup JSON stated; empty file: none
  ModelPart main;
  std::vector<ModelPart> submodels;
  nds_training training{};  // pointers are set by view()
  nds_strategy stated{};
  std::vector<int64_t> stage_layers, stage_layer_offsets, recompute_layers;
  // The routing's most loaded EP rank per ep (routing.hpp; empty: balanced),
  // and what it is in words (empty: balanced).
  std::vector<double> expert_rank_load;
  std::string routing_words;
  std::string cp_algorithm;
  // The language-model layers the towers' work is worth (towers.hpp); 0
  // without towers or image tokens.
  double tower_layer_ratio = 0;
  std::map<std::string, std::string> training_provenance;  // training and stated.* keys
  std::vector<std::string> warnings;
  // An allocator share in place of the shipped fit for the trainer's runtime
  // (core/compile/allocator_share.hpp): the fitters' trial values or a user's
  // calibration (apply_memory_calibration); unset: the shipped fit.
  std::optional<double> allocator_fraction;
  std::string allocator_fraction_source;  // where it came from (the assumption names it)

  // What outputs call the model: the config's architecture name, else its file.
  const std::string& display_name() const { return main.name.empty() ? file : main.name; }
  // Layers of the language model (decoder blocks), MTP layers.
  int64_t decoder_layers() const;
  int64_t mtp_layers() const;
  // The first decoder block, and the first with routed experts (or nullptr).
  const nds_layer_block* first_decoder() const;
  const nds_layer_block* first_moe() const;

  // The plain-data view for plugins, rebuilt on each call; valid until this
  // Model changes, moves or is copied (call view() again then).
  const nds_model& view();

 private:
  std::vector<nds_layer_block> main_blocks_;
  std::vector<std::vector<nds_layer_block>> sub_blocks_;
  std::vector<nds_model> sub_views_;
  nds_model view_{};
};

// A block with every field NDS_UNKNOWN (enumerations too), struct_size set.
nds_layer_block unknown_block(nds_block_kind kind, int64_t layers);

// One overlap switch: its builder key ("overlap.tp_comm"), its name in the
// model JSON ("tp_comm"), its item in --overlap ("tp"), what it hides and its
// NDS_OVERLAP_* bit.
struct OverlapSwitch {
  const char* key;
  const char* name;
  const char* item;
  const char* what;
  uint64_t bit;
};
// Every overlap switch of nds_training.overlap, in bit order.
const std::vector<OverlapSwitch>& overlap_switches();

// The fp8 recipes by name (builder key fp8_recipe, --fp8-recipe, model JSON):
// delayed, current, tensorwise (= current), blockwise, mxfp8.
struct Fp8RecipeName {
  const char* name;
  int32_t recipe;  // NDS_FP8_*
};
const std::vector<Fp8RecipeName>& fp8_recipe_names();

// The ops selective recompute can rebuild (nds_training.recompute_ops), one
// list for the builder key recompute_ops, --recompute-modules, the model JSON
// and the assumptions: the name, Megatron-Core's --recompute-modules name of
// the same op where it has one (TransformerConfig.recompute_modules), what is
// dropped and run again, and the NDS_RECOMPUTE_OP_* bit.
struct RecomputeOpName {
  const char* name;
  const char* megatron;  // "" where Megatron-Core has no such module
  const char* what;
  uint64_t bit;
};
const std::vector<RecomputeOpName>& recompute_op_names();
// What `ops` (NDS_RECOMPUTE_OP_* bits) cover, their `what` words joined by
// ", " in bit order, as the assumptions say them.
std::string recompute_ops_words(uint64_t ops);

// The trainer family of a model's parser ("megatron" for Megatron-LM and
// formats without a trainer, "mindspeed", "torchtitan", "mindspore").
std::string trainer_family(const Model& model);

// The trainer description the config's parser states ("MindSpeed
// v2.3.0_core_r0.12.1 (docs/trainers.md)"), read from the capability keys'
// provenance; empty where it states none (a Hugging Face config).
std::string described_trainer(const Model& model);

// Where the config stated the training setting `key` (its provenance), else
// `otherwise`.
std::string training_source(const Model& model, const char* key, const std::string& otherwise);

// True when the config (or its trainer's documented default, or --overlap)
// stated any overlap switch, false when nothing did (an HF config.json names no
// trainer): the time model then assumes a well-tuned run and says so.
bool overlap_stated(const Model& model);

// True when the config states per-stage recompute counts that leave some
// layers out (counts that take in every layer, Megatron's uniform method,
// mean every layer at any pp): the counts then apply, rescaled, to a
// strategy of the mode they are stated for (placement.hpp,
// stated_counts_apply).
bool stated_counts_partial(const Model& model);

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
#include "core/model/model_shape.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <nlohmann/json.hpp>

#include <type_traits>
#include <utility>
#include <vector>

#include "core/model/builder.hpp"
#include "core/model/model_json.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

// A block's field by its key: copied from one block to another. `training`:
// what the training config decides (how experts run, dropouts), not the shape.
struct BlockField {
  const char* key;
  bool training;
  void (*copy)(nds_layer_block& to, const nds_layer_block& from);
};

#define NDS_FIELD(name, training)                                                      \
  BlockField {                                                                         \
#name, training,                                                                   \
        [](nds_layer_block & to, const nds_layer_block& from) { to.name = from.name; } \
  }
// Every field of nds_layer_block but kind and layers (the blocks' layout).
const BlockField kBlockFields[] = {
    NDS_FIELD(hidden_size, false),
    NDS_FIELD(attention, false),
    NDS_FIELD(heads, false),
    NDS_FIELD(kv_heads, false),
    NDS_FIELD(head_dim, false),
    NDS_FIELD(q_lora_rank, false),
    NDS_FIELD(kv_lora_rank, false),
    NDS_FIELD(qk_nope_head_dim, false),
    NDS_FIELD(qk_rope_head_dim, false),
    NDS_FIELD(v_head_dim, false),
    NDS_FIELD(qk_norm, false),
    NDS_FIELD(ffn, false),
    NDS_FIELD(ffn_hidden_size, false),
    NDS_FIELD(experts, false),
    NDS_FIELD(experts_per_token, false),
    NDS_FIELD(shared_experts, false),
    NDS_FIELD(shared_expert_ffn_hidden_size, false),
    NDS_FIELD(moe_ffn_hidden_size, false),
    NDS_FIELD(norm, false),
    NDS_FIELD(linear_bias, false),
    NDS_FIELD(qkv_bias, false),
    NDS_FIELD(capacity_factor, true),
    NDS_FIELD(grouped_gemm, true),
    NDS_FIELD(hidden_dropout, true),
    NDS_FIELD(attention_dropout, true),
};
#undef NDS_FIELD

// Whether the config itself states `key` (a file's line or field), not its
// trainer's documented default.
bool stated(const std::map<std::string, std::string>& provenance, const std::string& key) {
  const auto it = provenance.find(key);
  return it != provenance.end() && it->second.rfind("default:", 0) != 0;
}

std::string source(const std::map<std::string, std::string>& provenance, const std::string& key) {
  const auto it = provenance.find(key);
  return it == provenance.end() ? std::string("not stated") : it->second;
}

std::string shown(const json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// The disagreements of the two files, one line each.
class Disagreements {
 public:
  Disagreements(const Model& training, const Model& shape) : training_(training), shape_(shape) {}

  void add(const std::string& field, const json& ours, const std::string& our_source,
           const json& theirs, const std::string& their_source) {
    lines_.push_back(fmt::format("{} = {} ({}) but {} ({})", field, shown(ours), our_source,
                                 shown(theirs), their_source));
  }

  void throw_if_any() const {
    if (lines_.empty()) return;
    std::string list;
    for (const std::string& l : lines_) list += "\n  " + l;
    throw UserError(
        "E-MODEL-CONFIG",
        fmt::format("{} and {} disagree on the model's shape:{}\nthe shape comes from {}: "
                    "remove the training config's shape fields, or give the config.json of "
                    "the model it trains",
                    training_.file, shape_.file, list, Setting("model_config").named()));
  }

 private:
  const Model& training_;
  const Model& shape_;
  std::vector<std::string> lines_;
};

// The layers block by block, "30 decoder + 1 mtp".
std::string layout(const ModelPart& part) {
  std::string text;
  for (const ModelBlock& b : part.blocks)
    text += fmt::format("{}{} {}", text.empty() ? "" : " + ", b.c.layers,
                        block_json(b.c)["kind"].get<std::string>());
  return text.empty() ? "no layers" : text;
}

// `shape`'s blocks, with what the training config states beside the shape
// (and where `shape` says nothing, what it states of the shape); each
// stated field that disagrees is noted.
std::vector<ModelBlock> merged_blocks(const ModelPart& ours, const ModelPart& theirs,
                                      Disagreements& disagreements) {
  std::vector<ModelBlock> blocks = theirs.blocks;
  if (ours.blocks.empty()) return blocks;
  bool same_layout = ours.blocks.size() == theirs.blocks.size();
  for (size_t i = 0; same_layout && i < ours.blocks.size(); ++i)
    same_layout = ours.blocks[i].c.kind == theirs.blocks[i].c.kind &&
                  ours.blocks[i].c.layers == theirs.blocks[i].c.layers;
  if (!same_layout) {
    disagreements.add(
        "layers", layout(ours), source(ours.blocks.front().provenance, "layers"), layout(theirs),
        theirs.blocks.empty() ? "none" : source(theirs.blocks.front().provenance, "layers"));
    return blocks;
  }
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ModelBlock& o = ours.blocks[i];
    ModelBlock& b = blocks[i];
    const json our_values = block_json(o.c), their_values = block_json(b.c);
    for (const BlockField& f : kBlockFields) {
      if (!stated(o.provenance, f.key) || our_values[f.key].is_null()) continue;
      if (f.training || their_values[f.key].is_null()) {
        f.copy(b.c, o.c);
        b.provenance[f.key] = o.provenance.at(f.key);
      } else if (our_values[f.key] != their_values[f.key]) {
        const std::string field =
            blocks.size() == 1 ? f.key : fmt::format("blocks[{}].{}", i, f.key);
        disagreements.add(field, our_values[f.key], o.provenance.at(f.key), their_values[f.key],
                          source(b.provenance, f.key));
      }
    }
  }
  return blocks;
}

// A model-level value: the shape's, else the training config's; a stated one
// that disagrees is noted (or warned about, when `harmless`).
template <class T>
void merge_value(Model& training, const ModelPart& theirs, T ModelPart::*field, const char* key,
                 Disagreements& disagreements, bool harmless = false) {
  ModelPart& ours = training.main;
  const bool ours_known = ours.*field != static_cast<T>(NDS_UNKNOWN);
  const bool theirs_known = theirs.*field != static_cast<T>(NDS_UNKNOWN);
  if (ours_known && theirs_known && ours.*field != theirs.*field && stated(ours.provenance, key)) {
    if (harmless)
      training.warnings.push_back(
          fmt::format("{} states {} = {} ({}), the model config {} = {} ({}); {} is used: the "
                      "positions are not learned, so the length changes nothing priced",
                      training.file, key, ours.*field, source(ours.provenance, key), key,
                      theirs.*field, source(theirs.provenance, key), theirs.*field));
    else
      disagreements.add(key, json(ours.*field), source(ours.provenance, key), json(theirs.*field),
                        source(theirs.provenance, key));
  }
  if (!theirs_known) return;
  ours.*field = theirs.*field;
  ours.provenance[key] = source(theirs.provenance, key);
}

// A training setting the training config leaves unknown: the model config's.
template <class T>
void fill_training(Model& training, const Model& shape, T& ours, const T& theirs, const char* key,
                   std::type_identity_t<T> unknown) {
  if (ours != unknown || theirs == unknown) return;
  ours = theirs;
  training.training_provenance[key] = source(shape.training_provenance, key);
}

void fill_training_settings(Model& training, const Model& shape) {
  nds_training& t = training.training;
  const nds_training& s = shape.training;
  fill_training(training, shape, t.params_dtype, s.params_dtype, "params_dtype", NDS_DTYPE_UNKNOWN);
  fill_training(training, shape, t.compute_dtype, s.compute_dtype, "compute_dtype",
                NDS_DTYPE_UNKNOWN);
  fill_training(training, shape, t.grads_dtype, s.grads_dtype, "grads_dtype", NDS_DTYPE_UNKNOWN);
  fill_training(training, shape, t.optimizer_dtype, s.optimizer_dtype, "optimizer_dtype",
                NDS_DTYPE_UNKNOWN);
  fill_training(training, shape, t.master_dtype, s.master_dtype, "master_dtype", NDS_DTYPE_UNKNOWN);
  fill_training(training, shape, t.optimizer, s.optimizer, "optimizer",
                static_cast<nds_optimizer_kind>(NDS_UNKNOWN));
  fill_training(training, shape, t.optimizer_states, s.optimizer_states, "optimizer_states",
                static_cast<int32_t>(NDS_UNKNOWN));
  fill_training(training, shape, training.stated.zero, shape.stated.zero, "stated.zero",
                static_cast<int32_t>(NDS_UNKNOWN));
  // A trainer capability nothing in the training config states: the model config's.
  static const std::pair<const char*, uint64_t> kCapabilities[] = {
      {"capabilities.sp_with_cp", NDS_CAN_SP_WITH_CP},
      {"capabilities.needs_pow2_tp", NDS_NEEDS_POW2_TP},
      {"capabilities.interleave", NDS_CAN_INTERLEAVE},
      {"capabilities.zero3", NDS_CAN_ZERO3},
      {"capabilities.expert_tp", NDS_CAN_EXPERT_TP},
      {"capabilities.no_zero2", NDS_NO_ZERO2},
      {"capabilities.no_zero1", NDS_NO_ZERO1},
      {"capabilities.needs_sp_with_tp", NDS_NEEDS_SP_WITH_TP},
      {"capabilities.no_cp_with_window", NDS_NO_CP_WITH_WINDOW}};
  for (const auto& [key, bit] : kCapabilities) {
    if (training.training_provenance.count(key) != 0 || shape.training_provenance.count(key) == 0)
      continue;
    t.capabilities = (t.capabilities & ~bit) | (s.capabilities & bit);
    training.training_provenance[key] = shape.training_provenance.at(key);
  }
}

}  // namespace

void take_shape(Model& training, const Model& shape) {
  Disagreements disagreements(training, shape);
  ModelPart& ours = training.main;
  const ModelPart& theirs = shape.main;
  ours.blocks = merged_blocks(ours, theirs, disagreements);
  merge_value(training, theirs, &ModelPart::vocab_size, "vocab_size", disagreements);
  merge_value(training, theirs, &ModelPart::tied_embeddings, "tied_embeddings", disagreements);
  merge_value(training, theirs, &ModelPart::position_embedding, "position_embedding",
              disagreements);
  merge_value(training, theirs, &ModelPart::max_position_embeddings, "max_position_embeddings",
              disagreements, ours.position_embedding != NDS_POSITION_LEARNED);
  // The trainer's padding and attention kernel: the training config's where it knows them.
  if (ours.padded_vocab_size == NDS_UNKNOWN && theirs.padded_vocab_size != NDS_UNKNOWN) {
    ours.padded_vocab_size = theirs.padded_vocab_size;
    ours.provenance["padded_vocab_size"] = source(theirs.provenance, "padded_vocab_size");
  }
  if (ours.flash_attention == NDS_UNKNOWN && theirs.flash_attention != NDS_UNKNOWN) {
    ours.flash_attention = theirs.flash_attention;
    ours.provenance["flash_attention"] = source(theirs.provenance, "flash_attention");
  }
  disagreements.throw_if_any();
  if (!theirs.name.empty()) {
    ours.name = theirs.name;
    ours.provenance["name"] = source(theirs.provenance, "name");
  }
  if (!shape.submodels.empty()) training.submodels = shape.submodels;
  // The training config's notes of shape values it could not know, now known.
  std::erase_if(training.warnings, [&ours](const std::string& w) {
    return (ours.vocab_size != NDS_UNKNOWN && is_unknown_note(w, "vocab_size")) ||
           (ours.max_position_embeddings != NDS_UNKNOWN &&
            is_unknown_note(w, "max_position_embeddings"));
  });
  fill_training_settings(training, shape);
  for (const std::string& w : shape.warnings) training.warnings.push_back(w);
}

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
#include "core/model/model_limits.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// The expert capacity factor: published ones are 1.0 to 2.0; above the
// number of experts it means nothing (a token goes to at most every expert).
constexpr double kMaxCapacityFactor = 1024;

std::string where(const std::map<std::string, std::string>& provenance, const std::string& key) {
  auto it = provenance.find(key);
  return it == provenance.end() ? std::string("not stated") : it->second;
}

[[noreturn]] void over(const Model& m, const std::string& key, const std::string& source,
                       int64_t value, const ModelLimit& limit) {
  throw UserError(
      "E-MODEL-LIMIT",
      fmt::format("{}: {} = {} (from {}) is above ndsearch's limit for {}, {} ({}); check the "
                  "value (a typo, a unit, an overflow in the config's arithmetic)",
                  m.file, key, value, source, limit.what, limit.most, limit.why));
}

// `value` within [least, limit.most], NDS_UNKNOWN (-1) allowed.
void within(const Model& m, const std::map<std::string, std::string>& provenance,
            const std::string& key, int64_t value, const ModelLimit& limit, int64_t least = 0) {
  if (value == NDS_UNKNOWN) return;
  if (value > limit.most) over(m, key, where(provenance, key), value, limit);
  if (value < least)
    throw UserError("E-MODEL-LIMIT",
                    fmt::format("{}: {} = {} (from {}) must be at least {}", m.file, key, value,
                                where(provenance, key), least));
}

void check_block(const Model& m, const ModelBlock& b, int64_t& layers_so_far,
                 const std::string& part) {
  const nds_layer_block& c = b.c;
  const auto& p = b.provenance;
  within(m, p, "layers", c.layers, kMaxLayers, 1);
  layers_so_far += c.layers;  // both at most kMaxLayers: no overflow
  if (layers_so_far > kMaxLayers.most)
    over(m, "layers", fmt::format("the blocks of {} together", part), layers_so_far, kMaxLayers);
  within(m, p, "hidden_size", c.hidden_size, kMaxHidden);
  for (auto [key, value] : {std::pair{"heads", c.heads}, {"kv_heads", c.kv_heads}})
    within(m, p, key, value, kMaxHeads);
  for (auto [key, value] : {std::pair{"head_dim", c.head_dim},
                            {"q_lora_rank", c.q_lora_rank},
                            {"kv_lora_rank", c.kv_lora_rank},
                            {"qk_nope_head_dim", c.qk_nope_head_dim},
                            {"qk_rope_head_dim", c.qk_rope_head_dim},
                            {"v_head_dim", c.v_head_dim}})
    within(m, p, key, value, kMaxHeadDim);
  for (auto [key, value] : {std::pair{"ffn_hidden_size", c.ffn_hidden_size},
                            {"moe_ffn_hidden_size", c.moe_ffn_hidden_size},
                            {"shared_expert_ffn_hidden_size", c.shared_expert_ffn_hidden_size}})
    within(m, p, key, value, kMaxFfn);
  within(m, p, "experts", c.experts, kMaxExperts);
  within(m, p, "experts_per_token", c.experts_per_token, kMaxExperts);
  within(m, p, "shared_experts", c.shared_experts, kMaxSharedExperts);
  within(m, p, "attention_window", c.attention_window, kMaxSequence);
  if (c.capacity_factor > kMaxCapacityFactor)  // NaN cannot reach here: the builder refuses it
    throw UserError(
        "E-MODEL-LIMIT",
        fmt::format("{}: capacity_factor = {} (from {}) is above ndsearch's limit of {} (published "
                    "factors are 1.0 to 2.0)",
                    m.file, c.capacity_factor, where(p, "capacity_factor"), kMaxCapacityFactor));
}

void check_part(const Model& m, const ModelPart& part, const std::string& name) {
  int64_t layers = 0;
  for (const ModelBlock& b : part.blocks) check_block(m, b, layers, name);
  // A vocabulary holds at least one token; 0 would make a model of no embedding.
  within(m, part.provenance, "vocab_size", part.vocab_size, kMaxVocab, 1);
  within(m, part.provenance, "padded_vocab_size", part.padded_vocab_size, kMaxVocab, 1);
  within(m, part.provenance, "max_position_embeddings", part.max_position_embeddings, kMaxSequence);
  // A tower's patch embedding, positions and mergers (ABI 1.6).
  within(m, part.provenance, "patch_inputs", part.patch_inputs, kMaxHidden);
  within(m, part.provenance, "position_table", part.position_table, kMaxSequence);
  within(m, part.provenance, "merge_patches", part.merge_patches, kMaxHeads);
  within(m, part.provenance, "out_hidden_size", part.out_hidden_size, kMaxHidden);
  within(m, part.provenance, "mergers", part.mergers, kMaxLayers);
}

void check_list(const Model& m, const char* key, const std::vector<int64_t>& list) {
  for (int64_t v : list)
    if (v > kMaxLayers.most || v < -kMaxLayers.most)
      over(m, key, where(m.training_provenance, key), v, kMaxLayers);
}

}  // namespace

void check_model_limits(const Model& m) {
  check_part(m, m.main, "the language model");
  for (const ModelPart& tower : m.submodels) check_part(m, tower, "the " + tower.name + " tower");
  const nds_training& t = m.training;
  const auto& p = m.training_provenance;
  within(m, p, "seq_len", t.seq_len, kMaxSequence, 1);
  within(m, p, "image_tokens", t.image_tokens, kMaxSequence);
  within(m, p, "images_per_sample", t.images_per_sample, kMaxSequence, 1);
  // Image tokens are part of the sequence the language model reads.
  if (t.image_tokens != NDS_UNKNOWN && t.seq_len != NDS_UNKNOWN && t.image_tokens > t.seq_len)
    throw UserError(
        "E-MODEL-LIMIT",
        fmt::format("{}: image_tokens = {} (from {}) is more than the sequence, seq_len = {} "
                    "(from {}); image tokens are part of the sequence",
                    m.file, t.image_tokens, where(p, "image_tokens"), t.seq_len,
                    where(p, "seq_len")));
  if (t.images_per_sample != NDS_UNKNOWN && t.image_tokens != NDS_UNKNOWN &&
      t.images_per_sample > t.image_tokens)
    throw UserError(
        "E-MODEL-LIMIT",
        fmt::format("{}: images_per_sample = {} (from {}) is more than the image tokens, {}; "
                    "each image is at least one token",
                    m.file, t.images_per_sample, where(p, "images_per_sample"), t.image_tokens));
  within(m, p, "global_batch", t.global_batch, kMaxBatch, 1);
  within(m, p, "stated.mbs", m.stated.mbs, kMaxBatch, 1);
  within(m, p, "stated.mbn", m.stated.mbn, kMaxBatch, 1);
  within(m, p, "optimizer_states", t.optimizer_states, kMaxOptimizerStates);
  check_list(m, "stage_layers", m.stage_layers);
  check_list(m, "stage_layer_offsets", m.stage_layer_offsets);
  check_list(m, "recompute_layers", m.recompute_layers);
}

void check_device_count(uint64_t devices, const std::string& given) {
  if (devices == 0)
    throw UserError("E-DEVICE-COUNT",
                    fmt::format("{}: give the number of devices to train on (at least 1)", given));
  if (devices > static_cast<uint64_t>(kMaxDevices.most))
    throw UserError(
        "E-DEVICE-COUNT",
        fmt::format("{}: above ndsearch's limit of {} devices ({}); give the devices of one "
                    "training job",
                    given, kMaxDevices.most, kMaxDevices.why));
}

}  // namespace ndsearch

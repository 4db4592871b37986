// SPDX-License-Identifier: Apache-2.0
// model_limits.hpp: the largest model dimensions, training settings and
// device counts ndsearch accepts, whatever the parser or flag gave them.
// Each limit lies far above any model trained so far, so that no real config
// meets it, and low enough that every product the core forms from them
// (parameters, FLOPs, bytes: at most a few factors of 2^24) stays finite and
// exact enough in a double, and every degree fits nds_strategy's int32.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <cstdint>

#include "core/model/model.hpp"

namespace ndsearch {

struct ModelLimit {
  const char* what;  // "hidden_size"
  int64_t most;
  const char* why;  // what the largest real value is, for the message
};

// Layers of the language model (every decoder block together, and each
// tower's): the deepest published LLMs have ~200 (Llama 3.1 405B: 126).
inline constexpr ModelLimit kMaxLayers{"layers", 100000, "the deepest published models have ~200"};
// hidden_size, and the head and low-rank sizes: published widths reach
// ~25,600 (PaLM 540B: 18,432).
inline constexpr ModelLimit kMaxHidden{"hidden_size", int64_t{1} << 20,
                                       "published widths stay below 2^15"};
// FFN sizes (dense, expert, shared expert): published ones reach ~73,728.
inline constexpr ModelLimit kMaxFfn{"ffn sizes", int64_t{1} << 22,
                                    "published FFNs stay below 2^17"};
// Attention heads and KV heads: published models have at most 128.
inline constexpr ModelLimit kMaxHeads{"heads", int64_t{1} << 16,
                                      "published models have at most 128"};
// Head dimensions and MLA ranks (head_dim, q/kv_lora_rank, qk_*_head_dim, v_head_dim).
inline constexpr ModelLimit kMaxHeadDim{"head sizes", int64_t{1} << 16,
                                        "published ones stay below 2^12"};
// Routed experts: DeepSeek-V3 has 256, Kimi K2 384; PEER-style work ~10^6.
inline constexpr ModelLimit kMaxExperts{"experts", int64_t{1} << 20,
                                        "published MoE models have at most ~10^6"};
// Shared experts per layer: published models have one or two.
inline constexpr ModelLimit kMaxSharedExperts{"shared_experts", 1024,
                                              "published models have one or two"};
// Vocabulary (and padded vocabulary): published ones reach ~256k (Gemma).
inline constexpr ModelLimit kMaxVocab{"vocab_size", int64_t{1} << 24,
                                      "published vocabularies stay below 2^19"};
// Sequence length and learned positions: the longest published training
// contexts are ~10^6 tokens.
inline constexpr ModelLimit kMaxSequence{"seq_len", int64_t{1} << 24,
                                         "published contexts stay below ~2^21"};
// Sequences per step (global batch, micro-batch): published runs use < 2^16.
inline constexpr ModelLimit kMaxBatch{"global_batch", int64_t{1} << 24,
                                      "published runs use fewer than 2^16"};
// Optimizer states per parameter: Adam keeps 2.
inline constexpr ModelLimit kMaxOptimizerStates{"optimizer_states", 64, "Adam keeps 2"};
// Devices: the largest clusters hold ~10^5-10^6 accelerators; 2^24 also
// bounds every parallel degree (nds_strategy holds int32s; --strategy and the
// builder cap degrees at 2^24 too).
inline constexpr ModelLimit kMaxDevices{"devices", int64_t{1} << 24,
                                        "the largest clusters hold ~10^6"};

// Throws UserError E-MODEL-LIMIT naming the file, the field, where its value
// came from (the config's line, a flag), the value and the limit, for any
// dimension or setting beyond the limits above, or a vocabulary of 0 tokens.
// Runs before anything sums or multiplies them (finalize_model calls it first).
void check_model_limits(const Model& model);

// check_device_count (E-DEVICE-COUNT) is public: planner.hpp.

}  // namespace ndsearch

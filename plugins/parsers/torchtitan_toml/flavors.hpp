// SPDX-License-Identifier: Apache-2.0
// flavors.hpp: TorchTitan's published model flavors (model.name + model.flavor
// of a job TOML) as plain data, at the commit our fixtures come from
// (pytorch/torchtitan 238fa99), and TorchTitan's rules for the FFN widths it
// derives from them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ndsearch::plugins::torchtitan {

// Multi-head latent attention (DeepSeek-V2/V3); all 0 for other attention.
struct Mla {
  int64_t q_lora_rank;
  int64_t kv_lora_rank;
  int64_t qk_nope_head_dim;
  int64_t qk_rope_head_dim;
  int64_t v_head_dim;
};

// Routed experts; experts == 0 for a dense model.
struct Moe {
  int64_t experts;
  int64_t top_k;
  int64_t shared_experts;
  int64_t hidden;       // one expert's width; 0: Llama 4's rule (llama4_moe_hidden)
  int64_t first_dense;  // DeepSeek's n_dense_layers: dense layers before the MoE ones
  int64_t every;  // Llama 4's interleave_moe_layer_step: layer i is MoE when (i + 1) % every == 0
};

struct Flavor {
  const char* model;   // model.name
  const char* flavor;  // model.flavor
  const char* source;  // the file of pytorch/torchtitan that states it
  int64_t dim;
  int64_t layers;
  int64_t vocab_size;
  int64_t heads;
  int64_t kv_heads;  // 0: as many as heads
  int64_t head_dim;  // 0: dim / heads
  bool qk_norm;
  bool tied_embeddings;
  int64_t ffn_hidden;         // dense FFN width; 0: the Llama rule (llama_ffn_hidden)
  int64_t multiple_of;        // Llama rule: round the width up to a multiple of this
  double ffn_dim_multiplier;  // Llama rule: 0 when the flavor gives none
  Mla mla;
  Moe moe;
};

// Every flavor we know, in table order.
const std::vector<Flavor>& flavors();

// nullptr when the table has no such model name / flavor.
const Flavor* find_flavor(const std::string& model, const std::string& flavor);

// "llama3, deepseek_v3, qwen3, llama4"; and a model's flavors, "debugmodel, 8B, ...".
std::string known_models();
std::string known_flavors(const std::string& model);

// The dense SwiGLU width TorchTitan's FeedForward derives from dim:
// int(2 * 4 * dim / 3), times ffn_dim_multiplier if any (truncated), rounded
// up to multiple_of. Llama 3 8B: 14336; 70B: 28672; 405B: 53248.
int64_t llama_ffn_hidden(int64_t dim, int64_t multiple_of, double ffn_dim_multiplier);

// Llama 4's expert width (TorchTitan's MoE with auto_scale_hidden_dim): the
// same start as the dense rule, divided by top_k + shared experts (truncated)
// before rounding up to multiple_of. Llama 4 Scout (17bx16e): 8192.
int64_t llama4_moe_hidden(const Flavor& f);

// The flavor's dense FFN width: its stated one, else the Llama rule.
int64_t dense_ffn_hidden(const Flavor& f);

}  // namespace ndsearch::plugins::torchtitan

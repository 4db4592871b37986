// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/torchtitan_toml/flavors.hpp"

namespace ndsearch::plugins::torchtitan {
namespace {

// Where each model's flavors are stated in pytorch/torchtitan. Read at
// 238fa99's neighbours (the index holds no copy at that commit): the
// get_train_spec-era files (llama3_args, deepseekv3_args, qwen3_args,
// llama4_args) and the newer Config-era ones (00f555e, 0014ac2, 0310b49)
// state the same shapes for every flavor below. A value a flavor leaves out
// is its model-args class default (model/args.py): Llama 3 vocab_size 128256,
// multiple_of 256; Llama 4 vocab_size 202048, interleave_moe_layer_step 2;
// MoEArgs num_experts 8, num_shared_experts 1, top_k 1.
constexpr const char* kLlama3 = "torchtitan/models/llama3/__init__.py";
constexpr const char* kDeepSeekV3 = "torchtitan/models/deepseek_v3/__init__.py";
constexpr const char* kQwen3 = "torchtitan/models/qwen3/__init__.py";
constexpr const char* kLlama4 = "torchtitan/models/llama4/__init__.py";

constexpr Mla kNoMla{0, 0, 0, 0, 0};
constexpr Moe kDense{0, 0, 0, 0, 0, 0};
// DeepSeek-V2/V3's MLA head shapes (the same in every flavor); q_lora_rank varies.
constexpr Mla deepseek_mla(int64_t q_lora_rank) {
  return Mla{q_lora_rank, 512, 128, 64, 128};
}

// Columns: model, flavor, source,
//   dim, layers, vocab_size, heads, kv_heads (0: = heads), head_dim (0: dim/heads), qk_norm,
//   tied_embeddings, ffn_hidden (0: Llama rule), multiple_of, ffn_dim_multiplier (0: none),
//   Mla{q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim},
//   Moe{experts, top_k, shared_experts, hidden (0: Llama 4 rule), first_dense, every}
// clang-format off
const std::vector<Flavor> kFlavors = {
    // ---- Llama 3 / 3.1 (dense, GQA, RoPE)
    {"llama3", "debugmodel", kLlama3,
     256, 6, 2048, 16, 0, 0, false, false, 0, 256, 0, kNoMla, kDense},
    {"llama3", "8B", kLlama3,
     4096, 32, 128256, 32, 8, 0, false, false, 0, 1024, 1.3, kNoMla, kDense},
    {"llama3", "70B", kLlama3,
     8192, 80, 128256, 64, 8, 0, false, false, 0, 4096, 1.3, kNoMla, kDense},
    {"llama3", "405B", kLlama3,
     16384, 126, 128256, 128, 8, 0, false, false, 0, 4096, 1.2, kNoMla, kDense},
    // ---- DeepSeek-V3 family (MLA; first_dense dense layers, then MoE layers)
    {"deepseek_v3", "debugmodel", kDeepSeekV3,
     256, 6, 2048, 16, 0, 0, false, false, 1024, 0, 0, deepseek_mla(0), Moe{8, 3, 2, 256, 1, 1}},
    {"deepseek_v3", "16B", kDeepSeekV3,
     2048, 27, 102400, 16, 0, 0, false, false, 10944, 0, 0,
     deepseek_mla(0), Moe{64, 6, 2, 1408, 1, 1}},
    {"deepseek_v3", "236B", kDeepSeekV3,
     5120, 60, 102400, 128, 0, 0, false, false, 12288, 0, 0,
     deepseek_mla(1536), Moe{160, 6, 2, 1536, 1, 1}},
    {"deepseek_v3", "671B", kDeepSeekV3,
     7168, 61, 129280, 128, 0, 0, false, false, 18432, 0, 0,
     deepseek_mla(1536), Moe{256, 8, 1, 2048, 3, 1}},
    // ---- Qwen3 (GQA with head_dim 128, QK-norm)
    {"qwen3", "debugmodel", kQwen3,
     256, 8, 2048, 16, 8, 128, true, true, 3072, 0, 0, kNoMla, kDense},
    {"qwen3", "0.6B", kQwen3,
     1024, 28, 151936, 16, 8, 128, true, true, 3072, 0, 0, kNoMla, kDense},
    {"qwen3", "1.7B", kQwen3,
     2048, 28, 151936, 16, 8, 128, true, true, 6144, 0, 0, kNoMla, kDense},
    {"qwen3", "4B", kQwen3,
     2560, 36, 151936, 32, 8, 128, true, true, 9728, 0, 0, kNoMla, kDense},
    {"qwen3", "8B", kQwen3,
     4096, 36, 151936, 32, 8, 128, true, false, 12288, 0, 0, kNoMla, kDense},
    {"qwen3", "14B", kQwen3,
     5120, 40, 151936, 40, 8, 128, true, false, 17408, 0, 0, kNoMla, kDense},
    {"qwen3", "32B", kQwen3,
     5120, 64, 151936, 64, 8, 128, true, false, 25600, 0, 0, kNoMla, kDense},
    // Qwen3-MoE: every layer is MoE, no shared expert.
    {"qwen3", "debugmodel_moe", kQwen3,
     256, 8, 2048, 16, 8, 128, true, false, 0, 0, 0, kNoMla, Moe{64, 8, 0, 768, 0, 1}},
    {"qwen3", "30B-A3B", kQwen3,
     2048, 48, 151936, 32, 4, 128, true, false, 0, 0, 0, kNoMla, Moe{128, 8, 0, 768, 0, 1}},
    // ---- Llama 4 (GQA; MoE layers every `every` layers, one shared expert)
    {"llama4", "debugmodel", kLlama4,
     256, 6, 2048, 16, 0, 0, false, false, 0, 256, 0, kNoMla, Moe{8, 1, 1, 0, 0, 2}},
    {"llama4", "17bx16e", kLlama4,
     5120, 48, 202048, 40, 8, 0, false, false, 0, 2048, 1.2, kNoMla, Moe{16, 1, 1, 0, 0, 1}},
    {"llama4", "17bx128e", kLlama4,
     5120, 48, 202048, 40, 8, 0, false, false, 0, 2048, 1.2, kNoMla, Moe{128, 1, 1, 0, 0, 2}},
};
// clang-format on

// int(2 * hidden / 3), then int(multiplier * hidden): TorchTitan truncates
// after each step (Python's int()).
int64_t llama_width_before_rounding(int64_t dim, double ffn_dim_multiplier) {
  int64_t hidden = 2 * (4 * dim) / 3;
  if (ffn_dim_multiplier > 0)
    hidden = static_cast<int64_t>(ffn_dim_multiplier * static_cast<double>(hidden));
  return hidden;
}

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

const std::vector<Flavor>& flavors() {
  return kFlavors;
}

const Flavor* find_flavor(const std::string& model, const std::string& flavor) {
  for (const Flavor& f : kFlavors)
    if (model == f.model && flavor == f.flavor) return &f;
  return nullptr;
}

std::string known_models() {
  std::string names;
  for (const Flavor& f : kFlavors) {
    const std::string name = f.model;
    if ((", " + names + ", ").find(", " + name + ", ") == std::string::npos)
      names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

std::string known_flavors(const std::string& model) {
  std::string names;
  for (const Flavor& f : kFlavors)
    if (model == f.model) names += (names.empty() ? "" : ", ") + std::string(f.flavor);
  return names;
}

int64_t llama_ffn_hidden(int64_t dim, int64_t multiple_of, double ffn_dim_multiplier) {
  return round_up(llama_width_before_rounding(dim, ffn_dim_multiplier), multiple_of);
}

int64_t llama4_moe_hidden(const Flavor& f) {
  const int64_t hidden = llama_width_before_rounding(f.dim, f.ffn_dim_multiplier) /
                         (f.moe.top_k + f.moe.shared_experts);
  return round_up(hidden, f.multiple_of);
}

int64_t dense_ffn_hidden(const Flavor& f) {
  return f.ffn_hidden > 0 ? f.ffn_hidden
                          : llama_ffn_hidden(f.dim, f.multiple_of, f.ffn_dim_multiplier);
}

}  // namespace ndsearch::plugins::torchtitan

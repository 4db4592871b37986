// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/torchtitan_toml/model_shapes.hpp"

#include <string>

namespace ndsearch::plugins::torchtitan {
namespace {

// Provenance of a shape value: the model.flavor line of the job file.
class FlavorSource {
 public:
  FlavorSource(const JobFile& job, const Flavor& f) : job_(job), flavor_(f) {}

  sdk::Where operator()(const char* what) const {
    sdk::Where w = job_.where(job_.find("model.flavor") != nullptr ? "model.flavor" : "model.name");
    w.field = std::string("model.flavor = \"") + flavor_.flavor + "\" -> " + what + " (" +
              flavor_.source + ")";
    return w;
  }

 private:
  const JobFile& job_;
  const Flavor& flavor_;
};

bool is_moe_layer(const Flavor& f, int64_t layer) {
  return f.moe.experts > 0 && layer >= f.moe.first_dense && (layer + 1) % f.moe.every == 0;
}

// One run of `layers` layers of one kind: the keys every TorchTitan decoder
// layer shares, then its MLP (dense SwiGLU or routed experts).
void layer_block(const Flavor& f, bool moe, int64_t layers, const FlavorSource& from,
                 sdk::Builder& b) {
  b.begin_block("decoder", layers, from(moe ? "MoE layers" : "dense layers"));
  b.set("hidden_size", f.dim, from("dim"));
  b.set("heads", f.heads, from("n_heads"));
  if (f.kv_heads > 0) b.set("kv_heads", f.kv_heads, from("n_kv_heads"));
  if (f.head_dim > 0) b.set("head_dim", f.head_dim, from("head_dim"));
  if (f.mla.kv_lora_rank > 0) {
    b.set_string("attention", "mla", from("multi-latent attention"));
    b.set("q_lora_rank", f.mla.q_lora_rank, from("q_lora_rank"));
    b.set("kv_lora_rank", f.mla.kv_lora_rank, from("kv_lora_rank"));
    b.set("qk_nope_head_dim", f.mla.qk_nope_head_dim, from("qk_nope_head_dim"));
    b.set("qk_rope_head_dim", f.mla.qk_rope_head_dim, from("qk_rope_head_dim"));
    b.set("v_head_dim", f.mla.v_head_dim, from("v_head_dim"));
  }
  b.set("qk_norm", f.qk_norm ? 1 : 0, from("qk_norm"));
  // TorchTitan's models: RMSNorm, SwiGLU (w1, w2, w3), no biases, no dropout.
  b.set_string("norm", "rmsnorm", from("RMSNorm"));
  b.set_string("ffn", "swiglu", from("SwiGLU feed-forward"));
  b.set("linear_bias", 0, from("no biases"));
  b.set("qkv_bias", 0, from("no biases"));
  b.set_real("hidden_dropout", 0, from("no dropout"));
  b.set_real("attention_dropout", 0, from("no dropout"));
  if (!moe) {
    b.set("ffn_hidden_size", dense_ffn_hidden(f),
          from(f.ffn_hidden > 0 ? "hidden_dim"
                                : "FFN width from dim, multiple_of and ffn_dim_multiplier"));
    b.set("experts", 0, from("dense layer"));
    b.set("grouped_gemm", 0, from("dense layer"));
  } else {
    b.set("ffn_hidden_size", 0, from("MoE layer, no dense MLP"));
    b.set("experts", f.moe.experts, from("num_experts"));
    b.set("experts_per_token", f.moe.top_k, from("top_k"));
    const int64_t expert_width = f.moe.hidden > 0 ? f.moe.hidden : llama4_moe_hidden(f);
    const char* width_from = f.moe.hidden > 0 ? "moe_inter_dim"
                                              : "expert width from dim, multiple_of, "
                                                "ffn_dim_multiplier, top_k and shared experts";
    b.set("moe_ffn_hidden_size", expert_width, from(width_from));
    b.set("shared_experts", f.moe.shared_experts, from("num_shared_experts"));
    if (f.moe.shared_experts > 0)
      b.set("shared_expert_ffn_hidden_size", expert_width, from(width_from));
    // Token-choice routing without token dropping; grouped GEMM (MoEArgs.use_grouped_mm).
    b.set_real("capacity_factor", 0, from("dropless token-choice routing"));
    b.set("grouped_gemm", 1, from("use_grouped_mm"));
  }
  b.end_block();
}

}  // namespace

void build_model(const JobFile& job, const Flavor& f, sdk::Builder& b) {
  const FlavorSource from(job, f);
  b.set_string("name", std::string(f.model) + " " + f.flavor,
               job.find("model.name") != nullptr ? job.where("model.name") : torchtitan_default());
  b.set("vocab_size", f.vocab_size, from("vocab_size"));
  b.set("tied_embeddings", f.tied_embeddings ? 1 : 0, from("enable_weight_tying"));
  b.set_string("position_embedding", "rope", from("RoPE"));
  // Attention runs through SDPA (flash or memory-efficient kernels) or FlexAttention.
  b.set("flash_attention", 1, torchtitan_default());
  // Runs of consecutive layers of one kind, in model order.
  int64_t start = 0;
  for (int64_t layer = 1; layer <= f.layers; ++layer) {
    if (layer == f.layers || is_moe_layer(f, layer) != is_moe_layer(f, start)) {
      layer_block(f, is_moe_layer(f, start), layer - start, from, b);
      start = layer;
    }
  }
}

}  // namespace ndsearch::plugins::torchtitan

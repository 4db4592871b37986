// SPDX-License-Identifier: Apache-2.0
#include "core/model/finalize.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>

#include "core/model/model_json.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/towers.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr int64_t U = NDS_UNKNOWN;

// Where a block's key came from, for messages.
std::string from(const ModelBlock& b, const char* key) {
  auto it = b.provenance.find(key);
  return it == b.provenance.end() ? std::string("(not stated)") : it->second;
}

[[noreturn]] void shape_error(const Model& m, const std::string& what) {
  throw UserError("E-MODEL-SHAPE", fmt::format("{}: {}", m.file, what));
}

template <class T, class V>
void derive(ModelBlock& b, T& field, V value, const char* key, const std::string& why) {
  field = static_cast<T>(value);
  b.provenance[key] = "derived: " + why;
}

// The block's width and attention: what must be stated, and what follows
// from it (kv_heads, the attention kind, head dims; MLA's or not).
void finalize_attention(Model& m, ModelBlock& b, const std::string& where) {
  nds_layer_block& c = b.c;
  if (c.hidden_size == U || c.hidden_size == 0)
    shape_error(
        m,
        fmt::format("a block{} has no hidden_size; the config must state the model width", where));
  if (c.heads == U || c.heads == 0)
    shape_error(m,
                fmt::format("a block{} has no attention heads; the config must state them", where));
  const bool mla = c.attention == NDS_ATTENTION_MLA || (c.attention == U && c.kv_lora_rank > 0);
  if (c.kv_heads == U)
    derive(b, c.kv_heads, c.heads, "kv_heads",
           "kv_heads = heads (no grouped-query attention stated)");
  if (c.kv_heads == 0 || c.heads % c.kv_heads != 0)
    shape_error(
        m,
        fmt::format("kv_heads = {} ({}) does not divide heads = {} ({}); grouped-query attention "
                    "shares each KV head among heads / kv_heads query heads",
                    c.kv_heads, from(b, "kv_heads"), c.heads, from(b, "heads")));
  if (c.attention == U)
    derive(b, c.attention,
           mla ? NDS_ATTENTION_MLA : (c.kv_heads < c.heads ? NDS_ATTENTION_GQA : NDS_ATTENTION_MHA),
           "attention", mla ? "mla (kv_lora_rank stated)" : "from heads and kv_heads");
  if (mla) {
    for (auto [field, key] : {std::pair{&c.kv_lora_rank, "kv_lora_rank"},
                              {&c.qk_nope_head_dim, "qk_nope_head_dim"},
                              {&c.qk_rope_head_dim, "qk_rope_head_dim"},
                              {&c.v_head_dim, "v_head_dim"}})
      if (*field == U)
        shape_error(
            m, fmt::format("multi-latent attention needs {}; the config does not state it", key));
    if (c.q_lora_rank == U)
      derive(b, c.q_lora_rank, int64_t{0}, "q_lora_rank", "0 (queries not compressed)");
    if (c.head_dim == U)
      derive(b, c.head_dim, c.qk_nope_head_dim + c.qk_rope_head_dim, "head_dim",
             "qk_nope_head_dim + qk_rope_head_dim");
  } else {
    if (c.head_dim == U) {
      if (c.hidden_size % c.heads != 0)
        shape_error(
            m,
            fmt::format("heads = {} ({}) does not divide hidden_size = {} ({}) and no head_dim is "
                        "stated; state head_dim or fix the head count",
                        c.heads, from(b, "heads"), c.hidden_size, from(b, "hidden_size")));
      derive(b, c.head_dim, c.hidden_size / c.heads, "head_dim", "hidden_size / heads");
    }
    for (auto [field, key] : {std::pair{&c.q_lora_rank, "q_lora_rank"},
                              {&c.kv_lora_rank, "kv_lora_rank"},
                              {&c.qk_nope_head_dim, "qk_nope_head_dim"},
                              {&c.qk_rope_head_dim, "qk_rope_head_dim"}})
      if (*field == U) derive(b, *field, int64_t{0}, key, "0 (no multi-latent attention)");
    if (c.v_head_dim == U) derive(b, c.v_head_dim, c.head_dim, "v_head_dim", "head_dim");
  }
}

// The block's experts: routed (top-k and FFN size stated), shared, and the
// dense MLP a MoE layer does not have.
void finalize_experts(Model& m, ModelBlock& b) {
  nds_layer_block& c = b.c;
  if (c.experts == U)
    derive(b, c.experts, int64_t{0}, "experts", "0 (no routed experts stated: a dense layer)");
  if (c.experts == 0) {
    for (auto [field, key] : {std::pair{&c.experts_per_token, "experts_per_token"},
                              {&c.moe_ffn_hidden_size, "moe_ffn_hidden_size"}})
      if (*field == U) derive(b, *field, int64_t{0}, key, "0 (a dense layer)");
  } else {
    if (c.experts_per_token == U || c.experts_per_token == 0)
      shape_error(m, fmt::format("a MoE block ({} experts) states no experts per token (top-k)",
                                 c.experts));
    if (c.experts_per_token > c.experts)
      shape_error(
          m, fmt::format(
                 "experts_per_token = {} ({}) is more than experts = {} ({}); a token is routed "
                 "to at most all experts",
                 c.experts_per_token, from(b, "experts_per_token"), c.experts, from(b, "experts")));
    if (c.moe_ffn_hidden_size == U)
      shape_error(
          m, fmt::format("a MoE block ({} experts) states no expert FFN size (moe_ffn_hidden_size)",
                         c.experts));
  }
  if (c.shared_experts == U)
    derive(b, c.shared_experts, int64_t{0}, "shared_experts", "0 (none stated)");
  if (c.shared_experts == 0 && c.shared_expert_ffn_hidden_size == U)
    derive(b, c.shared_expert_ffn_hidden_size, int64_t{0}, "shared_expert_ffn_hidden_size",
           "0 (no shared expert)");
  if (c.ffn_hidden_size == U && c.experts > 0)
    derive(b, c.ffn_hidden_size, int64_t{0}, "ffn_hidden_size", "0 (a MoE layer has no dense MLP)");
}

void finalize_block(Model& m, ModelBlock& b, const std::string& part_name) {
  nds_layer_block& c = b.c;
  const std::string where = part_name.empty() ? "" : " of " + part_name;
  finalize_attention(m, b, where);
  finalize_experts(m, b);
  // Grouped GEMM is how experts run, not what they weigh: off unless stated.
  if (c.grouped_gemm == U) derive(b, c.grouped_gemm, int32_t{0}, "grouped_gemm", "0 (not stated)");
  // Flags that change the parameter count and that a config leaves unstated
  // count as "off"; say so, once per model part.
  for (auto [field, key] : {std::pair{&c.qk_norm, "qk_norm"},
                            {&c.linear_bias, "linear_bias"},
                            {&c.qkv_bias, "qkv_bias"}}) {
    if (*field != U) continue;
    derive(b, *field, int32_t{0}, key, "0 (not stated)");
    const std::string warning =
        fmt::format("{}: {}{} is not stated; counted as 0 (off)", m.file, key, where);
    if (std::find(m.warnings.begin(), m.warnings.end(), warning) == m.warnings.end())
      m.warnings.push_back(warning);
  }
}

// A value the config itself states: not a trainer's default, not derived and
// not a command-line flag.
bool stated_by_config(const Model& m, const char* key) {
  auto it = m.training_provenance.find(key);
  if (it == m.training_provenance.end()) return false;
  const std::string& from = it->second;
  return from.rfind("default:", 0) != 0 && from.rfind("derived", 0) != 0 && from.rfind("-", 0) != 0;
}

// The precision recipe's settings a config may leave unstated (ABI 1.1).
void finalize_precision(Model& m) {
  nds_training& t = m.training;
  auto& provenance = m.training_provenance;
  if (t.compute_dtype != NDS_DTYPE_FP8) {
    // The recipe only says how fp8 GEMMs scale: none without fp8 GEMMs.
    // Megatron-LM, too, reads --fp8-recipe only when --fp8-format turns fp8 on.
    auto stated = provenance.find("fp8_recipe");
    if (stated != provenance.end() && t.fp8_recipe != NDS_FP8_NONE)
      stated->second = fmt::format(
          "derived: none (compute_dtype is not fp8; the recipe stated at {} is not used)",
          stated->second);
    else if (stated == provenance.end())
      provenance["fp8_recipe"] = "derived: none (compute_dtype is not fp8)";
    t.fp8_recipe = NDS_FP8_NONE;
  } else {
    if (t.fp8_recipe == NDS_FP8_NONE) {
      // Megatron-LM's --fp8-recipe default, Transformer Engine's DelayedScaling.
      t.fp8_recipe = NDS_FP8_DELAYED;
      provenance["fp8_recipe"] =
          "default:megatron (delayed, Megatron-LM's default recipe; no fp8 recipe stated)";
    }
    // fp8 GEMMs with fp8 parameters the config did not state as such (a flag
    // or default saying "fp8" for everything): the recipes keep bf16
    // parameters and cast them per GEMM; fp8 primary weights must be stated
    // (Megatron-LM's --fp8-param-gather).
    if (t.params_dtype == NDS_DTYPE_FP8 && !stated_by_config(m, "params_dtype")) {
      t.params_dtype = NDS_DTYPE_BF16;
      provenance["params_dtype"] =
          "derived: bf16 (fp8 GEMMs cast bf16 parameters; fp8 primary weights are not stated, as "
          "with "
          "Megatron-LM's --fp8-param-gather)";
    }
  }
  if (t.activation_dtype == NDS_DTYPE_UNKNOWN && t.compute_dtype != NDS_DTYPE_UNKNOWN) {
    if (t.compute_dtype == NDS_DTYPE_FP8) {
      // Transformer Engine (Megatron-LM, NeMo) and TorchTitan's float8 run
      // only the GEMMs in fp8: the activations kept for backward and the
      // TP/CP/PP collectives stay bf16 (NVIDIA NeMo, "Mixed Precision
      // Training"; DeepSeek-V3 report §3.3.1 caches only some in fp8).
      t.activation_dtype = NDS_DTYPE_BF16;
      provenance["activation_dtype"] =
          "derived: bf16 (fp8 GEMMs keep bf16 activations and collectives: Transformer Engine, "
          "torchao float8)";
    } else {
      t.activation_dtype = t.compute_dtype;
      provenance["activation_dtype"] = "derived: compute_dtype";
    }
  }
}

}  // namespace

void finalize_model(Model& m) {
  check_model_limits(m);  // first: what follows sums and multiplies these values
  if (m.decoder_layers() == 0) {
    throw UserError(
        "E-PARSE-NO-MODEL",
        fmt::format("{}: describes no model (no layers found by {}); give a model config "
                    "(a training YAML, launch script, TOML or config.json), not a tool's settings, "
                    "or the model's shape in a Hugging Face config.json with {}",
                    m.file, m.framework, Setting("model_config").named()));
  }
  for (ModelBlock& b : m.main.blocks) finalize_block(m, b, "");
  for (ModelPart& tower : m.submodels)
    for (ModelBlock& b : tower.blocks) finalize_block(m, b, tower.name);
  finalize_precision(m);
  m.tower_layer_ratio = tower_layer_ratio(m);
  // Values a model needs whose absence is worth a warning (DESIGN §8.5: null, not 0).
  auto unknown = [&](bool missing, const char* key, const Setting& setting) {
    if (missing)
      m.warnings.push_back(
          fmt::format("{}: {} is unknown (null); set {} if needed", m.file, key, setting.named()));
  };
  unknown(m.main.vocab_size == U, "vocab_size", Setting("vocab_size"));
  unknown(m.training.seq_len == U, "seq_len", Setting("seq_len"));
  unknown(m.training.global_batch == U, "global_batch", Setting("global_batch"));
  // Image tokens price a tower's work; a text model has none to give them to.
  if (m.submodels.empty() && (m.training.image_tokens != U || m.training.images_per_sample != U))
    m.warnings.push_back(
        fmt::format("{}: {} describes no vision tower; the image tokens are priced as the "
                    "text tokens they stand in for",
                    m.file, m.display_name()));
  // A stated schedule its stated chunks cannot run: said, not silently replaced.
  const nds_strategy& st = m.stated;
  if (st.schedule != U && runs_two_chunks(st.schedule) && st.vpp != U && st.vpp != 2 && st.pp != 1)
    m.warnings.push_back(
        fmt::format("{}: the config states the {} schedule with vpp = {}; {} runs two chunks "
                    "per rank, so strategies with vpp = {} are priced with {} and only "
                    "vpp = 2 with {}",
                    m.file, schedule_name(st.schedule), st.vpp, schedule_name(st.schedule), st.vpp,
                    st.vpp > 1 ? "interleaved 1F1B" : "1F1B", schedule_name(st.schedule)));
  if (st.schedule == NDS_SCHEDULE_INTERLEAVED && st.vpp == 1 &&
      st.pp != 1)  // pp 1: no pipeline to schedule
    m.warnings.push_back(
        fmt::format("{}: the config states the interleaved schedule with vpp = 1; one chunk per "
                    "rank runs 1F1B, and the interleaved schedule is priced only where vpp > 1",
                    m.file));
}

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/hf_config.hpp"

#include "plugins/common/parsing/read_limits.hpp"

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace ndsearch::plugins {
namespace {

using nlohmann::json;

// Keys of HF configs that bear on no training cost (token ids, RoPE
// frequencies, inference caching, initialisation, router loss weights...).
const std::set<std::string> kIgnored = {
    "_name_or_path", "architectures", "auto_map", "model_type", "transformers_version",
    "torch_dtype", "dtype", "bos_token_id", "eos_token_id", "pad_token_id", "initializer_range",
    "rms_norm_eps", "layer_norm_epsilon", "layer_norm_eps", "rope_theta", "rope_scaling",
    "rope_parameters", "use_cache", "output_router_logits", "router_aux_loss_coef",
    "router_z_loss_coef", "norm_topk_prob", "scoring_func", "routed_scaling_factor", "topk_method",
    "ep_size", "aux_loss_alpha", "seq_aux", "sliding_window", "use_sliding_window",
    "max_window_layers", "image_token_id", "video_token_id", "vision_start_token_id",
    "vision_end_token_id", "vision_token_id", "attn_logit_softcapping", "final_logit_softcapping",
    "summary_activation", "summary_first_dropout", "summary_proj_to_labels", "summary_type",
    "summary_use_proj", "task_specific_params", "scale_attn_weights",
    "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "n_ctx", "pretraining_tp",
    "quantization_config", "embd_pdrop", "num_nextn_predict_layers_shared", "tokenizer_class",
    "rope_type", "partial_rotary_factor", "attention_bias", "mlp_bias",
    // vision towers
    "in_chans", "in_channels", "patch_size", "spatial_merge_size", "spatial_patch_size",
    "temporal_patch_size", "window_size", "fullatt_block_indexes", "tokens_per_second",
    "out_hidden_size", "deepstack_visual_indexes", "num_position_embeddings"};

// Model types whose MLP has two matrices (up, down), not a gated three.
const std::set<std::string> kUngated = {"gpt2", "gpt_neox", "gptj", "opt", "bloom", "phi"};

// A value as an error shows it: a scalar (cut to ~80 bytes), or what kind of
// container it is. Never dump a container: it may be huge, or deep enough
// that a recursive dump runs out of stack.
std::string preview(const json& v) {
  if (v.is_array()) return "(a list of " + std::to_string(v.size()) + " items)";
  if (v.is_object()) return "(an object of " + std::to_string(v.size()) + " keys)";
  return sdk::shown(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// The largest whole number a JSON double carries exactly (2^53).
constexpr double kMaxExactDouble = 9007199254740992.0;

class Reader {
 public:
  Reader(const json& config, const HfSource& source, sdk::Builder& b, std::string prefix)
      : c_(config), source_(source), b_(b), prefix_(std::move(prefix)) {}

  sdk::Where at(const std::string& key) const {
    const std::string field = source_.field_prefix + prefix_ + key;
    int64_t line = NDS_UNKNOWN;
    if (source_.line_of != nullptr) line = source_.line_of(prefix_ + key, source_.context);
    return {source_.file, line, field, ""};
  }
  sdk::Where defaulted() const { return {"", NDS_UNKNOWN, "", source_.trainer}; }
  // Where a key's value came from, or the trainer's default when it is absent.
  sdk::Where at_or_default(const std::string& key) const {
    return has(key) ? at(key) : defaulted();
  }

  // NDS_OUT_OF_RANGE (E-PARSE-VALUE) for a number field's bad number,
  // NDS_INVALID_ARGUMENT (E-PARSE-FIELD) for a value of the wrong kind.
  [[noreturn]] void bad(const std::string& key, const std::string& expected,
                        nds_status_code code = NDS_INVALID_ARGUMENT) const {
    const sdk::Where w = at(key);
    throw sdk::Error(code, source_.file + (w.line > 0 ? ":" + std::to_string(w.line) : "") + ": `" +
                               w.field + "` = " + preview(c_[key]) + ": expected " + expected);
  }

  bool has(const std::string& key) const { return c_.contains(key) && !c_[key].is_null(); }

  std::optional<int64_t> integer(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    const json& v = c_[key];
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
      bad(key, "a whole number >= 0 that fits in 64 bits", NDS_OUT_OF_RANGE);
    if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<int64_t>();
    if (v.is_number_float() && v.get<double>() >= 0 && v.get<double>() <= kMaxExactDouble &&
        std::floor(v.get<double>()) == v.get<double>())
      return static_cast<int64_t>(v.get<double>());
    bad(key, "a whole number >= 0", v.is_number() ? NDS_OUT_OF_RANGE : NDS_INVALID_ARGUMENT);
  }
  std::optional<double> real(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    if (!c_[key].is_number()) bad(key, "a number");
    return c_[key].get<double>();
  }
  std::optional<bool> boolean(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    if (!c_[key].is_boolean()) bad(key, "true or false");
    return c_[key].get<bool>();
  }
  std::optional<std::string> text(const std::string& key) const {
    if (!has(key)) return std::nullopt;
    if (!c_[key].is_string()) bad(key, "a string");
    return c_[key].get<std::string>();
  }
  // The first of `keys` the config has (HF names differ by model family).
  std::optional<std::pair<std::string, int64_t>> first_integer(
      std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (auto v = integer(k)) return std::pair<std::string, int64_t>{k, *v};
    return std::nullopt;
  }
  std::vector<int64_t> integers(const std::string& key) const {
    std::vector<int64_t> values;
    if (!has(key)) return values;
    if (!c_[key].is_array()) bad(key, "a list of whole numbers");
    for (const json& v : c_[key]) {
      if (!v.is_number_integer()) bad(key, "a list of whole numbers");
      if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
        bad(key, "a list of whole numbers that fit in 64 bits", NDS_OUT_OF_RANGE);
      values.push_back(v.get<int64_t>());
    }
    return values;
  }

  // Every key not in `handled` nor kIgnored is reported as not understood.
  void report_unknown(const std::set<std::string>& handled) const {
    for (const auto& [key, value] : c_.items()) {
      if (handled.count(key) != 0 || kIgnored.count(key) != 0) continue;
      if (key == "text_config" || key == "vision_config") continue;
      b_.unknown_field(at(key));
    }
  }

  const json& c_;
  const HfSource& source_;
  sdk::Builder& b_;
  std::string prefix_;  // "text_config." when reading a nested config
};

struct Shape {
  std::string model_type;
  bool gated = true;
  bool moe = false;
};

// Sets the attention, norm and bias keys of the open block.
void set_attention(const Reader& r, sdk::Builder& b, const Shape& s) {
  if (auto h = r.first_integer({"hidden_size", "n_embd"}))
    b.set("hidden_size", h->second, r.at(h->first));
  if (auto v = r.first_integer({"num_attention_heads", "n_head", "num_heads"}))
    b.set("heads", v->second, r.at(v->first));
  if (auto v = r.integer("num_key_value_heads")) b.set("kv_heads", *v, r.at("num_key_value_heads"));
  if (auto v = r.integer("head_dim")) b.set("head_dim", *v, r.at("head_dim"));
  if (r.has("kv_lora_rank")) {
    b.set_string("attention", "mla", r.at("kv_lora_rank"));
    b.set("q_lora_rank", r.integer("q_lora_rank").value_or(0),
          r.at("q_lora_rank"));  // null: not compressed
    for (const char* key : {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
      if (auto v = r.integer(key)) b.set(key, *v, r.at(key));
  }
  const bool qwen3 = s.model_type.rfind("qwen3", 0) == 0;
  b.set("qk_norm", qwen3 ? 1 : 0, qwen3 ? r.at_or_default("model_type") : r.defaulted());
  const bool layernorm = r.has("layer_norm_epsilon") || r.has("layer_norm_eps");
  b.set_string("norm", layernorm ? "layernorm" : "rmsnorm",
               r.at_or_default(layernorm ? (r.has("layer_norm_epsilon") ? "layer_norm_epsilon"
                                                                        : "layer_norm_eps")
                                         : "rms_norm_eps"));
  // Biases on every linear layer: GPT-2's, or an MLP with biases (mlp_bias;
  // its attention then counts biases too, at most h + 3·head_dim·heads extra).
  const bool gpt2 = s.model_type == "gpt2";
  const bool mlp_bias = r.boolean("mlp_bias").value_or(false);
  b.set("linear_bias", gpt2 || mlp_bias ? 1 : 0,
        mlp_bias ? r.at("mlp_bias") : (gpt2 ? r.at_or_default("model_type") : r.defaulted()));
  // Qwen2 and Qwen2.5 put biases on Q, K and V (their attention code, not a
  // config key); others say so with attention_bias.
  const bool qwen2 = s.model_type.rfind("qwen2", 0) == 0;
  const bool attention_bias = r.boolean("attention_bias").value_or(false);
  b.set("qkv_bias", qwen2 || attention_bias ? 1 : 0,
        attention_bias ? r.at("attention_bias")
                       : (qwen2 ? r.at_or_default("model_type") : r.defaulted()));
  if (auto v = r.real("attention_dropout"))
    b.set_real("attention_dropout", *v, r.at("attention_dropout"));
  else if (auto v = r.real("attn_pdrop"))
    b.set_real("attention_dropout", *v, r.at("attn_pdrop"));
  if (auto v = r.real("hidden_dropout"))
    b.set_real("hidden_dropout", *v, r.at("hidden_dropout"));
  else if (auto v = r.real("resid_pdrop"))
    b.set_real("hidden_dropout", *v, r.at("resid_pdrop"));
}

void set_ffn_kind(const Reader& r, sdk::Builder& b, const Shape& s) {
  const char* act_key = r.has("hidden_act") ? "hidden_act" : "activation_function";
  b.set_string("ffn", s.gated ? "swiglu" : "gelu",
               r.has(act_key) ? r.at(act_key) : r.at_or_default("model_type"));
}

// A decoder (or MTP) block: dense MLP of intermediate_size, or MoE.
void layer_block(const Reader& r, sdk::Builder& b, const Shape& s, const char* kind, int64_t layers,
                 const sdk::Where& where, bool moe) {
  b.begin_block(kind, layers, where);
  set_attention(r, b, s);
  set_ffn_kind(r, b, s);
  if (!moe) {
    if (auto v = r.integer("intermediate_size")) {
      b.set("ffn_hidden_size", *v, r.at("intermediate_size"));
    } else if (r.has("n_inner") || s.model_type == "gpt2") {
      if (auto inner = r.integer("n_inner"))
        b.set("ffn_hidden_size", *inner, r.at("n_inner"));
      else if (auto h = r.first_integer({"n_embd", "hidden_size"}))
        b.set("ffn_hidden_size", 4 * h->second,
              r.at("n_inner"));  // GPT-2: n_inner null means 4 x n_embd
    }
  } else {
    const auto experts = r.first_integer({"n_routed_experts", "num_local_experts", "num_experts"});
    b.set("experts", experts->second, r.at(experts->first));
    if (auto v = r.integer("num_experts_per_tok"))
      b.set("experts_per_token", *v, r.at("num_experts_per_tok"));
    // DeepSeek-V3's node-limited routing (ABI 1.13): experts in n_group
    // groups, each token's from at most topk_group of them.
    if (auto g = r.integer("n_group"); g && *g > 1) {
      b.set("router_groups", *g, r.at("n_group"));
      if (auto k = r.integer("topk_group")) b.set("router_group_topk", *k, r.at("topk_group"));
    }
    // Mixtral: every layer is MoE and intermediate_size is the expert's width.
    if (auto v = r.integer("moe_intermediate_size"))
      b.set("moe_ffn_hidden_size", *v, r.at("moe_intermediate_size"));
    else if (auto v = r.integer("intermediate_size"))
      b.set("moe_ffn_hidden_size", *v, r.at("intermediate_size"));
    b.set("ffn_hidden_size", 0, where);
    if (auto shared = r.integer("n_shared_experts"); shared && *shared > 0) {
      // DeepSeek: each shared expert is as wide as a routed one.
      b.set("shared_experts", *shared, r.at("n_shared_experts"));
      if (auto v = r.integer("moe_intermediate_size"))
        b.set("shared_expert_ffn_hidden_size", *v, r.at("moe_intermediate_size"));
    } else if (auto v = r.integer("shared_expert_intermediate_size"); v && *v > 0) {
      b.set("shared_experts", 1,
            r.at("shared_expert_intermediate_size"));  // Qwen2-MoE: one, this wide
      b.set("shared_expert_ffn_hidden_size", *v, r.at("shared_expert_intermediate_size"));
    }
  }
  if (r.source_.extra_block_keys != nullptr) r.source_.extra_block_keys(b, r.source_.context);
  b.end_block();
}

// Which layers are MoE: DeepSeek (first_k_dense_replace, moe_layer_freq: layer
// i >= k with i % freq == 0) or Qwen-MoE (decoder_sparse_step, mlp_only_layers:
// i not listed with (i + 1) % step == 0), else all when experts are stated.
std::vector<bool> moe_layers(const Reader& r, int64_t layers) {
  std::vector<bool> moe(static_cast<size_t>(layers), false);
  if (!r.first_integer({"n_routed_experts", "num_local_experts", "num_experts"}).has_value())
    return moe;
  if (r.first_integer({"n_routed_experts", "num_local_experts", "num_experts"})->second == 0)
    return moe;
  const int64_t first_k = r.integer("first_k_dense_replace").value_or(0);
  const int64_t freq = std::max<int64_t>(1, r.integer("moe_layer_freq").value_or(1));
  const int64_t step = std::max<int64_t>(1, r.integer("decoder_sparse_step").value_or(1));
  const std::vector<int64_t> listed = r.integers("mlp_only_layers");
  const std::set<int64_t> mlp_only(listed.begin(), listed.end());
  for (int64_t i = 0; i < layers; ++i)
    moe[static_cast<size_t>(i)] =
        i >= first_k && i % freq == 0 && (i + 1) % step == 0 && mlp_only.count(i) == 0;
  return moe;
}

void read_language(const Reader& r, const json& top, sdk::Builder& b, const Shape& shape) {
  const auto layers = r.first_integer({"num_hidden_layers", "n_layer"});
  if (!layers) return;                 // no layers: the core reports a file that describes no model
  if (layers->second > kMaxCountRead)  // before the per-layer table below
    r.bad(layers->first,
          "at most " + std::to_string(kMaxCountRead) + " layers (ndsearch reads no more)",
          NDS_OUT_OF_RANGE);
  const std::vector<bool> moe = moe_layers(r, layers->second);
  for (size_t start = 0; start < moe.size();) {
    size_t end = start;
    while (end < moe.size() && moe[end] == moe[start]) ++end;
    sdk::Where where = r.at(layers->first);
    if (moe[start])
      where = r.at(r.has("first_k_dense_replace") ? "first_k_dense_replace" : layers->first);
    layer_block(r, b, shape, "decoder", static_cast<int64_t>(end - start), where, moe[start]);
    start = end;
  }
  if (auto mtp = r.integer("num_nextn_predict_layers"); mtp && *mtp > 0)
    layer_block(r, b, shape, "mtp", *mtp, r.at("num_nextn_predict_layers"), shape.moe);
  if (auto v = r.integer("vocab_size")) b.set("vocab_size", *v, r.at("vocab_size"));
  if (auto v = r.first_integer({"max_position_embeddings", "n_positions"}))
    b.set("max_position_embeddings", v->second, r.at(v->first));
  b.set_string("position_embedding", shape.model_type == "gpt2" ? "learned" : "rope",
               shape.model_type == "gpt2" ? r.at_or_default("model_type") : r.defaulted());
  // tie_word_embeddings may sit at the top of a VL config; absent, the config
  // class's default: PretrainedConfig's True for GPT-2, False for the Llama,
  // Qwen, Mixtral and DeepSeek classes.
  if (auto tied = r.boolean("tie_word_embeddings")) {
    b.set("tied_embeddings", *tied ? 1 : 0, r.at("tie_word_embeddings"));
  } else if (top.contains("tie_word_embeddings") && top["tie_word_embeddings"].is_boolean()) {
    b.set("tied_embeddings", top["tie_word_embeddings"].get<bool>() ? 1 : 0,
          {r.source_.file,
           r.source_.line_of ? r.source_.line_of("tie_word_embeddings", r.source_.context)
                             : NDS_UNKNOWN,
           r.source_.field_prefix + "tie_word_embeddings", ""});
  } else {
    b.set("tied_embeddings", shape.model_type == "gpt2" ? 1 : 0, r.defaulted());
  }
}

// The product of a tower's sizes, refused (naming `key`) past 2^40: the
// core's limits then name the value, never a wrapped one.
int64_t checked_product(const Reader& r, const std::string& key,
                        std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(product, f, &product) || product > (int64_t{1} << 40))
      r.bad(key, "a size whose product with the others stays below 2^40", NDS_OUT_OF_RANGE);
  return product;
}

// The tower's encoder layers: one block, or, where some layers attend within
// windows (Qwen2.5-VL: window_size pixels a side, the rest listed in
// fullatt_block_indexes), a block per run of windowed or full layers.
void read_vision_layers(const Reader& r, sdk::Builder& b, const std::string& model_type,
                        const std::pair<std::string, int64_t>& depth, bool gated) {
  const int64_t layers = depth.second;
  // Bounded before a list of them is made (the core's limit on layers).
  if (layers > 100000) r.bad(depth.first, "at most 100000 layers", NDS_OUT_OF_RANGE);
  const std::vector<int64_t> full = r.integers("fullatt_block_indexes");
  for (int64_t i : full)
    if (i < 0 || i >= layers)
      r.bad("fullatt_block_indexes",
            "layer indexes below `" + depth.first + "` = " + std::to_string(layers),
            NDS_OUT_OF_RANGE);
  int64_t window = 0;  // keys per query of a windowed layer, in patches
  if (auto pixels = r.integer("window_size"); pixels && !full.empty()) {
    const int64_t patch =
        r.integer("patch_size").value_or(r.integer("spatial_patch_size").value_or(0));
    if (patch <= 0)
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       r.source_.file + ": `" + r.at("window_size").field +
                           "` is in pixels and needs `patch_size` (>= 1) to be read in patches");
    const int64_t side = *pixels / patch;
    window = checked_product(r, "window_size", {side, side});
  }
  auto block = [&](int64_t count, int64_t attention_window) {
    b.begin_block("encoder", count, r.at(depth.first));
    // Qwen2-VL names the tower's width embed_dim and the language model's hidden_size.
    if (auto h = r.first_integer({"embed_dim", "hidden_size"}))
      b.set("hidden_size", h->second, r.at(h->first));
    if (auto v = r.first_integer({"num_heads", "num_attention_heads"}))
      b.set("heads", v->second, r.at(v->first));
    b.set_string("ffn", gated ? "swiglu" : "gelu", r.at_or_default("hidden_act"));
    if (auto v = r.integer("intermediate_size")) {
      b.set("ffn_hidden_size", *v, r.at("intermediate_size"));
    } else if (auto ratio = r.real("mlp_ratio"); ratio && r.integer("embed_dim")) {
      // Qwen2-VL states its MLP as a multiple of embed_dim.
      const double width = static_cast<double>(*r.integer("embed_dim")) * *ratio;
      if (!(width >= 0 && width < 1e12))
        r.bad("mlp_ratio", "a ratio giving an MLP width below 10^12", NDS_OUT_OF_RANGE);
      b.set("ffn_hidden_size", static_cast<int64_t>(width), r.at("mlp_ratio"));
    }
    // Both Qwen VL towers have biases on every linear layer; Qwen2.5-VL's norms
    // are RMSNorm, Qwen3-VL's LayerNorm (their modelling code).
    b.set("linear_bias", 1, r.at_or_default("model_type"));
    b.set("qkv_bias", 0, r.at_or_default("model_type"));  // covered by linear_bias
    b.set("qk_norm", 0, r.at_or_default("model_type"));
    b.set_string("norm", model_type == "qwen2_5_vl" ? "rmsnorm" : "layernorm",
                 r.at_or_default("model_type"));
    if (attention_window > 0) b.set("attention_window", attention_window, r.at("window_size"));
    b.end_block();
  };
  if (window == 0) {
    block(layers, 0);
    return;
  }
  std::vector<bool> is_full(static_cast<size_t>(layers), false);
  for (int64_t i : full) is_full[static_cast<size_t>(i)] = true;
  for (int64_t first = 0; first < layers;) {
    int64_t end = first + 1;
    while (end < layers && is_full[static_cast<size_t>(end)] == is_full[static_cast<size_t>(first)])
      ++end;
    block(end - first, is_full[static_cast<size_t>(first)] ? 0 : window);
    first = end;
  }
}

void read_vision(const Reader& r, sdk::Builder& b, const std::string& model_type) {
  const auto depth = r.first_integer({"depth", "num_hidden_layers"});
  if (!depth) return;
  b.begin_submodel("vision", r.at(depth->first));
  const std::string act = r.text("hidden_act").value_or("");
  const bool gated =
      act == "silu" || act == "swish";  // Qwen2.5-VL's vision MLP is gated; Qwen3-VL's is not
  read_vision_layers(r, b, model_type, *depth, gated);
  // The patch embedding: a Conv3d over channels x temporal_patch_size x
  // patch_size^2 with the kernel as stride, so one linear per patch; Qwen3-VL's
  // has a bias, Qwen2-VL's and Qwen2.5-VL's not (their modelling code).
  const auto channels = r.first_integer({"in_chans", "in_channels"});
  const auto patch = r.first_integer({"patch_size", "spatial_patch_size"});
  if (channels && patch) {
    const int64_t temporal = r.integer("temporal_patch_size").value_or(1);
    b.set("patch_inputs",
          checked_product(r, patch->first,
                          {channels->second, temporal, patch->second, patch->second}),
          r.at(patch->first));
    b.set("patch_bias", model_type.rfind("qwen3", 0) == 0 ? 1 : 0, r.at_or_default("model_type"));
  }
  if (auto rows = r.integer("num_position_embeddings"))
    b.set("position_table", *rows, r.at("num_position_embeddings"));
  // The merger: spatial_merge_size^2 patches to one token of out_hidden_size;
  // Qwen3-VL adds one more per DeepStack layer (deepstack_visual_indexes).
  if (auto merge = r.integer("spatial_merge_size")) {
    b.set("merge_patches", checked_product(r, "spatial_merge_size", {*merge, *merge}),
          r.at("spatial_merge_size"));
    if (auto out = r.integer("out_hidden_size"))
      b.set("out_hidden_size", *out, r.at("out_hidden_size"));
    else if (r.has("embed_dim") && r.integer("hidden_size"))
      b.set("out_hidden_size", *r.integer("hidden_size"), r.at("hidden_size"));
    const int64_t deepstack = static_cast<int64_t>(r.integers("deepstack_visual_indexes").size());
    b.set("mergers", 1 + deepstack, r.at_or_default("deepstack_visual_indexes"));
  }
  b.end_submodel();
  r.report_unknown({"depth", "num_hidden_layers", "hidden_size", "embed_dim", "num_heads",
                    "num_attention_heads", "hidden_act", "intermediate_size", "model_type",
                    "initializer_range", "mlp_ratio"});
}

}  // namespace

bool looks_like_hf_model(const json& config) {
  if (!config.is_object()) return false;
  if (config.contains("model_type") || config.contains("architectures")) return true;
  return (config.contains("num_hidden_layers") || config.contains("n_layer")) &&
         (config.contains("hidden_size") || config.contains("n_embd"));
}

void read_hf_model(const json& config, const HfSource& source, sdk::Builder& b) {
  if (!config.is_object())
    throw sdk::Error(NDS_INVALID_ARGUMENT, source.file + ": expected a JSON object of model keys");
  const bool nested = config.contains("text_config") && config["text_config"].is_object();
  const json& language = nested ? config["text_config"] : config;
  Reader top(config, source, b, "");
  Reader r(language, source, b, nested ? "text_config." : "");
  Shape shape;
  shape.model_type = top.text("model_type").value_or(r.text("model_type").value_or(""));
  shape.gated = kUngated.count(shape.model_type) == 0;
  shape.moe = r.first_integer({"n_routed_experts", "num_local_experts", "num_experts"})
                  .value_or(std::pair<std::string, int64_t>{"", 0})
                  .second > 0;
  std::string name = shape.model_type;
  if (config.contains("architectures") && config["architectures"].is_array() &&
      !config["architectures"].empty() && config["architectures"][0].is_string())
    name = config["architectures"][0].get<std::string>();
  if (!name.empty())
    b.set_string("name", name,
                 top.at(config.contains("architectures") ? "architectures" : "model_type"));
  read_language(r, config, b, shape);
  r.report_unknown({"num_hidden_layers",
                    "n_layer",
                    "hidden_size",
                    "n_embd",
                    "num_attention_heads",
                    "n_head",
                    "num_key_value_heads",
                    "head_dim",
                    "q_lora_rank",
                    "kv_lora_rank",
                    "qk_nope_head_dim",
                    "qk_rope_head_dim",
                    "v_head_dim",
                    "hidden_act",
                    "activation_function",
                    "intermediate_size",
                    "n_inner",
                    "n_routed_experts",
                    "num_local_experts",
                    "num_experts",
                    "num_experts_per_tok",
                    "moe_intermediate_size",
                    "n_shared_experts",
                    "shared_expert_intermediate_size",
                    "first_k_dense_replace",
                    "moe_layer_freq",
                    "decoder_sparse_step",
                    "mlp_only_layers",
                    "num_nextn_predict_layers",
                    "n_group",
                    "topk_group",
                    "vocab_size",
                    "max_position_embeddings",
                    "n_positions",
                    "tie_word_embeddings",
                    "attention_dropout",
                    "attn_pdrop",
                    "hidden_dropout",
                    "resid_pdrop"});
  if (nested) top.report_unknown({"tie_word_embeddings"});
  if (config.contains("vision_config") && config["vision_config"].is_object()) {
    Reader vision(config["vision_config"], source, b, "vision_config.");
    read_vision(vision, b, shape.model_type);
  }
}

}  // namespace ndsearch::plugins

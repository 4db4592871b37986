// SPDX-License-Identifier: Apache-2.0
#include "core/model/builder.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <cmath>
#include <string_view>

#include "core/model/schedule_names.hpp"
#include "core/support/status.hpp"

namespace ndsearch {
namespace {

using Value = ModelBuilder::Value;

// The words of ModelBuilder::unknown's note between the key and the reason.
constexpr std::string_view kCannotBeKnown = " cannot be known from the file ";

enum class Scope { block, model, training };
enum class Kind {
  count,        // whole number >= 0
  degree,       // whole number >= 1 (a parallel degree)
  flag,         // 0 or 1
  real,         // >= 0
  fraction,     // in [0, 1]
  choice,       // one of `choices`, a string
  text,         // any string
  list,         // whole numbers >= 0
  signed_list,  // whole numbers of any sign (offsets)
  ops           // comma-separated selective recompute ops
};

struct Choice {
  std::string_view name;
  int32_t value;
};

using Apply = void (*)(Model&, ModelPart&, nds_layer_block*, const Value&);

struct KeyDef {
  std::string_view key;
  Scope scope;
  Kind kind;
  std::vector<Choice> choices;
  Apply apply;
};

int64_t as_int(const Value& v) {
  return std::get<int64_t>(v);
}
double as_real(const Value& v) {
  return std::get<double>(v);
}
const std::string& as_text(const Value& v) {
  return std::get<std::string>(v);
}

// The choices of the builder's enumerated keys, each built on first use
// (a vector at namespace scope may throw before main: cert-err58-cpp).
const std::vector<Choice>& dtypes() {
  static const std::vector<Choice> choices = {{"fp32", NDS_DTYPE_FP32}, {"tf32", NDS_DTYPE_TF32},
                                              {"bf16", NDS_DTYPE_BF16}, {"fp16", NDS_DTYPE_FP16},
                                              {"fp8", NDS_DTYPE_FP8},   {"none", NDS_DTYPE_NONE}};
  return choices;
}
// Activations always exist: no "none".
const std::vector<Choice>& activation_dtypes() {
  static const std::vector<Choice> choices = {{"fp32", NDS_DTYPE_FP32},
                                              {"tf32", NDS_DTYPE_TF32},
                                              {"bf16", NDS_DTYPE_BF16},
                                              {"fp16", NDS_DTYPE_FP16},
                                              {"fp8", NDS_DTYPE_FP8}};
  return choices;
}
// How fp8 GEMMs scale (NDS_FP8_*). "tensorwise" is Megatron-LM's and torchao's
// name for per-tensor scales from the current amax: the current recipe.
const std::vector<Choice>& fp8_recipes() {
  static const std::vector<Choice> choices = [] {
    std::vector<Choice> c;
    for (const Fp8RecipeName& r : fp8_recipe_names()) c.push_back({r.name, r.recipe});
    return c;
  }();
  return choices;
}
const std::vector<Choice>& recompute_modes() {
  static const std::vector<Choice> choices = {{"none", NDS_RECOMPUTE_NONE},
                                              {"selective", NDS_RECOMPUTE_SELECTIVE},
                                              {"full", NDS_RECOMPUTE_FULL}};
  return choices;
}
const std::vector<Choice>& schedules() {
  static const std::vector<Choice> choices = [] {
    std::vector<Choice> c;
    for (const ScheduleName& s : kScheduleNames) c.push_back({s.name, s.schedule});
    return c;
  }();
  return choices;
}
const std::vector<Choice>& recompute_ops() {
  static const std::vector<Choice> choices = [] {
    std::vector<Choice> c;
    for (const RecomputeOpName& o : recompute_op_names())
      c.push_back({o.name, static_cast<int32_t>(o.bit)});  // low bits: they fit
    return c;
  }();
  return choices;
}

#define NDS_BLOCK(name, kind, field, ...)                                                  \
  KeyDef {                                                                                 \
    name, Scope::block, kind, __VA_ARGS__,                                                 \
        [](Model&, ModelPart&, nds_layer_block* b, const Value& v) { store(b->field, v); } \
  }
#define NDS_PART(name, kind, field, ...)                                                  \
  KeyDef {                                                                                \
    name, Scope::model, kind, __VA_ARGS__,                                                \
        [](Model&, ModelPart& p, nds_layer_block*, const Value& v) { store(p.field, v); } \
  }
#define NDS_TRAINING(name, kind, target, ...)                                              \
  KeyDef {                                                                                 \
    name, Scope::training, kind, __VA_ARGS__,                                              \
        [](Model& m, ModelPart&, nds_layer_block*, const Value& v) { store(m.target, v); } \
  }
#define NDS_BIT(name, target, bit)                                   \
  KeyDef {                                                           \
    name, Scope::training, Kind::flag, {},                           \
        [](Model& m, ModelPart&, nds_layer_block*, const Value& v) { \
          if (as_int(v) != 0)                                        \
            m.training.target |= (bit);                              \
          else                                                       \
            m.training.target &= ~static_cast<uint64_t>(bit);        \
        }                                                            \
  }

// Stores a value into a field of any of the model's types. A choice arrives
// already turned into its enumerator (an int64_t).
void store(int64_t& field, const Value& v) {
  field = as_int(v);
}
void store(int32_t& field, const Value& v) {
  field = static_cast<int32_t>(as_int(v));
}
void store(double& field, const Value& v) {
  field = as_real(v);
}
void store(std::string& field, const Value& v) {
  field = as_text(v);
}
void store(std::vector<int64_t>& field, const Value& v) {
  field = std::get<std::vector<int64_t>>(v);
}

// The keys of a block of layers (Scope::block).
std::vector<KeyDef> block_keys() {
  return {
      NDS_BLOCK("hidden_size", Kind::count, hidden_size, {}),
      NDS_BLOCK(
          "attention", Kind::choice, attention,
          {{"mha", NDS_ATTENTION_MHA}, {"gqa", NDS_ATTENTION_GQA}, {"mla", NDS_ATTENTION_MLA}}),
      NDS_BLOCK("heads", Kind::count, heads, {}),
      NDS_BLOCK("kv_heads", Kind::count, kv_heads, {}),
      NDS_BLOCK("head_dim", Kind::count, head_dim, {}),
      NDS_BLOCK("q_lora_rank", Kind::count, q_lora_rank, {}),
      NDS_BLOCK("kv_lora_rank", Kind::count, kv_lora_rank, {}),
      NDS_BLOCK("qk_nope_head_dim", Kind::count, qk_nope_head_dim, {}),
      NDS_BLOCK("qk_rope_head_dim", Kind::count, qk_rope_head_dim, {}),
      NDS_BLOCK("v_head_dim", Kind::count, v_head_dim, {}),
      NDS_BLOCK("qk_norm", Kind::flag, qk_norm, {}),
      NDS_BLOCK("ffn", Kind::choice, ffn, {{"gelu", NDS_FFN_GELU}, {"swiglu", NDS_FFN_SWIGLU}}),
      NDS_BLOCK("ffn_hidden_size", Kind::count, ffn_hidden_size, {}),
      NDS_BLOCK("experts", Kind::count, experts, {}),
      NDS_BLOCK("experts_per_token", Kind::count, experts_per_token, {}),
      NDS_BLOCK("shared_experts", Kind::count, shared_experts, {}),
      NDS_BLOCK("shared_expert_ffn_hidden_size", Kind::count, shared_expert_ffn_hidden_size, {}),
      NDS_BLOCK("moe_ffn_hidden_size", Kind::count, moe_ffn_hidden_size, {}),
      NDS_BLOCK("capacity_factor", Kind::real, capacity_factor, {}),
      NDS_BLOCK("grouped_gemm", Kind::flag, grouped_gemm, {}),
      NDS_BLOCK("norm", Kind::choice, norm,
                {{"layernorm", NDS_NORM_LAYERNORM}, {"rmsnorm", NDS_NORM_RMSNORM}}),
      NDS_BLOCK("linear_bias", Kind::flag, linear_bias, {}),
      NDS_BLOCK("qkv_bias", Kind::flag, qkv_bias, {}),
      NDS_BLOCK("hidden_dropout", Kind::fraction, hidden_dropout, {}),
      NDS_BLOCK("attention_dropout", Kind::fraction, attention_dropout, {}),
      NDS_BLOCK("attention_window", Kind::count, attention_window, {}),
      NDS_BLOCK("moe_padded", Kind::flag, moe_padded, {}),
      NDS_BLOCK("router_groups", Kind::count, router_groups, {}),
      NDS_BLOCK("router_group_topk", Kind::count, router_group_topk, {}),
  };
}

// The keys of the model as a whole: the language model or the open tower.
std::vector<KeyDef> part_keys() {
  return {
      NDS_PART("name", Kind::text, name, {}),
      NDS_PART("vocab_size", Kind::count, vocab_size, {}),
      NDS_PART("padded_vocab_size", Kind::count, padded_vocab_size, {}),
      NDS_PART("tied_embeddings", Kind::flag, tied_embeddings, {}),
      NDS_PART("position_embedding", Kind::choice, position_embedding,
               {{"rope", NDS_POSITION_ROPE},
                {"learned", NDS_POSITION_LEARNED},
                {"none", NDS_POSITION_NONE}}),
      NDS_PART("max_position_embeddings", Kind::count, max_position_embeddings, {}),
      NDS_PART("flash_attention", Kind::flag, flash_attention, {}),
      NDS_PART("patch_inputs", Kind::count, patch_inputs, {}),
      NDS_PART("patch_bias", Kind::flag, patch_bias, {}),
      NDS_PART("position_table", Kind::count, position_table, {}),
      NDS_PART("merge_patches", Kind::count, merge_patches, {}),
      NDS_PART("out_hidden_size", Kind::count, out_hidden_size, {}),
      NDS_PART("mergers", Kind::count, mergers, {}),
  };
}

// Training: the batch and the number formats.
std::vector<KeyDef> batch_keys() {
  return {
      NDS_TRAINING("seq_len", Kind::count, training.seq_len, {}),
      NDS_TRAINING("global_batch", Kind::count, training.global_batch, {}),
      NDS_TRAINING("image_tokens", Kind::count, training.image_tokens, {}),
      NDS_TRAINING("images_per_sample", Kind::degree, training.images_per_sample, {}),
      NDS_TRAINING("params_dtype", Kind::choice, training.params_dtype, dtypes()),
      NDS_TRAINING("compute_dtype", Kind::choice, training.compute_dtype, dtypes()),
      NDS_TRAINING("grads_dtype", Kind::choice, training.grads_dtype, dtypes()),
      NDS_TRAINING("optimizer_dtype", Kind::choice, training.optimizer_dtype, dtypes()),
      NDS_TRAINING("master_dtype", Kind::choice, training.master_dtype, dtypes()),
      NDS_TRAINING("activation_dtype", Kind::choice, training.activation_dtype,
                   activation_dtypes()),
      NDS_TRAINING("fp8_recipe", Kind::choice, training.fp8_recipe, fp8_recipes()),
  };
}

// Training: how the trainer splits the stages and holds FSDP shards, and what
// the loss, context parallelism, swapping, MoE and the optimizer cost.
std::vector<KeyDef> trainer_keys() {
  return {
      NDS_TRAINING("stage_split", Kind::choice, training.stage_split,
                   {{"reference", NDS_SPLIT_REFERENCE},
                    {"first_last", NDS_SPLIT_FIRST_LAST},
                    {"edges_weighted", NDS_SPLIT_EDGES_WEIGHTED},
                    {"padded", NDS_SPLIT_PADDED}}),
      NDS_TRAINING("stage_split_edge_layers", Kind::count, training.stage_split_edge_layers, {}),
      NDS_TRAINING("fsdp_holding", Kind::choice, training.fsdp_holding,
                   {{"layer_by_layer", NDS_FSDP_LAYER_BY_LAYER},
                    {"fsdp2_reshard", NDS_FSDP2_RESHARD},
                    {"fsdp2_keep", NDS_FSDP2_KEEP},
                    {"fsdp2_keep_under_pp", NDS_FSDP2_KEEP_UNDER_PP},
                    {"keep_sharded_grads", NDS_FSDP_KEEP_SHARDED_GRADS}}),
      NDS_TRAINING("loss_bytes_per_logit", Kind::real, training.loss_bytes_per_logit, {}),
      NDS_TRAINING("loss_forward_bytes_per_logit", Kind::real,
                   training.loss_forward_bytes_per_logit, {}),
      NDS_TRAINING("loss_backward_bytes_per_logit", Kind::real,
                   training.loss_backward_bytes_per_logit, {}),
      NDS_TRAINING("cp_ulysses_degree", Kind::degree, training.cp_ulysses_degree, {}),
      NDS_TRAINING("cp_kv_heads_repeated", Kind::flag, training.cp_kv_heads_repeated, {}),
      NDS_TRAINING("elementwise_kernels", Kind::choice, training.elementwise_kernels,
                   {{"fused", NDS_ELEMENTWISE_FUSED}, {"eager", NDS_ELEMENTWISE_EAGER}}),
      NDS_TRAINING("attention_kernel", Kind::choice, training.attention_kernel,
                   {{"device", NDS_ATTENTION_KERNEL_DEVICE},
                    {"flash_attention_2", NDS_ATTENTION_KERNEL_FA2}}),
      NDS_TRAINING("tp_keeps_gathered_inputs", Kind::flag, training.tp_keeps_gathered_inputs, {}),
      KeyDef{"swapped_ops", Scope::training, Kind::ops, recompute_ops(),
             [](Model& m, ModelPart&, nds_layer_block*, const Value& v) {
               m.training.swapped_ops = static_cast<uint64_t>(as_int(v));
             }},
      NDS_TRAINING("swap_optimizer", Kind::flag, training.swap_optimizer, {}),
      NDS_TRAINING("master_reuses_params", Kind::flag, training.master_reuses_params, {}),
      NDS_TRAINING("vocab_multiple_per_tp", Kind::count, training.vocab_multiple_per_tp, {}),
      NDS_TRAINING("moe_dispatcher", Kind::choice, training.moe_dispatcher,
                   {{"alltoall", NDS_MOE_DISPATCH_ALLTOALL},
                    {"allgather", NDS_MOE_DISPATCH_ALLGATHER},
                    {"node_dedup", NDS_MOE_DISPATCH_NODE_DEDUP}}),
      NDS_TRAINING("optimizer", Kind::choice, training.optimizer,
                   {{"adam", NDS_OPTIMIZER_ADAM},
                    {"adamw", NDS_OPTIMIZER_ADAMW},
                    {"muon", NDS_OPTIMIZER_MUON},
                    {"sgd", NDS_OPTIMIZER_SGD}}),
      NDS_TRAINING("optimizer_states", Kind::count, training.optimizer_states, {}),
  };
}

// Training: the strategy the file states, its layer layout and recompute.
std::vector<KeyDef> stated_keys() {
  return {
      NDS_TRAINING("stated.dp", Kind::degree, stated.dp, {}),
      NDS_TRAINING("stated.tp", Kind::degree, stated.tp, {}),
      NDS_TRAINING("stated.pp", Kind::degree, stated.pp, {}),
      NDS_TRAINING("stated.cp", Kind::degree, stated.cp, {}),
      NDS_TRAINING("stated.ep", Kind::degree, stated.ep, {}),
      NDS_TRAINING("stated.etp", Kind::degree, stated.etp, {}),
      NDS_TRAINING("stated.vpp", Kind::degree, stated.vpp, {}),
      NDS_TRAINING("stated.sp", Kind::flag, stated.sp, {}),
      NDS_TRAINING("stated.zero", Kind::count, stated.zero, {}),
      NDS_TRAINING("stated.op", Kind::degree, stated.op, {}),
      NDS_TRAINING("stated.mbs", Kind::degree, stated.mbs, {}),
      NDS_TRAINING("stated.mbn", Kind::degree, stated.mbn, {}),
      NDS_TRAINING("stated.recompute", Kind::choice, stated.recompute, recompute_modes()),
      NDS_TRAINING("stated.schedule", Kind::choice, stated.schedule, schedules()),
      NDS_TRAINING("stage_layers", Kind::list, stage_layers, {}),
      NDS_TRAINING("stage_layer_offsets", Kind::signed_list, stage_layer_offsets, {}),
      NDS_TRAINING("recompute_layers", Kind::list, recompute_layers, {}),
      KeyDef{"recompute_ops", Scope::training, Kind::ops, recompute_ops(),
             [](Model& m, ModelPart&, nds_layer_block*, const Value& v) {
               m.training.recompute_ops = static_cast<uint64_t>(as_int(v));
             }},
      NDS_TRAINING("cp_algorithm", Kind::text, cp_algorithm, {}),
  };
}

// Training: the overlap switches, the device memory and the trainer's capabilities.
std::vector<KeyDef> switch_keys() {
  return {
      NDS_BIT("overlap.grad_reduce", overlap, NDS_OVERLAP_GRAD_REDUCE),
      NDS_BIT("overlap.param_gather", overlap, NDS_OVERLAP_PARAM_GATHER),
      NDS_BIT("overlap.tp_comm", overlap, NDS_OVERLAP_TP_COMM),
      NDS_BIT("overlap.moe_a2a", overlap, NDS_OVERLAP_MOE_A2A),
      NDS_BIT("overlap.moe_shared", overlap, NDS_OVERLAP_MOE_SHARED),
      NDS_BIT("overlap.p2p", overlap, NDS_OVERLAP_P2P),
      NDS_BIT("overlap.cp", overlap, NDS_OVERLAP_CP),
      NDS_BIT("overlap.tp_async", overlap, NDS_OVERLAP_TP_ASYNC),
      NDS_TRAINING("device_memory_bytes", Kind::count, training.device_memory_bytes, {}),
      NDS_BIT("capabilities.sp_with_cp", capabilities, NDS_CAN_SP_WITH_CP),
      NDS_BIT("capabilities.needs_pow2_tp", capabilities, NDS_NEEDS_POW2_TP),
      NDS_BIT("capabilities.interleave", capabilities, NDS_CAN_INTERLEAVE),
      NDS_BIT("capabilities.zero3", capabilities, NDS_CAN_ZERO3),
      NDS_BIT("capabilities.expert_tp", capabilities, NDS_CAN_EXPERT_TP),
      NDS_BIT("capabilities.no_zero2", capabilities, NDS_NO_ZERO2),
      NDS_BIT("capabilities.no_zero1", capabilities, NDS_NO_ZERO1),
      NDS_BIT("capabilities.needs_sp_with_tp", capabilities, NDS_NEEDS_SP_WITH_TP),
      NDS_BIT("capabilities.no_gpipe", capabilities, NDS_NO_GPIPE),
      NDS_BIT("capabilities.no_zb_v", capabilities, NDS_NO_ZB_V),
      NDS_BIT("capabilities.no_dualpipe", capabilities, NDS_NO_DUALPIPE),
      NDS_BIT("capabilities.no_dualpipe_v", capabilities, NDS_NO_DUALPIPE_V),
      NDS_BIT("capabilities.no_cp_with_window", capabilities, NDS_NO_CP_WITH_WINDOW),
  };
}

// Every key, in the order above: the groups concatenated once.
const std::vector<KeyDef>& vocabulary() {
  static const std::vector<KeyDef> keys = [] {
    std::vector<KeyDef> all;
    for (std::vector<KeyDef> (*group)() :
         {block_keys, part_keys, batch_keys, trainer_keys, stated_keys, switch_keys})
      for (KeyDef& def : group()) all.push_back(std::move(def));
    return all;
  }();
  return keys;
}

#undef NDS_BLOCK
#undef NDS_PART
#undef NDS_TRAINING
#undef NDS_BIT

const KeyDef* find_key(std::string_view key) {
  for (const KeyDef& def : vocabulary())
    if (def.key == key) return &def;
  return nullptr;
}

std::string choices_text(const std::vector<Choice>& choices) {
  std::string text;
  for (const Choice& c : choices) text += fmt::format("{}\"{}\"", text.empty() ? "" : ", ", c.name);
  return text;
}

std::string shown(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  if (const auto* s = std::get_if<std::string>(&v)) return fmt::format("\"{}\"", *s);
  std::string text;
  for (int64_t x : std::get<std::vector<int64_t>>(v))
    text += (text.empty() ? "" : ", ") + std::to_string(x);
  return "[" + text + "]";
}

const char* expected(Kind kind) {
  switch (kind) {
    case Kind::count: return "a whole number >= 0 (set_int)";
    case Kind::degree: return "a whole number >= 1 (set_int)";
    case Kind::flag: return "0 or 1 (set_int)";
    case Kind::real: return "a number >= 0 (set_real)";
    case Kind::fraction: return "a number in [0, 1] (set_real)";
    case Kind::choice: return "one of the names below (set_string)";
    case Kind::text: return "a string (set_string)";
    case Kind::list: return "a list of whole numbers >= 0 (set_int_list)";
    case Kind::signed_list: return "a list of whole numbers (set_int_list)";
    case Kind::ops: return "comma-separated op names (set_string)";
  }
  return "";
}

// The value as the key stores it (a choice becomes its enumerator), or an
// explanation of why it does not fit.
std::variant<Value, std::string> checked(const KeyDef& def, const Value& v) {
  switch (def.kind) {
    case Kind::count:
      if (const auto* i = std::get_if<int64_t>(&v); (i != nullptr) && *i >= 0) return v;
      break;
    case Kind::flag:
      if (const auto* i = std::get_if<int64_t>(&v); (i != nullptr) && (*i == 0 || *i == 1))
        return v;
      break;
    case Kind::degree:
      if (const auto* i = std::get_if<int64_t>(&v);
          (i != nullptr) && *i >= 1 && *i <= (int64_t{1} << 24))
        return v;
      break;
    case Kind::real:
      if (const auto* d = std::get_if<double>(&v); (d != nullptr) && std::isfinite(*d) && *d >= 0)
        return v;
      break;
    case Kind::fraction:
      if (const auto* d = std::get_if<double>(&v); (d != nullptr) && *d >= 0 && *d <= 1) return v;
      break;
    case Kind::text:
      if (std::holds_alternative<std::string>(v)) return v;
      break;
    case Kind::list:
      if (const auto* l = std::get_if<std::vector<int64_t>>(&v)) {
        bool ok = true;
        for (int64_t x : *l) ok = ok && x >= 0;
        if (ok) return v;
      }
      break;
    case Kind::signed_list:
      if (std::holds_alternative<std::vector<int64_t>>(v)) return v;
      break;
    case Kind::choice:
      if (const auto* s = std::get_if<std::string>(&v)) {
        for (const Choice& c : def.choices)
          if (c.name == *s) return Value(int64_t{c.value});
        return fmt::format("expected one of {}", choices_text(def.choices));
      }
      break;
    case Kind::ops:
      if (const auto* s = std::get_if<std::string>(&v)) {
        int64_t bits = 0;
        size_t start = 0;
        while (start <= s->size()) {
          size_t end = s->find(',', start);
          if (end == std::string::npos) end = s->size();
          const std::string_view op = std::string_view(*s).substr(start, end - start);
          start = end + 1;
          if (op.empty()) continue;
          bool known = false;
          for (const Choice& c : def.choices)
            if (c.name == op) bits |= c.value, known = true;
          if (!known)
            return fmt::format("op \"{}\" is not one of {}", op, choices_text(def.choices));
        }
        return Value(bits);
      }
      break;
  }
  return std::string(expected(def.kind));
}

const char* scope_name(Scope scope) {
  switch (scope) {
    case Scope::block: return "a block (between begin_block and end_block)";
    case Scope::model: return "the model (outside a block)";
    case Scope::training: return "the training settings (outside a block and a tower)";
  }
  return "";
}

// ---- The C trampolines: the host side never throws across the ABI ----------
ModelBuilder& self(nds_model_builder* b) {
  return *reinterpret_cast<ModelBuilder*>(b);
}

template <class Call>
nds_status* safely(Call&& call) noexcept {
  try {
    return call();
  } catch (const std::exception& e) {
    return make_status(NDS_INTERNAL, std::string("ndsearch's model builder failed: ") + e.what());
  } catch (...) {
    return make_status(NDS_INTERNAL, "ndsearch's model builder failed");
  }
}

nds_status* c_begin_block(nds_model_builder* b, const char* kind, int64_t layers,
                          const nds_provenance* w) {
  return safely([&] { return self(b).begin_block(kind, layers, provenance_text(w)); });
}
nds_status* c_end_block(nds_model_builder* b) {
  return safely([&] { return self(b).end_block(); });
}
nds_status* c_begin_submodel(nds_model_builder* b, const char* name, const nds_provenance* w) {
  return safely([&] { return self(b).begin_submodel(name, provenance_text(w)); });
}
nds_status* c_end_submodel(nds_model_builder* b) {
  return safely([&] { return self(b).end_submodel(); });
}
nds_status* c_set_int(nds_model_builder* b, const char* key, int64_t v, const nds_provenance* w) {
  return safely([&] { return self(b).set(key, Value(v), provenance_text(w)); });
}
nds_status* c_set_real(nds_model_builder* b, const char* key, double v, const nds_provenance* w) {
  return safely([&] { return self(b).set(key, Value(v), provenance_text(w)); });
}
nds_status* c_set_string(nds_model_builder* b, const char* key, const char* v, size_t size,
                         const nds_provenance* w) {
  return safely([&] {
    return self(b).set(key, Value(std::string(v == nullptr ? "" : v, v == nullptr ? 0 : size)),
                       provenance_text(w));
  });
}
nds_status* c_set_int_list(nds_model_builder* b, const char* key, const int64_t* v, size_t count,
                           const nds_provenance* w) {
  return safely([&] {
    return self(b).set(key, Value(std::vector<int64_t>(v, v + (v == nullptr ? 0 : count))),
                       provenance_text(w));
  });
}
nds_status* c_set_unknown(nds_model_builder* b, const char* key, const char* why,
                          const nds_provenance* w) {
  return safely([&] { return self(b).unknown(key, why, provenance_text(w)); });
}
nds_status* c_unknown_field(nds_model_builder* b, const nds_provenance* w) {
  return safely([&] { return self(b).unknown_field(provenance_text(w)); });
}

}  // namespace

std::string provenance_text(const nds_provenance* w) {
  if (w == nullptr) return "(no provenance)";
  if (NDS_HAS_FIELD(w, nds_provenance, default_of) && w->default_of != nullptr)
    return fmt::format("default:{}", w->default_of);
  const std::string file = w->file == nullptr ? "" : w->file;
  const std::string field = w->field == nullptr ? "" : w->field;
  std::string text = file;
  if (!file.empty() && w->line > 0) text = fmt::format("{}:{}", file, w->line);
  if (!field.empty()) text = text.empty() ? field : fmt::format("{}: {}", text, field);
  return text.empty() ? "(no provenance)" : text;
}

ModelBuilder::ModelBuilder(Model& model, std::string parser_id, bool strict)
    : model_(model), parser_id_(std::move(parser_id)), strict_(strict) {
  table_ = {sizeof(nds_builder_v1),
            reinterpret_cast<nds_model_builder*>(this),
            &c_begin_block,
            &c_end_block,
            &c_begin_submodel,
            &c_end_submodel,
            &c_set_int,
            &c_set_real,
            &c_set_string,
            &c_set_int_list,
            &c_set_unknown,
            &c_unknown_field};
}

ModelPart& ModelBuilder::part() {
  return submodel_ < 0 ? model_.main : model_.submodels[static_cast<size_t>(submodel_)];
}

nds_status* ModelBuilder::refuse(const char* error_id, nds_status_code code,
                                 const std::string& message) {
  last_error_id_ = error_id;
  nds_status* status = make_status(code, message);
  last_refusal_ = status;
  return status;
}

nds_status* ModelBuilder::set(const char* key_text, const Value& value, const std::string& source) {
  const std::string key = key_text == nullptr ? "" : key_text;
  const KeyDef* def = find_key(key);
  if (def == nullptr) {
    return refuse(
        "E-PARSE-KEY", NDS_INVALID_ARGUMENT,
        fmt::format("{}: parser {} set the key \"{}\", which ndsearch does not know "
                    "(abi/model-vocabulary.md lists the keys); this is a bug in the parser",
                    source, parser_id_, key));
  }
  const bool in_block = block_ >= 0;
  if ((def->scope == Scope::block) != in_block ||
      (def->scope == Scope::training && submodel_ >= 0)) {
    return refuse(
        "E-PARSE-ORDER", NDS_FAILED_PRECONDITION,
        fmt::format("{}: parser {} set \"{}\", a key of {}, {}; this is a bug in the parser",
                    source, parser_id_, key, scope_name(def->scope),
                    in_block ? "inside a block"
                             : (submodel_ >= 0 ? "inside a tower" : "outside any block")));
  }
  auto result = checked(*def, value);
  if (auto* why = std::get_if<std::string>(&result)) {
    return refuse(
        "E-PARSE-VALUE", NDS_INVALID_ARGUMENT,
        fmt::format("{}: {} = {} is not valid for `{}`: {}", source, key, shown(value), key, *why));
  }
  nds_layer_block* block = in_block ? &part().blocks[static_cast<size_t>(block_)].c : nullptr;
  def->apply(model_, part(), block, std::get<Value>(result));
  auto& provenance = def->scope == Scope::block
                         ? part().blocks[static_cast<size_t>(block_)].provenance
                     : def->scope == Scope::model ? part().provenance
                                                  : model_.training_provenance;
  provenance[key] = source;
  return nullptr;
}

nds_status* ModelBuilder::begin_block(const char* kind, int64_t layers, const std::string& source) {
  if (block_ >= 0)
    return refuse(
        "E-PARSE-ORDER", NDS_FAILED_PRECONDITION,
        fmt::format("{}: parser {} opened a block inside a block; this is a bug in the parser",
                    source, parser_id_));
  const std::string k = kind == nullptr ? "" : kind;
  nds_block_kind block_kind;
  if (k == "decoder")
    block_kind = NDS_BLOCK_DECODER;
  else if (k == "mtp")
    block_kind = NDS_BLOCK_MTP;
  else if (k == "encoder")
    block_kind = NDS_BLOCK_ENCODER;
  else
    return refuse(
        "E-PARSE-VALUE", NDS_INVALID_ARGUMENT,
        fmt::format(R"({}: block kind "{}" is not one of "decoder", "mtp", "encoder")", source, k));
  if (layers <= 0)
    return refuse("E-PARSE-VALUE", NDS_INVALID_ARGUMENT,
                  fmt::format("{}: a block of {} layers: the number of layers must be at least 1",
                              source, layers));
  ModelBlock block;
  block.c = unknown_block(block_kind, layers);
  block.provenance["layers"] = source;
  part().blocks.push_back(std::move(block));
  block_ = static_cast<int>(part().blocks.size()) - 1;
  return nullptr;
}

nds_status* ModelBuilder::end_block() {
  if (block_ < 0)
    return refuse(
        "E-PARSE-ORDER", NDS_FAILED_PRECONDITION,
        fmt::format("parser {} closed a block that was not open; this is a bug in the parser",
                    parser_id_));
  block_ = -1;
  return nullptr;
}

nds_status* ModelBuilder::begin_submodel(const char* name, const std::string& source) {
  if (block_ >= 0 || submodel_ >= 0)
    return refuse(
        "E-PARSE-ORDER", NDS_FAILED_PRECONDITION,
        fmt::format(
            "{}: parser {} opened a tower inside a block or a tower; this is a bug in the parser",
            source, parser_id_));
  ModelPart tower;
  tower.name = name == nullptr ? "" : name;
  tower.provenance["name"] = source;
  model_.submodels.push_back(std::move(tower));
  submodel_ = static_cast<int>(model_.submodels.size()) - 1;
  return nullptr;
}

nds_status* ModelBuilder::end_submodel() {
  if (submodel_ < 0 || block_ >= 0)
    return refuse(
        "E-PARSE-ORDER", NDS_FAILED_PRECONDITION,
        fmt::format("parser {} closed a tower that was not open (or inside a block); this is a "
                    "bug in the parser",
                    parser_id_));
  submodel_ = -1;
  return nullptr;
}

nds_status* ModelBuilder::unknown(const char* key, const char* why, const std::string& source) {
  const std::string k = key == nullptr ? "" : key;
  if (find_key(k) == nullptr)
    return refuse(
        "E-PARSE-KEY", NDS_INVALID_ARGUMENT,
        fmt::format("{}: parser {} marked the key \"{}\" unknown, but ndsearch does not know that "
                    "key; this is a bug in the parser",
                    source, parser_id_, k));
  model_.warnings.push_back(fmt::format("{}: {}{}({}); it stays unknown", source, k, kCannotBeKnown,
                                        why == nullptr ? "no reason given" : why));
  return nullptr;
}

bool is_unknown_note(const std::string& warning, std::string_view key) {
  return warning.find(fmt::format(": {}{}(", key, kCannotBeKnown)) != std::string::npos;
}

nds_status* ModelBuilder::unknown_field(const std::string& source) {
  if (strict_)
    return refuse("E-PARSE-UNKNOWN-FIELD", NDS_INVALID_ARGUMENT,
                  fmt::format("{}: field not understood by {}, an error with {}; remove it, "
                              "or turn strict parsing off to list it as a warning",
                              source, parser_id_, Setting("strict").named()));
  model_.warnings.push_back(
      fmt::format("{}: field not understood by {}; ignored", source, parser_id_));
  return nullptr;
}

}  // namespace ndsearch

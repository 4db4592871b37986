// SPDX-License-Identifier: Apache-2.0
#include "core/model/model_json.hpp"

#include "core/model/params.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/strategy_keys.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

json known(int64_t v) {
  return v == NDS_UNKNOWN ? json(nullptr) : json(v);
}
json known_real(double v) {
  return v < 0 ? json(nullptr) : json(v);
}
json named(const char* name) {
  return name == nullptr ? json(nullptr) : json(name);
}
json flag(int32_t v) {
  return v == NDS_UNKNOWN ? json(nullptr) : json(v == 1);
}

// NDS_RECOMPUTE_OP_* bits by their names (recompute_op_names), in bit order.
json ops_names(uint64_t ops) {
  json names = json::array();
  for (const RecomputeOpName& o : recompute_op_names())
    if ((ops & o.bit) != 0u) names.push_back(o.name);
  return names;
}

const char* attention_name(nds_attention_kind k) {
  switch (k) {
    case NDS_ATTENTION_MHA: return "mha";
    case NDS_ATTENTION_GQA: return "gqa";
    case NDS_ATTENTION_MLA: return "mla";
    default: return nullptr;
  }
}
const char* ffn_name(nds_ffn_kind k) {
  return k == NDS_FFN_GELU ? "gelu" : k == NDS_FFN_SWIGLU ? "swiglu" : nullptr;
}
const char* norm_name(nds_norm_kind k) {
  return k == NDS_NORM_LAYERNORM ? "layernorm" : k == NDS_NORM_RMSNORM ? "rmsnorm" : nullptr;
}
const char* kind_name(nds_block_kind k) {
  return k == NDS_BLOCK_DECODER ? "decoder" : k == NDS_BLOCK_MTP ? "mtp" : "encoder";
}
const char* position_name(nds_position_kind k) {
  switch (k) {
    case NDS_POSITION_ROPE: return "rope";
    case NDS_POSITION_LEARNED: return "learned";
    case NDS_POSITION_NONE: return "none";
    default: return nullptr;
  }
}

}  // namespace

json block_json(const nds_layer_block& b) {
  json j = {{"kind", kind_name(b.kind)},
            {"layers", b.layers},
            {"hidden_size", known(b.hidden_size)},
            {"attention", named(attention_name(b.attention))},
            {"heads", known(b.heads)},
            {"kv_heads", known(b.kv_heads)},
            {"head_dim", known(b.head_dim)},
            {"q_lora_rank", known(b.q_lora_rank)},
            {"kv_lora_rank", known(b.kv_lora_rank)},
            {"qk_nope_head_dim", known(b.qk_nope_head_dim)},
            {"qk_rope_head_dim", known(b.qk_rope_head_dim)},
            {"v_head_dim", known(b.v_head_dim)},
            {"qk_norm", flag(b.qk_norm)},
            {"ffn", named(ffn_name(b.ffn))},
            {"ffn_hidden_size", known(b.ffn_hidden_size)},
            {"experts", known(b.experts)},
            {"experts_per_token", known(b.experts_per_token)},
            {"shared_experts", known(b.shared_experts)},
            {"shared_expert_ffn_hidden_size", known(b.shared_expert_ffn_hidden_size)},
            {"moe_ffn_hidden_size", known(b.moe_ffn_hidden_size)},
            {"capacity_factor", known_real(b.capacity_factor)},
            {"grouped_gemm", flag(b.grouped_gemm)},
            {"norm", named(norm_name(b.norm))},
            {"linear_bias", flag(b.linear_bias)},
            {"qkv_bias", flag(b.qkv_bias)},
            {"hidden_dropout", known_real(b.hidden_dropout)},
            {"attention_dropout", known_real(b.attention_dropout)}};
  // A tower's layers say whether they attend within windows (ABI 1.6); a
  // decoder's when they do (sliding-window attention).
  if (b.kind == NDS_BLOCK_ENCODER || b.attention_window > 0)
    j["attention_window"] = b.attention_window;
  // An MoE layer's routing as the trainer runs it (ABI 1.13).
  if (b.experts > 0) {
    j["moe_padded"] = b.moe_padded == 1;
    j["router_groups"] = b.router_groups;
    j["router_group_topk"] = b.router_group_topk;
  }
  return j;
}

namespace {

// "blocks[1].experts": a block key in the provenance object.
std::string fmt_block_key(size_t index, const std::string& key) {
  return "blocks[" + std::to_string(index) + "]." + key;
}

// Each overlap switch: true/false where something stated it, null where nothing did.
json overlap_json(const Model& m) {
  json j = json::object();
  for (const OverlapSwitch& s : overlap_switches())
    j[s.name] = !m.training_provenance.contains(s.key) ? json(nullptr)
                                                       : json((m.training.overlap & s.bit) != 0);
  return j;
}

}  // namespace

json strategy_json(const nds_strategy& s) {
  json j = json::object();
  for (const StrategyKey& k : kStrategyKeys) {
    const auto text = key_value_text(k, key_value(s, k));
    j[std::string(k.name)] = !text                ? json(nullptr)
                             : k.field != nullptr ? json(key_value(s, k))
                                                  : json(*text);
  }
  return j;
}

const char* dtype_name(nds_dtype dtype) {
  switch (dtype) {
    case NDS_DTYPE_NONE: return "none";
    case NDS_DTYPE_FP32: return "fp32";
    case NDS_DTYPE_TF32: return "tf32";
    case NDS_DTYPE_BF16: return "bf16";
    case NDS_DTYPE_FP16: return "fp16";
    case NDS_DTYPE_FP8: return "fp8";
    default: return nullptr;
  }
}
const char* moe_dispatcher_name(int32_t dispatcher) {
  switch (dispatcher) {
    case NDS_MOE_DISPATCH_ALLGATHER: return "allgather";
    case NDS_MOE_DISPATCH_NODE_DEDUP: return "node_dedup";
    default: return "alltoall";
  }
}

const char* fsdp_holding_name(nds_fsdp_holding holding) {
  switch (holding) {
    case NDS_FSDP2_RESHARD: return "fsdp2_reshard";
    case NDS_FSDP2_KEEP: return "fsdp2_keep";
    case NDS_FSDP2_KEEP_UNDER_PP: return "fsdp2_keep_under_pp";
    case NDS_FSDP_KEEP_SHARDED_GRADS: return "keep_sharded_grads";
    default: return "layer_by_layer";
  }
}
nlohmann::json stage_split_json(const nds_training& t) {
  switch (t.stage_split) {
    case NDS_SPLIT_FIRST_LAST: return {{"rule", "first_last"}};
    case NDS_SPLIT_EDGES_WEIGHTED:
      return {{"rule", "edges_weighted"}, {"edge_layers", t.stage_split_edge_layers}};
    case NDS_SPLIT_PADDED: return {{"rule", "padded"}};
    default: return {{"rule", "reference"}};
  }
}

const char* fp8_recipe_name(int32_t recipe) {
  if (recipe == NDS_FP8_NONE) return "none";
  for (const Fp8RecipeName& r : fp8_recipe_names())  // "current" comes before its alias
    if (r.recipe == recipe) return r.name;
  return nullptr;
}
const char* recompute_name(nds_recompute_mode mode) {
  switch (mode) {
    case NDS_RECOMPUTE_NONE: return "none";
    case NDS_RECOMPUTE_SELECTIVE: return "selective";
    case NDS_RECOMPUTE_FULL: return "full";
    default: return nullptr;
  }
}
const char* schedule_name(nds_schedule schedule) {
  for (const ScheduleName& s : kScheduleNames)
    if (s.schedule == schedule) return s.name;
  return nullptr;
}

namespace {

using Counts = std::optional<ParameterCounts>;

// The decoder's dense layers: the first dense block gives the model's
// ffn_hidden_size, and together they give "dense_layers".
struct DenseLayers {
  const nds_layer_block* first = nullptr;
  int64_t layers = 0;
};
DenseLayers dense_layers(const Model& m) {
  DenseLayers dense;
  for (const ModelBlock& b : m.main.blocks) {
    if (b.c.kind != NDS_BLOCK_DECODER || b.c.experts > 0) continue;
    dense.layers += b.c.layers;
    if (dense.first == nullptr) dense.first = &b.c;
  }
  return dense;
}

// The model's shape: the first decoder block's sizes, the embeddings, and the
// first MoE block's experts.
json architecture_json(const Model& m, const nds_layer_block& shape, const DenseLayers& dense,
                       const nds_layer_block* moe) {
  return {
      {"framework", m.framework},
      {"file", m.file},
      {"name", m.main.name.empty() ? json(nullptr) : json(m.main.name)},
      {"layers", m.decoder_layers()},
      {"hidden_size", known(shape.hidden_size)},
      {"heads", known(shape.heads)},
      {"kv_heads", known(shape.kv_heads)},
      {"head_dim", known(shape.head_dim)},
      {"attention", named(attention_name(shape.attention))},
      {"ffn", named(ffn_name(shape.ffn))},
      {"ffn_hidden_size", dense.first != nullptr ? known(dense.first->ffn_hidden_size) : json(0)},
      {"vocab_size", known(m.main.vocab_size)},
      {"padded_vocab_size", known(m.main.padded_vocab_size)},
      {"tied_embeddings", flag(m.main.tied_embeddings)},
      {"position_embedding", named(position_name(m.main.position_embedding))},
      {"max_position_embeddings", known(m.main.max_position_embeddings)},
      {"flash_attention", flag(m.main.flash_attention)},
      {"seq_len", known(m.training.seq_len)},
      {"experts", moe != nullptr ? moe->experts : 0},
      {"experts_per_token", moe != nullptr ? moe->experts_per_token : 0},
      {"shared_experts", moe != nullptr ? moe->shared_experts : 0},
      {"moe_ffn_hidden_size", moe != nullptr ? moe->moe_ffn_hidden_size : 0},
      {"dense_layers", dense.layers},
      {"mtp_layers", m.mtp_layers()},
      {"q_lora_rank", known(shape.q_lora_rank)},
      {"kv_lora_rank", known(shape.kv_lora_rank)}};
}

// The parameter counts (null where a value they need is unknown) and the batch.
json counts_json(const Model& m, const Counts& params) {
  return {// A vision-language model's whole count; the language model's beside it.
          {"params_total", params ? json(params->with_towers(params->total)) : json(nullptr)},
          {"params_active", params ? json(params->with_towers(params->active)) : json(nullptr)},
          {"params_text", params ? json(params->total) : json(nullptr)},
          {"params_text_active", params ? json(params->active) : json(nullptr)},
          {"image_tokens", known(m.training.image_tokens)},
          {"images_per_sample", known(m.training.images_per_sample)},
          {"params_mtp", params ? json(params->mtp) : json(nullptr)},
          {"global_batch", known(m.training.global_batch)},
          {"micro_batch_size", m.stated.mbs == NDS_UNKNOWN ? json(nullptr) : json(m.stated.mbs)}};
}

// What the file states of the strategy: degrees, recompute, the layers'
// layout over stages, context parallelism and the device's memory.
json stated_json(const Model& m) {
  return {{"stated_strategy", strategy_json(m.stated)},
          {"recompute", named(recompute_name(m.stated.recompute))},
          {"recompute_layers", m.recompute_layers},
          {"stage_layers", m.stage_layers},
          {"stage_layer_offsets", m.stage_layer_offsets},
          {"cp_algorithm", m.cp_algorithm.empty() ? json(nullptr) : json(m.cp_algorithm)},
          {"cp_ulysses_degree",
           m.training.cp_ulysses_degree > 0 ? json(m.training.cp_ulysses_degree) : json(nullptr)},
          {"cp_kv_heads_repeated", m.training.cp_kv_heads_repeated == 1},
          {"device_memory_bytes", known(m.training.device_memory_bytes)}};
}

// The number format of each kind of tensor ("dtypes").
json dtypes_json(const nds_training& t) {
  return {{"params", named(dtype_name(t.params_dtype))},
          {"compute", named(dtype_name(t.compute_dtype))},
          {"activations", named(dtype_name(t.activation_dtype))},
          {"grads", named(dtype_name(t.grads_dtype))},
          {"optimizer_states", named(dtype_name(t.optimizer_dtype))},
          {"master_weights", named(dtype_name(t.master_dtype))}};
}

// What the trainer can and cannot do ("capabilities"); the NDS_NO_* bits read
// as the ability they take away.
json capabilities_json(const nds_training& t) {
  return {{"sp_with_cp", (t.capabilities & NDS_CAN_SP_WITH_CP) != 0},
          {"needs_pow2_tp", (t.capabilities & NDS_NEEDS_POW2_TP) != 0},
          {"interleave", (t.capabilities & NDS_CAN_INTERLEAVE) != 0},
          {"zero3", (t.capabilities & NDS_CAN_ZERO3) != 0},
          {"expert_tp", (t.capabilities & NDS_CAN_EXPERT_TP) != 0},
          {"zero2", (t.capabilities & NDS_NO_ZERO2) == 0},
          {"zero1", (t.capabilities & NDS_NO_ZERO1) == 0},
          {"needs_sp_with_tp", (t.capabilities & NDS_NEEDS_SP_WITH_TP) != 0},
          {"cp_with_window", (t.capabilities & NDS_NO_CP_WITH_WINDOW) == 0}};
}

// How the trainer runs: number formats, the stage split, FSDP, the loss's
// traffic, recompute and swapping, MoE dispatch, overlap and capabilities.
json trainer_json(const Model& m) {
  return {
      {"dtypes", dtypes_json(m.training)},
      {"fp8_recipe", named(fp8_recipe_name(m.training.fp8_recipe))},
      {"stage_split", stage_split_json(m.training)},
      {"fsdp_holding", fsdp_holding_name(m.training.fsdp_holding)},
      {"loss_bytes_per_logit", sdk::loss_bytes_per_logit(m.training)},
      {"loss_forward_bytes_per_logit", sdk::loss_traffic(m.training).forward},
      {"loss_backward_bytes_per_logit", sdk::loss_traffic(m.training).backward},
      {"tp_keeps_gathered_inputs", m.training.tp_keeps_gathered_inputs == 1},
      {"elementwise_kernels",
       m.training.elementwise_kernels == NDS_ELEMENTWISE_EAGER ? "eager" : "fused"},
      {"attention_kernel",
       m.training.attention_kernel == NDS_ATTENTION_KERNEL_FA2 ? "flash_attention_2" : "device"},
      {"recompute_ops", ops_names(sdk::selective_recompute_ops(m.training))},
      {"swapped_ops", ops_names(m.training.swapped_ops)},
      {"swap_optimizer", m.training.swap_optimizer == 1},
      {"master_reuses_params", m.training.master_reuses_params == 1},
      {"moe_dispatcher", moe_dispatcher_name(m.training.moe_dispatcher)},
      {"overlap", overlap_json(m)},
      {"optimizer_states", known(m.training.optimizer_states)},
      {"capabilities", capabilities_json(m.training)}};
}

// One tower (submodels[i]): its sizes, its blocks and its parameter counts by
// part, null where the counts are unknown.
json tower_json(const ModelPart& tower, size_t i, const Counts& params) {
  json tower_blocks = json::array();
  int64_t layers = 0;
  for (const ModelBlock& b : tower.blocks) {
    tower_blocks.push_back(block_json(b.c));
    layers += b.c.layers;
  }
  json counts = nullptr;
  if (params) {
    const sdk::TowerParameters& t = params->submodels[i];
    counts = {{"layers", t.layers()},
              {"patch_embedding", t.patch_embedding},
              {"positions", t.positions},
              {"mergers", t.mergers_total()}};
  }
  return {{"name", tower.name},
          {"layers", layers},
          {"params", params ? json(params->submodels[i].total()) : json(nullptr)},
          {"params_by_part", counts},
          {"patch_inputs", tower.patch_inputs},
          {"merge_patches", tower.merge_patches},
          {"out_hidden_size", tower.out_hidden_size},
          {"mergers", tower.mergers},
          {"position_table", tower.position_table},
          {"blocks", tower_blocks}};
}

// Where each value came from: the model's keys, the training's, then each
// block's as "blocks[i].key".
json provenance_json(const Model& m) {
  json provenance = json::object();
  for (const auto& [key, source] : m.main.provenance) provenance[key] = source;
  for (const auto& [key, source] : m.training_provenance) provenance[key] = source;
  for (size_t i = 0; i < m.main.blocks.size(); ++i)
    for (const auto& [key, source] : m.main.blocks[i].provenance)
      provenance[fmt_block_key(i, key)] = source;
  return provenance;
}

// What a fast-tuner setup stated beside the config; 0 and empty stated nothing.
json setup_json(const SetupStated& s) {
  return {{"file", s.file},
          {"config_key", s.config_key},
          {"devices", s.devices == 0 ? json(nullptr) : json(s.devices)},
          {"global_batch", known(s.global_batch)},
          {"max_ep", s.max_ep == 0 ? json(nullptr) : json(s.max_ep)},
          {"dimensions", s.dimensions.empty() ? json(nullptr) : json(s.dimensions)}};
}

}  // namespace

json model_to_json(const Model& m) {
  const nds_layer_block* first = m.first_decoder();
  const nds_layer_block* moe = m.first_moe();
  const DenseLayers dense = dense_layers(m);
  const nds_layer_block& shape = first != nullptr ? *first : unknown_block(NDS_BLOCK_DECODER, 1);
  std::string why;
  const auto params = count_parameters(m, &why);
  // The sections' keys are distinct: together they make one flat object.
  json j = architecture_json(m, shape, dense, moe);
  j.update(counts_json(m, params));
  j.update(stated_json(m));
  j.update(trainer_json(m));
  json blocks = json::array();
  for (const ModelBlock& b : m.main.blocks) blocks.push_back(block_json(b.c));
  j["blocks"] = blocks;
  json submodels = json::array();
  for (size_t i = 0; i < m.submodels.size(); ++i)
    submodels.push_back(tower_json(m.submodels[i], i, params));
  j["submodels"] = submodels;
  j["provenance"] = provenance_json(m);
  // What a fast-tuner setup stated beside the config, when one named it.
  if (!m.setup.file.empty()) j["setup"] = setup_json(m.setup);
  json warnings = m.warnings;
  if (!params) warnings.push_back("parameter counts are null: " + why);
  j["warnings"] = warnings;
  return j;
}

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
#include "core/model/model.hpp"

#include <algorithm>
#include <numeric>

namespace ndsearch {

nds_layer_block unknown_block(nds_block_kind kind, int64_t layers) {
  nds_layer_block b{};
  b.struct_size = sizeof(nds_layer_block);
  b.kind = kind;
  b.layers = layers;
  b.hidden_size = b.heads = b.kv_heads = b.head_dim = NDS_UNKNOWN;
  b.q_lora_rank = b.kv_lora_rank = b.qk_nope_head_dim = b.qk_rope_head_dim = b.v_head_dim =
      NDS_UNKNOWN;
  b.attention = b.ffn = b.norm = NDS_UNKNOWN;
  b.qk_norm = b.grouped_gemm = b.linear_bias = b.qkv_bias = NDS_UNKNOWN;
  b.ffn_hidden_size = b.experts = b.experts_per_token = b.shared_experts = NDS_UNKNOWN;
  b.shared_expert_ffn_hidden_size = b.moe_ffn_hidden_size = NDS_UNKNOWN;
  b.capacity_factor = b.hidden_dropout = b.attention_dropout = NDS_UNKNOWN;
  b.attention_window = 0;  // every key of its sequence unless a parser says otherwise
  b.moe_padded = 0;        // each expert gets the tokens routed to it
  b.router_groups = b.router_group_topk = 0;  // a router not limited to groups
  return b;
}

Model::Model() {
  training.struct_size = sizeof(nds_training);
  training.seq_len = training.global_batch = NDS_UNKNOWN;
  training.params_dtype = training.compute_dtype = training.grads_dtype = NDS_DTYPE_UNKNOWN;
  training.optimizer_dtype = training.master_dtype = NDS_DTYPE_UNKNOWN;
  training.optimizer = NDS_UNKNOWN;
  training.optimizer_states = NDS_UNKNOWN;
  training.recompute_ops = 0;
  training.overlap = 0;
  training.device_memory_bytes = NDS_UNKNOWN;
  training.capabilities = 0;
  training.activation_dtype = NDS_DTYPE_UNKNOWN;  // finalize_model decides it
  training.fp8_recipe = NDS_FP8_NONE;
  training.image_tokens = training.images_per_sample = NDS_UNKNOWN;
  training.stage_split = NDS_SPLIT_REFERENCE;
  training.stage_split_edge_layers = 0;
  training.fsdp_holding = NDS_FSDP_LAYER_BY_LAYER;
  training.loss_bytes_per_logit = 0;
  training.loss_forward_bytes_per_logit = 0;  // a fused cross entropy's, sdk::loss_traffic
  training.loss_backward_bytes_per_logit = 0;
  training.cp_ulysses_degree = 0;  // the cp-ulysses option or the plugin's choice
  training.cp_kv_heads_repeated = 0;
  training.elementwise_kernels = NDS_ELEMENTWISE_FUSED;
  training.attention_kernel = NDS_ATTENTION_KERNEL_DEVICE;
  training.tp_keeps_gathered_inputs = 0;
  training.swapped_ops = 0;
  training.swap_optimizer = 0;
  training.master_reuses_params = 0;
  training.vocab_multiple_per_tp = 0;
  training.moe_dispatcher = NDS_MOE_DISPATCH_ALLTOALL;
  training.expert_rank_load = nullptr;  // balanced (the host's routing input fills it)
  training.expert_rank_load_count = 0;
  stated.struct_size = sizeof(nds_strategy);
  for (int32_t* key : {&stated.dp, &stated.tp, &stated.pp, &stated.cp, &stated.ep, &stated.etp,
                       &stated.vpp, &stated.sp, &stated.zero, &stated.op, &stated.mbs, &stated.mbn})
    *key = NDS_UNKNOWN;
  stated.recompute = NDS_UNKNOWN;
  stated.schedule = NDS_UNKNOWN;
}

const std::vector<OverlapSwitch>& overlap_switches() {
  static const std::vector<OverlapSwitch> switches = {
      {"overlap.grad_reduce", "grad_reduce", "dp", "the gradient reduce", NDS_OVERLAP_GRAD_REDUCE},
      {"overlap.param_gather", "param_gather", "param", "the parameter all-gather",
       NDS_OVERLAP_PARAM_GATHER},
      {"overlap.tp_comm", "tp_comm", "tp", "the TP/SP collectives", NDS_OVERLAP_TP_COMM},
      {"overlap.moe_a2a", "moe_a2a", "ep", "the MoE all-to-all", NDS_OVERLAP_MOE_A2A},
      {"overlap.moe_shared", "moe_shared", "ep-shared",
       "the MoE all-to-all behind the shared experts", NDS_OVERLAP_MOE_SHARED},
      {"overlap.p2p", "p2p", "pp", "the pipeline send/recv", NDS_OVERLAP_P2P},
      {"overlap.cp", "cp", "cp", "the context-parallel KV exchange", NDS_OVERLAP_CP},
      {"overlap.tp_async", "tp_async", "tp-async",
       "the backward's column-parallel TP exchange, async under its GEMMs", NDS_OVERLAP_TP_ASYNC},
  };
  return switches;
}

const std::vector<Fp8RecipeName>& fp8_recipe_names() {
  static const std::vector<Fp8RecipeName> names = {{"delayed", NDS_FP8_DELAYED},
                                                   {"current", NDS_FP8_CURRENT},
                                                   {"tensorwise", NDS_FP8_CURRENT},
                                                   {"blockwise", NDS_FP8_BLOCKWISE},
                                                   {"mxfp8", NDS_FP8_MXFP8}};
  return names;
}

const std::vector<RecomputeOpName>& recompute_op_names() {
  static const std::vector<RecomputeOpName> names = {
      {"core_attention", "core_attn", "the attention core", NDS_RECOMPUTE_OP_CORE_ATTENTION},
      {"mlp", "mlp", "the dense MLP", NDS_RECOMPUTE_OP_MLP},
      {"norm", "layernorm", "the norms", NDS_RECOMPUTE_OP_NORM},
      {"activation", "moe_act", "the routed experts' activation", NDS_RECOMPUTE_OP_ACTIVATION},
      {"moe", "moe", "the MoE layer (router, experts, shared experts)", NDS_RECOMPUTE_OP_MOE},
      {"alternate_matmuls", "",
       "every op but attention and every other matmul (PyTorch's per-op checkpointing with "
       "torchtitan's policy: in a Llama block wk, wo and w3, the memory-bound ops and the TP "
       "all-gathers run again)",
       NDS_RECOMPUTE_OP_ALTERNATE_MATMULS},
      {"attention", "", "the attention module (its input, Q, K, V, the core's output)",
       NDS_RECOMPUTE_OP_ATTENTION},
      {"mlp_activation", "", "the dense MLP's and shared experts' activation",
       NDS_RECOMPUTE_OP_MLP_ACTIVATION}};
  return names;
}

std::string recompute_ops_words(uint64_t ops) {
  std::string words;
  for (const RecomputeOpName& o : recompute_op_names())
    if ((ops & o.bit) != 0u) words += (words.empty() ? "" : ", ") + std::string(o.what);
  return words;
}

std::string trainer_family(const Model& model) {
  if (model.framework == "torchtitan-toml") return "torchtitan";
  if (model.framework == "mindformers-yaml" || model.framework == "hyperparallel-yaml")
    return "mindspore";
  // MindSpeed runs Megatron-Core's code on torch_npu with kernels and
  // overlaps of its own (MC2): a family of its own, told by the trainer
  // description its parser states.
  if (described_trainer(model).rfind("MindSpeed ", 0) == 0) return "mindspeed";
  return "megatron";
}

std::string described_trainer(const Model& model) {
  // The parser states its description as the default every capability key
  // takes (plugins' state_trainer): "default:<name> <release> (docs/trainers.md)".
  const std::string from = training_source(model, "capabilities.interleave", "");
  return from.rfind("default:", 0) == 0 && from.find("docs/trainers.md") != std::string::npos
             ? from.substr(8)
             : std::string();
}

std::string training_source(const Model& model, const char* key, const std::string& otherwise) {
  const auto it = model.training_provenance.find(key);
  return it == model.training_provenance.end() ? otherwise : it->second;
}

bool overlap_stated(const Model& model) {
  return std::ranges::any_of(overlap_switches(), [&](const OverlapSwitch& s) {
    return model.training_provenance.contains(s.key);
  });
}

bool stated_counts_partial(const Model& model) {
  return !model.recompute_layers.empty() &&
         std::accumulate(model.recompute_layers.begin(), model.recompute_layers.end(), int64_t{0}) <
             model.decoder_layers();
}

int64_t Model::decoder_layers() const {
  int64_t layers = 0;
  for (const ModelBlock& b : main.blocks)
    if (b.c.kind == NDS_BLOCK_DECODER) layers += b.c.layers;
  return layers;
}

int64_t Model::mtp_layers() const {
  int64_t layers = 0;
  for (const ModelBlock& b : main.blocks)
    if (b.c.kind == NDS_BLOCK_MTP) layers += b.c.layers;
  return layers;
}

const nds_layer_block* Model::first_decoder() const {
  for (const ModelBlock& b : main.blocks)
    if (b.c.kind == NDS_BLOCK_DECODER) return &b.c;
  return nullptr;
}

const nds_layer_block* Model::first_moe() const {
  for (const ModelBlock& b : main.blocks)
    if (b.c.kind == NDS_BLOCK_DECODER && b.c.experts > 0) return &b.c;
  return nullptr;
}

namespace {
nds_model part_view(const ModelPart& part, const std::vector<nds_layer_block>& blocks) {
  nds_model m{};
  m.struct_size = sizeof(nds_model);
  m.name = part.name.c_str();
  m.blocks = blocks.data();
  m.block_count = blocks.size();
  m.block_elem_size = sizeof(nds_layer_block);
  m.vocab_size = part.vocab_size;
  m.padded_vocab_size = part.padded_vocab_size;
  m.tied_embeddings = part.tied_embeddings;
  m.position_embedding = part.position_embedding;
  m.max_position_embeddings = part.max_position_embeddings;
  m.flash_attention = part.flash_attention;
  m.submodel_elem_size = sizeof(nds_model);
  m.patch_inputs = part.patch_inputs;
  m.patch_bias = part.patch_bias;
  m.position_table = part.position_table;
  m.merge_patches = part.merge_patches;
  m.out_hidden_size = part.out_hidden_size;
  m.mergers = part.mergers;
  return m;
}
}  // namespace

const nds_model& Model::view() {
  main_blocks_.clear();
  for (const ModelBlock& b : main.blocks) main_blocks_.push_back(b.c);
  sub_blocks_.assign(submodels.size(), {});
  sub_views_.clear();
  for (size_t i = 0; i < submodels.size(); ++i) {
    for (const ModelBlock& b : submodels[i].blocks) sub_blocks_[i].push_back(b.c);
    sub_views_.push_back(part_view(submodels[i], sub_blocks_[i]));
  }
  training.stated_strategy = &stated;
  training.stage_layers = stage_layers.data();
  training.stage_layer_count = stage_layers.size();
  training.stage_layer_offsets = stage_layer_offsets.data();
  training.stage_layer_offset_count = stage_layer_offsets.size();
  training.recompute_layers = recompute_layers.data();
  training.recompute_layer_count = recompute_layers.size();
  training.cp_algorithm = cp_algorithm.empty() ? nullptr : cp_algorithm.c_str();
  training.expert_rank_load = expert_rank_load.empty() ? nullptr : expert_rank_load.data();
  training.expert_rank_load_count = expert_rank_load.size();
  view_ = part_view(main, main_blocks_);
  view_.framework = framework.c_str();
  view_.training = &training;
  view_.submodels = sub_views_.data();
  view_.submodel_count = sub_views_.size();
  return view_;
}

}  // namespace ndsearch

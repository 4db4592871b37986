// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/sample_inputs.hpp"

namespace ndsearch {
namespace {

// The recompute menu's per-layer figures (SampleInputs' constructor says how).
constexpr double kKeptBytes = 44826624.0;
constexpr double kLayerForwardS = 8858370048.0 / 1.0e15;
constexpr double kCoreForwardS = 1610612736.0 / 1.0e15;

// A switch level; the fields a later minor appends stay zero (their defaults).
void set_level(nds_topology_level& level, uint32_t group_devices, double link_bytes_per_s,
               double device_bytes_per_s, double latency_s, const char* name) {
  level.struct_size = sizeof(nds_topology_level);
  level.group_devices = group_devices;
  level.link_kind = NDS_LINK_SWITCH;
  level.link_bandwidth_bytes_per_s = link_bytes_per_s;
  level.device_bandwidth_bytes_per_s = device_bytes_per_s;
  level.latency_s = latency_s;
  level.name = name;
}

// GPT-2 small's decoder layers (the shapes sample_inputs.hpp names).
void describe_block(nds_layer_block& block) {
  block.struct_size = sizeof(nds_layer_block);
  block.kind = NDS_BLOCK_DECODER;
  block.layers = 12;
  block.hidden_size = 768;
  block.attention = NDS_ATTENTION_MHA;
  block.heads = 12;
  block.kv_heads = 12;
  block.head_dim = 64;
  block.q_lora_rank = 0;
  block.kv_lora_rank = 0;
  block.qk_nope_head_dim = 0;
  block.qk_rope_head_dim = 0;
  block.v_head_dim = 64;
  block.qk_norm = 0;
  block.ffn = NDS_FFN_GELU;
  block.ffn_hidden_size = 3072;
  block.capacity_factor = 0;
  block.grouped_gemm = 0;
  block.norm = NDS_NORM_LAYERNORM;
  block.linear_bias = 1;
  block.qkv_bias = 1;
  block.hidden_dropout = 0.1;
  block.attention_dropout = 0.1;
}

// bf16 training with AdamW's fp32 states; `stated` is the strategy the config states.
void describe_training(nds_training& training, const nds_strategy* stated) {
  training.struct_size = sizeof(nds_training);
  training.seq_len = 1024;
  training.global_batch = 8;
  training.params_dtype = NDS_DTYPE_BF16;
  training.compute_dtype = NDS_DTYPE_BF16;
  training.grads_dtype = NDS_DTYPE_FP32;
  training.optimizer_dtype = NDS_DTYPE_FP32;
  training.master_dtype = NDS_DTYPE_FP32;
  training.optimizer = NDS_OPTIMIZER_ADAMW;
  training.optimizer_states = 2;
  training.stated_strategy = stated;
  training.device_memory_bytes = NDS_UNKNOWN;
  training.capabilities = NDS_CAN_SP_WITH_CP | NDS_CAN_INTERLEAVE;
  training.activation_dtype = NDS_DTYPE_BF16;
  training.fp8_recipe = NDS_FP8_NONE;
}

// GPT-2 small as a model of one block (all 12 layers), trained as `training` says.
void describe_model(nds_model& model, const nds_layer_block* block, const nds_training* training) {
  model.struct_size = sizeof(nds_model);
  model.name = "gpt2-small (sample)";
  model.framework = "sample";
  model.blocks = block;
  model.block_count = 1;
  model.block_elem_size = sizeof(nds_layer_block);
  model.vocab_size = 50257;
  model.padded_vocab_size = 50304;
  model.tied_embeddings = 1;
  model.position_embedding = NDS_POSITION_LEARNED;
  model.max_position_embeddings = 1024;
  model.flash_attention = 1;
  model.training = training;
  model.submodel_elem_size = sizeof(nds_model);
}

// A made-up device with round figures; not any vendor's: 80 GiB, a bf16 peak,
// nodes of 8 on a switch and a network between them.
void describe_device(nds_device& device, nds_dtype_peak& peak, nds_topology_level (&levels)[2]) {
  peak.struct_size = sizeof(nds_dtype_peak);
  peak.dtype = "bf16";
  peak.peak_flops_per_s = 1.0e15;
  set_level(levels[0], 8, 100.0e9, 400.0e9, 3.0e-6, "node");
  set_level(levels[1], 0, 50.0e9, 50.0e9, 8.0e-6, "network");
  device.struct_size = sizeof(nds_device);
  device.id = "sample-device";
  device.name = "Sample device";
  device.vendor = "ndsearch";
  device.memory_bytes = UINT64_C(80) << 30;
  device.memory_bandwidth_bytes_per_s = 3.0e12;
  device.reserved_bytes = UINT64_C(2) << 30;
  device.host_link_bytes_per_s = 50.0e9;
  device.peaks = &peak;
  device.peak_count = 1;
  device.peak_elem_size = sizeof(nds_dtype_peak);
  device.levels = levels;
  device.level_count = 2;
  device.level_elem_size = sizeof(nds_topology_level);
  device.assumes = "8 devices per node on a switch, 400 Gb/s per device between nodes";
}

}  // namespace

SampleInputs::SampleInputs() {
  stated_ = {sizeof(nds_strategy), 2, 2, 2, 1, 1, 2, 1, 1, 1, 2, 1, 4, NDS_RECOMPUTE_NONE,
             NDS_SCHEDULE_1F1B};

  describe_block(block_);
  describe_training(training_, &stated_);
  describe_model(model_, &block_, &training_);
  describe_device(device_, peak_, levels_);

  // The allocator pass's share as the shipped `allocator` pass took it before 1.10.
  compile_input_ = {sizeof(nds_compile_input), &model_, &device_, 0.10};

  strategy_ = stated_;  // the candidate is what the config states
  candidate_ = {sizeof(nds_candidate),
                &strategy_,
                chunk_layers_.data(),
                chunk_first_layer_.data(),
                chunk_recomputed_layers_.data(),
                in_flight_.data(),
                nullptr};

  // The recompute menu, per layer of the candidate (tp 2 with sequence
  // parallelism, s 1024, b 1, h 768, a 12; Korthikanti et al. 2022, as if
  // without flash attention so that selective recompute frees something):
  // a layer keeps sbh(34 + 5as/h)/t = 13,369,344 + 31,457,280 = 44,826,624
  // bytes per micro-batch; selective frees the attention core's 5as²b/t =
  // 31,457,280, full all but the layer's input 2sbh/t: 44,040,192. Times the
  // micro-batches in flight (2 on rank 0, 1 on rank 1). The forward of a
  // layer is (24bsh² + 4bs²h)/t = 8,858,370,048 FLOP at 1e15 FLOP/s, the
  // attention core's 4bs²h/t 1,610,612,736; the extra seconds are per step, times mbn = 4.
  for (uint32_t r = 0; r < kRecomputeRanks; ++r) {
    nds_recompute_group& g = recompute_groups_[r];
    const double in_flight = in_flight_[r];
    g.struct_size = sizeof(nds_recompute_group);
    g.chunk = 0;
    g.block = 0;
    g.first_layer = chunk_first_layer_[r];
    g.layers = chunk_layers_[r];
    g.option[NDS_LAYER_SELECTIVE] = {31457280.0 * in_flight, 4 * kCoreForwardS};
    g.option[NDS_LAYER_FULL] = {44040192.0 * in_flight, 4 * kLayerForwardS};
    // Offload keeps one micro-batch's copy on the device at a time.
    g.option[NDS_LAYER_OFFLOAD] = {kKeptBytes * (in_flight - 1), 0.0};
    g.offload_copy_bytes = kKeptBytes;
    g.offload_host_bytes = kKeptBytes * in_flight;
  }
}

std::array<nds_recompute_rank, SampleInputs::kRecomputeRanks> SampleInputs::recompute_ranks(
    uint32_t* counts) const noexcept {
  // Rank 0 must free 200 MB (selective on 4 of its layers frees 251.7 MB);
  // rank 1 fits with every layer kept.
  constexpr double kWithout[kRecomputeRanks] = {4.0e9, 3.0e9};
  std::array<nds_recompute_rank, kRecomputeRanks> ranks{};
  for (uint32_t r = 0; r < kRecomputeRanks; ++r) {
    nds_recompute_rank& rank = ranks[r];
    rank.struct_size = sizeof(nds_recompute_rank);
    rank.budget_bytes = 3.8e9;
    rank.bytes_without_recompute = kWithout[r];
    rank.full_working_set_bytes = kKeptBytes;
    rank.host_bytes_free = static_cast<double>(UINT64_C(64) << 30);
    rank.host_link_bytes_per_s = device_.host_link_bytes_per_s;
    rank.forward_s = 6 * kLayerForwardS;
    rank.backward_s = 2 * rank.forward_s;
    rank.micro_batches = static_cast<uint32_t>(strategy_.mbn);
    rank.group_count = 1;
    rank.groups = &recompute_groups_[r];
    rank.group_elem_size = sizeof(nds_recompute_group);
    rank.layers_per_option = counts + r * NDS_LAYER_OPTION_COUNT_V1;
  }
  return ranks;
}

}  // namespace ndsearch

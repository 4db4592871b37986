/* SPDX-License-Identifier: Apache-2.0 */
/* nds_model.h: the model as the host hands it to compile-once plugins (memory
 * passes, CP attention models): layer blocks in model order plus training
 * settings, all plain data owned by the host. Parsers fill the same fields
 * through the builder of nds_parser.h; abi/model-vocabulary.md lists them. */
#ifndef NDSEARCH_NDS_MODEL_H_INCLUDED
#define NDSEARCH_NDS_MODEL_H_INCLUDED

#include "nds_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every integer, real or enumeration field of the model that nobody stated
 * and that has no default reads as NDS_UNKNOWN (never as 0). Flags are 0/1 or
 * NDS_UNKNOWN. */
#define NDS_UNKNOWN (-1)

/* ---- Enumerations (stored as int32_t) --------------------------------------- */
typedef int32_t nds_dtype;
enum {
  NDS_DTYPE_UNKNOWN = NDS_UNKNOWN,
  NDS_DTYPE_NONE = 0, /* nothing kept (a master_dtype when there are no master weights) */
  NDS_DTYPE_FP32 = 1,
  NDS_DTYPE_TF32 = 2,
  NDS_DTYPE_BF16 = 3,
  NDS_DTYPE_FP16 = 4,
  NDS_DTYPE_FP8 = 5
};

typedef int32_t nds_block_kind;
enum {
  NDS_BLOCK_DECODER = 0, /* a transformer layer of the language model */
  NDS_BLOCK_MTP = 1,     /* a multi-token-prediction layer (on the last stage) */
  NDS_BLOCK_ENCODER = 2  /* a layer of an encoder tower (vision, audio) */
};

typedef int32_t nds_attention_kind;
enum {
  NDS_ATTENTION_MHA = 0, /* kv_heads == heads */
  NDS_ATTENTION_GQA = 1, /* kv_heads < heads (MQA: kv_heads == 1) */
  NDS_ATTENTION_MLA = 2  /* multi-head latent attention (DeepSeek-V2/V3) */
};

typedef int32_t nds_ffn_kind;
enum {
  NDS_FFN_GELU = 0,  /* two matrices, h -> ffn -> h */
  NDS_FFN_SWIGLU = 1 /* three matrices, gated */
};

typedef int32_t nds_norm_kind;
enum { NDS_NORM_LAYERNORM = 0, NDS_NORM_RMSNORM = 1 };

typedef int32_t nds_position_kind;
enum { NDS_POSITION_ROPE = 0, NDS_POSITION_LEARNED = 1, NDS_POSITION_NONE = 2 };

typedef int32_t nds_optimizer_kind;
enum { NDS_OPTIMIZER_ADAM = 0, NDS_OPTIMIZER_ADAMW = 1, NDS_OPTIMIZER_MUON = 2, NDS_OPTIMIZER_SGD = 3 };

typedef int32_t nds_recompute_mode;
enum { NDS_RECOMPUTE_NONE = 0, NDS_RECOMPUTE_SELECTIVE = 1, NDS_RECOMPUTE_FULL = 2 };

typedef int32_t nds_schedule;
enum {
  NDS_SCHEDULE_1F1B = 0,
  NDS_SCHEDULE_INTERLEAVED = 1,
  NDS_SCHEDULE_GPIPE = 2,
  NDS_SCHEDULE_ZB_V = 3,
  /* 1.4: DeepSeek-V3's bidirectional DualPipe (vpp 2: chunk 0 is stage r of
     pp, chunk 1 stage pp-1-r, so a rank holds two stages' parameters) and
     DualPipe-V (vpp 2, the V placement of zb-v). A pass built before 1.4
     sees them as an unknown schedule; in_flight holds their counts. */
  NDS_SCHEDULE_DUALPIPE = 4,
  NDS_SCHEDULE_DUALPIPE_V = 5
};

/* 1.1: how fp8 GEMMs scale their operands (nds_training.fp8_recipe). */
typedef int32_t nds_fp8_recipe;
enum {
  NDS_FP8_NONE = 0,      /* compute_dtype is not fp8 */
  NDS_FP8_DELAYED = 1,   /* per-tensor scales from an amax history (Transformer Engine's default) */
  NDS_FP8_CURRENT = 2,   /* per-tensor scales from the current amax ("tensorwise") */
  NDS_FP8_BLOCKWISE = 3, /* one scale per block of a tensor (DeepSeek-V3's 1x128 / 128x128) */
  NDS_FP8_MXFP8 = 4      /* OCP microscaling: one e8m0 scale per 32 elements */
};

/* Selective recompute op set (bit flags). */
#define NDS_RECOMPUTE_OP_CORE_ATTENTION (UINT64_C(1) << 0)
#define NDS_RECOMPUTE_OP_MLP (UINT64_C(1) << 1)
#define NDS_RECOMPUTE_OP_NORM (UINT64_C(1) << 2)
#define NDS_RECOMPUTE_OP_ACTIVATION (UINT64_C(1) << 3)
#define NDS_RECOMPUTE_OP_MOE (UINT64_C(1) << 4)
/* 1.8: PyTorch's per-op selective checkpointing as torchtitan sets it: every
 * op of a layer is rebuilt but attention and every other matmul (in forward
 * order, the 1st, 3rd, ...), whose outputs are kept with the layer's input and,
 * under TP, the reduce-scatters' outputs. A reader before 1.8 does not know
 * the bit and keeps what the other bits leave. */
#define NDS_RECOMPUTE_OP_ALTERNATE_MATMULS (UINT64_C(1) << 5)
/* 1.9: the attention module: the input its QKV projection reads (the norm's
 * output), Q, K and V, the core's output and per-key tensors (MindSpeed's
 * --swap-attention moves these to the host, nds_training.swapped_ops). A
 * reader before 1.9 does not know the bit. */
#define NDS_RECOMPUTE_OP_ATTENTION (UINT64_C(1) << 6)
/* 1.12: the activation function's output (the second GEMM's input) of the
 * dense MLP and of the shared experts, rebuilt from the first GEMM's kept
 * output (MindSpeed's --recompute-activation-function, which also covers the
 * routed experts': NDS_RECOMPUTE_OP_ACTIVATION). A reader before 1.12 does
 * not know the bit and keeps the output. */
#define NDS_RECOMPUTE_OP_MLP_ACTIVATION (UINT64_C(1) << 7)

/* Overlap switches the config turns on (bit flags). */
#define NDS_OVERLAP_GRAD_REDUCE (UINT64_C(1) << 0)
#define NDS_OVERLAP_PARAM_GATHER (UINT64_C(1) << 1)
#define NDS_OVERLAP_TP_COMM (UINT64_C(1) << 2)
#define NDS_OVERLAP_MOE_A2A (UINT64_C(1) << 3)
#define NDS_OVERLAP_P2P (UINT64_C(1) << 4)
/* 1.1: the CP ring/all-to-all overlapped with the attention blocks. */
#define NDS_OVERLAP_CP (UINT64_C(1) << 5)
/* 1.13: the MoE all-to-all overlapped with the shared experts' compute of
 * the same micro-batch only (Megatron-Core's --moe-shared-expert-overlap),
 * not with another micro-batch's (NDS_OVERLAP_MOE_A2A). A reader before 1.13
 * does not know the bit and leaves the exchange exposed. */
#define NDS_OVERLAP_MOE_SHARED (UINT64_C(1) << 6)
/* 1.17: the backward runs the column-parallel linears' TP exchange
 * asynchronously, under their own GEMMs: with SP the re-gather of the input
 * under the input-gradient GEMM and the reduce-scatter of that gradient under
 * the weight-gradient GEMM, without SP its all-reduce under the
 * weight-gradient GEMM (Megatron-LM since 2021-09, Megatron-Core, Transformer
 * Engine, MindSpeed; off with --no-async-tensor-model-parallel-allreduce). A
 * reader before 1.17 does not know the bit and leaves that exchange exposed. */
#define NDS_OVERLAP_TP_ASYNC (UINT64_C(1) << 7)

/* 1.13: how tokens reach their routed experts (nds_training.moe_dispatcher). */
typedef enum nds_moe_dispatcher {
  /* an all-to-all over the EP group of every routed copy of a token
   * (Megatron-Core's alltoall dispatcher; what a writer before 1.13 means) */
  NDS_MOE_DISPATCH_ALLTOALL = 0,
  /* every token all-gathered over the EP group, the outputs reduce-scattered
   * back (Megatron-Core's allgather dispatcher) */
  NDS_MOE_DISPATCH_ALLGATHER = 1,
  /* one copy of a token per destination node over the network, forwarded to
   * the experts inside the node over its fabric (DeepEP, HybridEP: DeepSeek-V3
   * report section 3.2.2) */
  NDS_MOE_DISPATCH_NODE_DEDUP = 2
} nds_moe_dispatcher;

/* What the trainer can do (bit flags); the validity checks read them. */
#define NDS_CAN_SP_WITH_CP (UINT64_C(1) << 0)
#define NDS_NEEDS_POW2_TP (UINT64_C(1) << 1)
#define NDS_CAN_INTERLEAVE (UINT64_C(1) << 2)
#define NDS_CAN_ZERO3 (UINT64_C(1) << 3)
#define NDS_CAN_EXPERT_TP (UINT64_C(1) << 4)
/* 1.1: the trainer has no ZeRO-2 (gradients sharded, parameters whole):
 * Megatron-LM's distributed optimizer shards the optimizer states only, its
 * FSDP everything. */
#define NDS_NO_ZERO2 (UINT64_C(1) << 5)
/* 1.7: the trainer has no ZeRO-1 (optimizer states sharded, gradients and
 * parameters whole): MindSpore's parallel optimizer shards the parameters
 * with the states, TorchTitan's FSDP2 everything. */
#define NDS_NO_ZERO1 (UINT64_C(1) << 6)
/* 1.7: the trainer runs TP with sequence parallelism always (sp = 0 at
 * tp > 1 is not a setting it has): TorchTitan's TP plans shard the norms
 * and dropout over the sequence. */
#define NDS_NEEDS_SP_WITH_TP (UINT64_C(1) << 7)
/* 1.11: pipeline schedules the trainer does not run (1F1B every trainer
 * runs; interleaved 1F1B is NDS_CAN_INTERLEAVE): the search ranks none of
 * them. Megatron-LM has no GPipe, ZB-V or DualPipe; MindSpeed adds
 * DualPipe-V; MindFormers and HyperParallel run GPipe and ZB-V; TorchTitan
 * all but DualPipe. A reader before 1.11 does not know the bits. */
#define NDS_NO_GPIPE (UINT64_C(1) << 8)
#define NDS_NO_ZB_V (UINT64_C(1) << 9)
#define NDS_NO_DUALPIPE (UINT64_C(1) << 10)
#define NDS_NO_DUALPIPE_V (UINT64_C(1) << 11)
/* 1.15: the trainer runs no context parallelism in a model with
 * sliding-window attention (MindSpeed-LLM refuses it in its argument
 * checks): the search ranks no cp > 1 for a model with a windowed decoder
 * layer. A reader before 1.15 does not know the bit. */
#define NDS_NO_CP_WITH_WINDOW (UINT64_C(1) << 12)

/* 1.7: how the trainer splits the decoder layers over its pipeline stages
 * when the config states no split (sdk/stage_split.hpp computes each). */
/* 1.8: what fully sharded data parallelism keeps gathered. */
typedef int32_t nds_fsdp_holding;
enum {
  /* Each layer's parameters gathered before it runs and freed after it, the
   * next one prefetched: two layers in flight (DeepSpeed ZeRO-3,
   * Megatron-FSDP). */
  NDS_FSDP_LAYER_BY_LAYER = 0,
  /* PyTorch FSDP2 (fully_shard) with each block resharded after its forward:
   * two blocks in flight, and the root module (embedding, final norm, output
   * head) kept gathered from its forward to its backward. */
  NDS_FSDP2_RESHARD = 1,
  /* FSDP2 with reshard_after_forward off: every block's gathered parameters
   * stay from its forward to its backward, and with several micro-batches
   * the unsharded gradients accumulate in the reduce dtype until the last. */
  NDS_FSDP2_KEEP = 2,
  /* torchtitan's rule: NDS_FSDP2_KEEP under pipeline parallelism (pp > 1),
   * else NDS_FSDP2_RESHARD. */
  NDS_FSDP2_KEEP_UNDER_PP = 3,
  /* 1.12: every block's gathered parameters stay from its forward to its
   * backward, as NDS_FSDP2_KEEP, but each micro-batch's gradients are
   * reduce-scattered into sharded accumulators (MindSpore's parallel
   * optimizer with gradient_accumulation_shard). A reader before 1.12 does
   * not know the value and holds layer by layer. */
  NDS_FSDP_KEEP_SHARDED_GRADS = 4
};

/* 1.18: how the trainer runs a layer's memory-bound work (the norms, RoPE,
 * the MLP's activation, the residual additions). */
typedef int32_t nds_elementwise_kernels;
enum {
  /* Fused kernels, each reading its inputs and writing its output once
   * (Megatron-Core with Transformer Engine, MindSpeed's fused ops,
   * torch.compile's generated kernels). */
  NDS_ELEMENTWISE_FUSED = 0,
  /* PyTorch eager: one kernel per op, RMSNorm and RoPE computed in fp32 with
   * casts each way, the gated MLP's activation and product apart, grouped-
   * query K and V copied to every query head (torchtitan without compile). */
  NDS_ELEMENTWISE_EAGER = 1
};

/* 1.18: which fused attention kernel the trainer runs. */
typedef int32_t nds_attention_kernel;
enum {
  /* The device's own attention curves (nds_dtype_peak): its best fused
   * kernel (FlashAttention-3 on Hopper, Transformer Engine's cuDNN fused
   * attention, Ascend's FlashAttentionScore). */
  NDS_ATTENTION_KERNEL_DEVICE = 0,
  /* FlashAttention-2, as PyTorch's scaled_dot_product_attention runs it with
   * its flash backend (torchtitan): Ampere's instructions on any GPU. */
  NDS_ATTENTION_KERNEL_FA2 = 1
};

typedef int32_t nds_stage_split;
enum {
  /* The reference's: layers / (pp·vpp) each, the remainder placed from
   * chunk vpp-2, rank pp-2 backwards (vpp 1: the first stages one more).
   * MindFormers and HyperParallel state any split as offsets. */
  NDS_SPLIT_REFERENCE = 0,
  /* Megatron-Core's: equal middle stages, the first and the last take the
   * rest (--decoder-first/last-pipeline-num-layers); under virtual stages
   * each chunk row splits layers / vpp so (every count divisible by vpp). */
  NDS_SPLIT_FIRST_LAST = 1,
  /* TorchTitan's: the embedding and the output head weigh
   * `stage_split_edge_layers` layers each on the first and last stage, and
   * the weighted layers split evenly over the stages, the first ones one
   * more (its pipeline_parallel_first/last_stage_less_layers, 1 by default). */
  NDS_SPLIT_EDGES_WEIGHTED = 2,
  /* MindSpeed's: no-op layers (--noop-layers) pad the layers to a multiple
   * of pp·vpp, split evenly, the padding on the last stages. */
  NDS_SPLIT_PADDED = 3
};

/* ---- Strategy -----------------------------------------------------------------
 * The keys of DESIGN §8.1. In a stated strategy a key nobody stated is
 * NDS_UNKNOWN; in a candidate every key is set. */
typedef struct nds_strategy {
  size_t struct_size;
  int32_t dp;
  int32_t tp;
  int32_t pp;
  int32_t cp;
  int32_t ep;
  int32_t etp;
  int32_t vpp;
  int32_t sp;   /* 0/1 */
  int32_t zero; /* 0..3 */
  int32_t op;   /* sharding group size for zero >= 1 */
  int32_t mbs;  /* sequences per micro-batch */
  int32_t mbn;  /* micro-batches per step */
  nds_recompute_mode recompute;
  nds_schedule schedule;
  /* Add fields only at the end. */
} nds_strategy;

/* ---- Layer block ----------------------------------------------------------------
 * `layers` consecutive layers of one shape. Dense layers followed by MoE layers
 * are two blocks; a layer-frequency pattern is as many blocks as it alternates. */
typedef struct nds_layer_block {
  size_t struct_size;
  nds_block_kind kind;
  int64_t layers;
  int64_t hidden_size;
  nds_attention_kind attention;
  int64_t heads;
  int64_t kv_heads;
  int64_t head_dim;
  int64_t q_lora_rank; /* MLA; 0 = queries not compressed */
  int64_t kv_lora_rank;
  int64_t qk_nope_head_dim;
  int64_t qk_rope_head_dim;
  int64_t v_head_dim;
  int32_t qk_norm;
  nds_ffn_kind ffn;
  int64_t ffn_hidden_size;     /* dense FFN; 0 in a MoE layer without a dense FFN */
  int64_t experts;             /* routed experts; 0 = dense layer */
  int64_t experts_per_token;
  int64_t shared_experts;
  int64_t shared_expert_ffn_hidden_size; /* of one shared expert */
  int64_t moe_ffn_hidden_size;           /* of one routed expert */
  double capacity_factor;                /* 0 = dropless */
  int32_t grouped_gemm;
  nds_norm_kind norm;
  int32_t linear_bias; /* biases on the linear layers */
  int32_t qkv_bias;    /* biases on Q, K and V only (Qwen2) */
  double hidden_dropout;
  double attention_dropout;
  /* 1.6: keys each query attends to when the layer attends within windows
   * (Qwen2.5-VL's vision tower: (window_size / patch_size)^2 patches); 1.15:
   * in a decoder layer, a sliding window: the query and the keys before it,
   * priced as the band a fused kernel computes; 0 = every key of its
   * sequence (in a tower: of its image). A writer before 1.6 reads as 0. */
  int64_t attention_window;
  /* 1.13: 1 when each routed expert's input is padded to its capacity
   * (capacity_factor x an even share: Megatron-Core's
   * --moe-pad-expert-input-to-capacity), so that the layer's shapes do not
   * follow its routing; 0 (a writer before 1.13): each expert gets the
   * tokens routed to it, at most its capacity where capacity_factor > 0. */
  int32_t moe_padded;
  /* 1.13: a group-limited router (DeepSeek-V3's node-limited routing): the
   * routed experts in `router_groups` contiguous groups, each token's experts
   * taken from at most `router_group_topk` of them; 0 (a writer before
   * 1.13): from any. */
  int64_t router_groups;
  int64_t router_group_topk;
  /* Add fields only at the end. */
} nds_layer_block;

/* ---- Training settings --------------------------------------------------------- */
typedef struct nds_training {
  size_t struct_size;
  int64_t seq_len;
  int64_t global_batch; /* sequences per step */
  nds_dtype params_dtype;
  nds_dtype compute_dtype;
  nds_dtype grads_dtype;
  nds_dtype optimizer_dtype; /* of the optimizer states */
  nds_dtype master_dtype;    /* master weights; NDS_DTYPE_NONE = none kept */
  nds_optimizer_kind optimizer;
  int32_t optimizer_states; /* per parameter: Adam 2, Muon 1, SGD 0 or 1 */
  /* The strategy the config states (micro-batch size, recompute mode and
   * schedule included); keys nobody stated are NDS_UNKNOWN. */
  const nds_strategy* stated_strategy;
  const int64_t* stage_layers; /* stated layers per pipeline stage; `stage_layer_count` entries */
  size_t stage_layer_count;
  const int64_t* stage_layer_offsets; /* stated offsets from the even split, per stage */
  size_t stage_layer_offset_count;
  const int64_t* recompute_layers; /* stated recomputed layers per stage */
  size_t recompute_layer_count;
  uint64_t recompute_ops; /* NDS_RECOMPUTE_OP_* for selective */
  const char* cp_algorithm; /* as stated ("ring", "ulysses", ...); NULL = not stated */
  uint64_t overlap;         /* NDS_OVERLAP_* */
  int64_t device_memory_bytes;
  uint64_t capabilities;    /* NDS_CAN_* / NDS_NEEDS_* */
  /* 1.1: the dtype of the activations kept for backward and of the TP/CP/PP
   * collectives that carry them; NDS_DTYPE_UNKNOWN (or a 1.0 writer) reads as
   * compute_dtype, what 1.0 assumed. */
  nds_dtype activation_dtype;
  /* 1.1: NDS_FP8_*, how fp8 GEMMs scale; NDS_FP8_NONE when compute_dtype is not
   * fp8 (and what a 1.0 writer reads as). */
  int32_t fp8_recipe;
  /* 1.6: image tokens per sequence as the language model sees them (after a
   * vision tower merges its patches), part of seq_len; NDS_UNKNOWN = not
   * stated (a model without a tower needs none; a writer before 1.6 reads as
   * not stated). */
  int64_t image_tokens;
  /* 1.6: images those tokens come from per sequence (each attended within
   * itself by the tower); NDS_UNKNOWN = not stated (1). */
  int64_t images_per_sample;
  /* 1.7: the trainer's split of the layers over pipeline stages
   * (NDS_SPLIT_*), and for NDS_SPLIT_EDGES_WEIGHTED the layers the embedding
   * and the output head each weigh; a writer before 1.7 reads as
   * NDS_SPLIT_REFERENCE and 0. */
  nds_stage_split stage_split;
  int32_t stage_split_edge_layers;
  /* 1.8: how fully sharded data parallelism (zero 3) holds what it gathers
   * (NDS_FSDP_*); a writer before 1.8 reads as NDS_FSDP_LAYER_BY_LAYER. */
  nds_fsdp_holding fsdp_holding;
  /* 1.8: 1 when tensor parallelism with sequence parallelism keeps the
   * all-gathered input of each column-parallel linear (the QKV, MLP and
   * output-head inputs, whole on every TP rank) for the backward, as PyTorch's
   * DTensor TP does (torchtitan); 0 (a writer before 1.8) when it keeps the
   * sequence shard and gathers it again in the backward (Megatron-Core). */
  int32_t tp_keeps_gathered_inputs;
  /* 1.8: bytes per vocabulary entry and token the loss holds at its peak
   * (the logits' fp32 softmax and what its backward allocates); 0 (a writer
   * before 1.8) reads as 4: a fused cross entropy that keeps the fp32
   * softmax and writes its gradient in place (Megatron-Core's
   * vocab-parallel cross entropy). */
  double loss_bytes_per_logit;
  /* 1.9: NDS_RECOMPUTE_OP_* whose saved tensors the trainer moves to host
   * memory after each layer's forward and brings back one layer ahead of the
   * backward (MindSpeed's --swap-attention: NDS_RECOMPUTE_OP_ATTENTION); 0 (a
   * writer before 1.9) keeps everything on the device. */
  uint64_t swapped_ops;
  /* 1.9: 1 when the optimizer states and master weights live in host memory
   * and each step copies them in and out in pieces (MindSpeed's
   * --swap-optimizer), as the plugin option "swap-optimizer" says for a
   * config that cannot; 0 (a writer before 1.9): on the device. */
  int32_t swap_optimizer;
  /* 1.9: 1 when the master weights share the parameters' storage, each kept
   * as the parameter plus a residual of the master's remaining bytes
   * (MindSpeed's --reuse-fp32-param: bf16 + 16 bits = fp32), so a master
   * weight costs master - parameter bytes; 0 (a writer before 1.9): a copy
   * of its own. */
  int32_t master_reuses_params;
  /* 1.11: the trainer pads the vocabulary to a multiple of this times tp
   * (Megatron-LM's --make-vocab-size-divisible-by, 128 by default:
   * megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding), so
   * each candidate's tp pads it anew from vocab_size; 0 (a writer before
   * 1.11, or a trainer that does not pad): padded_vocab_size as stated. */
  int64_t vocab_multiple_per_tp;
  /* 1.13: NDS_MOE_DISPATCH_*, how tokens reach their routed experts; a
   * writer before 1.13 reads as NDS_MOE_DISPATCH_ALLTOALL. */
  int32_t moe_dispatcher;
  /* 1.13: filled by the host from its routing input (a parser leaves it
   * NULL): entry ep (0 .. expert_rank_load_count - 1) is the routed rows the
   * most loaded of ep expert-parallel ranks receives over an even share (>=
   * 1, dropless); NULL, or an entry 0: balanced routing (1). */
  const double* expert_rank_load;
  size_t expert_rank_load_count;
  /* 1.15: bytes the loss moves per vocabulary entry and token, forward and
   * backward: the cross entropy's casts, reductions and elementwise passes
   * over the logits as the trainer runs them (Megatron-LM's unfused
   * vocab-parallel cross entropy on fp32 logits: 38 and 14); 0 (a writer
   * before 1.15): a fused cross entropy's 22 and 6. */
  double loss_forward_bytes_per_logit;
  double loss_backward_bytes_per_logit;
  /* 1.16: the Ulysses degree of hybrid context parallelism (Ulysses inside
   * rings) as the config states it (MindSpeed's --ulysses-degree-in-cp); 0 (a
   * writer before 1.16, or none stated): the plugin option "cp-ulysses",
   * else the largest the KV heads allow. */
  int32_t cp_ulysses_degree;
  /* 1.16: 1 when the trainer repeats K and V to the query heads before
   * Ulysses' all-to-all (MindSpeed's --kv-head-repeat-before-uly-alltoall),
   * so Ulysses may split more ways than there are KV heads and its
   * all-to-all, and a hybrid's rings after it, carry K and V as wide as Q;
   * 0 (a writer before 1.16): as wide as the KV heads. */
  int32_t cp_kv_heads_repeated;
  /* 1.18: how the layers' memory-bound work runs (NDS_ELEMENTWISE_*); a
   * writer before 1.18 reads as NDS_ELEMENTWISE_FUSED. */
  nds_elementwise_kernels elementwise_kernels;
  /* 1.18: the attention kernel the trainer runs (NDS_ATTENTION_KERNEL_*); a
   * writer before 1.18 reads as NDS_ATTENTION_KERNEL_DEVICE. */
  nds_attention_kernel attention_kernel;
  /* Add fields only at the end. */
} nds_training;

/* ---- Model ------------------------------------------------------------------------ */
typedef struct nds_model {
  size_t struct_size;
  const char* name;
  const char* framework; /* the parser's id */
  const nds_layer_block* blocks; /* `block_count` entries, `block_elem_size` apart, model order */
  size_t block_count;
  size_t block_elem_size;
  int64_t vocab_size;
  int64_t padded_vocab_size;
  int32_t tied_embeddings;
  nds_position_kind position_embedding;
  int64_t max_position_embeddings;
  int32_t flash_attention;
  const nds_training* training; /* NULL in a submodel */
  /* Towers beside the language model (a vision encoder), `submodel_count`
   * entries, `submodel_elem_size` apart. */
  const struct nds_model* submodels;
  size_t submodel_count;
  size_t submodel_elem_size;
  /* 1.6: a vision tower's patch embedding, positions and merger (the
   * projector into the language model), in a submodel; 0 in the language
   * model and from a writer before 1.6. */
  int64_t patch_inputs;    /* elements of one patch: channels x temporal x patch^2 */
  int64_t position_table;  /* rows of learned patch positions; 0 = none */
  int64_t merge_patches;   /* patches merged into one language-model token */
  int64_t out_hidden_size; /* the merger's output width (the language model's hidden size) */
  int32_t patch_bias;      /* the patch embedding has a bias */
  /* Mergers: the first normalises each patch before the shuffle, any others
   * (Qwen3-VL's DeepStack) the merged vector after it; each is a norm, a
   * linear of merge_patches x hidden to itself and one to out_hidden_size,
   * with biases, over the merged tokens. */
  int32_t mergers;
  /* Add fields only at the end. */
} nds_model;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_MODEL_H_INCLUDED */

#!/bin/bash
# Qwen3-235B-A22B on 256 DGX-H100 GPUs, FP8 current scaling: Megatron-Bridge
# 25.11's performance run (NVIDIA-NeMo/Megatron-Bridge v0.2.1 = 1c43b39,
# docs/performance-summary.md, 1575 tokens/s/GPU), written as a Megatron-LM
# launch for ndsearch's validation from the published settings:
# - the model: Qwen/Qwen3-235B-A22B's config.json; src/megatron/bridge/models/
#   qwen/qwen_provider.py:363-424 (alltoall dispatcher, grouped GEMM, permute
#   fusion, aux-loss router in bf16, no shared experts);
# - the run: scripts/performance/configs/qwen3/workload_base_configs.py:135-144
#   (GBS 2048, MBS 1, seq 4096, TP 2, PP 8, VP 4, EP 32, ETP 1, MoE all-to-all
#   overlap with delayed weight gradients) and qwen3_llm_pretrain.py:33-47,156
#   (no recompute, router fusion, TP communication overlap off, bf16 gradient
#   reduction); utils/helpers.py (FP8-CS: hybrid format, tensorwise recipe,
#   fp8 param gather; SP with TP; distributed optimizer with both overlaps);
#   performance-summary.md:98 "we force-balance the token distribution among
#   experts and all benchmarks are token-dropless".
# Megatron-Bridge accounts the embedding and the loss in the pipeline split
# (src/megatron/bridge/recipes/qwen/qwen3_moe.py:160-161): 96 slots over 32
# virtual stages, 3 each, the first and the last 2 layers.
# The loss: Megatron-Bridge's GPTModelProvider fuses the cross entropy
# (cross_entropy_loss_fusion = True, src/megatron/bridge/models/gpt_provider.py).
GPT_ARGS="
    --num-layers 94 --hidden-size 4096 --num-attention-heads 64 \
    --group-query-attention --num-query-groups 4 --kv-channels 128 \
    --ffn-hidden-size 12288 --swiglu --normalization RMSNorm --qk-layernorm \
    --position-embedding-type rope --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --seq-length 4096 --max-position-embeddings 40960 --vocab-size 151936 \
    --num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 1536 --moe-grouped-gemm \
    --moe-token-dispatcher-type alltoall --moe-permute-fusion --moe-router-force-load-balancing \
    --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3 \
    --tensor-model-parallel-size 2 --pipeline-model-parallel-size 8 \
    --num-virtual-stages-per-pipeline-rank 4 \
    --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split \
    --expert-model-parallel-size 32 --expert-tensor-parallel-size 1 \
    --sequence-parallel --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 2048 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format hybrid --fp8-recipe tensorwise --fp8-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-param-gather --overlap-moe-expert-parallel-comm \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 32 pretrain_gpt.py $GPT_ARGS

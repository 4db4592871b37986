#!/bin/bash
# Qwen3-30B-A3B on 8 DGX-B200 GPUs, MXFP8: Megatron-Bridge 25.11's performance
# run (NVIDIA-NeMo/Megatron-Bridge v0.2.1 = 1c43b39,
# docs/performance-summary.md:83, 9299 tokens/s/GPU: GBS 512, MBS 1, seq 4096,
# TP 1, PP 1, EP 8, GA 64), written as a Megatron-LM launch for ndsearch's
# validation from the published settings:
# - the model: Qwen/Qwen3-30B-A3B's config.json; src/megatron/bridge/models/
#   qwen/qwen_provider.py:363-410;
# - the run: scripts/performance/configs/qwen3/workload_base_configs.py:211-219
#   (no MoE all-to-all overlap; Transformer Engine CUDA graphs of the router
#   and the dispatcher's preprocessing, moe_router and moe_preprocess) and
#   qwen3_llm_pretrain.py:33-47 (no recompute, router fusion, bf16 gradient
#   reduction); utils/helpers.py (FP8-MX: e4m3, mxfp8 recipe, fp8 param
#   gather; distributed optimizer with both overlaps);
#   performance-summary.md:98: force-balanced routing, token-dropless.
# The loss: Megatron-Bridge's GPTModelProvider fuses the cross entropy
# (cross_entropy_loss_fusion = True, src/megatron/bridge/models/gpt_provider.py).
GPT_ARGS="
    --num-layers 48 --hidden-size 2048 --num-attention-heads 32 \
    --group-query-attention --num-query-groups 4 --kv-channels 128 \
    --ffn-hidden-size 6144 --swiglu --normalization RMSNorm --qk-layernorm \
    --position-embedding-type rope --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --seq-length 4096 --max-position-embeddings 40960 --vocab-size 151936 \
    --num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 768 --moe-grouped-gemm \
    --moe-token-dispatcher-type alltoall --moe-permute-fusion --moe-router-force-load-balancing \
    --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1 \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 512 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format e4m3 --fp8-recipe mxfp8 --fp8-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-param-gather \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py $GPT_ARGS

#!/bin/bash
# Qwen3-30B-A3B on 16 DGX-H100 GPUs, token dropping: Megatron-Bridge 25.09's
# performance run (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md as
# of v0.2.1, the 25.09 DGX-H100 table, 10494 tokens/s/GPU: GBS 512, MBS 2,
# seq 4096, TP 1, PP 2, VP 24, EP 8; scripts/performance/configs/qwen3/
# qwen3_30b_a3b_llm_pretrain.yaml:56-73 at v0.1.0rc3, no CUDA graphs), for
# checking the MoE fit on another version; never fitted on.
# Token dropping as the 25.09 performance runs set it
# (src/megatron/bridge/training/utils/moe_token_drop.py:18-21 at v0.1.0rc4:
# capacity factor 1.0, each expert padded to its capacity), the router's own
# routing (no force-balancing: priced balanced, ndsearch's default), no MoE
# all-to-all overlap; precision FP8 current scaling (the table's main figure;
# the summary's footnote gives the other granularities in parentheses).
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
    --moe-token-dispatcher-type alltoall --moe-permute-fusion --moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity \
    --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 2 \
    --num-virtual-stages-per-pipeline-rank 24 \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 2 --global-batch-size 512 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format hybrid --fp8-recipe tensorwise --fp8-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-param-gather \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py $GPT_ARGS

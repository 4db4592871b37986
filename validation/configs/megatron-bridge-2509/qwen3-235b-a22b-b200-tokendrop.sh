#!/bin/bash
# Qwen3-235B-A22B on 64 DGX-B200 GPUs, token dropping: Megatron-Bridge
# 25.09's performance run (docs/performance-summary.md as of v0.2.1, the
# 25.09 DGX-B200 table, 4104 tokens/s/GPU: GBS 1024, MBS 1, seq 4096, TP 1,
# PP 8, VP 2, EP 8; qwen3_235b_a22b_llm_pretrain.yaml:91-108 at v0.1.0rc4,
# no CUDA graphs), for checking the MoE fit on another version; never
# fitted on.
# Token dropping as the 25.09 performance runs set it
# (src/megatron/bridge/training/utils/moe_token_drop.py:18-21 at v0.1.0rc4:
# capacity factor 1.0, each expert padded to its capacity), the router's own
# routing (no force-balancing: priced balanced, ndsearch's default), no MoE
# all-to-all overlap; precision FP8 current scaling (the table's main figure;
# the summary's footnote gives the other granularities in parentheses).
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
    --moe-token-dispatcher-type alltoall --moe-permute-fusion --moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity \
    --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 8 \
    --num-virtual-stages-per-pipeline-rank 2 \
    --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 1024 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format hybrid --fp8-recipe tensorwise --fp8-param-gather --overlap-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py $GPT_ARGS

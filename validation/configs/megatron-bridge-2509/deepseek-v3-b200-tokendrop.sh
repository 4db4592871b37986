#!/bin/bash
# DeepSeek-V3 (with its MTP layer) on 256 DGX-B200 GPUs, token dropping:
# Megatron-Bridge 25.09's performance run (docs/performance-summary.md as of
# v0.2.1, the 25.09 DGX-B200 table, 2265 tokens/s/GPU: GBS 2048, MBS 1, seq
# 4096, TP 1, PP 16, EP 8; run_script.py:57-100 and deepseek_v3_llm_pretrain
# .yaml:77-94 at v0.1.0rc4: the recipe's split for PP 16, shared-expert
# overlap, selective recompute of the MLA up-projections, no CUDA graphs),
# for checking the MoE fit on another version; never fitted on.
# Token dropping as the 25.09 performance runs set it
# (src/megatron/bridge/training/utils/moe_token_drop.py:18-21 at v0.1.0rc4:
# capacity factor 1.0, each expert padded to its capacity), the router's own
# routing (no force-balancing: priced balanced, ndsearch's default), no MoE
# all-to-all overlap; precision FP8 current scaling (the table's main figure;
# the summary's footnote gives the other granularities in parentheses).
# The loss: Megatron-Bridge's GPTModelProvider fuses the cross entropy
# (cross_entropy_loss_fusion = True, src/megatron/bridge/models/gpt_provider.py).
GPT_ARGS="
    --num-layers 61 --hidden-size 7168 --num-attention-heads 128 \
    --multi-latent-attention --q-lora-rank 1536 --kv-lora-rank 512 \
    --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 --qk-layernorm \
    --ffn-hidden-size 18432 --swiglu --normalization RMSNorm \
    --position-embedding-type rope --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --seq-length 4096 --max-position-embeddings 163840 --vocab-size 129280 \
    --make-vocab-size-divisible-by 1280 \
    --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size 2048 \
    --moe-shared-expert-intermediate-size 2048 --moe-layer-freq [0]*3+[1]*58 \
    --moe-grouped-gemm --moe-token-dispatcher-type alltoall --moe-permute-fusion \
    --moe-router-num-groups 8 --moe-router-group-topk 4 \
    --moe-router-score-function sigmoid --moe-router-enable-expert-bias \
    --moe-router-topk-scaling-factor 2.5 --moe-router-pre-softmax --moe-router-dtype fp32 \
    --moe-router-load-balancing-type seq_aux_loss --moe-expert-capacity-factor 1.0 --moe-pad-expert-input-to-capacity \
    --moe-shared-expert-overlap \
    --mtp-num-layers 1 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 16 \
    --decoder-first-pipeline-num-layers 4 --decoder-last-pipeline-num-layers 1 \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --recompute-granularity selective --recompute-modules mla_up_proj \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 2048 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format hybrid --fp8-recipe tensorwise --fp8-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-param-gather \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 32 pretrain_gpt.py $GPT_ARGS

#!/bin/bash
# NeMo 24.07 performance summary, DGX-H100, FP8: Llama2-70B on 64 GPUs, GBS 128, MBS 1, seq 4096,
# TP 4, PP 4, CP 1, VP 20; 1728 tokens/s/GPU, 768 model TFLOP/s/GPU.
# NeMo's performance recipes: Transformer Engine fp8 (hybrid e4m3/e5m2, delayed scaling), distributed
# optimizer, gradient/parameter overlap, TP communication overlap; NeMo reduces
# gradients in bf16 (grad_reduce_in_fp32 is False by default).
# Written for ndsearch's validation from the published facts of the run;
# settings the source does not publish are Megatron-LM's defaults.

torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py \
    --num-layers 80 \
    --hidden-size 8192 \
    --num-attention-heads 64 \
    --ffn-hidden-size 28672 \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --vocab-size 32000 \
    --swiglu \
    --normalization RMSNorm \
    --position-embedding-type rope \
    --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --hidden-dropout 0 \
    --attention-dropout 0 \
    --group-query-attention \
    --num-query-groups 8 \
    --micro-batch-size 1 \
    --global-batch-size 128 \
    --bf16 \
    --fp8-format hybrid \
    --fp8-recipe delayed \
    --grad-reduce-in-bf16 \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --sequence-parallel \
    --tp-comm-overlap

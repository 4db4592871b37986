#!/bin/bash
# NeMo 24.07 performance summary, DGX-H100, FP8: GPT3-20B on 64 GPUs, GBS 256, MBS 2, seq 2048,
# TP 2, PP 1, CP 1, VP 1; 5851 tokens/s/GPU, 750 model TFLOP/s/GPU.
# NeMo's performance recipes: Transformer Engine fp8 (hybrid e4m3/e5m2, delayed scaling), distributed
# optimizer, gradient/parameter overlap, TP communication overlap; NeMo reduces
# gradients in bf16 (grad_reduce_in_fp32 is False by default).
# Written for ndsearch's validation from the published facts of the run;
# settings the source does not publish are Megatron-LM's defaults.

torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py \
    --num-layers 44 \
    --hidden-size 6144 \
    --num-attention-heads 48 \
    --ffn-hidden-size 24576 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --vocab-size 51200 \
    --micro-batch-size 2 \
    --global-batch-size 256 \
    --bf16 \
    --fp8-format hybrid \
    --fp8-recipe delayed \
    --grad-reduce-in-bf16 \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --sequence-parallel \
    --tp-comm-overlap

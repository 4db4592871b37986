#!/bin/bash
# Megatron-Core on H100 (Megatron-LM README, 2024), GPT 7.1B: 32 heads, hidden 4096, 30 layers,
# TP 2, PP 1, 96 GPUs, batch 192, vocab 131072, seq 4096, bf16, TP/DP/PP overlap on.
# The table does not state the dtype of the gradient reduction: Megatron-Core's
# DistributedDataParallelConfig default is taken (grad_reduce_in_fp32 = False,
# as in NeMo's recipes), not Megatron-LM's fp32 main-gradient default.
# Written for ndsearch's validation from the published facts of the run;
# settings the source does not publish are Megatron-LM's defaults.

torchrun --nproc_per_node 8 --nnodes 12 pretrain_gpt.py \
    --num-layers 30 \
    --hidden-size 4096 \
    --num-attention-heads 32 \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --vocab-size 131072 \
    --untie-embeddings-and-output-weights \
    --micro-batch-size 1 \
    --global-batch-size 192 \
    --bf16 \
    --grad-reduce-in-bf16 \
    --use-distributed-optimizer \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --sequence-parallel \
    --tp-comm-overlap

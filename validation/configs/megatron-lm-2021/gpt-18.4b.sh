#!/bin/bash
# Megatron-LM 2021, Table 1 (Narayanan et al. 2021), GPT 18.4B on DGX A100 80GB:
# Megatron-LM of 2021 sends pipeline activations blocking (p2p overlap came with
# Megatron-Core in 2023), and all-reduces each column-parallel linear's input
# gradient before its weight gradient (the async all-reduce became the default
# on 2021-09-02, 3f65246911, after the paper's runs).
# examples/sc21/run_table_1.sh: TP 8, PP 1, MBS 8, GBS 1024, DDP torch (torch DDP overlaps the gradient all-reduce with the backward).
# Written for ndsearch's validation from the published facts of the run;
# settings the source does not publish are Megatron-LM's defaults.

torchrun --nproc_per_node 8 --nnodes 32 pretrain_gpt.py \
    --num-layers 40 \
    --hidden-size 6144 \
    --num-attention-heads 48 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --vocab-size 51200 \
    --micro-batch-size 8 \
    --global-batch-size 1024 \
    --fp16 \
    --attention-backend unfused \
    --recompute-granularity full \
    --recompute-method uniform \
    --no-overlap-p2p-communication \
    --no-async-tensor-model-parallel-allreduce \
    --overlap-grad-reduce

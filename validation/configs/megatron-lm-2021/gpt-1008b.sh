#!/bin/bash
# Megatron-LM 2021, Table 1 (Narayanan et al. 2021), GPT 1008B on DGX A100 80GB:
# Megatron-LM of 2021 sends pipeline activations blocking (p2p overlap came with
# Megatron-Core in 2023), and all-reduces each column-parallel linear's input
# gradient before its weight gradient (the async all-reduce became the default
# on 2021-09-02, 3f65246911, after the paper's runs).
# examples/sc21/run_table_1.sh: TP 8, PP 64, MBS 1, GBS 3072, DDP local (local DDP: no overlap).
# Written for ndsearch's validation from the published facts of the run;
# settings the source does not publish are Megatron-LM's defaults.

torchrun --nproc_per_node 8 --nnodes 384 pretrain_gpt.py \
    --num-layers 128 \
    --hidden-size 25600 \
    --num-attention-heads 160 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --vocab-size 51200 \
    --micro-batch-size 1 \
    --global-batch-size 3072 \
    --fp16 \
    --attention-backend unfused \
    --recompute-granularity full \
    --recompute-method uniform \
    --no-overlap-p2p-communication \
    --no-async-tensor-model-parallel-allreduce

#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Bloom 7B1 2K (Legacy, cluster 1x8): 2034 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured without MC2 (README line 91 says the table ran it, but this number was set on 2024-03-07,
# before MindSpeed-LLM had --use-mc2: 2024-04-26, 791677c1). Its launch script at that commit is
# examples/bloom/pretrain_bloom_ptd_7B.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 1 \
    --sequence-parallel \
    --num-layers 30 \
    --hidden-size 4096 \
    --num-attention-heads 32 \
    --tokenizer-type PretrainedFromHF \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --micro-batch-size 4 \
    --global-batch-size 512 \
    --embed-layernorm \
    --padded-vocab-size 250880 \
    --make-vocab-size-divisible-by 1 \
    --attention-softmax-in-fp32 \
    --apply-query-key-layer-scaling \
    --hidden-dropout 0.0 \
    --attention-dropout 0.0 \
    --position-embedding-type alibi \
    --normalization LayerNorm \
    --no-gradient-accumulation-fusion \
    --bf16

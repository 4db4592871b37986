#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Bloom 176B 2K (Legacy, cluster 12x8): 100 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured without MC2 (README line 91 says the table ran it, but this number was set on 2024-03-07,
# before MindSpeed-LLM had --use-mc2: 2024-04-26, 791677c1). Its launch script at that commit is
# examples/bloom/pretrain_bloom_176b.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 250880: the BLOOM tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 12 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 12 \
    --sequence-parallel \
    --num-layers 70 \
    --hidden-size 14336 \
    --num-attention-heads 112 \
    --tokenizer-type PretrainedFromHF \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --micro-batch-size 2 \
    --global-batch-size 2048 \
    --num-layer-list 5,6,6,6,6,6,6,6,6,6,6,5 \
    --make-vocab-size-divisible-by 1 \
    --attention-softmax-in-fp32 \
    --apply-query-key-layer-scaling \
    --hidden-dropout 0.0 \
    --position-embedding-type alibi \
    --normalization LayerNorm \
    --no-masked-softmax-fusion \
    --recompute-granularity full \
    --recompute-method block \
    --recompute-num-layers 70 \
    --no-gradient-accumulation-fusion \
    --bf16 \
    --vocab-size 250880

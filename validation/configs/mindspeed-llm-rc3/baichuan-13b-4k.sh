#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Baichuan 13B 4K (Legacy, cluster 1x8): 1213 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured without MC2 (README line 91 says the table ran it, but this number was set on 2024-02-26,
# before MindSpeed-LLM had --use-mc2: 2024-04-26, 791677c1). Its launch script at that commit is
# examples/baichuan/pretrain_baichuan_ptd_13B.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 64000: the Baichuan tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 1 \
    --sequence-parallel \
    --num-layers 40 \
    --hidden-size 5120 \
    --ffn-hidden-size 13696 \
    --num-attention-heads 40 \
    --tokenizer-type Llama2Tokenizer \
    --seq-length 4096 \
    --disable-bias-linear \
    --max-position-embeddings 4096 \
    --micro-batch-size 1 \
    --global-batch-size 32 \
    --untie-embeddings-and-output-weights \
    --make-vocab-size-divisible-by 64 \
    --no-gradient-accumulation-fusion \
    --attention-dropout 0.0 \
    --position-embedding-type alibi \
    --hidden-dropout 0.0 \
    --normalization RMSNorm \
    --use-fused-rmsnorm \
    --swiglu \
    --attention-softmax-in-fp32 \
    --fp16 \
    --vocab-size 64000

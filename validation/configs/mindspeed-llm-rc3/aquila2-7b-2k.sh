#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Aquila2 7B 2K (Legacy, cluster 1x8): 3323 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/aquila2/pretrain_aquila2_7b_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 100008: the Aquila2 tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --attention-dropout 0.0 \
    --attention-softmax-in-fp32 \
    --disable-bias-linear \
    --ffn-hidden-size 11008 \
    --fp16 \
    --global-batch-size 64 \
    --hidden-dropout 0.0 \
    --hidden-size 4096 \
    --make-vocab-size-divisible-by 1 \
    --max-position-embeddings 2048 \
    --micro-batch-size 8 \
    --no-gradient-accumulation-fusion \
    --no-masked-softmax-fusion \
    --norm-epsilon 1e-5 \
    --normalization RMSNorm \
    --num-attention-heads 32 \
    --num-layers 32 \
    --pipeline-model-parallel-size 1 \
    --position-embedding-type rope \
    --seq-length 2048 \
    --sequence-parallel \
    --swiglu \
    --tensor-model-parallel-size 8 \
    --tokenizer-type PretrainedFromHF \
    --untie-embeddings-and-output-weights \
    --use-flash-attn \
    --use-fused-rmsnorm \
    --use-mc2 \
    --vocab-size 100008

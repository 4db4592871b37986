#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Yi 34B 4K (Mcore, cluster 2x8): 855 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/yi/pretrain_yi_34b_ptd_16p.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 64000: the Yi tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
    --use-mcore-models \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 2 \
    --sequence-parallel \
    --num-layers 60 \
    --hidden-size 7168 \
    --ffn-hidden-size 20480 \
    --num-attention-heads 56 \
    --tokenizer-type Llama2Tokenizer \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --micro-batch-size 2 \
    --global-batch-size 1024 \
    --make-vocab-size-divisible-by 1 \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --use-fused-rmsnorm \
    --use-fused-rotary-pos-emb \
    --use-rotary-position-embeddings \
    --swiglu \
    --use-mc2 \
    --use-flash-attn \
    --group-query-attention \
    --num-query-groups 8 \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --no-gradient-accumulation-fusion \
    --rotary-base 5000000 \
    --bf16 \
    --vocab-size 64000

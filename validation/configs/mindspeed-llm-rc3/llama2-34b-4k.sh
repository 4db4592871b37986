#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row LLaMA2 34B 4K (Mcore, cluster 2x8): 810 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/llama2/pretrain_llama2_34B_ptd_16p.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 32000: the Llama 2 tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 2 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 2 \
    --sequence-parallel \
    --use-mcore-models \
    --use-fused-swiglu \
    --use-fused-rotary-pos-emb \
    --use-mc2 \
    --num-layers 48 \
    --hidden-size 8192 \
    --ffn-hidden-size 22016 \
    --num-attention-heads 64 \
    --tokenizer-type Llama2Tokenizer \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --micro-batch-size 2 \
    --global-batch-size 1024 \
    --make-vocab-size-divisible-by 1 \
    --rotary-base 1000000 \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --use-fused-rmsnorm \
    --swiglu \
    --use-flash-attn \
    --group-query-attention \
    --num-query-groups 8 \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --no-gradient-accumulation-fusion \
    --bf16 \
    --vocab-size 32000

#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row MiniCPM 8x2B 4K (Mcore, cluster 1x8): 2981 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/minicpm/pretrain_minicpm_8x2b.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --num-experts 8 \
    --expert-model-parallel-size 2 \
    --moe-router-topk 2 \
    --moe-router-load-balancing-type aux_loss \
    --moe-aux-loss-coeff 0.01 \
    --moe-token-dispatcher-type allgather \
    --moe-permutation-async-comm \
    --moe-grouped-gemm \
    --use-mcore-models \
    --tensor-model-parallel-size 1 \
    --pipeline-model-parallel-size 4 \
    --sequence-parallel \
    --num-layers 40 \
    --hidden-size 2304 \
    --ffn-hidden-size 5760 \
    --num-attention-heads 36 \
    --tokenizer-type Llama2Tokenizer \
    --vocab-size 122753 \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --micro-batch-size 1 \
    --global-batch-size 128 \
    --make-vocab-size-divisible-by 1 \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --norm-epsilon 1e-5 \
    --use-fused-rmsnorm \
    --swiglu \
    --use-flash-attn \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --no-gradient-accumulation-fusion \
    --use-distributed-optimizer \
    --use-fused-swiglu \
    --use-fused-rotary-pos-emb \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --scale-emb 12 \
    --dim-model-base 256 \
    --scale-depth 1.4 \
    --bf16

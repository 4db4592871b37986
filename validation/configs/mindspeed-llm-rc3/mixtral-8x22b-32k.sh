#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Mixtral 8x22B 32K (Mcore, cluster 8x8): 239 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/mixtral/pretrain_mixtral_8x22b_32k_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py \
    --num-experts 8 \
    --expert-model-parallel-size 1 \
    --moe-router-topk 2 \
    --moe-router-load-balancing-type aux_loss \
    --moe-token-dispatcher-type alltoall \
    --moe-aux-loss-coeff 0.001 \
    --moe-permutation-async-comm \
    --use-mcore-models \
    --disable-bias-linear \
    --seq-length 32768 \
    --max-position-embeddings 32768 \
    --num-layers 56 \
    --hidden-size 6144 \
    --ffn-hidden-size 16384 \
    --num-attention-heads 48 \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --normalization RMSNorm \
    --position-embedding-type rope \
    --swiglu \
    --untie-embeddings-and-output-weights \
    --group-query-attention \
    --num-query-groups 8 \
    --make-vocab-size-divisible-by 1 \
    --vocab-size 32000 \
    --rotary-base 1e6 \
    --no-masked-softmax-fusion \
    --use-fused-rotary-pos-emb \
    --use-flash-attn \
    --use-fused-swiglu \
    --use-fused-rmsnorm \
    --no-check-for-nan-in-loss-and-grad \
    --use-mc2 \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 4 \
    --sequence-parallel \
    --overlap-grad-reduce \
    --overlap-param-gather \
    --use-distributed-optimizer \
    --context-parallel-size 2 \
    --context-parallel-algo megatron_cp_algo \
    --num-layers-per-virtual-pipeline-stage 2 \
    --reuse-fp32-param \
    --swap-attention \
    --recompute-method block \
    --recompute-num-layers 30 \
    --tokenizer-type Llama2Tokenizer \
    --micro-batch-size 1 \
    --global-batch-size 16 \
    --bf16 \
    --no-shared-storage

#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Grok1 8x5B 8K (Mcore, cluster 4x8): 1082 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/grok1/pretrain_grok1_40b_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py \
    --use-mcore-models \
    --disable-bias-linear \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --num-layers 12 \
    --hidden-size 6144 \
    --ffn-hidden-size 32768 \
    --num-attention-heads 48 \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --normalization RMSNorm \
    --use-fused-rmsnorm \
    --position-embedding-type rope \
    --use-fused-swiglu \
    --swiglu \
    --untie-embeddings-and-output-weights \
    --group-query-attention \
    --num-query-groups 8 \
    --use-flash-attn \
    --num-experts 8 \
    --expert-model-parallel-size 2 \
    --moe-router-load-balancing-type aux_loss \
    --moe-router-topk 2 \
    --moe-aux-loss-coeff 1e-2 \
    --embedding-multiplier-scale 78.38367176906169 \
    --output-multiplier-scale 0.5773502691896257 \
    --input-jitter \
    --tokenizer-type PretrainedFromHF \
    --micro-batch-size 1 \
    --global-batch-size 128 \
    --bf16 \
    --vocab-size 131072 \
    --use-distributed-optimizer \
    --no-rope-fusion \
    --no-bias-dropout-fusion \
    --no-bias-swiglu-fusion \
    --no-gradient-accumulation-fusion \
    --transformer-impl local \
    --post-norm \
    --use-mc2 \
    --moe-permutation-async-comm \
    --no-shared-storage \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 2 \
    --sequence-parallel

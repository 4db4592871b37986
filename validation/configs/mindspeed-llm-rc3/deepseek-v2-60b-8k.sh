#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row DeepSeek-V2 60B 8K (Mcore, cluster 4x8): 1083 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/deepseek2/pretrain_deepseek2_60b_8k_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py \
    --recompute-granularity full \
    --recompute-method uniform \
    --recompute-num-layers 1 \
    --reuse-fp32-param \
    --no-shared-storage \
    --use-distributed-optimizer \
    --use-flash-attn \
    --shape-order BNSD \
    --use-mcore-models \
    --tensor-model-parallel-size 1 \
    --pipeline-model-parallel-size 4 \
    --num-layers-per-virtual-pipeline-stage 2 \
    --expert-model-parallel-size 8 \
    --sequence-parallel \
    --output-layer-slice-num 10 \
    --num-layers 16 \
    --hidden-size 5120 \
    --ffn-hidden-size 12288 \
    --num-attention-heads 128 \
    --tokenizer-type PretrainedFromHF \
    --seq-length 8192 \
    --max-position-embeddings 163840 \
    --micro-batch-size 1 \
    --global-batch-size 256 \
    --make-vocab-size-divisible-by 1 \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --use-fused-rotary-pos-emb \
    --use-rotary-position-embeddings \
    --use-fused-swiglu \
    --use-fused-rmsnorm \
    --swiglu \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --vocab-size 102400 \
    --padded-vocab-size 102400 \
    --rotary-base 10000 \
    --no-gradient-accumulation-fusion \
    --norm-epsilon 1e-6 \
    --bf16 \
    --multi-head-latent-attention \
    --qk-rope-head-dim 64 \
    --qk-nope-head-dim 128 \
    --q-lora-rank 1536 \
    --kv-lora-rank 512 \
    --v-head-dim 128 \
    --qk-layernorm \
    --rope-scaling-beta-fast 32 \
    --rope-scaling-beta-slow 1 \
    --rope-scaling-factor 40 \
    --rope-scaling-mscale 0.707 \
    --rope-scaling-mscale-all-dim 0.707 \
    --rope-scaling-original-max-position-embeddings 4096 \
    --rope-scaling-type yarn \
    --moe-grouped-gemm \
    --moe-permutation-async-comm \
    --moe-token-dispatcher-type allgather \
    --first-k-dense-replace 1 \
    --moe-layer-freq 1 \
    --n-shared-experts 2 \
    --num-experts 160 \
    --moe-router-topk 6 \
    --moe-intermediate-size 1536 \
    --moe-router-load-balancing-type group_limited_greedy \
    --topk-group 3 \
    --moe-aux-loss-coeff 0.003 \
    --moe-device-level-aux-loss-coeff 0.05 \
    --moe-comm-aux-loss-coeff 0.02 \
    --routed-scaling-factor 16.0 \
    --seq-aux

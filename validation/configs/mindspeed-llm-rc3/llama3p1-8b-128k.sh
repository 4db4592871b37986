#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row LLaMA3.1 8B 128K (Mcore, cluster 4x8): 1297 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/llama31/pretrain_llama31_8b_128k_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 4 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 1 \
    --use-mcore-models \
    --context-parallel-size 4 \
    --context-parallel-algo megatron_cp_algo \
    --no-create-attention-mask-in-dataloader \
    --no-shared-storage \
    --sparse-mode 4 \
    --micro-batch-size 1 \
    --global-batch-size 32 \
    --sequence-parallel \
    --use-mc2 \
    --use-flash-attn \
    --use-rotary-position-embeddings \
    --use-fused-rmsnorm \
    --use-fused-swiglu \
    --rope-scaling-type llama3 \
    --rope-scaling-factor 8.0 \
    --low-freq-factor 1.0 \
    --high-freq-factor 4.0 \
    --original-max-position-embeddings 8192 \
    --tokenizer-type PretrainedFromHF \
    --num-layers 32 \
    --hidden-size 4096 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 32 \
    --group-query-attention \
    --num-query-groups 8 \
    --seq-length 131072 \
    --max-position-embeddings 131072 \
    --make-vocab-size-divisible-by 1 \
    --padded-vocab-size 128256 \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --rotary-base 500000 \
    --normalization RMSNorm \
    --norm-epsilon 1e-5 \
    --swiglu \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --no-gradient-accumulation-fusion \
    --bf16

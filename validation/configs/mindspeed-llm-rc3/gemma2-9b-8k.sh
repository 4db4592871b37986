#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row Gemma2 9B 8K (Mcore, cluster 1x8): 1713 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/mcore/gemma2/pretrain_gemma2_9b_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 1 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 1 \
    --sequence-parallel \
    --use-mcore-models \
    --use-mc2 \
    --use-fused-rmsnorm \
    --use-fused-rotary-pos-emb \
    --gelu-tanh \
    --post-norm \
    --query-pre-attn-scalar 256 \
    --output-logit-softcapping 30.0 \
    --interleave-sliding-window 4096 \
    --num-layers 42 \
    --hidden-size 3584 \
    --ffn-hidden-size 14336 \
    --num-attention-heads 16 \
    --tokenizer-type PretrainedFromHF \
    --seq-length 8192 \
    --max-position-embeddings 8192 \
    --micro-batch-size 1 \
    --global-batch-size 64 \
    --kv-channels 256 \
    --group-query-attention \
    --num-query-groups 8 \
    --make-vocab-size-divisible-by 1 \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --add-rmsnorm-offset \
    --norm-epsilon 1e-06 \
    --input-embeds-norm \
    --use-flash-attn \
    --use-distributed-optimizer \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --tokenizer-padding-side left \
    --no-gradient-accumulation-fusion \
    --vocab-size 256000 \
    --bf16

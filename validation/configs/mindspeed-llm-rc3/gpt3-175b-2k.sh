#!/bin/bash
# MindSpeed-LLM v1.0.RC3.0 (Ascend/MindSpeed-LLM, commit 31100602), README.md "预训练集群性能与线性度"
# table, row GPT3 175B 2K (Legacy, cluster 16x8): 153 tokens/s per NPU on Atlas 900 A2 PoDc,
# measured with MC2 on (README line 91). Its launch script at that commit is
# examples/gpt3/pretrain_gpt3_175B_ptd.sh; these are that script's training arguments (paths,
# logging, optimizer hyper-parameters and learning-rate schedule left out: they cost nothing ndsearch prices).
# --vocab-size 50257: the GPT-2 BPE tokenizer's vocabulary (its Hugging Face config's vocab_size), which the
# script reads from the tokenizer files it names.
# Written for ndsearch's validation from the published facts of the run.

torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 16 \
    --num-layers-per-virtual-pipeline-stage 2 \
    --sequence-parallel \
    --num-layers 96 \
    --hidden-size 12288 \
    --num-attention-heads 96 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --tokenizer-type GPT2BPETokenizer \
    --transformer-impl local \
    --micro-batch-size 2 \
    --global-batch-size 1024 \
    --fp16 \
    --no-gradient-accumulation-fusion \
    --no-masked-softmax-fusion \
    --no-bias-gelu-fusion \
    --attention-softmax-in-fp32 \
    --attention-dropout 0.0 \
    --hidden-dropout 0.0 \
    --use-flash-attn \
    --overlap-grad-reduce \
    --use-mc2 \
    --vocab-size 50257

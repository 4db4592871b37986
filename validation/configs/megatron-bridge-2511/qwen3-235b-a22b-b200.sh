#!/bin/bash
# Qwen3-235B-A22B on 64 DGX-B200 GPUs, MXFP8: Megatron-Bridge 25.11's
# performance run (NVIDIA-NeMo/Megatron-Bridge v0.2.1 = 1c43b39,
# docs/performance-summary.md:84, 3269 tokens/s/GPU: GBS 1024, MBS 1, seq 4096,
# TP 1, PP 8, VP 2, EP 8, GA 128), written as a Megatron-LM launch for
# ndsearch's validation from the published settings:
# - the model: Qwen/Qwen3-235B-A22B's config.json; src/megatron/bridge/models/
#   qwen/qwen_provider.py:363-424;
# - the run: scripts/performance/configs/qwen3/workload_base_configs.py:109-120
#   (MoE all-to-all overlap with delayed weight gradients) and
#   qwen3_llm_pretrain.py:33-47,136-139 (no recompute, router fusion, bf16
#   gradient reduction; with FP8-MX the parameter gather is not overlapped
#   and not in fp8); utils/helpers.py (FP8-MX: e4m3, mxfp8 recipe);
#   performance-summary.md:98: force-balanced routing, token-dropless.
# The strategy is the summary's (VP 2); the preset at the tag says VP 4.
# Megatron-Bridge accounts the embedding and the loss in the pipeline split
# (recipes/qwen/qwen3_moe.py:160-161): 96 slots over 16 virtual stages, 6
# each, the first and the last 5 layers.
# The loss: Megatron-Bridge's GPTModelProvider fuses the cross entropy
# (cross_entropy_loss_fusion = True, src/megatron/bridge/models/gpt_provider.py).
GPT_ARGS="
    --num-layers 94 --hidden-size 4096 --num-attention-heads 64 \
    --group-query-attention --num-query-groups 4 --kv-channels 128 \
    --ffn-hidden-size 12288 --swiglu --normalization RMSNorm --qk-layernorm \
    --position-embedding-type rope --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --seq-length 4096 --max-position-embeddings 40960 --vocab-size 151936 \
    --num-experts 128 --moe-router-topk 8 --moe-ffn-hidden-size 1536 --moe-grouped-gemm \
    --moe-token-dispatcher-type alltoall --moe-permute-fusion --moe-router-force-load-balancing \
    --moe-router-load-balancing-type aux_loss --moe-aux-loss-coeff 1e-3 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 8 \
    --num-virtual-stages-per-pipeline-rank 2 \
    --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 1024 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format e4m3 --fp8-recipe mxfp8 \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-moe-expert-parallel-comm \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py $GPT_ARGS

#!/bin/bash
# DeepSeek-V3 (with its MTP layer) on 256 DGX-B200 GPUs, MXFP8: Megatron-Bridge
# 25.11's performance run (NVIDIA-NeMo/Megatron-Bridge v0.2.1 = 1c43b39,
# docs/performance-summary.md:81, 2139 tokens/s/GPU: GBS 2048, MBS 1, seq
# 4096, TP 1, PP 16, EP 8, GA 128), written as a Megatron-LM launch for
# ndsearch's validation from the published settings:
# - the model: deepseek-ai/DeepSeek-V3's config.json; src/megatron/bridge/
#   models/deepseek/deepseek_provider.py:52-191 (61 layers, the first 3 dense,
#   MLA, 256 routed experts of 2048 and one shared, top 8 of 8 groups limited
#   to 4, sigmoid scores with expert bias, router in fp32, alltoall
#   dispatcher, shared-expert overlap) and recipes/deepseek/deepseek_v3.py
#   (one MTP layer; the split of layout_map[(16, 1)]: the embedding and 4
#   layers, 14 stages of 4, then 1 layer, the MTP layer and the loss);
# - the run: scripts/performance/configs/deepseek/workload_base_configs.py:
#   63-74 and deepseek_llm_pretrain.py:31-43,120-144 (selective recompute of
#   the MLA up-projections, no MoE all-to-all overlap, router fusion, bf16
#   gradient reduction, both DP overlaps); utils/helpers.py (FP8-MX: e4m3,
#   mxfp8 recipe, fp8 param gather); performance-summary.md:98:
#   force-balanced routing, token-dropless.
# The loss: Megatron-Bridge's GPTModelProvider fuses the cross entropy
# (cross_entropy_loss_fusion = True, src/megatron/bridge/models/gpt_provider.py).
GPT_ARGS="
    --num-layers 61 --hidden-size 7168 --num-attention-heads 128 \
    --multi-latent-attention --q-lora-rank 1536 --kv-lora-rank 512 \
    --qk-head-dim 128 --qk-pos-emb-head-dim 64 --v-head-dim 128 --qk-layernorm \
    --ffn-hidden-size 18432 --swiglu --normalization RMSNorm \
    --position-embedding-type rope --disable-bias-linear \
    --untie-embeddings-and-output-weights \
    --seq-length 4096 --max-position-embeddings 163840 --vocab-size 129280 \
    --make-vocab-size-divisible-by 1280 \
    --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size 2048 \
    --moe-shared-expert-intermediate-size 2048 --moe-layer-freq [0]*3+[1]*58 \
    --moe-grouped-gemm --moe-token-dispatcher-type alltoall --moe-permute-fusion \
    --moe-router-num-groups 8 --moe-router-group-topk 4 \
    --moe-router-score-function sigmoid --moe-router-enable-expert-bias \
    --moe-router-topk-scaling-factor 2.5 --moe-router-pre-softmax --moe-router-dtype fp32 \
    --moe-router-load-balancing-type seq_aux_loss --moe-router-force-load-balancing \
    --moe-shared-expert-overlap \
    --mtp-num-layers 1 \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 16 \
    --decoder-first-pipeline-num-layers 4 --decoder-last-pipeline-num-layers 1 \
    --expert-model-parallel-size 8 --expert-tensor-parallel-size 1 \
    --recompute-granularity selective --recompute-modules mla_up_proj \
    --use-distributed-optimizer --use-flash-attn \
    --micro-batch-size 1 --global-batch-size 2048 \
    --cross-entropy-loss-fusion \
    --bf16 --fp8-format e4m3 --fp8-recipe mxfp8 --fp8-param-gather \
    --grad-reduce-in-bf16 \
    --overlap-grad-reduce --overlap-param-gather \
    --manual-gc --manual-gc-interval 100
"
torchrun --nproc_per_node 8 --nnodes 32 pretrain_gpt.py $GPT_ARGS

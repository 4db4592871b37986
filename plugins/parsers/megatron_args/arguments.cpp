// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/megatron_args/arguments.hpp"

#include <algorithm>
#include <string_view>

namespace ndsearch::plugins::megatron {
namespace {

struct FlagSpec {
  std::string_view name;
  int arity;  // 0 switch, 1 one value, -1 one or more
};

// Every flag ndsearch knows: those the model reads (see model.cpp) and those
// that bear on no training cost it models (learning rate, data, logging,
// checkpoints, fusions, launcher and RL settings), which it ignores knowingly.
// Arities follow Megatron-LM's and MindSpeed-LLM's argparse definitions.
// Packed several to a line (clang-format would give each its own: 400 lines).
// clang-format off
constexpr FlagSpec kFlags[] = {
    // ---- model shape
    {"--num-layers", 1}, {"--hidden-size", 1}, {"--num-attention-heads", 1}, {"--group-query-attention", 0},
    {"--num-query-groups", 1}, {"--kv-channels", 1}, {"--ffn-hidden-size", 1}, {"--swiglu", 0},
    {"--squared-relu", 0}, {"--seq-length", 1}, {"--max-position-embeddings", 1}, {"--vocab-size", 1},
    {"--padded-vocab-size", 1}, {"--vocab-file", 1}, {"--merge-file", 1}, {"--make-vocab-size-divisible-by", 1},
    {"--tokenizer-type", 1}, {"--tokenizer-model", 1}, {"--tokenizer-name-or-path", 1},
    {"--untie-embeddings-and-output-weights", 0}, {"--position-embedding-type", 1},
    {"--use-rotary-position-embeddings", 0}, {"--no-position-embedding", 0}, {"--disable-bias-linear", 0},
    {"--add-qkv-bias", 0}, {"--normalization", 1}, {"--qk-layernorm", 0}, {"--hidden-dropout", 1},
    {"--attention-dropout", 1}, {"--noop-layers", -1},
    // ---- MoE, MLA, MTP
    {"--num-experts", 1}, {"--moe-router-topk", 1}, {"--moe-ffn-hidden-size", 1}, {"--moe-intermediate-size", 1},
    {"--moe-shared-expert-intermediate-size", 1}, {"--n-shared-experts", 1}, {"--moe-layer-freq", 1},
    {"--first-k-dense-replace", 1}, {"--moe-grouped-gemm", 0}, {"--moe-expert-capacity-factor", 1},
    {"--mtp-num-layers", 1}, {"--multi-latent-attention", 0}, {"--multi-head-latent-attention", 0},
    {"--q-lora-rank", 1}, {"--kv-lora-rank", 1}, {"--qk-head-dim", 1}, {"--qk-nope-head-dim", 1},
    {"--qk-pos-emb-head-dim", 1}, {"--qk-rope-head-dim", 1}, {"--v-head-dim", 1}, {"--moe-tp-extend-ep", 0},
    // ---- parallelism and schedule
    {"--tensor-model-parallel-size", 1}, {"--pipeline-model-parallel-size", 1},
    {"--num-layers-per-virtual-pipeline-stage", 1}, {"--num-virtual-stages-per-pipeline-rank", 1},
    {"--context-parallel-size", 1}, {"--cp-comm-type", -1}, {"--context-parallel-algo", 1},
    {"--ulysses-degree-in-cp", 1}, {"--kv-head-repeat-before-uly-alltoall", 0},
    {"--expert-model-parallel-size", 1}, {"--expert-tensor-parallel-size", 1}, {"--sequence-parallel", 0},
    {"--num-layer-list", 1}, {"--decoder-first-pipeline-num-layers", 1}, {"--decoder-last-pipeline-num-layers", 1},
    {"--account-for-embedding-in-pipeline-split", 0}, {"--account-for-loss-in-pipeline-split", 0},
    {"--schedules-method", 1}, {"--use-distributed-optimizer", 0}, {"--use-megatron-fsdp", 0},
    {"--use-torch-fsdp2", 0}, {"--data-parallel-sharding-strategy", 1},
    {"--micro-batch-size", 1}, {"--global-batch-size", 1},
    // ---- recompute, attention kernels, precision, optimizer, overlap
    {"--recompute-granularity", 1}, {"--recompute-method", 1}, {"--recompute-num-layers", 1},
    {"--recompute-activations", 0}, {"--recompute-modules", -1}, {"--moe-layer-recompute", 0},
    {"--reuse-fp32-param", 0}, {"--swap-optimizer", 0}, {"--swap-attention", 0},
    {"--recompute-activation-function", 0}, {"--recompute-activation-function-num-layers", 1},
    {"--recompute-norm", 0}, {"--recompute-norm-num-layers", 1},
    {"--use-flash-attn", 0}, {"--attention-backend", 1}, {"--bf16", 0}, {"--fp16", 0}, {"--fp8-format", 1},
    {"--fp8-recipe", 1}, {"--fp8-param-gather", 0}, {"--use-cp-send-recv-overlap", 0},
    {"--grad-reduce-in-bf16", 0}, {"--accumulate-allreduce-grads-in-fp32", 0}, {"--megatron-fsdp-main-grads-dtype", 1}, {"--optimizer", 1},
    {"--use-precision-aware-optimizer", 0}, {"--exp-avg-dtype", 1}, {"--exp-avg-sq-dtype", 1},
    {"--main-params-dtype", 1}, {"--main-grads-dtype", 1}, {"--overlap-grad-reduce", 0},
    {"--no-async-tensor-model-parallel-allreduce", 0},
    {"--overlap-param-gather", 0}, {"--geglu", 0}, {"--gelu-tanh", 0}, {"--tp-comm-overlap", 0}, {"--use-mc2", 0}, {"--use-ascend-mc2", 0}, {"--no-overlap-p2p-communication", 0},
    {"--overlap-p2p-communication", 0}, {"--moe-shared-expert-overlap", 0}, {"--moe-alltoall-overlap-comm", 0},
    {"--moe-fb-overlap", 0}, {"--overlap-moe-expert-parallel-comm", 0},
    // ---- MoE routing and dispatch (ABI 1.13)
    {"--moe-token-dispatcher-type", 1}, {"--moe-enable-deepep", 0}, {"--moe-flex-dispatcher-backend", 1},
    {"--moe-pad-expert-input-to-capacity", 0}, {"--moe-router-num-groups", 1}, {"--moe-router-group-topk", 1},
    {"--n-group", 1}, {"--topk-group", 1},
    // ---- launcher (torchrun / torch.distributed.launch)
    {"--nproc_per_node", 1}, {"--nproc-per-node", 1}, {"--nnodes", 1}, {"--node_rank", 1}, {"--node-rank", 1},
    {"--master_addr", 1}, {"--master-addr", 1}, {"--master_port", 1}, {"--master-port", 1},
    // ---- known, no training cost ndsearch models: ignored
    {"--adam-beta1", 1}, {"--adam-beta2", 1}, {"--adam-eps", 1}, {"--apply-layernorm-1p", 0},
    {"--attention-softmax-in-fp32", 0}, {"--auto-detect-ckpt-format", 0}, {"--beta-fast", 1}, {"--beta-slow", 1},
    {"--calculate-per-token-loss", 0}, {"--ckpt-format", 1}, {"--clip-grad", 1}, {"--coc-fused-kernel", 0},
    {"--cross-entropy-loss-fusion", 0}, {"--cross-entropy-fusion-impl", 1}, {"--data-cache-path", 1}, {"--data-path", -1}, {"--decoupled-lr", 1},
    {"--decoupled-min-lr", 1}, {"--disable-gloo-group", 0}, {"--dist-ckpt-strictness", 1},
    {"--distributed-backend", 1}, {"--distributed-timeout-minutes", 1}, {"--empty-unused-memory-level", 1},
    {"--enable-experimental", 0}, {"--enable-hf2mg-convert", 0}, {"--eval-interval", 1}, {"--eval-iters", 1},
    {"--exit-duration-in-mins", 1}, {"--exit-on-missing-checkpoint", 0}, {"--exit-interval", 1},
    {"--fp8-amax-compute-algo", 1}, {"--fp8-amax-history-len", 1},
    {"--fsdp-double-buffer", 0}, {"--gemm-gradient-accumulation-fusion", 0}, {"--handler-name", 1},
    {"--high-freq-factor", 1}, {"--inference-max-requests", 1}, {"--inference-max-seq-length", 1},
    {"--init-method-std", 1}, {"--init-model-with-meta-device", 0}, {"--initial-loss-scale", 1}, {"--load", 1},
    {"--log-interval", 1}, {"--log-memory-to-tensorboard", 0}, {"--log-num-zeros-in-grad", 0},
    {"--log-params-norm", 0}, {"--log-throughput", 0}, {"--log-timers-to-tensorboard", 0},
    {"--log-validation-ppl-to-tensorboard", 0}, {"--logging-level", 1}, {"--low-freq-factor", 1}, {"--lr", 1},
    {"--lr-decay-iters", 1}, {"--lr-decay-samples", 1}, {"--lr-decay-style", 1}, {"--lr-warmup-fraction", 1},
    {"--lr-warmup-init", 1}, {"--lr-warmup-iters", 1}, {"--lr-warmup-samples", 1}, {"--manual-gc", 0},
    {"--manual-gc-interval", 1}, {"--megatron-fsdp-grad-comm-dtype", 1}, {"--min-lr", 1},
    {"--mla-fa-without-pad", 0}, {"--mla-mm-split", 0}, {"--mock-data", 0}, {"--model-type-hf", 1},
    {"--moe-aux-loss-coeff", 1}, {"--moe-permutation-async-comm", 0},
    {"--moe-permute-fusion", 0}, {"--moe-router-bias-update-rate", 1}, {"--moe-router-dtype", 1},
    {"--moe-router-enable-expert-bias", 0}, {"--moe-router-force-load-balancing", 0},
    {"--moe-router-load-balancing-type", 1}, 
    {"--moe-router-pre-softmax", 0}, {"--moe-router-score-function", 1}, {"--moe-router-topk-scaling-factor", 1},
    {"--moe-token-drop-policy", 1}, {"--mscale", 1}, {"--mscale-all-dim", 1},
    {"--mtp-loss-scaling-factor", 1}, {"--mtp-mem-efficient-logits", 0}, 
    {"--no-bias-swiglu-fusion", 0}, {"--no-check-for-nan-in-loss-and-grad", 0},
    {"--no-create-attention-mask-in-dataloader", 0}, {"--no-gradient-accumulation-fusion", 0},
    {"--no-load-optim", 0}, {"--no-load-rng", 0}, {"--no-masked-softmax-fusion", 0}, {"--no-mmap-bin-files", 0},
    {"--no-rope-fusion", 0}, {"--no-save-optim", 0}, {"--no-save-rng", 0}, {"--no-shared-storage", 0},
    {"--norm-epsilon", 1}, {"--norm-topk-prob", 0}, {"--num-workers", 1}, {"--original-max-position-embeddings", 1},
    {"--pretrained-checkpoint", 1}, {"--profile", 0}, {"--profile-ranks", -1}, {"--profile-step-end", 1},
    {"--profile-step-start", 1}, {"--reset-attention-mask", 0}, {"--reset-position-ids", 0},
    {"--rope-scaling-beta-fast", 1}, {"--rope-scaling-beta-slow", 1},
    {"--rope-scaling-factor", 1}, {"--rope-scaling-mscale", 1}, {"--rope-scaling-mscale-all-dim", 1},
    {"--rope-scaling-original-max-position-embeddings", 1}, {"--rope-scaling-type", 1}, {"--rotary-base", 1},
    {"--rotary-percent", 1}, {"--rotary-scaling-factor", 1}, {"--rotary-seq-len-interpolation-factor", 1},
    {"--routed-scaling-factor", 1}, {"--router-gating-in-fp32", 0}, {"--save", 1}, {"--save-interval", 1},
    {"--seed", 1}, {"--seq-aux", 0}, {"--spec", -1}, {"--split", 1}, {"--step-batch-size-schedule", 1},
    {"--tensorboard-dir", 1}, {"--tiktoken-pattern", 1},
    {"--tp-2d", 0}, {"--tp-x", 1}, {"--tp-y", 1}, {"--train-iters", 1},
    {"--train-samples", 1}, {"--transformer-impl", 1}, {"--use-ascend-coc", 0},
    {"--use-fused-moe-token-permute-and-unpermute", 0}, {"--use-fused-ring-attention-update", 0},
    {"--use-fused-rmsnorm", 0}, {"--use-fused-rotary-pos-emb", 0}, {"--use-fused-swiglu", 0},
    {"--use-mcore-models", 0}, {"--use-nccl-ub", 0}, {"--use-rope-scaling", 0}, {"--wandb-exp-name", 1},
    {"--wandb-project", 1}, {"--weight-decay", 1},
    {"--grpo-clamp-eps-lower", 1}, {"--grpo-clamp-eps-upper", 1}, {"--grpo-group-size", 1},
    {"--grpo-iterations", 1}, {"--grpo-kl-beta", 1}, {"--grpo-prompts-per-step", 1}, {"--langrl-env-config", 1},
    {"--use-checkpoint-args", 0}, {"--rotary-interleaved", 0},
    // MindSpeed-LLM's model options that change no cost ndsearch prices:
    // scalings, norm offsets, rope variants, mask building, FA layouts, aux losses.
    {"--add-rmsnorm-offset", 0}, {"--apply-query-key-layer-scaling", 0}, {"--dim-model-base", 1},
    {"--embedding-multiplier-scale", 1}, {"--fill-neg-inf", 0}, {"--input-embeds-norm", 0},
    {"--input-jitter", 0}, {"--moe-comm-aux-loss-coeff", 1}, {"--moe-device-level-aux-loss-coeff", 1},
    {"--output-multiplier-scale", 1}, {"--query-pre-attn-scalar", 1}, {"--scale-depth", 1},
    {"--scale-emb", 1}, {"--shape-order", 1}, {"--skip-bias-add", 0}, {"--sparse-mode", 1},
    {"--square-alibi-mask", 0}, {"--tokenizer-padding-side", 1}, {"--use-glm-rope", 0},
    // Sliding-window attention (model.cpp, read_windows).
    {"--sliding-window", 1}, {"--window-size", 1}, {"--window-attn-skip-freq", 1},
    // MindSpeed-LLM's Gemma 2 windows (v1.0.RC3.0 transformer_layer.py): a
    // mask on every other layer, over the same causal FlashAttentionScore
    // band (pre_tokens unchanged), so the kernel does the work it would do
    // without it.
    {"--interleave-sliding-window", 1},
    // Gemma 2's soft-capped logits (model.cpp, loss_traffic).
    {"--output-logit-softcapping", 1},
};
// clang-format on

const FlagSpec* spec(std::string_view flag) {
  for (const FlagSpec& f : kFlags)
    if (f.name == flag) return &f;
  return nullptr;
}

bool is_flag(const Word& w) {
  const std::string t = w.text();
  return t.size() > 2 && t[0] == '-' && t[1] == '-' && w.known();
}

}  // namespace

int flag_arity(const std::string& flag) {
  const FlagSpec* f = spec(flag);
  return f == nullptr ? -1 : f->arity;
}
bool is_known_flag(const std::string& flag) {
  return spec(flag) != nullptr;
}

void Arguments::add_words(const std::vector<Word>& words) {
  for (size_t i = 0; i < words.size();) {
    if (!is_flag(words[i])) {
      ++i;  // a word before any flag, or one a switch does not take
      continue;
    }
    Occurrence o;
    o.flag_word = words[i];
    o.flag = words[i].text();
    ++i;
    if (const size_t eq = o.flag.find('='); eq != std::string::npos) {
      // --flag=value
      Word value = o.flag_word;
      value.pieces = {o.flag_word.pieces.front()};
      value.pieces.front().text = o.flag.substr(eq + 1);
      o.flag = o.flag.substr(0, eq);
      o.values.push_back(value);
    } else {
      const int arity = flag_arity(o.flag);
      while (i < words.size() && !is_flag(words[i]) &&
             (arity < 0 || static_cast<int>(o.values.size()) < arity)) {
        o.values.push_back(words[i]);
        ++i;
      }
    }
    const auto source = o.flag_word.source();
    if (!seen_.insert(source).second) continue;
    all_.push_back(std::move(o));
  }
}

Found Arguments::find(std::initializer_list<const char*> flags) const {
  std::vector<const Occurrence*> found;
  for (const Occurrence& o : all_)
    for (const char* f : flags)
      if (o.flag == f) found.push_back(&o);
  Found result;
  if (found.empty()) return result;
  auto branch_of = [&](const Occurrence* o) {
    int b = o->flag_word.branch();
    for (const Word& v : o->values)
      if (b < 0) b = v.branch();
    return b;
  };
  // The last occurrence that certainly happens, then the "maybe" ones after it.
  size_t tail = found.size();
  while (tail > 0 && branch_of(found[tail - 1]) >= 0) --tail;
  if (tail == found.size()) {
    result.state = Found::State::known;
    result.occurrence = found.back();
    return result;
  }
  // Every branch of one if/else setting the same value: known either way.
  if (script_ != nullptr) {
    const Branch& first = script_->branches[static_cast<size_t>(branch_of(found[tail]))];
    const IfStatement& statement = script_->ifs[static_cast<size_t>(first.if_index)];
    std::vector<bool> covered(static_cast<size_t>(statement.branch_count), false);
    bool agree = statement.exhaustive;
    auto value_text = [](const Occurrence* o) {
      std::string t;
      for (const Word& v : o->values) t += v.text() + " ";
      return t;
    };
    for (size_t k = tail; k < found.size() && agree; ++k) {
      const Branch& b = script_->branches[static_cast<size_t>(branch_of(found[k]))];
      agree = b.if_index == first.if_index && value_text(found[k]) == value_text(found[tail]);
      if (agree) covered[static_cast<size_t>(b.index)] = true;
    }
    if (agree && std::all_of(covered.begin(), covered.end(), [](bool c) { return c; })) {
      result.state = Found::State::known;
      result.occurrence = found.back();
      return result;
    }
    result.why = "it is set inside the `if` on line " + std::to_string(statement.line) +
                 ", which may not run: " + statement.why;
  }
  result.state = Found::State::unknown;
  result.occurrence = found.back();
  return result;
}

sdk::Where Arguments::at(const Occurrence& o) const {
  sdk::Where w;
  w.file = file_;
  w.line = o.flag_word.line() > 0 ? o.flag_word.line() : NDS_UNKNOWN;
  w.field = o.field.empty() ? o.flag : o.field;
  return w;
}

sdk::Where Arguments::where(const Occurrence& o, size_t index) const {
  sdk::Where w = at(o);
  if (index >= o.values.size()) return w;
  const Word& v = o.values[index];
  if (v.line() > 0 && v.line() != o.flag_word.line()) {
    w.line = v.line();
    if (!v.variable().empty()) w.field += " (" + v.variable() + ")";
  }
  return w;
}

}  // namespace ndsearch::plugins::megatron

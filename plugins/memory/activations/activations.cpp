// SPDX-License-Identifier: Apache-2.0
// activations.cpp: the `activations` memory pass: the activations each
// pipeline rank keeps for the backward pass, per layer and micro-batch, times
// the micro-batches its chunks hold in flight (DESIGN §8.6), plus the
// embedding's and the output head's.
//
// Per layer and token, after Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", §4, Table 2), generalised: with
// b bytes per element of the activation dtype (bf16 around fp8 GEMMs; the
// compute dtype before ABI 1.1) and 1-byte dropout masks,
//   kept on every TP rank (divided by t only with sequence parallelism):
//     the two norms' inputs 2bh, the QKV input bh, the MLP input bh, and a
//     dropout mask h after attention and after the MLP;
//   divided by t: Q, K, V and the output projection's input (by their own
//     widths: GQA's K and V are narrower, MLA adds its latents), the MLP's
//     intermediate tensors (GeLU: 2bf; SwiGLU: 3bf);
//   and without flash attention, per key: a·(b softmax + 1 mask + b dropout
//     output) / t, so s² terms: 5as²b for GPT-3.
// For GPT-3 (MHA, GeLU 4h, dropout) that is sbh(10 + 24/t + 5as/(ht)) with TP,
// sbh·34/t with TP+SP, 34/t without the s² term under selective recompute, and
// 2sbh (the layer input) under full recompute: Table 2, checked in tests.
// MoE layers keep the router's fp32 logits and, per routed token (top-k ×
// capacity factor, 1 when dropless), the expert's input and intermediates /
// etp. Under an fp8 recipe each fp8 linear layer keeps its input as the fp8
// copy its weight-gradient GEMM reads (Transformer Engine saves the cast,
// transposed input, not the bf16 one): the QKV, output-projection, MLP and
// expert inputs take 1 byte per element (Korthikanti's 34 becomes 27 for
// GPT-3 with TP+SP). Context parallelism divides the tokens by cp (the keys stay s).
// The output head keeps the final norm's and the head's inputs and the fp32
// softmax of the vocabulary-parallel cross entropy (4V/t per token).
// Under full recompute the backward of a layer rebuilds its activations, one
// micro-batch of one layer at a time: the largest is added once per rank.
// Selective recompute drops what its op set (nds_training.recompute_ops;
// none stated: the attention core, Korthikanti et al. 2022 §5) rebuilds, as
// Megatron-Core's --recompute-modules name the ops: core_attention the
// per-key tensors (nothing more with flash attention, whose kernel keeps
// only its log-sum-exp); mlp the dense MLP's intermediates; moe the routed
// tokens, their intermediates, the router's logits and the shared experts'
// intermediates; activation (Megatron's moe_act) the routed experts'
// activation output (their second GEMM's input); norm the two norms' outputs
// (the QKV and MLP inputs). Each op's module keeps its own input.
// ABI 1.8: NDS_RECOMPUTE_OP_ALTERNATE_MATMULS is PyTorch's per-op policy as
// torchtitan sets it (its own account, not a subtraction: see
// layer_coefficients), whose backward rebuilds the rest of a layer;
// loss_bytes_per_logit replaces the loss's 4; tp_keeps_gathered_inputs keeps
// the QKV, MLP and head inputs whole on each TP rank (DTensor TP).
// Per layer (ABI 1.3, nds_candidate.layer_option set): each layer is priced by
// its own option, KEEP as none, SELECTIVE and FULL as those modes, and OFFLOAD
// keeps none's bytes but the device holds one micro-batch's copy (the others
// are on the host), not in_flight; the rebuilt layer is added when any layer
// of the rank is FULL. A value this pass does not know is priced as KEEP.
// ABI 1.9: swapped_ops (MindSpeed's --swap-attention: the attention module's
// input, Q, K, V, output-projection input and per-key tensors) leave each
// layer for the host after its forward, each tensor taken off once with
// what recompute drops; one layer's, of one micro-batch, is back on the
// device ahead of its backward (the prefetch).
// Vision towers (ABI 1.6) run on the chunk holding the embedding, over each
// sequence's patches (image tokens x merge_patches), whole on every CP rank
// (images are not split by CP): per patch and layer the coefficients above,
// with the keys of the layer's window or image for the s² terms; the patch
// embedding's input; per merged token and merger its norm's and first
// linear's inputs (whole) and the activation's and second linear's inputs
// (/ t). The tower runs the strategy's recompute mode (full: each layer's
// input; selective: what the op set keeps).
#include <ndsearch/sdk/memory.hpp>
#include <ndsearch/sdk/model_math.hpp>
#include <ndsearch/sdk/tower_math.hpp>

#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "plugins/common/memory/layer_table.hpp"

namespace {

using ndsearch::plugins::memory::LayerTable;
using ndsearch::sdk::MemoryOut;

// Bytes per token of one layer by how they divide.
struct Coefficients {
  double replicated = 0;    // / t only with SP
  double tp_split = 0;      // / t
  double per_key = 0;       // × keys (s) / t; absent with flash attention
  double routed = 0;        // per token, already × top-k × capacity: / etp
  double input = 0;         // the layer's input: what full recompute keeps
  double routed_input = 0;  // the routed tokens' inputs: every ETP rank sees them whole
  double whole = 0;         // on every TP rank whole (a row-parallel matmul's partial sums)
  double scattered = 0;     // only with TP > 1, / t (a reduce-scatter's output)

  Coefficients& operator+=(const Coefficients& o) {
    replicated += o.replicated, tp_split += o.tp_split, per_key += o.per_key, routed += o.routed,
        input += o.input;
    routed_input += o.routed_input, whole += o.whole, scattered += o.scattered;
    return *this;
  }
  Coefficients operator-(const Coefficients& o) const {
    return {replicated - o.replicated, tp_split - o.tp_split,  per_key - o.per_key,
            routed - o.routed,         input - o.input,        routed_input - o.routed_input,
            whole - o.whole,           scattered - o.scattered};
  }
  Coefficients operator*(double n) const {
    return {n * replicated, n * tp_split,     n * per_key, n * routed,
            n * input,      n * routed_input, n * whole,   n * scattered};
  }
};

// The MLP's intermediates: the up projection's output(s) and the second
// GEMM's input, `lin` bytes (the fp8 copy under an fp8 recipe).
double mlp_intermediates(const nds_layer_block& l, double width, double b, double lin) {
  return ((l.ffn == NDS_FFN_SWIGLU ? 2 : 1) * b + lin) * width;
}

// fp32 router logits per expert and token.
constexpr double kRouterLogitBytes = 4;

// One layer's coefficients, and what each op of selective recompute drops
// of them (the per-op parts below are inside `all`).
struct LayerCoefficients {
  Coefficients all;
  Coefficients core_attention;     // the per-key tensors
  Coefficients dense_mlp;          // the dense MLP's intermediates
  Coefficients moe;                // routed tokens and intermediates, router logits, shared experts
  Coefficients expert_activation;  // the routed experts' activation outputs (in `moe`)
  // ABI 1.12: the dense MLP's activation output (in `dense_mlp`) and the
  // shared experts' (in `moe`), each the second GEMM's input.
  Coefficients dense_activation, shared_activation;
  Coefficients norm_outputs;       // the QKV and MLP inputs the two norms write
  Coefficients alternate_matmuls;  // all that per-op checkpointing keeps (ABI 1.8)
  // ABI 1.9, the attention module: Q, K, V, the output projection's input,
  // MLA's latents and flash attention's log-sum-exp; with core_attention's
  // per-key tensors and the QKV input (the first of norm_outputs) it is all
  // the module saves.
  Coefficients attention_rest;
  Coefficients qkv_input;

  // What is on the device when `ops` (NDS_RECOMPUTE_OP_*) are rebuilt by
  // selective recompute or swapped to the host: each tensor taken off once.
  Coefficients kept_under(uint64_t ops) const {
    if (ops & NDS_RECOMPUTE_OP_ALTERNATE_MATMULS) return alternate_matmuls;
    const bool attention = (ops & NDS_RECOMPUTE_OP_ATTENTION) != 0;
    Coefficients c = all;
    if (attention || (ops & NDS_RECOMPUTE_OP_CORE_ATTENTION)) c = c - core_attention;
    if (attention) c = c - attention_rest;
    if (ops & NDS_RECOMPUTE_OP_MLP)
      c = c - dense_mlp;
    else if (ops & NDS_RECOMPUTE_OP_MLP_ACTIVATION)
      c = c - dense_activation;
    if (ops & NDS_RECOMPUTE_OP_MOE) {
      c = c - moe;
    } else {
      if (ops & NDS_RECOMPUTE_OP_ACTIVATION) c = c - expert_activation;
      if (ops & NDS_RECOMPUTE_OP_MLP_ACTIVATION) c = c - shared_activation;
    }
    if (ops & NDS_RECOMPUTE_OP_NORM)
      c = c - norm_outputs;
    else if (attention)
      c = c - qkv_input;
    return c;
  }
};

// Whether attention keeps K and V repeated to the query heads under CP (ABI
// 1.16): MindSpeed's --kv-head-repeat-before-uly-alltoall repeats them before
// Ulysses' all-to-all, under Ulysses and hybrid CP, and FlashAttention saves
// the repeated ones for its backward. Read from the config's CP algorithm: a
// search that overrides it (--cp-algo) is priced as the config runs.
bool kv_heads_repeated(const nds_training* t) {
  return t != nullptr && t->cp_algorithm != nullptr &&
         ndsearch::sdk::kv_heads_repeated(*t, t->cp_algorithm);
}

// `b`: bytes of an activation; `lin`: of a kept linear-layer input.
// `gathered`: TP keeps the column-parallel linears' all-gathered inputs
// (nds_training.tp_keeps_gathered_inputs), whole on every TP rank.
LayerCoefficients layer_coefficients(const nds_layer_block& l, double b, double lin, bool flash,
                                     bool gathered) {
  const double h = static_cast<double>(l.hidden_size), heads = static_cast<double>(l.heads);
  const double mask_hidden = l.hidden_dropout > 0 ? 1 : 0,
               mask_attention = l.attention_dropout > 0 ? 1 : 0;
  LayerCoefficients k;
  Coefficients& c = k.all;
  c.input = b * h;
  c.replicated = 2 * b * h + 2 * mask_hidden * h;  // norms' inputs, masks
  // The QKV and MLP inputs the norms write: sequence shards under SP, or
  // what the all-gather made of them.
  (gathered ? c.whole : c.replicated) += lin * h + lin * h;
  (gathered ? k.norm_outputs.whole : k.norm_outputs.replicated) = lin * h + lin * h;
  (gathered ? k.qkv_input.whole : k.qkv_input.replicated) = lin * h;
  Coefficients& attention = k.attention_rest;
  if (l.attention == NDS_ATTENTION_MLA) {
    const double qk = static_cast<double>(l.qk_nope_head_dim + l.qk_rope_head_dim);
    const double ql = static_cast<double>(l.q_lora_rank), kvl = static_cast<double>(l.kv_lora_rank);
    attention.replicated =
        b * (2 * ql + kvl + static_cast<double>(l.qk_rope_head_dim) + kvl);  // latents, their norms
    attention.tp_split = b * heads * (2 * qk + static_cast<double>(l.v_head_dim)) +
                         lin * heads * static_cast<double>(l.v_head_dim);  // Q, K, V, output input
    c.replicated += attention.replicated;
    c.tp_split += attention.tp_split;
  } else {
    const double q = heads * static_cast<double>(l.head_dim),
                 kv = static_cast<double>(l.kv_heads * l.head_dim);
    const double v = static_cast<double>(l.kv_heads * l.v_head_dim),
                 o = heads * static_cast<double>(l.v_head_dim);
    attention.tp_split = b * (q + kv + v) + lin * o;
    c.tp_split += attention.tp_split;
    // Per-op checkpointing (torchtitan's _save_list, every other mm): of the
    // seven matmuls wq, wk, wv, wo, w1, w3, w2 it keeps the outputs of wq
    // (q), wv (v), w1 (f) and w2 (h, a row-parallel matmul's partial sums,
    // whole on each TP rank), attention's output (o), with the layer's input
    // (the checkpoint's), and under TP the two reduce-scatters' outputs.
    Coefficients& a = k.alternate_matmuls;
    a.input = b * h;
    a.replicated = b * h;
    a.tp_split = b * (q + v + o);
    a.whole = b * h;
    a.scattered = 2 * b * h;
  }
  if (flash)  // the fp32 log-sum-exp
    c.tp_split += 4 * heads, k.alternate_matmuls.tp_split += 4 * heads,
        attention.tp_split += 4 * heads;
  else
    c.per_key = k.core_attention.per_key = k.alternate_matmuls.per_key =
        heads * (b + mask_attention * (1 + b));
  if (l.ffn_hidden_size > 0) {
    k.dense_mlp.tp_split = mlp_intermediates(l, static_cast<double>(l.ffn_hidden_size), b, lin);
    k.dense_activation.tp_split = lin * static_cast<double>(l.ffn_hidden_size);
    c.tp_split += k.dense_mlp.tp_split;
    k.alternate_matmuls.tp_split += b * static_cast<double>(l.ffn_hidden_size);  // w1's output
  }
  if (l.experts > 0) {
    // Per token of an even share; the most loaded EP rank holds its load
    // times this (Divisors::routed_load: the routing, the capacity).
    const double routed_tokens = static_cast<double>(l.experts_per_token);
    const double f = static_cast<double>(l.moe_ffn_hidden_size);
    k.moe.replicated = kRouterLogitBytes * static_cast<double>(l.experts);
    k.moe.routed = routed_tokens * mlp_intermediates(l, f, b, lin);
    k.moe.routed_input = routed_tokens * lin * h;
    k.expert_activation.routed = routed_tokens * lin * f;  // the second GEMM's input
  }
  if (l.shared_experts > 0) {
    const double shared = static_cast<double>(l.shared_experts);
    const double f = static_cast<double>(l.shared_expert_ffn_hidden_size);
    k.moe.tp_split = shared * mlp_intermediates(l, f, b, lin);
    k.shared_activation.tp_split = shared * lin * f;
  }
  c += k.moe;
  // MLA's projections and MoE layers have no per-op account yet: what they
  // keep is what they keep without recompute.
  if (l.attention == NDS_ATTENTION_MLA)
    k.alternate_matmuls = c;
  else
    k.alternate_matmuls += k.moe;
  return k;
}

// How a candidate divides the coefficients' bytes: the replicated ones by
// tp with SP (else 1), the split ones by tp, the routed ones by etp.
struct Divisors {
  double replicated = 1, tp = 1, etp = 1;
  // The routed rows the most loaded EP rank holds over an even share
  // (sdk::routed_rank_load): it sets the peak.
  double routed_load = 1;
};

// Bytes of `k` (summed coefficients) for `units` tokens (or sequences, of
// coefficients per sequence) whose per-key terms meet `keys` keys, under
// `mode`: full recompute keeps each layer's input alone (selective's `k` is
// already what its op set keeps).
double coefficient_bytes(const Coefficients& k, nds_recompute_mode mode, double units, double keys,
                         const Divisors& d) {
  if (mode == NDS_RECOMPUTE_FULL) return units * k.input / d.replicated;
  return units * (k.replicated / d.replicated + (k.tp_split + k.per_key * keys) / d.tp +
                  (k.routed / d.etp + k.routed_input) * d.routed_load + k.whole +
                  (d.tp > 1 ? k.scattered / d.tp : 0));
}

// A layer option this pass knows, else KEEP (the most a layer holds).
int32_t known_option(int32_t option) {
  return option >= 0 && option < NDS_LAYER_OPTION_COUNT_V1 ? option : NDS_LAYER_KEEP;
}

// The recompute mode a known layer option runs (an offloaded layer keeps
// everything, as none).
nds_recompute_mode mode_of(int32_t option) {
  return option == NDS_LAYER_FULL        ? NDS_RECOMPUTE_FULL
         : option == NDS_LAYER_SELECTIVE ? NDS_RECOMPUTE_SELECTIVE
                                         : NDS_RECOMPUTE_NONE;
}

// The layer with the most activations, as one layer rebuilt in its backward
// or swapped back for it needs it: whole, what selective recompute keeps of
// it, and what the trainer swaps of it (ABI 1.9) that comes back one layer
// ahead of its backward (MindSpeed's swap prefetch), kept and under
// selective recompute.
struct LargestLayer {
  Coefficients all, kept, swapped_back, swapped_back_selective;
  static LargestLayer of(const LayerCoefficients& k, uint64_t ops, uint64_t swapped) {
    LargestLayer l;
    l.all = k.all;
    l.kept = k.kept_under(ops);
    l.swapped_back = k.all - k.kept_under(swapped);
    l.swapped_back_selective = l.kept - k.kept_under(ops | swapped);
    return l;
  }
};

// What the layers hold between their forward and backward, summed over the
// layers (prefix sums over [0, i): kept, less what is swapped, and under
// selective recompute), and the largest layer.
struct LayerSums {
  std::vector<Coefficients> kept{Coefficients{}}, selective{Coefficients{}};
  LargestLayer largest;
  // Appends layer `k`; `is_largest`: it is the largest so far.
  void add(const LayerCoefficients& k, uint64_t ops, uint64_t swapped, bool is_largest) {
    append(kept, k.kept_under(swapped));
    append(selective, k.kept_under(ops | swapped));
    if (is_largest) largest = LargestLayer::of(k, ops, swapped);
  }

 private:
  static void append(std::vector<Coefficients>& sums, const Coefficients& layer) {
    Coefficients next = sums.back();
    next += layer;
    sums.push_back(next);
  }
};

class Activations {
 public:
  static std::unique_ptr<Activations> compile(const nds_compile_input& input) {
    auto a = std::make_unique<Activations>();
    a->table_ = LayerTable::compile(*input.model);
    // The routing's table is the host's (ABI 1.13): kept here, for every
    // evaluation after the input is gone.
    nds_training& routing = a->table_.training;
    if (routing.expert_rank_load != nullptr)
      a->rank_load_.assign(routing.expert_rank_load,
                           routing.expert_rank_load + routing.expert_rank_load_count);
    routing.expert_rank_load = a->rank_load_.empty() ? nullptr : a->rank_load_.data();
    routing.expert_rank_load_count = a->rank_load_.size();
    const LayerTable& t = a->table_;
    if (t.training.seq_len == NDS_UNKNOWN)
      throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                 "the sequence length (`seq_len`) is unknown; set it");
    a->seq_ = static_cast<double>(t.training.seq_len);
    a->b_ = ndsearch::sdk::dtype_bytes(t.activation_dtype);  // bf16 around fp8 GEMMs (ABI 1.1)
    const double lin = t.fp8_recipe != NDS_FP8_NONE ? 1 : a->b_;
    const uint64_t ops = ndsearch::sdk::selective_recompute_ops(t.training);
    const bool gathered = t.training.tp_keeps_gathered_inputs == 1;
    // ABI 1.9: what the trainer moves to the host between a layer's forward
    // and its backward (MindSpeed's --swap-attention; 0 from an older writer,
    // the copy reading zero past its struct).
    const uint64_t swapped = t.training.swapped_ops;
    a->swaps_ = swapped != 0;
    // Per-op checkpointing rebuilds the rest of a layer in its backward, as
    // full recompute rebuilds the whole of it.
    a->selective_rebuilds_ = (ops & NDS_RECOMPUTE_OP_ALTERNATE_MATMULS) != 0;
    a->kv_repeated_ = kv_heads_repeated(input.model->training);
    for (uint32_t i = 0; i < t.layers(); ++i) {
      const LayerCoefficients k =
          layer_coefficients(t.block(i), a->b_, lin, t.flash_attention, gathered);
      // The routing's load is priced by the first MoE block's capacity and
      // padding (a model's MoE blocks share them).
      if (t.block(i).experts > 0 && !a->moe_block_) a->moe_block_ = t.block(i);
      const Coefficients& c = k.all;
      const double size =
          c.replicated + c.tp_split + c.per_key * a->seq_ + c.routed + c.routed_input;
      const bool largest = size > a->largest_size_;
      if (largest) a->largest_size_ = size;
      a->plain_.add(k, ops, swapped, largest);
      if (a->kv_repeated_) {
        // The same layer with K and V as wide as Q, as attention saves them
        // after the repeat and Ulysses' all-to-all.
        nds_layer_block block = t.block(i);
        if (block.attention != NDS_ATTENTION_MLA) block.kv_heads = block.heads;
        a->repeated_.add(layer_coefficients(block, a->b_, lin, t.flash_attention, gathered), ops,
                         swapped, largest);
      }
    }
    const double h = t.hidden;
    const bool dropout = t.blocks.front().hidden_dropout > 0;
    a->embedding_.replicated = dropout ? h : 0;  // the dropout mask after the embedding
    // The final norm's input, and the head's (all-gathered when TP keeps it so).
    a->head_.replicated = (gathered ? 1 : 2) * a->b_ * h;
    a->head_.whole = gathered ? a->b_ * h : 0;
    // The loss's bytes per vocabulary entry (ABI 1.8): Megatron-Core's fused
    // cross entropy keeps its fp32 softmax (4); an unfused fp32 one more.
    a->head_.tp_split = ndsearch::sdk::loss_bytes_per_logit(t.training) * t.vocab;
    a->compile_towers(*input.model, lin, ops, gathered);
    if (t.has_mtp) {
      // Each MTP module: a layer, its projection's input [h; h], two norms, its own loss.
      Coefficients m = layer_coefficients(t.mtp, a->b_, lin, t.flash_attention, gathered).all;
      m.replicated += 2 * a->b_ * h + 2 * a->b_ * h;
      a->mtp_ = m * static_cast<double>(t.mtp_layers);
      // Each module's own loss over the vocabulary, scaled per tp below.
      a->mtp_loss_ = ndsearch::sdk::loss_bytes_per_logit(t.training) * t.vocab *
                     static_cast<double>(t.mtp_layers);
    }
    return a;
  }

  // Per sequence of every tower: its layers (all, and what selective
  // recompute keeps), its patch embedding and mergers (never recomputed).
  void compile_towers(const nds_model& model, double lin, uint64_t ops, bool gathered) {
    for (size_t i = 0; i < model.submodel_count; ++i) {
      const nds_model& tower = ndsearch::sdk::submodel(model, i);
      const ndsearch::sdk::TowerShape shape = ndsearch::sdk::tower_shape(tower);
      const ndsearch::sdk::TowerTokens k = ndsearch::sdk::tower_tokens(shape, table_.training);
      if (k.patches <= 0) continue;
      for (size_t j = 0; j < tower.block_count; ++j) {
        const nds_layer_block& l = ndsearch::sdk::detail::tower_block(tower, j);
        LayerCoefficients kc = layer_coefficients(l, b_, lin, table_.flash_attention, gathered);
        // The s² terms over the layer's own keys, folded in per patch.
        const double keys = ndsearch::sdk::tower_attention_keys(l, k);
        Coefficients kept = kc.kept_under(ops);
        const double n = static_cast<double>(l.layers) * k.patches;
        for (auto [sum, c] :
             {std::pair{&tower_layers_, &kc.all}, std::pair{&tower_selective_, &kept}}) {
          sum->replicated += n * c->replicated;
          sum->tp_split += n * (c->tp_split + c->per_key * keys);
          sum->input += n * c->input;
        }
      }
      // The patch embedding's input per patch; per merged token and merger,
      // merge_patches x hidden wide: the norm's and the first linear's
      // inputs (whole), the activation's and the second linear's (/ t).
      const double merged = k.merged * shape.merge_patches * shape.hidden * shape.mergers;
      tower_outside_.replicated += k.patches * b_ * shape.patch_inputs + merged * (b_ + lin);
      tower_outside_.tp_split += merged * (b_ + lin);
    }
  }

  // One micro-batch of the towers, under the strategy's recompute mode
  // (their per-key terms are folded in per sequence).
  double tower_bytes(const nds_strategy& s, const Divisors& divisors) const {
    const Coefficients& layers =
        s.recompute == NDS_RECOMPUTE_SELECTIVE ? tower_selective_ : tower_layers_;
    return coefficient_bytes(layers, s.recompute, s.mbs, 0, divisors) +
           coefficient_bytes(tower_outside_, NDS_RECOMPUTE_NONE, s.mbs, 0, divisors);
  }

  void evaluate(MemoryOut& out) const noexcept {
    const nds_candidate& c = out.candidate();
    const nds_strategy& s = out.strategy();
    const double t = s.tp, etp = s.etp;
    const double replicated_split = s.sp == 1 ? t : 1;
    const double tokens = static_cast<double>(s.mbs) * seq_ / s.cp;  // per micro-batch on one rank
    // Bytes of `k` (summed coefficients) for one micro-batch.
    // Under selective, `k` is already what the op set keeps (sums.selective).
    const double load =
        moe_block_ ? ndsearch::sdk::routed_rank_load(table_.training, *moe_block_, s.ep) : 1;
    const Divisors divisors{replicated_split, t, etp, load};
    auto bytes = [&](const Coefficients& k, nds_recompute_mode mode) {
      return coefficient_bytes(k, mode, tokens, seq_, divisors);
    };
    // Under CP, K and V the trainer repeats before Ulysses are kept repeated.
    const LayerSums& sums = kv_repeated_ && s.cp > 1 ? repeated_ : plain_;
    const LargestLayer& big = sums.largest;
    // Layers [first, end) under `mode`, one micro-batch.
    auto range_bytes = [&](uint32_t first, uint32_t end, nds_recompute_mode mode) {
      const std::vector<Coefficients>& p =
          mode == NDS_RECOMPUTE_SELECTIVE ? sums.selective : sums.kept;
      return bytes(p[end] - p[first], mode);
    };
    const uint32_t layers = table_.layers();
    // The logits over the vocabulary's rows at this tp.
    const double rows = table_.vocab_scale(s.tp);
    // ABI 1.3: each layer's own option; NULL (or a host before 1.3) prices the
    // first chunk_recomputed_layers of a chunk at strategy->recompute.
    const int32_t* option =
        NDS_HAS_FIELD(&c, nds_candidate, layer_option) ? c.layer_option : nullptr;
    for (int32_t rank = 0; rank < s.pp; ++rank) {
      double total = 0;
      bool any_recomputed = false, any_full = false;
      bool any_kept = false, any_selective = false;  // layers whose swapped tensors come back
      for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
        const size_t i = static_cast<size_t>(rank) * s.vpp + chunk;
        const uint32_t first = c.chunk_first_layer[i], count = c.chunk_layers[i];
        double chunk_bytes = 0, offloaded = 0;  // per micro-batch in flight; offloaded: once
        if (option == nullptr) {
          // The first chunk_recomputed_layers layers of a chunk are recomputed
          // (reference §5.1), the rest keep everything.
          const uint32_t recomputed = std::min(c.chunk_recomputed_layers[i], count);
          chunk_bytes = range_bytes(first, first + recomputed, s.recompute) +
                        range_bytes(first + recomputed, first + count, NDS_RECOMPUTE_NONE);
          any_recomputed = any_recomputed || (recomputed > 0 && rebuilds(s.recompute));
          any_full = any_full || (recomputed > 0 && s.recompute == NDS_RECOMPUTE_FULL);
          any_kept = any_kept || count > recomputed ||
                     (recomputed > 0 && s.recompute == NDS_RECOMPUTE_NONE);
          any_selective =
              any_selective || (recomputed > 0 && s.recompute == NDS_RECOMPUTE_SELECTIVE);
        } else {
          // Runs of equal option summed through the prefix sums, per option.
          Coefficients by[NDS_LAYER_OPTION_COUNT_V1];
          for (uint32_t j = first, end = first + count; j < end;) {
            const int32_t o = known_option(option[j]);
            uint32_t k = j + 1;
            while (k < end && known_option(option[k]) == o) ++k;
            const std::vector<Coefficients>& p =
                o == NDS_LAYER_SELECTIVE ? sums.selective : sums.kept;
            by[o] += p[k] - p[j];
            const nds_recompute_mode mode = mode_of(o);
            any_recomputed = any_recomputed || rebuilds(mode);
            any_full = any_full || mode == NDS_RECOMPUTE_FULL;
            any_kept = any_kept || mode == NDS_RECOMPUTE_NONE;
            any_selective = any_selective || mode == NDS_RECOMPUTE_SELECTIVE;
            j = k;
          }
          chunk_bytes = bytes(by[NDS_LAYER_KEEP], NDS_RECOMPUTE_NONE) +
                        bytes(by[NDS_LAYER_SELECTIVE], NDS_RECOMPUTE_SELECTIVE) +
                        bytes(by[NDS_LAYER_FULL], NDS_RECOMPUTE_FULL);
          // One micro-batch's copy on the device, the others on the host.
          if (c.in_flight[i] > 0) offloaded = bytes(by[NDS_LAYER_OFFLOAD], NDS_RECOMPUTE_NONE);
        }
        if (ndsearch::plugins::memory::holds_embedding(c, i)) {
          chunk_bytes += bytes(embedding_, NDS_RECOMPUTE_NONE);
          chunk_bytes += tower_bytes(s, divisors);
        }
        if (ndsearch::plugins::memory::holds_head(c, i, layers)) {
          chunk_bytes += tokens * (head_.replicated / replicated_split +
                                   (head_.tp_split + mtp_loss_) * rows / t + head_.whole);
          chunk_bytes += bytes(mtp_, NDS_RECOMPUTE_NONE);
        }
        total += chunk_bytes * c.in_flight[i] + offloaded;
      }
      // One layer rebuilt in its backward: whole under full recompute, what
      // per-op checkpointing did not keep under it alone.
      if (any_recomputed)
        total += bytes(any_full ? big.all : big.all - big.kept, NDS_RECOMPUTE_NONE);
      if (swaps_ && (any_kept || any_selective))
        total +=
            bytes(any_kept ? big.swapped_back : big.swapped_back_selective, NDS_RECOMPUTE_NONE);
      out.add(rank, NDS_MEMORY_ACTIVATIONS, total);
    }
  }

 private:
  LayerTable table_;
  LayerSums plain_;
  // The same with K and V repeated to the query heads (ABI 1.16), for cp > 1;
  // empty unless the trainer repeats them.
  LayerSums repeated_;
  bool kv_repeated_ = false;
  Coefficients embedding_, head_, mtp_;
  double mtp_loss_ = 0;  // the MTP modules' losses per token and vocabulary row, before / tp
  bool swaps_ =
      false;  // the trainer swaps anything (nds_training.swapped_ops): else no work per rank
  std::optional<nds_layer_block> moe_block_;  // the first MoE block (its capacity and padding)
  std::vector<double> rank_load_;             // nds_training.expert_rank_load, copied
  bool selective_rebuilds_ = false;           // selective recompute rebuilds layers in the backward

  bool rebuilds(int32_t mode) const {
    return mode == NDS_RECOMPUTE_FULL || (mode == NDS_RECOMPUTE_SELECTIVE && selective_rebuilds_);
  }
  // The towers' per sequence: their layers' (all, and what selective
  // recompute keeps), and the patch embedding's and mergers'.
  Coefficients tower_layers_, tower_selective_, tower_outside_;
  double largest_size_ = 0;
  double seq_ = 0, b_ = 2;
};

class Plugin final : public ndsearch::sdk::MemoryPassPlugin<Activations> {};

}  // namespace

NDS_SDK_MODULE(
    Plugin, "activations", "1.0.0",
    "Memory: activations kept for the backward pass per pipeline rank (Korthikanti et al. 2022)")

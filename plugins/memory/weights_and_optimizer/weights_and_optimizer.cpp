// SPDX-License-Identifier: Apache-2.0
// weights_and_optimizer.cpp: the `weights-and-optimizer` memory pass: each
// pipeline rank's parameters, gradients, optimizer states and master weights,
// by the model's precision recipe, sharded by TP (vocab-parallel embedding
// and head included), by EP x ETP for routed experts, by the rank's layers,
// and by ZeRO over the sharding group `op` (1: optimizer states and master
// weights; 2: + gradients; 3: + parameters, whose gathered working set is an
// all-gather buffer: comm_buffers, held as nds_training.fsdp_holding says,
// ABI 1.8: layer by layer, FSDP2's resharded blocks with the root kept, or
// every block kept with unsharded gradients; in the compute dtype). Vision towers (ABI 1.6) count
// with the embedding, their linears split by TP (sdk/tower_math.hpp). Option "swap-optimizer" = 1
// moves the optimizer states and master weights to the host.
//
// Bytes per parameter, the published checks (tests): bf16 params + fp32 grads
// + fp32 master + Adam: 2 + 4 + (4 + 8) = 18, or 6 + 12/d with ZeRO-1 over d
// (Megatron-LM's distributed optimizer); ZeRO (Rajbhandari et al. 2020):
// (2 + 2 + K) per parameter with K = 12, divided by N_d stage by stage.
//
// fp8 GEMMs (an fp8 recipe) over bf16/fp16 parameters: Transformer Engine
// quantizes each fp8 linear layer's weight on the first micro-batch and
// keeps it for the step (TE 1.13-2.18, module/linear.py: _fp8_workspaces,
// refreshed only with is_first_microbatch): a rowwise copy for the forward
// and a columnwise one for the backward's dgrad (Hopper's fp8 GEMMs take
// only the TN layout: a transpose), with the recipe's scales: MXFP8 one
// E8M0 byte per 32 values each way, blockwise an fp32 per 128 x 128 block
// each way, the per-tensor recipes one scalar. Per local parameter of the
// attention, MLP and expert linears, not of the embedding, output head,
// norms or router, which stay in high precision. Counted as parameters.
// With fp8 primary weights (params fp8, Megatron-LM's --fp8-param-gather)
// the parameter is the rowwise copy and the columnwise one is rebuilt after
// each gather and kept on it. Blackwell's per-tensor recipes need no
// transpose (one copy); not told the device's generation, the pass keeps
// both, as on Hopper.
#include <ndsearch/sdk/memory.hpp>
#include <ndsearch/sdk/model_math.hpp>
#include <ndsearch/sdk/tower_math.hpp>

#include <algorithm>
#include <memory>
#include <vector>

#include "plugins/common/memory/layer_table.hpp"

namespace {

using ndsearch::plugins::memory::LayerTable;
using ndsearch::sdk::layer_parameters;
using ndsearch::sdk::MemoryOut;

// Parameters of one layer by how they shard. tp_split and routed are the
// layer's linear layers (biases and MLA's small norms counted with them).
struct LayerShares {
  double tp_split = 0;    // attention projections, dense MLP, shared experts: / tp
  double replicated = 0;  // norms and router: on every TP rank
  double routed = 0;      // routed experts: / (ep · etp)
};

// The fp8 copies of one parameter of an fp8 linear layer: rowwise and
// columnwise, with the recipe's scales (above).
double fp8_weight_bytes(int32_t recipe) {
  double scales = 0;
  if (recipe == NDS_FP8_MXFP8) scales = 2.0 / 32;
  if (recipe == NDS_FP8_BLOCKWISE) scales = 2.0 * 4 / (128 * 128);
  return 1 + 1 + scales;
}

LayerShares shares_of(const nds_layer_block& b) {
  const auto p = layer_parameters(b);
  return {p.attention + p.dense_mlp + p.shared_experts, p.norms + p.router, p.routed_experts};
}

class WeightsAndOptimizer {
 public:
  static std::unique_ptr<WeightsAndOptimizer> compile(const nds_compile_input& input) {
    auto c = std::make_unique<WeightsAndOptimizer>();
    c->table_ = LayerTable::compile(*input.model);
    const LayerTable& t = c->table_;
    c->prefix_.assign(t.layers() + 1, LayerShares{});
    for (uint32_t i = 0; i < t.layers(); ++i) {
      const LayerShares s = shares_of(t.block(i));
      c->prefix_[i + 1] = {c->prefix_[i].tp_split + s.tp_split,
                           c->prefix_[i].replicated + s.replicated,
                           c->prefix_[i].routed + s.routed};
      if (s.tp_split + s.replicated + s.routed >
          c->largest_layer_.tp_split + c->largest_layer_.replicated + c->largest_layer_.routed)
        c->largest_layer_ = s;
    }
    const double h = t.hidden;
    c->embedding_ = {t.vocab * h, t.learned_positions * h, 0};
    // The head is the embedding when tied; with pp > 1 the last stage keeps a
    // copy of the tied table (Megatron-LM syncs the two copies' gradients).
    c->head_ = {t.vocab * h, (t.blocks.front().norm == NDS_NORM_LAYERNORM ? 2 : 1) * h, 0};
    if (t.has_mtp) {
      // DeepSeek-V3 §2.2: each MTP module is a transformer layer, two norms
      // and a projection of [h; h] to h; it uses the shared embedding.
      const LayerShares s = shares_of(t.mtp);
      const double m = static_cast<double>(t.mtp_layers);
      c->mtp_ = {m * (s.tp_split + 2 * h * h), m * (s.replicated + 2 * h), m * s.routed};
    }
    // Vision towers (ABI 1.6) sit with the embedding: their layers' and
    // mergers' linears split by TP, their norms, patch embedding and
    // positions whole on each TP rank.
    const nds_model& model = *input.model;
    for (size_t i = 0; i < model.submodel_count; ++i) {
      const ndsearch::sdk::TowerParameters p =
          ndsearch::sdk::tower_parameters(ndsearch::sdk::submodel(model, i));
      c->towers_.tp_split += p.split();
      c->towers_.replicated += p.whole();
    }
    const nds_training& tr = t.training;
    c->param_bytes_ = ndsearch::sdk::dtype_bytes(tr.params_dtype);
    c->grad_bytes_ = ndsearch::sdk::dtype_bytes(tr.grads_dtype);
    // Master weights only when wider than the parameters (fp32 training
    // updates the parameters themselves), and the states: the SDK's rule,
    // which the time model's optimizer step and swap copies follow too.
    const ndsearch::sdk::OptimizerBytes optimizer = ndsearch::sdk::optimizer_bytes(tr);
    c->master_bytes_ = optimizer.master;
    c->state_bytes_ = optimizer.states;
    // The run's option, or the config's trainer (ABI 1.9, MindSpeed's --swap-optimizer).
    c->swap_optimizer_ = ndsearch::sdk::host().option("swap-optimizer").value_or("0") == "1" ||
                         tr.swap_optimizer == 1;
    const bool high_precision_params =
        tr.params_dtype == NDS_DTYPE_BF16 || tr.params_dtype == NDS_DTYPE_FP16;
    // With fp8 parameters the parameter is the rowwise copy already; fp32
    // parameters (torchao's float8 under FSDP2) are cast at each use, none kept.
    if (t.fp8_recipe != NDS_FP8_NONE && high_precision_params)
      c->fp8_copy_bytes_ = fp8_weight_bytes(t.fp8_recipe);
    else if (t.fp8_recipe != NDS_FP8_NONE && tr.params_dtype == NDS_DTYPE_FP8)
      c->fp8_copy_bytes_ = fp8_weight_bytes(t.fp8_recipe) - c->param_bytes_;
    c->widened_grad_bytes_ =
        c->grad_bytes_ < c->master_bytes_ && !c->swap_optimizer_ ? c->master_bytes_ : 0;
    // What ZeRO-3/FSDP gathers is the compute copy: FSDP2 casts its fp32
    // shards to MixedPrecisionPolicy.param_dtype before the all-gather
    // (torch/distributed/_composable/fsdp/_fsdp_param.py); ZeRO-3's
    // parameters already are bf16. Under fp8 GEMMs the high-precision copy.
    const bool fp8_compute =
        tr.compute_dtype == NDS_DTYPE_FP8 || tr.compute_dtype == NDS_DTYPE_UNKNOWN;
    c->gather_bytes_ =
        std::min(c->param_bytes_, fp8_compute ? 2.0 : ndsearch::sdk::dtype_bytes(tr.compute_dtype));
    c->holding_ = tr.fsdp_holding;
    return c;
  }

  // ZeRO-3/FSDP keeping each micro-batch's gradients unsharded until the
  // last (FSDP2 with reshard_after_forward off, MindSpore's accu_grads
  // without gradient_accumulation_shard).
  bool accumulates_unsharded(const nds_strategy& s) const noexcept {
    return s.zero >= 3 && s.mbn > 1 &&
           ndsearch::sdk::fsdp_holding(holding_, s.pp) == NDS_FSDP2_KEEP;
  }

  // What ZeRO-3/FSDP holds gathered on `rank` (nds_training.fsdp_holding):
  // `root` (the root module's), `dense`, `expert` and `linear` are the rank's
  // local parameters as TP and EP x ETP shard them, before the data-parallel
  // sharding.
  void add_gathered(MemoryOut& out, int32_t rank, bool holds_layers, double root, double dense,
                    double expert, double linear) const noexcept {
    const nds_strategy& s = out.strategy();
    const double tp = s.tp, expert_split = static_cast<double>(s.ep) * s.etp;
    const LayerShares& l = largest_layer_;
    const double layer = l.tp_split / tp + l.replicated + l.routed / expert_split;
    const double layer_linear = l.tp_split / tp + l.routed / expert_split;
    const nds_fsdp_holding holding = ndsearch::sdk::fsdp_holding(holding_, s.pp);
    if (holding == NDS_FSDP2_KEEP || holding == NDS_FSDP_KEEP_SHARDED_GRADS) {
      // Every block stays gathered from its forward to its backward; with
      // several micro-batches the unsharded gradients accumulate in the
      // reduce dtype until the last (FSDP2's unsharded_accumulated_grad,
      // torchtitan under PP: set_requires_gradient_sync off but on the last),
      // unless each micro-batch's are reduce-scattered into sharded
      // accumulators (ABI 1.12; MindSpore's gradient_accumulation_shard):
      // then, as with one micro-batch, one layer's at a time.
      out.add(rank, NDS_MEMORY_COMM_BUFFERS, gather_bytes_ * (dense + expert));
      out.add(rank, NDS_MEMORY_PARAMS, fp8_copy_bytes_ * linear);
      if (accumulates_unsharded(s))
        out.add(rank, NDS_MEMORY_GRADS, grad_bytes_ * (dense + expert));
      else
        out.add(rank, NDS_MEMORY_COMM_BUFFERS, (gather_bytes_ + grad_bytes_) * layer);
      return;
    }
    // A layer's parameters gathered before it runs and freed after it, the
    // next one prefetched: two layers' worth in flight.
    if (holds_layers) {
      out.add(rank, NDS_MEMORY_COMM_BUFFERS, 2 * gather_bytes_ * layer);
      out.add(rank, NDS_MEMORY_PARAMS, 2 * fp8_copy_bytes_ * layer_linear);
    }
    if (holding == NDS_FSDP2_RESHARD) {
      // The root module (embedding, final norm, head) never reshards after
      // forward (FSDPState._lazy_init: no post-forward mesh for the root);
      // each block's gradients leave through a reduce-scatter whose input
      // is cast to the reduce dtype (foreach_reduce): one block's unsharded
      // gradients and that copy at a time.
      out.add(rank, NDS_MEMORY_COMM_BUFFERS, gather_bytes_ * root);
      if (holds_layers)
        out.add(rank, NDS_MEMORY_COMM_BUFFERS, (gather_bytes_ + grad_bytes_) * layer);
    }
  }

  void evaluate(MemoryOut& out) const noexcept {
    const nds_candidate& c = out.candidate();
    const nds_strategy& s = out.strategy();
    const double tp = s.tp, expert_split = static_cast<double>(s.ep) * s.etp;
    // The sharding groups: `op` devices for dense parameters; the same devices
    // hold op·tp / (ep·etp) replicas of each expert shard.
    const double op_dense = s.zero >= 1 ? s.op : 1;
    const double op_expert = s.zero >= 1 ? std::max(1.0, s.op * tp / expert_split) : 1;
    // The vocabulary's rows at this tp (padded anew where the trainer pads per tp).
    const double rows = table_.vocab_scale(s.tp);
    const double embedding_tp = embedding_.tp_split * rows, head_tp = head_.tp_split * rows;
    const uint32_t layers = table_.layers();
    for (int32_t rank = 0; rank < s.pp; ++rank) {
      double dense = 0, expert = 0;
      double linear = 0;  // the rank's local parameters of fp8 linear layers
      bool holds_layers = false;
      bool has_embedding = false, has_head = false;
      for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
        const size_t i = static_cast<size_t>(rank) * s.vpp + chunk;
        const uint32_t first = c.chunk_first_layer[i], count = c.chunk_layers[i];
        const LayerShares& a = prefix_[first];
        const LayerShares& b = prefix_[first + count];
        dense += (b.tp_split - a.tp_split) / tp + (b.replicated - a.replicated);
        expert += (b.routed - a.routed) / expert_split;
        linear += (b.tp_split - a.tp_split) / tp + (b.routed - a.routed) / expert_split;
        has_embedding = has_embedding || ndsearch::plugins::memory::holds_embedding(c, i);
        has_head = has_head || ndsearch::plugins::memory::holds_head(c, i, layers);
        holds_layers = holds_layers || count > 0;
      }
      double root = 0;  // the root module's: embedding, final norm and head
      if (has_embedding) {
        root += embedding_tp / tp + embedding_.replicated;
        dense += towers_.tp_split / tp + towers_.replicated;
        linear += towers_.tp_split / tp;
      }
      if (has_head) {
        const bool table_already_here = table_.tied_embeddings && has_embedding;
        if (!table_already_here) root += head_tp / tp;
        root += head_.replicated;
        dense += mtp_.tp_split / tp + mtp_.replicated;
        expert += mtp_.routed / expert_split;
        linear += mtp_.tp_split / tp + mtp_.routed / expert_split;
        // MTP's copy of the embedding (a tied head already is that table).
        if (table_.has_mtp && !has_embedding && !table_.tied_embeddings) dense += embedding_tp / tp;
      }
      dense += root;
      const double params_shard = s.zero >= 3 ? op_dense : 1,
                   params_shard_e = s.zero >= 3 ? op_expert : 1;
      const double grads_shard = s.zero >= 2 ? op_dense : 1,
                   grads_shard_e = s.zero >= 2 ? op_expert : 1;
      out.add(rank, NDS_MEMORY_PARAMS,
              param_bytes_ * (dense / params_shard + expert / params_shard_e));
      // ZeRO-3/FSDP: the fp8 copies exist only for the gathered layers (below).
      if (s.zero < 3) out.add(rank, NDS_MEMORY_PARAMS, fp8_copy_bytes_ * linear);
      // Where the unsharded gradients accumulate over the micro-batches
      // (add_gathered), the sharded ones are what the last micro-batch's
      // reduce-scatters make of them: FSDP2 frees each block's unsharded
      // accumulator as it reduces it (foreach_reduce), MindSpore reduces its
      // accu_grads at the step, when the activations are gone. Never both
      // whole at once: the accumulators are the gradients held.
      if (!accumulates_unsharded(s))
        out.add(rank, NDS_MEMORY_GRADS,
                grad_bytes_ * (dense / grads_shard + expert / grads_shard_e));
      const double main_params = dense / op_dense + expert / op_expert;
      if (!swap_optimizer_)
        out.add(rank, NDS_MEMORY_OPTIMIZER, (master_bytes_ + state_bytes_) * main_params);
      const double widened = widened_grad_bytes_ * main_params;
      out.add(rank, NDS_MEMORY_GRADS,
              std::max(0.0, widened - out.prior(rank, NDS_MEMORY_ACTIVATIONS)));
      if (s.zero >= 3) add_gathered(out, rank, holds_layers, root, dense, expert, linear);
    }
  }

 private:
  LayerTable table_;
  std::vector<LayerShares> prefix_;  // sums over layers [0, i)
  LayerShares embedding_, head_, mtp_;
  LayerShares towers_;         // every vision tower's, on the rank with the embedding
  LayerShares largest_layer_;  // the layer with the most parameters
  double param_bytes_ = 2, grad_bytes_ = 4, master_bytes_ = 4, state_bytes_ = 8;
  double fp8_copy_bytes_ = 0;  // per fp8 linear parameter beyond the parameter; 0 without fp8 GEMMs
  double widened_grad_bytes_ =
      0;                     // per main parameter at the optimizer step; 0 when grads are as wide
  double gather_bytes_ = 2;  // per gathered parameter under ZeRO-3/FSDP
  nds_fsdp_holding holding_ = NDS_FSDP_LAYER_BY_LAYER;
  bool swap_optimizer_ = false;
};

// Phase 1: the optimizer step's widened gradients reuse the activations' memory.
class Plugin final : public ndsearch::sdk::MemoryPassPlugin<WeightsAndOptimizer, /*Phase=*/1> {};

}  // namespace

NDS_SDK_MODULE(
    Plugin, "weights-and-optimizer", "1.1.0",
    "Memory: parameters, gradients, optimizer states and master weights per pipeline rank")

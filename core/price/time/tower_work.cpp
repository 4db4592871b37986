// SPDX-License-Identifier: Apache-2.0
// tower_work.cpp: the vision towers' work for one micro-batch on the rank
// that holds them with the embedding: their encoder layers priced as any
// layer over the micro-batch's patches (bidirectional attention within each
// window or image, whole on every CP rank), the patch embedding (one linear
// per patch), and the mergers over the image tokens.

#include "core/hardware/topology.hpp"
#include "core/model/towers.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/time_model.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {

using timing::d;

TimeModel::Work TimeModel::tower_work(const nds_candidate& c) const {
  const nds_strategy& s = *c.strategy;
  const double tp = s.tp, b = compiled_.settings.activation_bytes;
  // The towers run the strategy's recompute mode, as the activations pass
  // prices them (nds_layer_option's keep, selective and full equal the modes).
  const auto option = static_cast<nds_layer_option>(s.recompute);
  Work w;
  for (const ModelPart& tower : compiled_.model.submodels) {
    const sdk::TowerShape shape = tower_shape(tower);
    const sdk::TowerTokens k = tower_tokens(compiled_.model, tower);
    // Held (and reduced and updated) with or without images to run.
    const sdk::TowerParameters p = tower_parameters(tower);
    if (k.patches <= 0) {
      w.dense_params += p.split() / tp + p.whole();
      continue;
    }
    const double patches = s.mbs * k.patches;
    for (const ModelBlock& block : tower.blocks)
      w.add(shaped_layer_work(c, block.c, option,
                              {patches, sdk::tower_attention_keys(block.c, k), true}),
            d(block.c.layers));
    // The patch embedding, whole on each TP rank; each merger a linear of
    // merge_patches x hidden to itself (columns split by TP) and one to
    // out_hidden_size (rows split), its norm and activation memory-bound,
    // and a TP all-reduce (reduce-scatter + all-gather with SP) of its
    // output each pass, as a row-parallel linear's.
    Work outside;
    // The patch embedding's input is the pixels: its backward has the
    // weight-gradient GEMM only. It stays in high precision (no fp8 copy).
    const GemmRate& rate = kernels_.high();
    const double embed = kernels_.gemm(rate, patches, shape.hidden, shape.patch_inputs);
    const double embed_weights = kernels_.gemm(rate, shape.patch_inputs, shape.hidden, patches);
    outside.forward += embed, outside.forward_linear += embed;
    outside.backward += embed_weights, outside.backward_linear += embed_weights;
    outside.weight_gradients += embed_weights;
    const double merged = s.mbs * k.merged, width = shape.merge_patches * shape.hidden;
    for (double m = 0; m < shape.mergers; ++m) {
      linear(outside, merged, width, width / tp);
      linear(outside, merged, width / tp, shape.out_hidden_size);
    }
    const double elements = shape.mergers * merged * (2 * width + 3 * width / tp);
    outside.forward += kernels_.memory(elements * b);
    outside.backward += 2 * kernels_.memory(elements * b);
    if (s.tp > 1 && shape.mergers > 0) {
      const uint64_t tp_n = static_cast<uint64_t>(s.tp);
      const double bytes = merged * shape.out_hidden_size * b;
      const double per_pass =
          s.sp == 1 ? comm(CommPart::tp, Collective::all_gather, tp_n, 1, bytes) +
                          comm(CommPart::tp, Collective::reduce_scatter, tp_n, 1, bytes)
                    : comm(CommPart::tp, Collective::all_reduce, tp_n, 1, bytes);
      outside.tp += 2 * shape.mergers * per_pass;
    }
    outside.dense_params +=
        p.mergers_split / tp + p.mergers_whole + p.patch_embedding + p.positions;
    w.add(outside, 1);
  }
  return w;
}

const TimeModel::Work& TimeModel::cached_towers(const nds_candidate& c, LayerCache& cache,
                                                LayerCache* shapes, Work& scratch) const {
  // The towers' work depends on tp, sp, mbs and the recompute mode: one slot
  // per mode, in this estimate's cache and in the shapes' (no CP exchange).
  const nds_strategy& s = *c.strategy;
  const size_t slot = LayerCache::kTowerSlot + static_cast<size_t>(s.recompute);
  if (cache.known[slot]) return cache.work[slot].work;
  if (shapes != nullptr && shapes->known[slot]) {
    cache.work[slot].work = shapes->work[slot].work;
  } else {
    scratch = tower_work(c);
    cache.work[slot].work = scratch;
    if (shapes != nullptr) shapes->work[slot].work = scratch, shapes->known[slot] = true;
  }
  cache.known[slot] = true;
  return cache.work[slot].work;
}

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// per_op_checkpoint.cpp: the seconds PyTorch's per-op selective
// checkpointing runs again of a layer's matmuls under torchtitan's policy
// (NDS_RECOMPUTE_OP_ALTERNATE_MATMULS; which ones: core/compile/per_op_policy.hpp).
#include "core/compile/per_op_policy.hpp"
#include "core/price/time/time_model.hpp"
#include "core/price/time/work.hpp"

namespace ndsearch {

double TimeModel::alternate_matmuls_s(const nds_candidate& c, const nds_layer_block& l,
                                      const Work& w, const Span& span) const {
  const auto matmuls = alternate_matmuls(l);
  if (!matmuls) return w.forward_linear / 2;  // the order not read: half of the forward's
  const double tp = c.strategy->tp;
  const GemmRate& rate = kernels_.linear();
  double seconds = 0;
  // Each at its own shape on this device: TP splits the output of a
  // column-parallel linear, the input of a row-parallel one.
  for (const LayerMatmul& m : *matmuls)
    seconds += kernels_.gemm(rate, span.tokens, m.column ? m.out / tp : m.out,
                             m.column ? m.in : m.in / tp);
  return seconds;
}

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
// applied_recompute.hpp: a priced per-layer recompute (nds_applied_strategy.
// layer_options, ABI 1.7) counted per virtual stage, the unit in which the
// trainers state it: MindFormers' per-stage lists, Megatron's block method.
#pragma once

#include <cstdint>
#include <vector>

#include <ndsearch/sdk/parser.hpp>

namespace ndsearch::plugins {

struct StageRecompute {
  int64_t layers = 0;
  int64_t full = 0, selective = 0, offloaded = 0;
  // The fully recomputed layers are the stage's first ones (what Megatron's
  // block method and MindFormers' lists recompute).
  bool full_first = true;
};

// Per virtual stage (chunk·pp + rank, model order), over the applied split
// (a.stage_layers, else the even one: layers / (pp·vpp) each). Empty when
// a.layer_options is (every layer runs the strategy's mode).
std::vector<StageRecompute> recompute_per_virtual_stage(const sdk::AppliedStrategy& a);

}  // namespace ndsearch::plugins

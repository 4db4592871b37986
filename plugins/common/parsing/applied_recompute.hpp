// SPDX-License-Identifier: Apache-2.0
// applied_recompute.hpp: a priced per-layer recompute (nds_applied_strategy.
// layer_options, ABI 1.7) counted per virtual stage, the unit in which the
// trainers state it: MindFormers' per-stage lists, Megatron's block method.
#pragma once

#include <cstdint>
#include <string>
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

// The counts per pipeline stage of fully and of selectively recomputed
// layers, the lists MindFormers (recompute / select_recompute) and
// HyperParallel (full_rec / sel_rec) state, each recomputing the first
// layers of its stage (mindformers/models/utils.py, LayerSetting). Refuses
// (cannot_write, naming `trainer`) under virtual stages, whose per-chunk
// form is not written, and an offloaded layer, which no list states. Empty
// lists when every layer runs the strategy's mode.
struct StageLists {
  std::vector<int64_t> full, selective;
  bool any_full() const;
  bool any_selective() const;
};
StageLists per_stage_lists(const std::string& path, const sdk::AppliedStrategy& a,
                           const std::string& trainer);

}  // namespace ndsearch::plugins

// SPDX-License-Identifier: Apache-2.0
// trainer_description.hpp: each trainer the parsers name, described once
// (DESIGN §6b): what it can run, as the capability bits the search's checks
// read, and the release its rules are read from. docs/trainers.md gives
// each choice with its source; the parsers state a description instead of
// setting capability keys one by one, and the search header names it.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <string>

#include <ndsearch/sdk/parser.hpp>

namespace ndsearch::plugins {

struct TrainerDescription {
  const char* name;       // "Megatron-LM"
  const char* release;    // the release (tag or commit) its rules are read from
  uint64_t capabilities;  // NDS_CAN_* it has, NDS_NO_* / NDS_NEEDS_* that bind it
};

// Megatron-Core: SP with CP, interleaving, expert TP; the distributed
// optimizer (zero 1) or Megatron-FSDP (zero 3; the parser adds it where a
// script runs it), no ZeRO-2 outside FSDP; 1F1B and interleaved 1F1B only.
inline constexpr TrainerDescription kMegatronLM{
    "Megatron-LM", "core_v0.19.0",
    NDS_CAN_SP_WITH_CP | NDS_CAN_INTERLEAVE | NDS_CAN_EXPERT_TP | NDS_NO_ZERO2 | NDS_NO_GPIPE |
        NDS_NO_ZB_V | NDS_NO_DUALPIPE | NDS_NO_DUALPIPE_V};
// MindSpeed: Megatron-Core's, with DualPipe-V (--schedules-method dualpipev);
// MindSpeed-LLM refuses CP with --sliding-window (_validate_cp).
inline constexpr TrainerDescription kMindSpeed{
    "MindSpeed", "v2.3.0_core_r0.12.1",
    (kMegatronLM.capabilities & ~NDS_NO_DUALPIPE_V) | NDS_NO_CP_WITH_WINDOW};
// MindFormers on MindSpore: the parallel optimizer shards parameters with
// the states (zero 3, no ZeRO-1/2), no SP with CP, tp a power of two;
// 1f1b (interleaved), gpipe, zero_bubble_v.
inline constexpr TrainerDescription kMindFormers{
    "MindFormers", "v1.7.0",
    NDS_NEEDS_POW2_TP | NDS_CAN_INTERLEAVE | NDS_CAN_ZERO3 | NDS_CAN_EXPERT_TP | NDS_NO_ZERO1 |
        NDS_NO_ZERO2 | NDS_NO_DUALPIPE | NDS_NO_DUALPIPE_V};
// HyperParallel's legacy schema: MindFormers' choices on the same runtime.
inline constexpr TrainerDescription kHyperParallel{"HyperParallel", "sapp_nd 8cd4965",
                                                   kMindFormers.capabilities};
// HyperParallel's AutoModels schema: no virtual stages but ZB-V's two.
inline constexpr TrainerDescription kHyperParallelAutoModels{
    "HyperParallel AutoModels", "sapp_nd 8cd4965", kMindFormers.capabilities & ~NDS_CAN_INTERLEAVE};
// TorchTitan: FSDP2 or DDP (no ZeRO-1), TP always with SP, every
// torch.distributed.pipelining schedule it names but DualPipe.
inline constexpr TrainerDescription kTorchTitan{
    "TorchTitan", "v0.2.0",
    NDS_CAN_SP_WITH_CP | NDS_CAN_INTERLEAVE | NDS_CAN_ZERO3 | NDS_CAN_EXPERT_TP | NDS_NO_ZERO1 |
        NDS_NEEDS_SP_WITH_TP | NDS_NO_DUALPIPE};

// "Megatron-LM core_v0.19.0 (docs/trainers.md)": the provenance every key
// of the description carries.
std::string trainer_source(const TrainerDescription& d);

// Sets every capabilities.* key of the model vocabulary from `d` (0 or 1),
// with trainer_source as its provenance (a trainer's default), except the
// bits in `stated_elsewhere`, which the parser states from the config (a
// Megatron-FSDP script's zero 3).
void state_trainer(const TrainerDescription& d, sdk::Builder& b, uint64_t stated_elsewhere = 0);

}  // namespace ndsearch::plugins

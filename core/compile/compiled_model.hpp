// SPDX-License-Identifier: Apache-2.0
// compiled_model.hpp: a model compiled for pricing on one device, once per
// run (docs/architecture.md, stage 4): its own copy of the model, the device
// under the user's calibration, the trainer's settings and overheads, the
// optimizer swap, the facts of its layers, and what they assume in words.
// Nothing in it changes once built, so every thread of a search reads one;
// the time model (price/time) prices candidates from it and holds no model
// of its own.
#pragma once

#include <ndsearch/nds_model.h>

#include <optional>
#include <string>
#include <vector>

#include "core/compile/calibration.hpp"
#include "core/compile/layer_facts.hpp"
#include "core/compile/optimizer_swap.hpp"
#include "core/compile/trainer_settings.hpp"
#include "core/hardware/device.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

struct CompileOptions {
  std::optional<TrainerOverheads> overheads;  // instead of the shipped fit (the fitter's trials)
  Calibration calibration;                    // a user's, on top of them (identity: none)
  OptimizerSwap swap;  // the optimizer states' copies, when they live on the host
};

struct CompiledModel {
  // `model` is copied (or moved) in: the compiled model keeps its own.
  CompiledModel(Model model, const Device& device, const CompileOptions& options = {});
  // It points into itself (the layer facts into its model): built in place.
  CompiledModel(const CompiledModel&) = delete;
  CompiledModel& operator=(const CompiledModel&) = delete;

  // Members in the order they are built (each may read those above it).
  const Model model;  // as the caller's was when compiled
  const Calibration calibration;
  const Device device;  // with the calibration's bandwidth scales
  const OptimizerSwap swap;
  const TrainerSettings settings;
  // The trainer's overheads plus the calibration's, per layer and per step
  // (per micro-batch, forward + backward), and the trainer's per local expert.
  const double layer_s, step_s, moe_expert_s;
  const LayerFacts layers;  // of `model`
  // The model's training settings with its routing table in place (what
  // sdk::routed_rank_load reads; Model::view() sets it only when called).
  const nds_training routing;
  // What the model makes the estimates assume, in words, in the order the
  // outputs list them: the MoE layers' dispatch and routing, selective
  // recompute's ops, the optimizer swap, the towers, the calibration.
  const std::vector<std::string> assumptions;
};

}  // namespace ndsearch

// SPDX-License-Identifier: Apache-2.0
#include "core/compile/compiled_model.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>  // Setting: the settings the assumptions name
#include <ndsearch/sdk/model_math.hpp>

#include <utility>

#include "core/model/model_json.hpp"  // training_source
#include "core/model/towers.hpp"

namespace ndsearch {
namespace {

// What the estimates assume of an MoE model's layers, in words: how tokens
// reach their experts, the routing, and what routing-shaped layers cost.
std::string moe_assumptions(const Model& model) {
  const nds_layer_block& l = *model.first_moe();
  const std::string from = training_source(model, "moe_dispatcher", "");
  const char* how =
      model.training.moe_dispatcher == NDS_MOE_DISPATCH_ALLGATHER
          ? "every token all-gathered over the EP group and the outputs reduce-scattered back"
      : model.training.moe_dispatcher == NDS_MOE_DISPATCH_NODE_DEDUP
          ? "one copy of a token per other node its experts sit on over the network, forwarded "
            "inside the node (DeepEP, HybridEP)"
          : "an all-to-all of every routed copy over the EP group";
  const std::string drop =
      l.capacity_factor > 0
          ? fmt::format("each expert takes at most {:.2f}x an even share ({})", l.capacity_factor,
                        l.moe_padded == 1 ? "padded to it: static shapes, no host wait"
                                          : "tokens beyond it dropped")
          : std::string(
                "dropless: each expert takes what is routed to it, the layer's shapes "
                "following the routing");
  const std::string routing =
      model.routing_words.empty()
          ? fmt::format(
                "balanced routing, every expert an even share (what force-balanced "
                "benchmarks run; {} prices a skew)",
                Setting("routing").named())
          : model.routing_words;
  return fmt::format("MoE layers: tokens reach their experts by {} ({}); {}; {}", how,
                     from.empty() ? std::string("not stated: Megatron-Core's default") : from, drop,
                     routing);
}

// Selective recompute's ops as the config states them.
std::string selective_assumption(const Model& model, uint64_t ops) {
  const bool flag =
      training_source(model, "recompute_ops", "").rfind(Setting("recompute_modules").named(), 0) ==
      0;
  return fmt::format("selective recompute, as {} states its ops, drops and runs again: {}",
                     flag ? Setting("recompute_modules").named() : "the config",
                     recompute_ops_words(ops));
}

// The optimizer swap's assumption: what the host keeps and the link copies.
std::string swap_assumption(const Model& model, const OptimizerSwap& swap) {
  return fmt::format(
      "{}: optimizer states and master weights live in host memory, and each step copies "
      "the device's shard in and out over a host link of {:.1f} GB/s per direction, in {} "
      "pieces pipelined with the update (both directions at once, as MindSpeed's swap "
      "optimizer issues them); nothing else hides them",
      model.training.swap_optimizer == 1
          ? "optimizer swapping (" + training_source(model, "swap_optimizer", "the config") + ")"
          : Setting("swap-optimizer").named(),
      swap.link_bytes_per_s / 1e9, swap.chunks);
}

// A vision tower's assumption: its image tokens, its parallelism and its split.
std::string tower_assumption(const Model& model, const ModelPart& tower) {
  const sdk::TowerTokens k = tower_tokens(model, tower);
  return fmt::format(
      "the {} tower: {} image tokens per sequence ({} patches, {} per image), its layers at the "
      "language model's TP and SP and whole on each CP rank (images are not split by CP), with "
      "the embedding on rank 0's first chunk, which keeps one layer of its own; the default "
      "split "
      "counts the tower as the {:.2f} language-model layers its work is worth, times cp, "
      "rounded; "
      "recomputed as the strategy says",
      tower.name, k.merged, k.patches, k.patches_per_image, model.tower_layer_ratio);
}

// The model's assumptions in the order the outputs list them (`device` uncalibrated).
std::vector<std::string> model_assumptions(const CompiledModel& c, const Device& device) {
  const Model& model = c.model;
  std::vector<std::string> lines;
  if (model.first_moe() != nullptr) lines.push_back(moe_assumptions(model));
  if (model.training.recompute_ops != 0)
    lines.push_back(selective_assumption(model, c.layers.selective_ops));
  if (c.swap.link_bytes_per_s > 0) lines.push_back(swap_assumption(model, c.swap));
  for (const ModelPart& tower : model.submodels) lines.push_back(tower_assumption(model, tower));
  if (!c.calibration.is_identity())
    lines.push_back("calibration on top of the trainer overheads: " +
                    calibration_summary(c.calibration, device));
  return lines;
}

nds_training with_routing(const Model& model) {
  nds_training routing = model.training;
  routing.expert_rank_load =
      model.expert_rank_load.empty() ? nullptr : model.expert_rank_load.data();
  routing.expert_rank_load_count = model.expert_rank_load.size();
  return routing;
}

}  // namespace

CompiledModel::CompiledModel(Model model_in, const Device& device_in, const CompileOptions& options)
    : model(std::move(model_in)),
      calibration(options.calibration),
      device(calibrated_device(device_in, options.calibration)),
      swap(options.swap),
      settings(trainer_settings(model, device_in, options.overheads)),
      layer_s(settings.overheads.layer_s + calibration.layer_s),
      step_s(settings.overheads.step_s + calibration.step_s),
      moe_expert_s(settings.overheads.moe_expert_s),
      layers(layer_facts(model)),
      routing(with_routing(model)),
      assumptions(model_assumptions(*this, device_in)) {}

}  // namespace ndsearch

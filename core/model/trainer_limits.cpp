// SPDX-License-Identifier: Apache-2.0
#include "core/model/trainer_limits.hpp"

#include <fmt/format.h>

#include <vector>

#include <ndsearch/core/settings.hpp>

#include "core/model/model_json.hpp"  // recompute_name

namespace ndsearch {
namespace {

constexpr uint64_t kEveryCapability =
    NDS_CAN_SP_WITH_CP | NDS_CAN_INTERLEAVE | NDS_CAN_ZERO3 | NDS_CAN_EXPERT_TP;

// A limit in words, when its bit says the trainer lacks it.
struct Limit {
  uint64_t bit;
  bool limits_when_set;  // NEEDS_/NO_ bits limit when set, CAN_ bits when clear
  const char* words;
};
constexpr Limit kLimits[] = {
    {NDS_NO_ZERO1, true, "no ZeRO-1"},
    {NDS_NO_ZERO2, true, "no ZeRO-2"},
    {NDS_CAN_ZERO3, false, "no ZeRO-3"},
    {NDS_CAN_SP_WITH_CP, false, "no SP with CP"},
    {NDS_NEEDS_SP_WITH_TP, true, "TP with SP only"},
    {NDS_NEEDS_POW2_TP, true, "tp a power of two"},
    {NDS_CAN_INTERLEAVE, false, "no interleaved pipeline"},
    {NDS_CAN_EXPERT_TP, false, "no expert TP"},
    {NDS_NO_GPIPE, true, "no GPipe"},
    {NDS_NO_ZB_V, true, "no ZB-V"},
    {NDS_NO_DUALPIPE, true, "no DualPipe"},
    {NDS_NO_DUALPIPE_V, true, "no DualPipe-V"},
    {NDS_NO_CP_WITH_WINDOW, true, "no CP with a sliding window"},
};

}  // namespace

void lift_trainer_limits(Model& model) {
  model.training.capabilities = kEveryCapability;
  model.trainer_limits_lifted = true;
}

std::string trainer_limits_text(const Model& model) {
  if (model.trainer_limits_lifted)
    return fmt::format("trainer limits: lifted by {}: strategies {} may not run are ranked too",
                       Setting("any_trainer").named(), model.framework);
  std::vector<std::string> limits;
  for (const Limit& l : kLimits)
    if (((model.training.capabilities & l.bit) != 0) == l.limits_when_set)
      limits.emplace_back(l.words);
  if (limits.empty())
    return fmt::format(
        "trainer limits: none ({} states none: a Hugging Face config names no "
        "trainer): the whole space is searched",
        model.framework);
  // The parser's trainer description (docs/trainers.md) where it states one.
  const std::string trainer = described_trainer(model);
  const std::string described =
      !trainer.empty() ? fmt::format("{}, as {} reads the config", trainer, model.framework)
                       : model.framework + "'s";
  return fmt::format("trainer limits: {} ({}); {} lifts them", described, fmt::join(limits, ", "),
                     Setting("any_trainer").named());
}

std::string recompute_default_text(const Model& model, bool recompute_searched,
                                   const std::string& chooser) {
  const nds_strategy& stated = model.stated;
  if (!chooser.empty())
    return fmt::format(
        "recompute: chosen per layer by the {} recompute strategy (kept, selective or full{}); "
        "the config's recompute setting is not used",
        chooser, chooser == "offload" ? ", or offloaded" : "");
  const char* mode = recompute_name(static_cast<nds_recompute_mode>(stated.recompute));
  const std::string counts =
      !stated_counts_partial(model)
          ? std::string()
          : fmt::format(
                "the config's per-stage counts [{}] of {} recompute, rescaled to each "
                "candidate's pp (the reference's -mppb; its own default recomputes every "
                "layer, as recompute=full does)",
                fmt::join(model.recompute_layers, ","), mode ? mode : "?");
  if (recompute_searched)
    return counts.empty() ? "recompute: searched (none, selective, full: every layer of the mode)"
                          : "recompute: searched; in the config's mode, " + counts;
  if (!counts.empty()) return "recompute: " + counts;
  if (stated.recompute == NDS_UNKNOWN) return "recompute: none (the config states none)";
  return fmt::format("recompute: {} on every layer (the config's)", mode ? mode : "?");
}

}  // namespace ndsearch

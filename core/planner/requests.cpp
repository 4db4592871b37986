// SPDX-License-Identifier: Apache-2.0
#include "core/planner/requests.hpp"

#include <fmt/format.h>

#include "core/price/recompute/recompute_settings.hpp"
#include "core/search/space_shortcuts.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {

ParseOptions parse_options(const ModelSettings& m) {
  ParseOptions options;
  options.framework = m.framework;
  options.strict = m.strict;
  options.any_trainer = m.any_trainer;
  options.overrides = {m.seq_len,
                       m.global_batch,
                       m.micro_batch_size,
                       m.vocab_size,
                       m.image_tokens,
                       m.images_per_sample,
                       m.dtype,
                       m.fp8_recipe,
                       m.overlap,
                       m.recompute_modules,
                       m.routing};
  options.model_config = m.model_config;
  return options;
}

bool swaps_optimizer(const PluginOptions& options) {
  const auto it = options.find("swap-optimizer");
  return it != options.end() && it->second == "1";
}

EvaluationRequest evaluation_request(const EvaluateSettings& e,
                                     const std::optional<AppliedCalibration>& calibration,
                                     bool swap_optimizer) {
  EvaluationRequest request;
  request.strategy = with_recompute_mode(e.strategy, e.recompute_mode);
  request.devices = e.devices;
  request.max_memory = e.max_memory;
  request.reserve_mem = e.reserve_mem;
  request.layers_from_config = e.layers_from_config;
  request.cp_algorithm = e.cp_algo;
  request.calibration = calibration_factors_of(calibration);
  request.recompute = recompute_settings_of(e.recompute, swap_optimizer);
  return request;
}

SearchSpaceRequest space_request(const SpaceSettings& s) {
  return {s.dimensions, with_space_shortcuts(s.only, s.recompute_modes, s.schedules), s.threads};
}

std::optional<UserError> refusal_error(const StrategyEvaluation& e) {
  if (e.valid()) return std::nullopt;
  return UserError("E-STRATEGY-REFUSED", fmt::format("{}: [{}] {}", strategy_text(e.strategy),
                                                     e.refusal->id, e.refusal->reason));
}

}  // namespace ndsearch

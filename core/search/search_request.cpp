// SPDX-License-Identifier: Apache-2.0
#include "core/search/search_request.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <thread>

#include "core/input/fast_tuner_setup.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/pricing_values.hpp"
#include "core/price/memory/budget.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

uint64_t search_device_count(Model& model, uint64_t requested) {
  if (const uint64_t devices = run_devices(model, requested); devices != 0) return devices;
  const uint64_t devices = stated_devices(model);
  if (devices == 0)
    require_pricing_values(model,
                           {.devices_missing = true,
                            .global_batch_missing = model.training.global_batch == NDS_UNKNOWN,
                            .why = {}});
  // The search refuses a count beyond its limit (E-DEVICE-COUNT).
  check_device_count(devices,
                     fmt::format("dp·tp·pp·cp as {} states them = {}", model.file, devices));
  return devices;
}

SearchOptions search_options(Model& model, const Machine& machine, const SearchRequest& request) {
  SearchOptions options;
  options.space.devices = machine.devices;
  options.space.global_batch = model.training.global_batch;
  options.space.pipeline_bound = machine.pipeline_bound();
  const SearchSpaceRequest& space = request.space;
  const std::string dimensions = run_dimensions(model, space.dimensions);
  options.space.searched =
      dimensions.empty() ? default_dimensions() : SearchSpace::parse_dimensions(dimensions);
  options.space.max_ep = model.setup.max_ep;
  options.space.only = SearchSpace::parse_only(space.only);
  options.budget = memory_budget(*machine.device, model, request.max_memory, request.reserve_mem);
  check_budget_holds_weights(options.budget, model, machine.devices);
  options.cp_algorithm = request.cp_algorithm;
  options.calibration = calibration_factors_of(request.calibration);
  options.recompute = request.recompute;
  options.balance_layers = request.balance_layers;
  options.threads =
      space.threads != 0 ? space.threads : std::max(1u, std::thread::hardware_concurrency());
  return options;
}

}  // namespace ndsearch

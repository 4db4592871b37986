// SPDX-License-Identifier: Apache-2.0
// search_request.hpp: a search as a host asks for it (the dimensions, the
// restrictions, the budget's sizes as the user wrote them) and the
// SearchOptions run_search takes, derived from it for a model and machine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/price/calibration_file.hpp"
#include "core/search/search.hpp"

namespace ndsearch {

// The shape of the space, shared by search and explain.
struct SearchSpaceRequest {
  std::string dimensions;         // "DP TP PP MBS"; empty: default_dimensions()
  std::vector<std::string> only;  // "tp=2,4,8" each
  unsigned threads = 0;           // 0: every core
};

struct SearchRequest {
  uint64_t devices = 0;  // 0: what the config's strategy states (search_device_count)
  SearchSpaceRequest space;
  std::optional<std::string> max_memory, reserve_mem;  // sizes as written ("58GB"), memory_budget
  std::string cp_algorithm;                            // empty: the config's, else ring
  std::optional<AppliedCalibration> calibration;       // load_calibration's; none: identity
  RecomputeSettings recompute;                         // a per-layer strategy; empty: uniform modes
  bool balance_layers = false;                         // SearchOptions::balance_layers
};

// `requested`, else a fast-tuner setup's device count, else dp·tp·pp·cp as
// the config states them (a setting that replaces the setup's count says so
// in the model's warnings). Throws UserError E-MISSING-VALUES when none
// states a device count (listing every other value pricing lacks too),
// E-DEVICE-COUNT beyond the limit.
uint64_t search_device_count(Model& model, uint64_t requested);

// The search of `model` on `machine` the request describes, its budget from
// the request's sizes; keep and closest_misses are left at their defaults.
// Dimensions not requested are a fast-tuner setup's (a request that replaces
// them says so in the model's warnings), and its EP bound applies.
SearchOptions search_options(Model& model, const Machine& machine, const SearchRequest& request);

}  // namespace ndsearch

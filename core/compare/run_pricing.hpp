// SPDX-License-Identifier: Apache-2.0
// run_pricing.hpp: one measured run priced as `eval` prices a strategy
// (evaluate_strategy), with the run's own device count, global batch and
// sequence length where its row gives them; shared by `compare` and by its
// fit, which prices the same runs again under trial calibrations.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "core/compare/compare_runs.hpp"

namespace ndsearch {

// The config read once per distinct (global batch, sequence length) the runs
// ask for; the command line's pair is read first, so its errors stop the verb.
class ModelCache {
 public:
  ModelCache(const PluginRegistry& registry, const CompareRequest& request);
  Model& at(std::optional<int64_t> global_batch, std::optional<int64_t> seq_len);
  Model& defaults() { return at(std::nullopt, std::nullopt); }

 private:
  const PluginRegistry& registry_;
  const CompareRequest& request_;
  std::map<std::pair<std::optional<int64_t>, std::optional<int64_t>>, Model> models_;
};

// What pricing one run needs, to price it again with another calibration.
struct RunPricing {
  Model* model = nullptr;  // in the cache
  Machine machine;
  EvaluationRequest request;  // the run's strategy and device count
};

// The run's pricing inputs (throws what the run's settings throw).
RunPricing run_pricing(const DeviceCatalog& catalog, const CompareRequest& request,
                       ModelCache& models, const MeasuredRun& run);

}  // namespace ndsearch
